package modeldir

import (
	"errors"
	"io/fs"
	"log/slog"
	"math"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// kernelRows are the rows the kernel tests train on and predict: two
// classes of two features, separable by an RBF kernel.
var kernelRows = []struct {
	label float64
	x     []float32
}{
	{1, []float32{0, 0}}, {1, []float32{0.2, 0.1}}, {1, []float32{0.1, 0.3}},
	{-1, []float32{1, 1}}, {-1, []float32{0.9, 1.2}}, {-1, []float32{1.3, 0.8}},
}

// testKernelModel trains a C-SVC RBF model on kernelRows.
func testKernelModel(t *testing.T) *core.KernelModel {
	t.Helper()
	ds := data.NewDense(len(kernelRows), 2)
	for _, r := range kernelRows {
		if err := ds.AppendDense(r.label, r.x); err != nil {
			t.Fatal(err)
		}
	}
	p := core.DefaultKernelParams()
	p.Kernel = core.Kernel{Type: core.RBFKernel, Gamma: 1}
	p.C = 10
	m, _, err := core.TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// samePredictions checks that got predicts what want does, bit for bit,
// on the training rows and a few others.
func samePredictions(t *testing.T, got, want *core.KernelModel) {
	t.Helper()
	rows := [][]float32{{0.5, 0.5}, {2, -1}, {-3, 0.25}}
	for _, r := range kernelRows {
		rows = append(rows, r.x)
	}
	dg, dw := make([]float64, 1), make([]float64, 1)
	for _, x := range rows {
		g, w := got.DecisionDense(dg, x)[0], want.DecisionDense(dw, x)[0]
		if math.Float64bits(g) != math.Float64bits(w) || got.PredictDense(x) != want.PredictDense(x) {
			t.Fatalf("row %v: decision %v, label %v; published model gives %v, %v", x, g, got.PredictDense(x), w, want.PredictDense(x))
		}
	}
}

// TestPublishKernelAndWatch: kernel and linear versions published in turn
// are each served, in the field of their kind, by a watcher with default
// options; the kernel model predicts as the one published.
func TestPublishKernelAndWatch(t *testing.T) {
	dir := t.TempDir()
	km := testKernelModel(t)
	if v, err := Publish(dir, testModel(1)); err != nil || v != 1 {
		t.Fatalf("Publish = %d, %v", v, err)
	}
	w, err := Watch(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitVersion(t, w, 1, 1)
	if l := w.Current(); kerOf(l) != nil {
		t.Fatal("a linear version has a kernel model")
	}

	if v, err := Publish(dir, km); err != nil || v != 2 {
		t.Fatalf("PublishKernel = %d, %v", v, err)
	}
	if km.Created != 0 {
		t.Errorf("PublishKernel stamped the caller's model: Created = %d", km.Created)
	}
	waitFor(t, "kernel version 2", func() bool { l := w.Current(); return l != nil && l.Version == 2 })
	l := w.Current()
	if linOf(l) != nil || kerOf(l) == nil {
		t.Fatalf("version 2: Model %v, Kernel %v; want only Kernel", linOf(l), kerOf(l))
	}
	if l.Path != filepath.Join(dir, FileName(2)) {
		t.Errorf("version 2 has Path %q", l.Path)
	}
	if kerOf(l).Created == 0 {
		t.Error("the published kernel model records no creation time")
	}
	samePredictions(t, kerOf(l), km)

	if v, err := Publish(dir, testModel(3)); err != nil || v != 3 {
		t.Fatalf("Publish = %d, %v", v, err)
	}
	waitVersion(t, w, 3, 3)
	if l := w.Current(); kerOf(l) != nil {
		t.Fatal("linear version 3 has a kernel model")
	}
}

// TestWatchLinearOnlySkipsKernel: a watcher made for linear models
// (Options.LinearOnly) logs a kernel version as one that failed to load and
// keeps serving the linear one, so Loaded.Model is never nil for its
// callers; the next linear version is served.
func TestWatchLinearOnlySkipsKernel(t *testing.T) {
	dir := t.TempDir()
	if _, err := Publish(dir, testModel(1)); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	w, err := Watch(dir, Options{Logger: slog.New(rec), LinearOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitVersion(t, w, 1, 1)
	if v, err := Publish(dir, testKernelModel(t)); err != nil || v != 2 {
		t.Fatalf("PublishKernel = %d, %v", v, err)
	}
	waitFor(t, "kernel version 2 to be skipped", func() bool { return rec.count(msgSkipped, 2) > 0 })
	if l := w.Current(); l.Version != 1 || linOf(l) == nil {
		t.Fatalf("serving version %d (Model %v) after a kernel version, want linear version 1", l.Version, linOf(l))
	}
	if v, err := Publish(dir, testModel(3)); err != nil || v != 3 {
		t.Fatalf("Publish = %d, %v", v, err)
	}
	waitVersion(t, w, 3, 3)
}

// TestLoadAndDecodeBothKinds: Load and Decode return each kind in its
// field, and refuse what modelfile refuses, with its sentinels.
func TestLoadAndDecodeBothKinds(t *testing.T) {
	dir := t.TempDir()
	km := testKernelModel(t)
	kp := filepath.Join(dir, "k.svmgo")
	if err := modelfile.WriteFile(kp, km); err != nil {
		t.Fatal(err)
	}
	lp := filepath.Join(dir, "l.svmgo")
	if err := modelfile.WriteFile(lp, testModel(7)); err != nil {
		t.Fatal(err)
	}
	l, err := loadLoaded(kp)
	if err != nil || kerOf(l) == nil || linOf(l) != nil || l.Path != kp {
		t.Fatalf("loadLoaded(kernel file) = %+v, %v", l, err)
	}
	samePredictions(t, kerOf(l), km)
	l, err = loadLoaded(lp)
	if err != nil || linOf(l) == nil || kerOf(l) != nil || linOf(l).W[0] != 7 {
		t.Fatalf("loadLoaded(linear file) = %+v, %v", l, err)
	}
	b, err := modelfile.MarshalKernel(km)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 1
	if _, err := modelfile.Decode(b); !errors.Is(err, modelfile.ErrChecksum) {
		t.Errorf("modelfile.Decode(damaged kernel file) = %v, want ErrChecksum", err)
	}
	if _, err := loadLoaded(filepath.Join(dir, "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("loadLoaded(missing file) = %v, want fs.ErrNotExist", err)
	}
}
