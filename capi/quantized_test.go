package main

import (
	"bytes"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// TestQuantizedProperties: a quantized model reports the kind, features,
// classes, decision values, labels and probability support of the float
// model it was made from, and its code width as SVMGO_MODEL_QUANTIZED (the
// float model 0).
func TestQuantizedProperties(t *testing.T) {
	ms := predictModels(t)
	n := 0
	for name, q := range ms {
		floatName, ok := strings.CutPrefix(name, "q8_")
		bits := 8
		if !ok {
			if floatName, ok = strings.CutPrefix(name, "q16_"); !ok {
				continue
			}
			bits = 16
		}
		n++
		f := ms[floatName]
		qh, fh := &modelHandle{fixed: q}, &modelHandle{fixed: f}
		for prop := propKind; prop <= propVersion; prop++ {
			qv, err := property(qh, prop)
			if err != nil {
				t.Fatalf("%s: property %d: %v", name, prop, err)
			}
			fv, err := property(fh, prop)
			if err != nil {
				t.Fatalf("%s: property %d: %v", floatName, prop, err)
			}
			want := fv
			if prop == propQuantized {
				if fv != 0 {
					t.Errorf("%s: SVMGO_MODEL_QUANTIZED is %d for a float model", floatName, fv)
				}
				want = int64(bits)
			}
			if qv != want {
				t.Errorf("%s: property %d is %d, want %d (%s: %d)", name, prop, qv, want, floatName, fv)
			}
		}
		ql, fl := make([]int32, 100), make([]int32, 100)
		nq, err := copyLabels(q, ql)
		if err != nil {
			t.Fatal(err)
		}
		nfl, err := copyLabels(f, fl)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ql[:nq], fl[:nfl]) {
			t.Errorf("%s: labels %v, the float model's %v", name, ql[:nq], fl[:nfl])
		}
		if int64(nq) != must(property(qh, propNumClasses)) {
			t.Errorf("%s: %d labels, SVMGO_MODEL_NUM_CLASSES %d", name, nq, must(property(qh, propNumClasses)))
		}
	}
	if n < 10 {
		t.Fatalf("%d quantized models checked", n)
	}
}

func must(v int64, err error) int64 {
	if err != nil {
		panic(err)
	}
	return v
}

// TestQuantizedNotFinite: a NaN, an infinity or a double beyond float's
// range is refused with SVMGO_E_NOT_FINITE, naming row and feature, in every
// layout and output, for quantized linear models (found from the non-finite
// decision value it makes, also on the paths that skip zero features: one
// function, several, more than 64) and quantized kernel models (scanned
// first), even at a feature past the model's.
func TestQuantizedNotFinite(t *testing.T) {
	ms := predictModels(t)
	for _, name := range []string{"q8_binary", "q8_multiclass", "q16_multiclass", "q8_wide", "q8_regression",
		"q8_kernel_binary", "q8_kernel_multiclass", "q8_kernel_svr", "q8_kernel_oneclass"} {
		m := ms[name]
		nf := m.Info().NumFeatures
		dst := make([]float64, 2*max(m.Info().NumDecisionValues, len(m.Info().Labels)))
		outputs := []int{outputLabel, outputDecisionValues}
		if m.Info().Probability {
			outputs = append(outputs, outputProbability)
		}
		for _, bad := range []float64{math.Inf(-1), math.NaN(), 1e300} {
			for _, at := range []int{2, nf + 5} { // a feature of the model's, one past them
				// Row 0 is good; row 1 holds the bad value at feature at.
				x := make([]float64, 2*nf)
				for j := range x {
					x[j] = float64(j%3) - 0.5
				}
				if at < nf {
					x[nf+at] = bad
				}
				x32 := make([]float32, len(x))
				for j, v := range x {
					x32[j] = float32(v)
				}
				// The same in CSR: row 0 whole, row 1 features 0 and at.
				var indices []int32
				for j := range nf {
					indices = append(indices, int32(j))
				}
				indices = append(indices, 0, int32(at))
				values := append(slices.Clone(x[:nf]), 0.5, bad)
				indptr := []int64{0, int64(nf), int64(len(indices))}
				values32 := make([]float32, len(values))
				for k, v := range values {
					values32[k] = float32(v)
				}
				want := "row 1, feature " + strconv.Itoa(at) + " is "
				for _, output := range outputs {
					errs := map[string]error{
						"csr_f64": predictCSRF64(m, output, dst, indptr, indices, values, 2),
						"csr_f32": predictCSRF32(m, output, dst, indptr, indices, values32, 2),
					}
					if at < nf {
						errs["dense_f64"] = predictDenseF64(m, output, dst, x, 2, nf)
						errs["dense_f32"] = predictDenseF32(m, output, dst, x32, 2, nf)
					}
					for layout, err := range errs {
						if statusOf(err) != statusNotFinite || !strings.Contains(err.Error(), want) {
							t.Errorf("%s: %v at feature %d in %s, output %d: %v, want SVMGO_E_NOT_FINITE %q",
								name, bad, at, layout, output, err, want)
						}
					}
				}
			}
		}
	}
}

