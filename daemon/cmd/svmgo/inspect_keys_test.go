package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// TestInspectKnowsEveryKey: inspect names every key of every kind's body
// from the body's schema (modelfile.Schema), so no file of any kind shows
// a key "unknown to this reader": the float kinds, dense and sparse (an
// L1-regularized linear model stores its weights sparse, wi and wx), with
// and without a scaling and probabilities, and each quantized at 8 and 16
// bits (the L1 model's codes sparse too).
func TestInspectKnowsEveryKey(t *testing.T) {
	for _, kind := range modelfile.Kinds() {
		keys, _ := modelfile.Schema(kind)
		if len(keys) == 0 || keys[0].Name != "k" {
			t.Errorf("%s: schema %v does not start with the kind key", kind, keys)
		}
		for _, k := range keys {
			if k.Doc == "" {
				t.Errorf("%s: body key %q has no doc tag", kind, k.Name)
			}
		}
	}
	dir := t.TempDir()
	trains := [][]string{
		{"train-linear", "-q", "-s", "2", "-B", "1", dataDir + "heart_scale"},
		{"train-linear", "-q", "-s", "5", "-c", "0.05", dataDir + "digits.train"},
		{"train-linear", "-q", "-s", "0", "-b", "1", "--scale", dataDir + "heart_scale"},
		{"train", "-q", "-t", "2", "-b", "1", dataDir + "heart_scale"},
		{"train", "-q", "-s", "3", "--scale", dataDir + "heart_scale"},
	}
	seen := map[string]bool{}
	for i, args := range trains {
		float := filepath.Join(dir, "m"+string(rune('a'+i)))
		for _, bits := range []int{8, 16} {
			_, q := quantizeFile(t, bits, append(args, float)...)
			for _, path := range []string{float, q} {
				code, out, errs := svmgo(t, "inspect", "-v", path)
				if code != 0 {
					t.Fatalf("inspect %s (%v): exit %d: %s", path, args, code, errs)
				}
				r := parseReport(t, out)
				kind := r.value(t, "", "kind")
				seen[kind] = true
				if strings.Contains(out, "unknown to this reader") {
					t.Errorf("inspect of a %s model (%v, int%d) shows an unknown key:\n%s", kind, args, bits, out)
				}
				if kind == modelfile.KindQLinear && args[3] == "5" && !strings.Contains(out, "sparse weight code indices") {
					t.Errorf("a quantized -s 5 model's codes are not stored sparse:\n%s", out)
				}
			}
		}
	}
	for _, kind := range []string{modelfile.KindLinear, modelfile.KindKernel, modelfile.KindQLinear, modelfile.KindQKernel} {
		if !seen[kind] {
			t.Errorf("no %s model inspected", kind)
		}
	}
}
