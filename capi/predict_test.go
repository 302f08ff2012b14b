package main

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// trainFile trains a model on a core/testdata file.
func trainFile(t testing.TB, name string, p core.LinearParams) *core.LinearModel {
	t.Helper()
	ds, err := core.ReadFile(filepath.Join("../core/testdata", name), core.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := core.TrainLinear(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wideModel is a classifier of more classes than stackDecisions, so that
// its labels need the pooled buffer.
func wideModel(rng *rand.Rand, classes, nf int) *core.LinearModel {
	m := &core.LinearModel{Solver: core.L2LossSVCDual, NumFeatures: nf, Bias: 1}
	for k := range classes {
		m.Labels = append(m.Labels, int32(100+k))
	}
	m.W = make([]float32, (nf+1)*classes)
	for i := range m.W {
		m.W[i] = float32(rng.NormFloat64())
	}
	return m
}

// predictModels are the model shapes the predict paths handle differently:
// one decision value (binary, regression), several on the stack, several
// in the pool.
func predictModels(t testing.TB) map[string]*core.LinearModel {
	bias := core.DefaultLinearParams()
	bias.Bias = 1
	svr := bias
	svr.Solver = core.L2LossSVRDual
	return map[string]*core.LinearModel{
		"binary":     trainFile(t, "heart_scale", bias),
		"multiclass": trainFile(t, "digits.train", bias),
		"regression": trainFile(t, "diabetes.train", svr),
		"wide":       wideModel(rand.New(rand.NewPCG(1, 1)), stackDecisions+6, 20),
	}
}

// randomRows returns rows dense rows of nf values, about half zero, and
// the same rows as CSR.
func randomRows(rng *rand.Rand, rows, nf int) (x []float32, indptr []int64, indices []int32, values []float32) {
	indptr = []int64{0}
	for range rows {
		for j := range nf {
			var v float32
			if rng.IntN(2) == 0 {
				v = float32(rng.NormFloat64())
				indices = append(indices, int32(j))
				values = append(values, v)
			}
			x = append(x, v)
		}
		indptr = append(indptr, int64(len(indices)))
	}
	return x, indptr, indices, values
}

func to64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = float64(f)
	}
	return out
}

// TestPredictAllocs: every predict path allocates nothing per call, the
// handle lookup included.
func TestPredictAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for name, m := range predictModels(t) {
		const rows = 8
		nf := m.NumFeatures
		x, indptr, indices, values := randomRows(rng, rows, nf)
		x64, values64 := to64(x), to64(values)
		dst := make([]float64, rows*m.NumDecisionValues())
		id := newHandle(&modelHandle{fixed: m})
		for _, output := range []int{outputLabel, outputDecisionValues} {
			calls := map[string]func() error{
				"dense_f32": func() error { return predictDenseF32(m, output, dst, x, rows, nf) },
				"dense_f64": func() error { return predictDenseF64(m, output, dst, x64, rows, nf) },
				"csr_f32":   func() error { return predictCSRF32(m, output, dst, indptr, indices, values, rows) },
				"csr_f64":   func() error { return predictCSRF64(m, output, dst, indptr, indices, values64, rows) },
				"lookup": func() error {
					h, err := lookupModel(id)
					if err != nil {
						return err
					}
					_, _, err = h.current()
					return err
				},
			}
			for call, f := range calls {
				if err := f(); err != nil {
					t.Fatalf("%s %s output %d: %v", name, call, output, err)
				}
				if a := testing.AllocsPerRun(100, func() { f() }); a != 0 {
					t.Errorf("%s %s output %d: %v allocations a call", name, call, output, a)
				}
			}
		}
		if err := freeModel(id); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWatchedLookupAllocs: a watched handle's lookup, one atomic load of
// the watcher's model, allocates nothing either.
func TestWatchedLookupAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	dir := t.TempDir()
	m := predictModels(t)["binary"]
	if _, err := modeldir.Publish(dir, m); err != nil {
		t.Fatal(err)
	}
	h, err := watch(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := newHandle(h)
	defer freeModel(id)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, v, err := h.current(); err == nil && v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not load version 1")
		}
		time.Sleep(time.Millisecond)
	}
	x := make([]float32, m.NumFeatures)
	dst := make([]float64, 1)
	a := testing.AllocsPerRun(100, func() {
		h, _ := lookupModel(id)
		wm, _, _ := h.current()
		predictDenseF32(wm, outputLabel, dst, x, 1, len(x))
	})
	if a != 0 {
		t.Errorf("watched predict: %v allocations a call", a)
	}
}

