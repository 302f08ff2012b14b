package modeldir

import (
	"bytes"
	"errors"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// quantizedModels returns int8 forms of a linear and a kernel model: the
// linear one of testModel-like weights over 4 features with distinct
// values (so that a scale and codes are exercised), the kernel one of
// testKernelModel. Their creation times are set, as a publisher sets the
// float model's before quantizing.
func quantizedModels(t *testing.T) (*quantize.Linear, *quantize.Kernel) {
	t.Helper()
	lm := testModel(1)
	lm.W = []float32{0.5, -1.25, 2, 0.125}
	lm.Created = 1700000000
	ql, err := quantize.QuantizeLinear(lm, 8)
	if err != nil {
		t.Fatal(err)
	}
	km := testKernelModel(t)
	km.Created = 1700000001
	qk, err := quantize.QuantizeKernel(km, 8)
	if err != nil {
		t.Fatal(err)
	}
	return ql, qk
}

// sameQuantized checks that got decides as want, bit for bit, on a few dense
// rows of nf features.
func sameQuantized(t *testing.T, got, want quantize.Model) {
	t.Helper()
	if got.Kind() != want.Kind() || got.Bits() != want.Bits() || got.NumFeatures() != want.NumFeatures() ||
		got.Created() != want.Created() || got.SourceCRC() != want.SourceCRC() {
		t.Fatalf("loaded %s/%d bits/%d features/created %d/crc %#x, published %s/%d/%d/%d/%#x",
			got.Kind(), got.Bits(), got.NumFeatures(), got.Created(), got.SourceCRC(),
			want.Kind(), want.Bits(), want.NumFeatures(), want.Created(), want.SourceCRC())
	}
	nf := want.NumFeatures()
	dg, dw := make([]float64, want.NumDecisionValues()), make([]float64, want.NumDecisionValues())
	for r, x := range [][]float32{{0.5, 0.5, 1, -1}, {2, -1, 0, 3}, {-3, 0.25, 0.5, 0}, {0, 0, 0, 0}} {
		x = x[:nf]
		got.DecisionDense(dg, x)
		want.DecisionDense(dw, x)
		for k := range dw {
			if math.Float64bits(dg[k]) != math.Float64bits(dw[k]) {
				t.Fatalf("row %d: decision value %d is %v, the published model's %v", r, k, dg[k], dw[k])
			}
		}
	}
}

// TestPublishQuantizedAndWatch: a float version, then an int8 linear and an
// int8 kernel version published with Publish take the next
// versions and are served by a default watcher in Quantized (Model and
// Kernel nil), deciding as the models published, with their recorded
// creation time; a LinearOnly watcher skips both and keeps the float one.
func TestPublishQuantizedAndWatch(t *testing.T) {
	dir := t.TempDir()
	ql, qk := quantizedModels(t)
	if v, err := Publish(dir, testModel(1)); err != nil || v != 1 {
		t.Fatalf("Publish = %d, %v", v, err)
	}
	w, err := Watch(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec := &recorder{}
	lw, err := Watch(dir, Options{Logger: slog.New(rec), LinearOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lw.Close()
	waitVersion(t, w, 1, 1)

	for i, q := range []quantize.Model{ql, qk} {
		want := uint64(i + 2)
		if v, err := Publish(dir, q); err != nil || v != want {
			t.Fatalf("Publish(%s) = %d, %v; want version %d", q.Kind(), v, err, want)
		}
		waitFor(t, "quantized version "+FileName(want), func() bool { l := w.Current(); return l.Version == want })
		l := w.Current()
		if linOf(l) != nil || kerOf(l) != nil || quantOf(l) == nil {
			t.Fatalf("version %d: Model %v, Kernel %v, Quantized %v; want only Quantized", want,
				linOf(l) != nil, kerOf(l) != nil, quantOf(l) != nil)
		}
		if l.Path != filepath.Join(dir, FileName(want)) {
			t.Errorf("version %d has Path %q", want, l.Path)
		}
		sameQuantized(t, quantOf(l), q)
		waitFor(t, "the LinearOnly watcher to skip "+FileName(want), func() bool { return rec.count(msgSkipped, want) > 0 })
		if l := lw.Current(); l.Version != 1 || linOf(l) == nil {
			t.Fatalf("the LinearOnly watcher serves version %d (Model %v), want float version 1", l.Version, linOf(l) != nil)
		}
	}
}

// TestLoadAndDecodeQuantized: Load and Decode return quantized files in
// Quantized, and refuse damaged ones with modelfile's sentinels, as
// quantize.Unmarshal does.
func TestLoadAndDecodeQuantized(t *testing.T) {
	dir := t.TempDir()
	ql, qk := quantizedModels(t)
	for _, q := range []quantize.Model{ql, qk} {
		path := filepath.Join(dir, q.Kind()+".svmgo")
		if err := modelfile.WriteFile(path, q); err != nil {
			t.Fatal(err)
		}
		l, err := loadLoaded(path)
		if err != nil || quantOf(l) == nil || linOf(l) != nil || kerOf(l) != nil || l.Path != path {
			t.Fatalf("loadLoaded(%s file) = %+v, %v", q.Kind(), l, err)
		}
		sameQuantized(t, quantOf(l), q)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if l, err := modelfile.Decode(b); err != nil || quantOf(&Loaded{Model: l}) == nil {
			t.Fatalf("modelfile.Decode(%s file) = %+v, %v", q.Kind(), l, err)
		}
		b[len(b)-1] ^= 1
		if _, err := modelfile.Decode(b); !errors.Is(err, modelfile.ErrChecksum) {
			t.Errorf("modelfile.Decode(damaged %s file) = %v, want ErrChecksum", q.Kind(), err)
		}
		b[len(b)-1] ^= 1
		if _, err := modelfile.Decode(b[:len(b)-3]); !errors.Is(err, modelfile.ErrTruncated) {
			t.Errorf("modelfile.Decode(truncated %s file) = %v, want ErrTruncated", q.Kind(), err)
		}
	}
	// A body the frame accepts but quantize refuses (bits 7, resealed with
	// a valid checksum) is ErrCorrupt, as quantize.Unmarshal says.
	b, err := quantize.Marshal(ql)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("\xa2qb\x08"))
	if i < 0 {
		t.Fatal("no bits field qb = 8 in the qlinear body")
	}
	b[i+3] = 7
	if err := modelfile.Seal(b, modelfile.KindQLinear); err != nil {
		t.Fatal(err)
	}
	if _, err := modelfile.Decode(b); !errors.Is(err, modelfile.ErrCorrupt) {
		t.Errorf("modelfile.Decode(qlinear with 7 bits) = %v, want ErrCorrupt", err)
	}
}

// TestPublishQuantizedRefusesNil: a nil model is an error and publishes
// nothing.
func TestPublishQuantizedRefusesNil(t *testing.T) {
	dir := t.TempDir()
	if v, err := Publish(dir, (*quantize.Linear)(nil)); err == nil {
		t.Fatalf("Publish(nil) = version %d, want an error", v)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("directory holds %v after a refused publish", got)
	}
}
