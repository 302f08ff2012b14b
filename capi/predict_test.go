package main

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// trainFile trains a model on a core/testdata file.
func trainFile(t testing.TB, name string, p linear.LinearParams) *linear.LinearModel {
	t.Helper()
	ds, err := data.ReadFile(filepath.Join("../core/testdata", name), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := linear.TrainLinear(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// trainKernelFile trains a kernel model on a core/testdata file with
// svm-train options.
func trainKernelFile(t testing.TB, name, opts string) *core.KernelModel {
	t.Helper()
	ds, err := data.ReadFile(filepath.Join("../core/testdata", name), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := options.ParseKernel(strings.Fields(opts))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := core.TrainKernel(ds, o.Params)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// kernelCache keeps the kernel models trained once for all the tests: the
// probability fit of digits takes a while.
var kernelCache struct {
	once   sync.Once
	models map[string]*core.KernelModel
}

// kernelModels are the kernel model kinds: binary RBF, multi-class RBF
// with probabilities, ε-SVR and one-class.
func kernelModels(t testing.TB) map[string]*core.KernelModel {
	kernelCache.once.Do(func() {
		kernelCache.models = map[string]*core.KernelModel{
			"kernel_binary":     trainKernelFile(t, "heart_scale", "-t 2 -c 10"),
			"kernel_multiclass": trainKernelFile(t, "digits.train", "-t 2 -b 1"),
			"kernel_svr":        trainKernelFile(t, "diabetes.train", "-s 3 -t 2 -p 0.1"),
			"kernel_oneclass":   trainKernelFile(t, "heart_scale", "-s 2 -t 2 -n 0.3"),
		}
		if !kernelCache.models["kernel_multiclass"].HasProbability() {
			t.Fatal("digits -b 1 trained without probability estimates")
		}
	})
	if kernelCache.models == nil {
		t.Fatal("training the kernel models failed in an earlier test")
	}
	return kernelCache.models
}

// goAPI is what the tests compare the predict paths with: core's own
// predictors, which both model types have, and quantize's.
type goAPI interface {
	PredictDense(x []float32) float64
	PredictSparse(index []int32, value []float32) float64
	DecisionDense(dst []float64, x []float32) []float64
	DecisionSparse(dst []float64, index []int32, value []float32) []float64
}

// goAPIOf returns the Go model behind p: p itself, which every kind's Go
// API implements.
func goAPIOf(p core.Model) goAPI { return p }

// wideModel is a classifier of more classes than fit a small scratch
// array, so that its labels need a wide pooled buffer.
func wideModel(rng *rand.Rand, classes, nf int) *linear.LinearModel {
	m := &linear.LinearModel{Solver: linear.L2LossSVCDual, NumFeatures: nf, Bias: 1}
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
// one decision value (binary, regression), several, very many; and the
// kernel model kinds; each also quantized to int8 ("q8_" names), and the
// multi-class ones to int16 ("q16_").
func predictModels(t testing.TB) map[string]core.Model {
	ms := map[string]core.Model{}
	for name, m := range linearModels(t) {
		ms[name] = m
		ms["q8_"+name] = quantizeLinear(t, m, 8)
		if name == "multiclass" {
			ms["q16_"+name] = quantizeLinear(t, m, 16)
		}
	}
	for name, m := range kernelModels(t) {
		ms[name] = m
		ms["q8_"+name] = quantizeKernel(t, m, 8)
		if name == "kernel_multiclass" {
			ms["q16_"+name] = quantizeKernel(t, m, 16)
		}
	}
	return ms
}

// quantizeLinear is quantize.QuantizeLinear for a test's model.
func quantizeLinear(t testing.TB, m *linear.LinearModel, bits int) *quantize.Linear {
	t.Helper()
	q, err := quantize.QuantizeLinear(m, bits)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// quantizeKernel is quantize.QuantizeKernel for a test's model.
func quantizeKernel(t testing.TB, m *core.KernelModel, bits int) *quantize.Kernel {
	t.Helper()
	q, err := quantize.QuantizeKernel(m, bits)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// linearModels are the linear models of predictModels.
func linearModels(t testing.TB) map[string]*linear.LinearModel {
	bias := linear.DefaultLinearParams()
	bias.Bias = 1
	svr := bias
	svr.Solver = linear.L2LossSVRDual
	return map[string]*linear.LinearModel{
		"binary":     trainFile(t, "heart_scale", bias),
		"multiclass": trainFile(t, "digits.train", bias),
		"regression": trainFile(t, "diabetes.train", svr),
		"wide":       wideModel(rand.New(rand.NewPCG(1, 1)), 70, 20),
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
		nf := m.Info().NumFeatures
		x, indptr, indices, values := randomRows(rng, rows, nf)
		x64, values64 := to64(x), to64(values)
		dst := make([]float64, rows*max(m.Info().NumDecisionValues, len(m.Info().Labels)))
		id := newHandle(&modelHandle{fixed: m})
		outputs := []int{outputLabel, outputDecisionValues}
		if m.Info().Probability {
			outputs = append(outputs, outputProbability)
		}
		for _, output := range outputs {
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
	m := kernelModels(t)["kernel_binary"]
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
		nf, nd, nc := m.Info().NumFeatures, m.Info().NumDecisionValues, len(m.Info().Labels)
		g := goAPIOf(m)
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
		prob := make([]float64, rows*nc)
		check := func(layout string, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s %s: %v", name, layout, err)
			}
		}
		for _, layout := range []string{"dense_f32", "dense_f64", "csr_f32", "csr_f64"} {
			run := func(output int, dst []float64) error {
				switch layout {
				case "dense_f32":
					return predictDenseF32(m, output, dst, x, rows, nf)
				case "dense_f64":
					return predictDenseF64(m, output, dst, x64, rows, nf)
				case "csr_f32":
					return predictCSRF32(m, output, dst, indptr, indices, values, rows)
				}
				return predictCSRF64(m, output, dst, indptr, indices, values64, rows)
			}
			check(layout, run(outputLabel, labels))
			check(layout, run(outputDecisionValues, dec))
			if err := run(outputProbability, prob); m.Info().Probability {
				check(layout, err)
			} else if statusOf(err) != statusUnsupported {
				t.Errorf("%s %s: probabilities without them: %v, want SVMGO_E_UNSUPPORTED", name, layout, err)
			}
			sparse := strings.HasPrefix(layout, "csr")
			buf := make([]float64, nd)
			pbuf := make([]float64, nc)
			for r := range rows {
				var wantL float64
				var wantD, wantP []float64
				if sparse {
					idx, val := indices[indptr[r]:indptr[r+1]], values[indptr[r]:indptr[r+1]]
					wantL, wantD = g.PredictSparse(idx, val), g.DecisionSparse(buf, idx, val)
					if m.Info().Probability {
						wantP = m.(core.ProbabilityModel).ProbabilitySparse(pbuf, idx, val)
					}
				} else {
					row := x[r*nf : r*nf+nf]
					wantL, wantD = g.PredictDense(row), g.DecisionDense(buf, row)
					if m.Info().Probability {
						wantP = m.(core.ProbabilityModel).ProbabilityDense(pbuf, row)
					}
				}
				for k, w := range wantP {
					if got := prob[r*nc+k]; math.Float64bits(got) != math.Float64bits(w) {
						t.Errorf("%s %s row %d: probability %d is %v, Go API %v", name, layout, r, k, got, w)
					}
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
	lm := wideModel(rand.New(rand.NewPCG(4, 4)), 3, 4)
	m := core.Model(lm)
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
	lm.W[5] = float32(math.NaN())
	if err := predictDenseF32(m, outputLabel, dst, x, 2, 4); code(err) != statusNotFinite ||
		!strings.Contains(err.Error(), "non-finite weight") {
		t.Errorf("NaN weight: %v", err)
	}
	if err := lm.Validate(); err == nil || !strings.Contains(err.Error(), "weight 5 is NaN") {
		t.Errorf("Validate with a NaN weight: %v", err)
	}
	if _, err := modelfile.Marshal(lm); err == nil {
		t.Error("Marshal wrote a model with a NaN weight")
	}
	if _, err := loadBuffer(withNaNWeight(t, lm, 5)); code(err) != statusCorrupt {
		t.Errorf("loading a file with a NaN weight: %v, want SVMGO_E_CORRUPT", err)
	}
}

// TestKernelPredictErrors: an RBF kernel maps an infinite input to a
// finite decision value, so kernel inputs are checked before predicting:
// an infinite value, a NaN or a double beyond float's range is refused
// with SVMGO_E_NOT_FINITE in every layout and output, even at a feature
// the model does not have; and probabilities without them are refused.
func TestKernelPredictErrors(t *testing.T) {
	ms := kernelModels(t)
	m := core.Model(ms["kernel_binary"])
	nf := m.Info().NumFeatures
	dst := make([]float64, 2*len(m.Info().Labels))
	for _, bad := range []float64{math.Inf(1), math.NaN(), 1e300} {
		x := make([]float64, 2*nf)
		x[nf+2] = bad
		x32 := make([]float32, len(x))
		for i, v := range x {
			x32[i] = float32(v)
		}
		indptr := []int64{0, 1, 2}
		indices := []int32{0, int32(nf + 5)}
		values := []float64{0.5, bad}
		values32 := []float32{0.5, float32(bad)}
		for _, output := range []int{outputLabel, outputDecisionValues} {
			errs := map[string]error{
				"dense_f64": predictDenseF64(m, output, dst, x, 2, nf),
				"csr_f64":   predictCSRF64(m, output, dst, indptr, indices, values, 2),
			}
			// As floats, 1e300 is +Inf.
			errs["dense_f32"] = predictDenseF32(m, output, dst, x32, 2, nf)
			errs["csr_f32"] = predictCSRF32(m, output, dst, indptr, indices, values32, 2)
			for layout, err := range errs {
				if statusOf(err) != statusNotFinite {
					t.Errorf("%v in %s, output %d: %v, want SVMGO_E_NOT_FINITE", bad, layout, output, err)
				}
			}
		}
	}
	if err := predictDenseF32(m, outputProbability, dst, make([]float32, nf), 1, nf); statusOf(err) != statusUnsupported ||
		!strings.Contains(err.Error(), "-b 1") {
		t.Errorf("probabilities of a model trained without -b 1: %v", err)
	}
	svr := core.Model(ms["kernel_svr"])
	if err := predictDenseF32(svr, outputProbability, dst, make([]float32, svr.Info().NumFeatures), 1, svr.Info().NumFeatures); statusOf(err) != statusUnsupported {
		t.Errorf("probabilities of an SVR model: %v", err)
	}
	mc := core.Model(ms["kernel_multiclass"])
	if err := predictDenseF32(mc, outputProbability, make([]float64, 9), make([]float32, mc.Info().NumFeatures), 1, mc.Info().NumFeatures); statusOf(err) != statusCapacity {
		t.Errorf("10 probabilities into 9 values: %v, want SVMGO_E_CAPACITY", err)
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
		{data.ErrFull, statusFull},
		{data.ErrLabels, statusTrain},
		{core.ErrParams, statusInvalidArgument},
		{data.ErrBadRow, statusInvalidArgument},
		{data.ErrRowPosition, statusInvalidArgument},
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

// TestLinearBlockedRows: a linear model's dense rows go through its batch
// decision values (DecisionDenseBatch, blocks of decisionBlockRows), and a
// call's outputs do not depend on how many rows it was given: 150 rows in
// one call equal 150 one-row calls bit for bit, in both layouts and both
// outputs; a non-finite value in row 70 (the second block) is named, with
// the rows before it written.
func TestLinearBlockedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	m := core.Model(linearModels(t)["multiclass"])
	const rows = 150
	nf, nd := m.Info().NumFeatures, m.Info().NumDecisionValues
	x, _, _, _ := randomRows(rng, rows, nf)
	x64 := to64(x)
	for _, output := range []int{outputLabel, outputDecisionValues} {
		w := 1
		if output == outputDecisionValues {
			w = nd
		}
		for _, layout := range []string{"dense_f32", "dense_f64"} {
			run := func(dst []float64, from, n int) error {
				if layout == "dense_f32" {
					return predictDenseF32(m, output, dst, x[from*nf:(from+n)*nf], n, nf)
				}
				return predictDenseF64(m, output, dst, x64[from*nf:(from+n)*nf], n, nf)
			}
			all := make([]float64, rows*w)
			if err := run(all, 0, rows); err != nil {
				t.Fatal(err)
			}
			for r := range rows {
				one := make([]float64, w)
				if err := run(one, r, 1); err != nil {
					t.Fatal(err)
				}
				for k := range w {
					if math.Float64bits(one[k]) != math.Float64bits(all[r*w+k]) {
						t.Fatalf("output %d %s row %d value %d: alone %v, in the batch %v", output, layout, r, k, one[k], all[r*w+k])
					}
				}
			}
			x[70*nf+3], x64[70*nf+3] = float32(math.NaN()), math.NaN()
			got := make([]float64, rows*w)
			err := run(got, 0, rows)
			x[70*nf+3], x64[70*nf+3] = 0, 0
			if statusOf(err) != statusNotFinite || !strings.Contains(err.Error(), "row 70, feature 3 is NaN") {
				t.Fatalf("output %d %s: NaN in row 70: %v", output, layout, err)
			}
			for i := range 70 * w {
				if math.Float64bits(got[i]) != math.Float64bits(all[i]) {
					t.Fatalf("output %d %s: value %d before the NaN row is %v, want %v", output, layout, i, got[i], all[i])
				}
			}
		}
	}
}
