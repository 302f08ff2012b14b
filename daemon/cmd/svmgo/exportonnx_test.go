package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportImportONNX: svmgo export --format onnx writes a graph (with
// its caveats on stderr) that svmgo predict serves directly and svmgo
// import converts, both predicting as the model exported; export of the
// imported model gives the same bytes; a quantized model is refused with
// the reason, and import of a graph with another operator names it.
func TestExportImportONNX(t *testing.T) {
	dir := t.TempDir()
	test := dataDir + "heart_scale"
	for _, c := range []struct {
		name string
		opts []string
	}{
		{"kernel", []string{"train", "-q", "-b", "1"}},
		{"linear", []string{"train-linear", "-q", "-s", "0", "-B", "1"}},
		{"scaled", []string{"train", "-q", "--scale", "-t", "1", "-d", "2"}},
	} {
		model := filepath.Join(dir, c.name+".svmgo")
		if code, _, errs := svmgo(t, append(append([]string{}, c.opts...), test, model)...); code != 0 {
			t.Fatalf("%s: %s", c.name, errs)
		}
		graph := filepath.Join(dir, c.name+".onnx")
		code, _, errs := svmgo(t, "export", "--format", "onnx", model, graph)
		if code != 0 || !strings.Contains(errs, "note: ONNX-ML attributes are float32") {
			t.Fatalf("export %s: exit %d, %q", c.name, code, errs)
		}
		imported := filepath.Join(dir, c.name+"-imported.svmgo")
		if code, _, errs := svmgo(t, "import", graph, imported); code != 0 {
			t.Fatalf("import %s: %s", c.name, errs)
		}
		var preds [3][]byte
		for k, m := range []string{model, graph, imported} {
			out := filepath.Join(dir, c.name+".pred")
			if code, _, errs := svmgo(t, "predict", "-q", test, m, out); code != 0 {
				t.Fatalf("predict %s: %s", m, errs)
			}
			preds[k], _ = os.ReadFile(out)
		}
		if !bytes.Equal(preds[0], preds[1]) || !bytes.Equal(preds[1], preds[2]) {
			t.Errorf("%s: predictions of the model, its .onnx and its import differ", c.name)
		}
		again := filepath.Join(dir, c.name+"-again.onnx")
		if code, _, errs := svmgo(t, "export", "--format", "onnx", imported, again); code != 0 {
			t.Fatalf("export again %s: %s", c.name, errs)
		}
		a, _ := os.ReadFile(graph)
		b, _ := os.ReadFile(again)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: export → import → export differs (%d, %d bytes)", c.name, len(a), len(b))
		}
	}
	q := filepath.Join(dir, "q.svmgo")
	if code, _, errs := svmgo(t, "quantize", "--no-timing", filepath.Join(dir, "kernel.svmgo"), q); code != 0 {
		t.Fatalf("quantize: %s", errs)
	}
	if code, _, errs := svmgo(t, "export", "--format", "onnx", q, filepath.Join(dir, "q.onnx")); code != 1 || !strings.Contains(errs, "export its float model") {
		t.Errorf("ONNX export of a quantized model: exit %d, %q", code, errs)
	}
	g, _ := os.ReadFile(filepath.Join(dir, "kernel.onnx"))
	bad := filepath.Join(dir, "bad.onnx")
	if err := os.WriteFile(bad, bytes.ReplaceAll(g, []byte("SVMClassifier"), []byte("TreeEnsemble1")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := svmgo(t, "import", bad, filepath.Join(dir, "bad.svmgo")); code != 1 || !strings.Contains(errs, "operator TreeEnsemble1") {
		t.Errorf("import of an unsupported graph: exit %d, %q", code, errs)
	}
}
