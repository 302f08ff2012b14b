package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/onnx"
)

// TestCWatchServesONNX: a C client watching a model directory serves a
// model-<v>.onnx dropped in, predicting the labels the exported model
// gives; a corrupt and an unsupported ONNX file are skipped while that
// version keeps serving; svmgo_model_export_onnx of the served model
// gives the bytes of the file it came from (an exported model imported
// exports to the same bytes).
func TestCWatchServesONNX(t *testing.T) {
	exe := compileC(t, "onnx_watch", false)
	ds, err := data.ReadFile("../core/testdata/heart_scale", data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := core.DefaultKernelParams()
	km, _, err := core.TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	lin, err := core.TrainModel(ds, core.TrainParams{Family: core.LinearFamily, Linear: linear.DefaultLinearParams()})
	if err != nil {
		t.Fatal(err)
	}
	good, err := onnx.Encode(km)
	if err != nil {
		t.Fatal(err)
	}
	work, dir := t.TempDir(), t.TempDir()
	if err := modelfile.WriteFile(filepath.Join(dir, "model-1.svmgo"), lin); err != nil {
		t.Fatal(err)
	}
	file := func(name string, b []byte) string {
		path := filepath.Join(work, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	nf := km.NumFeatures
	x := make([]float32, ds.Len()*nf)
	for i := range ds.Len() {
		copy(x[i*nf:(i+1)*nf], ds.DenseRow(i)) // heart_scale is read dense
	}
	writeRaw(t, filepath.Join(work, "rows.f32"), x)
	labels, exported := filepath.Join(work, "labels.f64"), filepath.Join(work, "export.onnx")
	out := runC(t, exe, dir, file("good.onnx", good), file("corrupt.onnx", good[:len(good)/3]),
		file("unsupported.onnx", bytes.ReplaceAll(good, []byte("SVMClassifier"), []byte("SVMClassifiex"))),
		filepath.Join(work, "rows.f32"), strconv.Itoa(ds.Len()), strconv.Itoa(nf), labels, exported)
	t.Log(out)
	got := readFloat64s(t, labels)
	for i := range ds.Len() {
		if want := km.PredictDense(x[i*nf : (i+1)*nf]); got[i] != want {
			t.Fatalf("row %d: the C client's label %g, the exported model's %g", i, got[i], want)
		}
	}
	b, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, good) {
		t.Fatalf("svmgo_model_export_onnx gives %d bytes, not the %d of the file served", len(b), len(good))
	}
}