// TestQuantizedSavePublishWatch: save writes a quantized model back as the
// same quantized file (quantize.Marshal's bytes), load reads it back as a
// quantized predictor, publish adds it to a directory as the next version,
// and a watched handle serves it, with its width and version, predicting
// what the model predicts with no allocation per call.
func TestQuantizedSavePublishWatch(t *testing.T) {
	ms := predictModels(t)
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := os.Mkdir(models, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := modeldir.Publish(models, ms["binary"]); err != nil { // a float version 1 first
		t.Fatal(err)
	}
	for i, name := range []string{"q8_multiclass", "q16_kernel_multiclass"} {
		q := ms[name]
		path := filepath.Join(dir, name+".svmgo")
		if err := modelfile.WriteFile(path, q); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := quantize.Marshal(goAPIOf(q).(quantize.Model))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: saved %d bytes, quantize.Marshal gives %d other ones", name, len(got), len(want))
		}
		loaded, err := loadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if loaded.Info().Bits != q.Info().Bits || kindOf(loaded.Info()) != kindOf(q.Info()) {
			t.Errorf("%s: loaded as kind %d, %d bits; saved kind %d, %d bits", name, kindOf(loaded.Info()), loaded.Info().Bits, kindOf(q.Info()), q.Info().Bits)
		}

		v, err := modeldir.Publish(models, q)
		if err != nil || v != uint64(i+2) {
			t.Fatalf("%s: published as version %d, %v; want %d", name, v, err, i+2)
		}
		h, err := watch(models)
		if err != nil {
			t.Fatal(err)
		}
		id := newHandle(h)
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, cur, err := h.current(); err == nil && cur == v {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the watcher did not load version %d", name, v)
			}
			time.Sleep(time.Millisecond)
		}
		if b := must(property(h, propQuantized)); b != int64(q.Info().Bits) {
			t.Errorf("%s: the watched model has SVMGO_MODEL_QUANTIZED %d, want %d", name, b, q.Info().Bits)
		}
		nf, nd := q.Info().NumFeatures, q.Info().NumDecisionValues
		x := make([]float32, 3*nf)
		for j := range x {
			x[j] = float32(j%17) / 4
		}
		want3, got3 := make([]float64, 3*nd), make([]float64, 3*nd)
		if err := predictDenseF32(q, outputDecisionValues, want3, x, 3, nf); err != nil {
			t.Fatal(err)
		}
		call := func() error {
			h, err := lookupModel(id)
			if err != nil {
				return err
			}
			wm, _, err := h.current()
			if err != nil {
				return err
			}
			return predictDenseF32(wm, outputDecisionValues, got3, x, 3, nf)
		}
		if err := call(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got3, want3) {
			t.Errorf("%s: the watched model's decision values differ from the model's", name)
		}
		if !raceEnabled {
			if a := testing.AllocsPerRun(50, func() { call() }); a != 0 {
				t.Errorf("%s: watched quantized predict: %v allocations a call", name, a)
			}
		}
		if err := freeModel(id); err != nil {
			t.Fatal(err)
		}
	}
}