// TestPredictMatchesGoAPI: labels and decision values equal the Go API's,
// bit for bit, for every model shape (the wide one is not covered by the
// C parity test) and layout; float64 rows equal their float32 rounding.
func TestPredictMatchesGoAPI(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for name, m := range predictModels(t) {
		const rows = 25
		nf, nd := m.NumFeatures, m.NumDecisionValues()
		x, indptr, indices, values := randomRows(rng, rows, nf)
		// Doubles that are not floats: each rounds to the float in x.
		x64 := to64(x)
		for i := range x64 {
			x64[i] *= 1 + 0x1p-40
		}
		values64 := to64(values)
		for i := range values64 {
			values64[i] *= 1 + 0x1p-40
		}
		labels := make([]float64, rows)
		dec := make([]float64, rows*nd)
		check := func(layout string, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s %s: %v", name, layout, err)
			}
		}
		for _, layout := range []string{"dense_f32", "dense_f64", "csr_f32", "csr_f64"} {
			var errL, errD error
			switch layout {
			case "dense_f32":
				errL = predictDenseF32(m, outputLabel, labels, x, rows, nf)
				errD = predictDenseF32(m, outputDecisionValues, dec, x, rows, nf)
			case "dense_f64":
				errL = predictDenseF64(m, outputLabel, labels, x64, rows, nf)
				errD = predictDenseF64(m, outputDecisionValues, dec, x64, rows, nf)
			case "csr_f32":
				errL = predictCSRF32(m, outputLabel, labels, indptr, indices, values, rows)
				errD = predictCSRF32(m, outputDecisionValues, dec, indptr, indices, values, rows)
			case "csr_f64":
				errL = predictCSRF64(m, outputLabel, labels, indptr, indices, values64, rows)
				errD = predictCSRF64(m, outputDecisionValues, dec, indptr, indices, values64, rows)
			}
			check(layout, errL)
			check(layout, errD)
			sparse := strings.HasPrefix(layout, "csr")
			buf := make([]float64, nd)
			for r := range rows {
				var wantL float64
				var wantD []float64
				if sparse {
					idx, val := indices[indptr[r]:indptr[r+1]], values[indptr[r]:indptr[r+1]]
					wantL, wantD = m.PredictSparse(idx, val), m.DecisionSparse(buf, idx, val)
				} else {
					row := x[r*nf : r*nf+nf]
					wantL, wantD = m.PredictDense(row), m.DecisionDense(buf, row)
				}
				if math.Float64bits(labels[r]) != math.Float64bits(wantL) {
					t.Errorf("%s %s row %d: label %v, Go API %v", name, layout, r, labels[r], wantL)
				}
				for k, w := range wantD {
					if got := dec[r*nd+k]; math.Float64bits(got) != math.Float64bits(w) {
						t.Errorf("%s %s row %d: decision value %d is %v, Go API %v", name, layout, r, k, got, w)
					}
				}
			}
		}
	}
}

// TestPredictErrors: codes and messages of the checks made before and
// after predicting, for the shapes the C tests do not reach.
func TestPredictErrors(t *testing.T) {
	m := wideModel(rand.New(rand.NewPCG(4, 4)), 3, 4)
	x := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	dst := make([]float64, 6)
	code := func(err error) int { return statusOf(err) }
	if err := predictDenseF32(m, outputDecisionValues, dst[:5], x, 2, 4); code(err) != statusCapacity ||
		!strings.Contains(err.Error(), "dst_cap is 5, 6 values needed (2 rows × 3)") {
		t.Errorf("dst too small for decision values: %v", err)
	}
	if err := predictDenseF32(m, outputProbability, dst, x, 2, 4); code(err) != statusUnsupported {
		t.Errorf("probabilities: %v", err)
	}
	// A model that holds a NaN weight makes every row's values NaN, with
	// finite inputs: the message says where the fault is.
	m.W[5] = float32(math.NaN())
	if err := predictDenseF32(m, outputLabel, dst, x, 2, 4); code(err) != statusNotFinite ||
		!strings.Contains(err.Error(), "non-finite weight") {
		t.Errorf("NaN weight: %v", err)
	}
	if err := checkWeights(m); code(err) != statusCorrupt || !strings.Contains(err.Error(), "weight 5 is NaN") {
		t.Errorf("checkWeights with a NaN weight: %v", err)
	}
	if b, err := modelfile.Marshal(m); err == nil {
		if _, err := loadBuffer(b); code(err) != statusCorrupt {
			t.Errorf("loading a file with a NaN weight: %v, want SVMGO_E_CORRUPT", err)
		}
	}
}

// TestStatusOf: each sentinel maps to its code, however deeply wrapped,
// and an apiError's own code wins over what it wraps.
func TestStatusOf(t *testing.T) {
	_, pathErr := os.Open(filepath.Join(t.TempDir(), "missing"))
	cases := []struct {
		err  error
		want int
	}{
		{modelfile.ErrNotModel, statusCorrupt},
		{modelfile.ErrTruncated, statusCorrupt},
		{modelfile.ErrChecksum, statusCorrupt},
		{modelfile.ErrCorrupt, statusCorrupt},
		{modelfile.ErrVersion, statusVersion},
		{core.ErrFull, statusFull},
		{core.ErrLabels, statusTrain},
		{core.ErrParams, statusInvalidArgument},
		{core.ErrBadRow, statusInvalidArgument},
		{core.ErrRowPosition, statusInvalidArgument},
		{pathErr, statusIO},
		{errors.New("something new"), statusInternal},
		{errorf(statusNoModel, "x"), statusNoModel},
		{errorf(statusIO, "watch: %w", core.ErrParams), statusIO},
	}
	for _, c := range cases {
		wrapped := fmt.Errorf("a: %w", fmt.Errorf("b: %w", c.err))
		if got := statusOf(wrapped); got != c.want {
			t.Errorf("statusOf(%v) = %d, want %d", wrapped, got, c.want)
		}
	}
	if got := statusOf(nil); got != statusOK {
		t.Errorf("statusOf(nil) = %d", got)
	}
}
