package onnx

import (
	"bytes"
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// exportCase is a model kind trained on a data set of core/testdata.
type exportCase struct {
	name, train, test string
	p                 core.TrainParams
}

func kernelParams(t core.SVMType, k core.KernelType, prob bool) core.TrainParams {
	p := core.DefaultKernelParams()
	p.SVMType, p.Kernel.Type, p.Probability = t, k, prob
	p.Kernel.Gamma = 0.1
	p.Kernel.Coef0 = 0.5
	p.Nu = 0.3
	return core.TrainParams{Family: core.KernelFamily, Kernel: p}
}

func linearParams(s linear.LinearSolver, bias float64, prob bool) core.TrainParams {
	p := linear.DefaultLinearParams()
	p.Solver, p.Bias, p.Probability = s, bias, prob
	return core.TrainParams{Family: core.LinearFamily, Linear: p}
}

// exportCases covers every float kind ONNX-ML holds, binary and
// multi-class, with and without probabilities and scaling.
func exportCases() []exportCase {
	scaled := func(p core.TrainParams) core.TrainParams {
		p.Scale = core.ScaleParams{Enabled: true, Lower: -1, Upper: 1}
		return p
	}
	const heart, digitsTr, digitsTe, diaTr, diaTe = "heart_scale", "digits.train", "digits.test", "diabetes.train", "diabetes.test"
	return []exportCase{
		{"csvc-rbf-binary", heart, heart, kernelParams(core.CSVC, core.RBFKernel, false)},
		{"csvc-rbf-binary-prob", heart, heart, kernelParams(core.CSVC, core.RBFKernel, true)},
		{"csvc-linear-digits", digitsTr, digitsTe, kernelParams(core.CSVC, core.LinearKernel, false)},
		{"csvc-rbf-digits-prob", digitsTr, digitsTe, kernelParams(core.CSVC, core.RBFKernel, true)},
		{"csvc-poly-digits", digitsTr, digitsTe, kernelParams(core.CSVC, core.PolyKernel, false)},
		{"nusvc-sigmoid-binary", heart, heart, kernelParams(core.NuSVC, core.SigmoidKernel, false)},
		{"csvc-rbf-scaled", heart, heart, scaled(kernelParams(core.CSVC, core.RBFKernel, false))},
		{"epssvr-rbf", diaTr, diaTe, kernelParams(core.EpsSVR, core.RBFKernel, false)},
		{"nusvr-linear", diaTr, diaTe, kernelParams(core.NuSVR, core.LinearKernel, false)},
		{"oneclass-rbf", heart, heart, kernelParams(core.OneClass, core.RBFKernel, false)},
		{"l2svc-binary", heart, heart, linearParams(linear.L2LossSVCDual, 1, false)},
		{"l2svc-binary-prob", heart, heart, linearParams(linear.L2LossSVCDual, 1, true)},
		{"lr-binary", heart, heart, linearParams(linear.L2Logistic, 1, false)},
		{"l2svc-digits", digitsTr, digitsTe, linearParams(linear.L2LossSVCDual, 1, false)},
		{"lr-digits", digitsTr, digitsTe, linearParams(linear.L2Logistic, 1, false)},
		{"lr-multinomial-digits", digitsTr, digitsTe, linearParams(linear.L2LogisticMultinomial, 1, false)},
		{"l1svc-digits-nobias", digitsTr, digitsTe, linearParams(linear.L1L2LossSVC, -1, false)},
		{"svr-linear", diaTr, diaTe, linearParams(linear.L2LossSVRDual, 1, false)},
		{"lr-scaled", heart, heart, scaled(linearParams(linear.L2Logistic, 1, false))},
	}
}

func readData(t testing.TB, name string, nf int) *data.Dataset {
	t.Helper()
	ds, err := data.ReadFile("../testdata/"+name, data.ReadOptions{MaxFeatures: nf})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func train(t testing.TB, c exportCase) (core.Model, *data.Dataset) {
	t.Helper()
	tr := readData(t, c.train, 0)
	m, err := core.TrainModel(tr, c.p)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	return m, readData(t, c.test, m.Info().NumFeatures)
}

// Relative tolerance of a decision value or probability of an exported
// and imported model against the model's own: ONNX-ML's attributes are
// float32, so coefficients, ρ and A, B carry a relative error of 2⁻²⁴
// each, summed over the support vectors.
const valueTol = 1e-5

// TestRoundTrip exports every kind, imports the file, and checks that the
// imported model predicts the labels the model does, its decision values
// and probabilities within valueTol (scaled by the largest term's size),
// and that it exports to the same bytes.
func TestRoundTrip(t *testing.T) {
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			m, test := train(t, c)
			b, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Encode(back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, again) {
				t.Fatalf("export → import → export: %d bytes, then %d, differing", len(b), len(again))
			}
			compareModels(t, m, back, test)
		})
	}
}

// compareModels checks that b predicts as a does on the rows of test:
// the same labels except on rows whose decision value is within the
// float32 rounding of the attributes of a tie, and values within valueTol.
func compareModels(t *testing.T, a, b core.Model, test *data.Dataset) {
	t.Helper()
	ia, ib := a.Info(), b.Info()
	if ia.Task != ib.Task || ia.NumFeatures != ib.NumFeatures || ia.Probability != ib.Probability && ia.Kind == core.KindKernel {
		t.Fatalf("info differs: %+v vs %+v", ia, ib)
	}
	nf := ia.NumFeatures
	x := make([]float32, nf)
	da := make([]float64, ia.NumDecisionValues)
	db := make([]float64, ib.NumDecisionValues)
	flips := 0
	for i := range test.Len() {
		denseRow(x, test, i)
		la, lb := a.PredictDense(x), b.PredictDense(x)
		a.DecisionDense(da, x)
		b.DecisionDense(db, x)
		margin := math.Inf(1)
		if ia.Task != core.TaskRegression {
			for k := range da {
				margin = min(margin, math.Abs(da[k]))
			}
		}
		if len(da) == len(db) && ia.Task != core.TaskOneClass {
			for k := range da {
				if d := math.Abs(da[k] - db[k]); d > valueTol*max(1, math.Abs(da[k])) {
					t.Errorf("row %d: decision value %d: %g, imported %g", i, k, da[k], db[k])
				}
			}
		}
		if la != lb && ia.Task != core.TaskRegression {
			if margin > 1e-4 {
				t.Errorf("row %d: label %g, imported %g (smallest |decision value| %g)", i, la, lb, margin)
			}
			flips++
		}
		if pa, ok := a.(core.ProbabilityModel); ok && ia.Probability && ib.Probability {
			pb := b.(core.ProbabilityModel)
			qa := pa.ProbabilityDense(make([]float64, len(ia.Labels)), x)
			qb := pb.ProbabilityDense(make([]float64, len(ib.Labels)), x)
			for k := range qa {
				if math.Abs(qa[k]-qb[k]) > valueTol {
					t.Errorf("row %d: probability %d: %g, imported %g", i, k, qa[k], qb[k])
				}
			}
		}
	}
	if flips > 0 {
		t.Logf("%d of %d labels flipped at float32 near-ties", flips, test.Len())
	}
}

// denseRow writes row i of ds to x, dropping features past len(x).
func denseRow(x []float32, ds *data.Dataset, i int) {
	clear(x)
	if ds.IsDense() {
		copy(x, ds.DenseRow(i))
		return
	}
	idx, val := ds.SparseRow(i)
	for q, j := range idx {
		if int(j) < len(x) {
			x[j] = val[q]
		}
	}
}
