package main

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// testRows are the rows a parity run predicts, in every layout.
type testRows struct {
	rows, nf int
	x32      []float32 // dense, rows × nf
	x64      []float64 // x32 nudged by 2⁻⁴⁰ relative: rounds back to x32
	indptr   []int64
	indices  []int32
	v32      []float32
	v64      []float64
}

// makeTestRows reads a data file's rows for a model of nf features. The
// dense rows are cut or zero-padded to nf; the CSR rows keep every
// nonzero, and every third row gains one past nf, which must be ignored.
func makeTestRows(t *testing.T, path string, nf int) *testRows {
	t.Helper()
	ds, err := data.ReadFile(path, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := &testRows{rows: ds.Len(), nf: nf, x32: make([]float32, ds.Len()*nf), indptr: []int64{0}}
	for i := range ds.Len() {
		var idx []int32
		var val []float32
		if ds.IsDense() {
			for j, v := range ds.DenseRow(i) {
				if v != 0 {
					idx = append(idx, int32(j))
					val = append(val, v)
				}
			}
		} else {
			idx, val = ds.SparseRow(i)
		}
		for k, j := range idx {
			if int(j) < nf {
				tr.x32[i*nf+int(j)] = val[k]
			}
		}
		tr.indices = append(tr.indices, idx...)
		tr.v32 = append(tr.v32, val...)
		if i%3 == 0 {
			past := nf
			if len(idx) > 0 {
				past = max(past, int(idx[len(idx)-1])+1)
			}
			tr.indices = append(tr.indices, int32(past+3))
			tr.v32 = append(tr.v32, 1.5)
		}
		tr.indptr = append(tr.indptr, int64(len(tr.indices)))
	}
	nudge := func(v float32) float64 { return float64(v) * (1 + 0x1p-40) }
	for _, v := range tr.x32 {
		tr.x64 = append(tr.x64, nudge(v))
	}
	for _, v := range tr.v32 {
		tr.v64 = append(tr.v64, nudge(v))
	}
	return tr
}

func (tr *testRows) write(t *testing.T, prefix string) {
	writeRaw(t, prefix+".f32", tr.x32)
	writeRaw(t, prefix+".f64", tr.x64)
	writeRaw(t, prefix+".indptr", tr.indptr)
	writeRaw(t, prefix+".indices", tr.indices)
	writeRaw(t, prefix+".v32", tr.v32)
	writeRaw(t, prefix+".v64", tr.v64)
}

// probAPI is the probability half of the Go API, which kernel models and
// linear models (float and quantized) have.
type probAPI interface {
	ProbabilityDense(dst []float64, x []float32) []float64
	ProbabilitySparse(dst []float64, index []int32, value []float32) []float64
}

// want returns the Go API's labels, decision values and, for a kernel
// model with them, probabilities for the rows, dense (from x32) or sparse
// (from the CSR arrays as float32).
func (tr *testRows) want(g goAPI, nDec int, sparse bool) (labels, dec, prob []float64) {
	buf := make([]float64, nDec)
	var km probAPI
	var hasProb bool
	var pbuf []float64
	switch m := g.(type) {
	case *core.KernelModel:
		km, hasProb = m, m.SVMType.IsSVC() && m.HasProbability()
		pbuf = make([]float64, m.NumClasses())
	case *quantize.Kernel:
		km, hasProb = m, m.SVMType().IsSVC() && m.HasProbability()
		pbuf = make([]float64, m.NumClasses())
	case *linear.LinearModel:
		km, hasProb = m, m.HasProbability()
		pbuf = make([]float64, len(m.Labels))
	case *quantize.Linear:
		km, hasProb = m, m.HasProbability()
		pbuf = make([]float64, len(m.Labels()))
	}
	for i := range tr.rows {
		if sparse {
			s, e := tr.indptr[i], tr.indptr[i+1]
			idx, val := tr.indices[s:e], tr.v32[s:e]
			labels = append(labels, g.PredictSparse(idx, val))
			dec = append(dec, g.DecisionSparse(buf, idx, val)...)
			if hasProb {
				prob = append(prob, km.ProbabilitySparse(pbuf, idx, val)...)
			}
		} else {
			x := tr.x32[i*tr.nf : i*tr.nf+tr.nf]
			labels = append(labels, g.PredictDense(x))
			dec = append(dec, g.DecisionDense(buf, x)...)
			if hasProb {
				prob = append(prob, km.ProbabilityDense(pbuf, x)...)
			}
		}
	}
	return labels, dec, prob
}

// TestParityFromC: a model trained and written by Go, loaded through the C
// ABI, predicts what the Go API predicts, bit for bit, in all four input
// layouts, for binary, multi-class and regression models, linear and
// kernel, float and quantized (int8 and int16: the Go API is then
// quantize's predictors), and gives the probabilities of the kernel and
// linear models that have them bit for bit too. Options starting with "-t" train a kernel model (svm-train's
// options).
// shortParity are the digits cases of TestParityFromC that -short keeps:
// the linear multiclass model, the quantized kernel one with
// probabilities, and logistic regression's probabilities.
var shortParity = map[string]bool{"digits_rbf_prob_q8": true, "digits_lr7": true}

func TestParityFromC(t *testing.T) {
	exe := compileC(t, "parity", false)
	cases := []struct {
		name, train, test, options string
		// props are the properties svmgo_model_get reports: kind,
		// classes, probabilities (features and decision values are
		// checked against the model).
		kind, classes, prob int64
		// bits > 0 quantizes the trained model (quantize.QuantizeLinear
		// or QuantizeKernel) and writes it with quantize.WriteFile: the
		// ABI must then equal quantize's predictors.
		bits int
	}{
		{"heart_scale", "heart_scale", "heart_scale", "-s 1 -B 1", kindLinearSVC, 2, 0, 0},
		{"breast_cancer", "breast_cancer.train", "breast_cancer.test", "-s 3", kindLinearSVC, 2, 0, 0},
		{"digits", "digits.train", "digits.test", "-s 1 -B 1", kindLinearSVC, 10, 0, 0},
		{"diabetes", "diabetes.train", "diabetes.test", "-s 12 -B 1", kindLinearSVR, 0, 0, 0},
		// L1-regularized: weights stored sparse in the file; -s 6 gives
		// logistic probabilities as -s 0 does.
		{"digits_l1svc", "digits.train", "digits.test", "-s 5 -B 1", kindLinearSVC, 10, 0, 0},
		{"breast_cancer_l1lr", "breast_cancer.train", "breast_cancer.test", "-s 6 -c 0.1", kindLinearSVC, 2, 1, 0},
		{"digits_l1lr_q8", "digits.train", "digits.test", "-s 6", kindLinearSVC, 10, 1, 8},
		{"heart_scale_rbf", "heart_scale", "heart_scale", "-t 2 -c 10", kindKernelSVC, 2, 0, 0},
		{"digits_rbf_prob", "digits.train", "digits.test", "-t 2 -b 1", kindKernelSVC, 10, 1, 0},
		{"diabetes_rbf_svr", "diabetes.train", "diabetes.test", "-t 2 -s 3 -p 0.1", kindKernelSVR, 0, 0, 0},
		{"heart_scale_oneclass", "heart_scale", "heart_scale", "-t 2 -s 2 -n 0.3", kindOneClass, 0, 0, 0},
		{"digits_nu_svc_prob", "digits.train", "digits.test", "-t 2 -s 1 -n 0.1 -b 1", kindKernelSVC, 10, 1, 0},
		{"diabetes_nu_svr", "diabetes.train", "diabetes.test", "-t 2 -s 4 -n 0.5 -c 10", kindKernelSVR, 0, 0, 0},
		{"digits_nu_svc_prob_q8", "digits.train", "digits.test", "-t 2 -s 1 -n 0.1 -b 1", kindKernelSVC, 10, 1, 8},
		{"heart_scale_q8", "heart_scale", "heart_scale", "-s 1 -B 1", kindLinearSVC, 2, 0, 8},
		{"digits_q8", "digits.train", "digits.test", "-s 1 -B 1", kindLinearSVC, 10, 0, 8},
		{"diabetes_q16", "diabetes.train", "diabetes.test", "-s 12 -B 1", kindLinearSVR, 0, 0, 16},
		{"heart_scale_rbf_q8", "heart_scale", "heart_scale", "-t 2 -c 10", kindKernelSVC, 2, 0, 8},
		{"digits_rbf_prob_q8", "digits.train", "digits.test", "-t 2 -b 1", kindKernelSVC, 10, 1, 8},
		{"digits_rbf_prob_q16", "digits.train", "digits.test", "-t 2 -b 1", kindKernelSVC, 10, 1, 16},
		{"diabetes_rbf_svr_q8", "diabetes.train", "diabetes.test", "-t 2 -s 3 -p 0.1", kindKernelSVR, 0, 0, 8},
		{"heart_scale_oneclass_q8", "heart_scale", "heart_scale", "-t 2 -s 2 -n 0.3", kindOneClass, 0, 0, 8},
		// Linear probabilities: logistic regression and Platt (-b 1).
		{"heart_scale_lr0", "heart_scale", "heart_scale", "-s 0", kindLinearSVC, 2, 1, 0},
		{"digits_lr7", "digits.train", "digits.test", "-s 7 -B 1", kindLinearSVC, 10, 1, 0},
		{"digits_platt", "digits.train", "digits.test", "-s 1 -b 1", kindLinearSVC, 10, 1, 0},
		{"heart_scale_platt_q8", "heart_scale", "heart_scale", "-s 2 -b 1 -B 1", kindLinearSVC, 2, 1, 8},
		{"digits_lr7_q16", "digits.train", "digits.test", "-s 7 -B 1", kindLinearSVC, 10, 1, 16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && strings.HasPrefix(c.name, "digits_") && !shortParity[c.name] {
				t.Skip("-short: digits' multiclass paths are covered by digits, digits_rbf_prob_q8 and digits_lr7")
			}
			dir := t.TempDir()
			modelPath := filepath.Join(dir, "m.svmgo")
			var g goAPI
			var nf, nDec int
			var err error
			if strings.HasPrefix(c.options, "-t") {
				var m *core.KernelModel
				if strings.HasPrefix(c.name, "digits_rbf_prob") {
					m = kernelModels(t)["kernel_multiclass"] // the same options, trained once
				} else {
					m = trainKernelFile(t, c.train, c.options)
				}
				g, nf, nDec = m, m.NumFeatures, m.NumDecisionValues()
				if c.bits > 0 {
					q := quantizeKernel(t, m, c.bits)
					err = modelfile.WriteFile(modelPath, q)
					g = q
				} else {
					err = modelfile.WriteFile(modelPath, m)
				}
				if err != nil {
					t.Fatal(err)
				}
			} else {
				ds, err := data.ReadFile(filepath.Join("../core/testdata", c.train), data.ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				o, _, err := options.ParseLinear(strings.Fields(c.options))
				if err != nil {
					t.Fatal(err)
				}
				m, _, err := linear.TrainLinear(ds, o.Params)
				if err != nil {
					t.Fatal(err)
				}
				g, nf, nDec = m, m.NumFeatures, m.NumDecisionValues()
				if c.bits > 0 {
					q := quantizeLinear(t, m, c.bits)
					err = modelfile.WriteFile(modelPath, q)
					g = q
				} else {
					err = modelfile.WriteFile(modelPath, m)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			tr := makeTestRows(t, filepath.Join("../core/testdata", c.test), nf)
			tr.write(t, filepath.Join(dir, "data"))
			out := filepath.Join(dir, "out")
			runC(t, exe, modelPath, filepath.Join(dir, "data"), strconv.Itoa(tr.rows), strconv.Itoa(tr.nf),
				strconv.Itoa(len(tr.indices)), out)

			props := readInt64s(t, out+".props")
			wantProps := []int64{c.kind, int64(nf), c.classes, int64(nDec), int64(c.bits), c.prob, 0}
			if !slices.Equal(props, wantProps) {
				t.Errorf("properties (kind, features, classes, decision values, quantized, probability, version) = %v, want %v", props, wantProps)
			}
			for _, layout := range []string{"dense_f32", "dense_f64", "csr_f32", "csr_f64"} {
				sparse := layout[:3] == "csr"
				labels, dec, prob := tr.want(g, nDec, sparse)
				sameBits(t, layout+" labels", readFloat64s(t, out+"."+layout+".label"), labels)
				sameBits(t, layout+" decision values", readFloat64s(t, out+"."+layout+".dec"), dec)
				if c.prob == 1 {
					if len(prob) != tr.rows*int(c.classes) {
						t.Fatalf("the Go API gave %d probabilities", len(prob))
					}
					sameBits(t, layout+" probabilities", readFloat64s(t, out+"."+layout+".prob"), prob)
				}
			}
		})
	}
}

// sameBits compares two vectors of doubles bit for bit.
func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			if bad < 5 {
				t.Errorf("%s[%d] = %v (%#x), Go API %v (%#x)", what, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ", what, bad, len(want))
	}
}
