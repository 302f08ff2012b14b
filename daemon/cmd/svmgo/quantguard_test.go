package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
)

// TestQuantizeGuard: --max-loss refuses, writing nothing, a quantized
// model that loses more than allowed on the check file; needs --check;
// and the check says on how many rows the error bound proves the signs.
func TestQuantizeGuard(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.svmgo")
	if code, _, errs := svmgo(t, "train", "-q", dataDir+"digits.train", model); code != 0 {
		t.Fatal(errs)
	}
	out := filepath.Join(dir, "q.svmgo")
	if code, _, errs := svmgo(t, "quantize", "--max-loss", "0", model, out); code != 1 || !strings.Contains(errs, "needs --check") {
		t.Errorf("--max-loss without --check: exit %d, %q", code, errs)
	}
	code, stdout, errs := svmgo(t, "quantize", "--check", dataDir+"digits.test", "--max-loss", "0", model, out)
	if code != 0 || !strings.Contains(stdout, "bound guarantees               the decision signs of ") {
		t.Fatalf("digits, no loss: exit %d, %s%s", code, stdout, errs)
	}
	// A loss above the allowance: the refusal path, with the figures a
	// check measured (float 97.5%, quantized 96.9%).
	r := checkResult{float: core.Score{Correct: 351, Total: 360}, quant: core.Score{Correct: 349, Total: 360}}
	if l := r.loss(false); l < 0.55 || l > 0.56 {
		t.Errorf("loss %v accuracy points, want 0.556", l)
	}
	reg := checkResult{float: core.Score{Regression: true, MSE: 100}, quant: core.Score{Regression: true, MSE: 103}}
	if l := reg.loss(true); l != 3 {
		t.Errorf("regression loss %v%%, want 3", l)
	}
	os.Remove(out)
}
