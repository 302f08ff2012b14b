package modeldir

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/onnx"
)

// TestWatchServesONNX: an ONNX-ML file dropped in as model-<v>.onnx is
// served as version v, predicting as the model it was exported from; a
// corrupt one and one with an operator the importer refuses are skipped
// with their reason while the current version keeps serving; a later
// version of either extension is served after them.
func TestWatchServesONNX(t *testing.T) {
	dir := t.TempDir()
	if _, err := Publish(dir, testModel(1)); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	w, err := Watch(dir, Options{Logger: slog.New(rec)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitVersion(t, w, 1, 1)

	km := testKernelModel(t)
	b, err := onnx.Encode(km)
	if err != nil {
		t.Fatal(err)
	}
	drop := func(name string, data []byte) {
		t.Helper()
		// As a publisher does: a temporary name, then a rename.
		tmp := filepath.Join(dir, ".drop.tmp")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	drop("model-2.onnx", b)
	waitFor(t, "ONNX version 2", func() bool { l := w.Current(); return l != nil && l.Version == 2 })
	l := w.Current()
	if l.Path != filepath.Join(dir, "model-2.onnx") || kerOf(l) == nil {
		t.Fatalf("version 2: path %q, kernel model %v", l.Path, kerOf(l))
	}
	x := []float32{0.5, 0.5}
	if got, want := l.Model.PredictDense(x), km.PredictDense(x); got != want {
		t.Fatalf("ONNX version predicts %g, the exported model %g", got, want)
	}

	// Corrupt: the file cut short.
	drop("model-3.onnx", b[:len(b)/2])
	waitFor(t, "corrupt version 3 to be skipped", func() bool { return rec.count(msgSkipped, 3) > 0 })
	// Unsupported: the operator renamed (same length, so the protobuf
	// stays well formed).
	drop("model-4.onnx", bytes.ReplaceAll(b, []byte("SVMClassifier"), []byte("SVMClassifiex")))
	waitFor(t, "unsupported version 4 to be skipped", func() bool { return rec.count(msgSkipped, 4) > 0 })
	if l := w.Current(); l.Version != 2 {
		t.Fatalf("serving version %d after bad ONNX files, want 2", l.Version)
	}
	if s := w.LastSkip(); s == nil || s.Version != 4 || !strings.Contains(s.Err.Error(), "operator SVMClassifiex") {
		t.Fatalf("LastSkip = %+v, want version 4 naming the operator", s)
	}
	if v, err := Publish(dir, testModel(5)); err != nil || v != 5 {
		t.Fatalf("Publish after ONNX versions = %d, %v", v, err)
	}
	waitVersion(t, w, 5, 5)
}
