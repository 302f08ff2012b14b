package core

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// Tolerances of the probability estimates against LIBSVM 3.24. The folds
// of the internal cross-validation come from another generator than
// LIBSVM's rand(), so A and B differ fit by fit; what must agree is the
// quality of the probabilities, measured by test log-loss.
const (
	probLogLossRel = 0.02  // test log-loss, relative (issue 5's acceptance)
	probAccPts     = 1.0   // accuracy of the most probable label, percentage points
	probRowSumTol  = 1e-12 // Σ_c p_c = 1
	svrSigmaRel    = 0.10  // Laplace σ of ε-SVR, relative
)

// logLoss returns −(1/n) Σ log p(true class) over the rows of test, and
// the accuracy (percent) of the most probable label; it checks that each
// row's probabilities sum to 1.
func logLoss(t *testing.T, m *KernelModel, test *data.Dataset) (loss, acc float64) {
	t.Helper()
	prob := make([]float64, m.NumClasses())
	correct := 0
	for i := range test.Len() {
		if test.IsDense() {
			m.ProbabilityDense(prob, test.DenseRow(i))
		} else {
			idx, val := test.SparseRow(i)
			m.ProbabilitySparse(prob, idx, val)
		}
		sum, best, truth := 0.0, 0, -1
		for c, p := range prob {
			sum += p
			if p > prob[best] {
				best = c
			}
			if float64(m.Labels[c]) == test.Label(i) {
				truth = c
			}
		}
		if math.Abs(sum-1) > probRowSumTol {
			t.Fatalf("row %d: probabilities %v sum to %v", i, prob, sum)
		}
		if truth < 0 {
			t.Fatalf("row %d: label %v not among the model's %v", i, test.Label(i), m.Labels)
		}
		if best == truth {
			correct++
		}
		loss -= math.Log(prob[truth])
	}
	return loss / float64(test.Len()), 100 * float64(correct) / float64(test.Len())
}

func TestKernelProbabilityLogLossLIBSVM(t *testing.T) {
	_, cases, _ := readLibsvmRef(t)
	ran := 0
	for _, c := range cases {
		opt, rest, err := ParseKernelOptions(c.ReadOptions())
		if err != nil || len(rest) != 0 {
			t.Fatalf("%s: options %v: %v", c.Name, c.Options, err)
		}
		if !opt.Params.Probability || !c.Has["logloss"] {
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			train := readRefData(t, c.Train)
			test := readRefData(t, c.Test)
			m, _, err := TrainKernel(train, opt.Params)
			if err != nil {
				t.Fatal(err)
			}
			if !m.HasProbability() || len(m.ProbA) != m.NumDecisionValues() {
				t.Fatalf("model without Platt parameters: probA %v", m.ProbA)
			}
			loss, acc := logLoss(t, m, test)
			t.Logf("log-loss %.6f, LIBSVM %.6f (%+.2f%%); accuracy %.4f%%, LIBSVM %.4f%%; probA[0] %.4f/%s probB[0] %.4f/%s",
				loss, c.LogLoss, 100*(loss-c.LogLoss)/c.LogLoss, acc, c.Accuracy,
				m.ProbA[0], c.Model["probA"][0], m.ProbB[0], c.Model["probB"][0])
			if math.Abs(loss-c.LogLoss) > probLogLossRel*c.LogLoss {
				t.Errorf("log-loss %.6f, LIBSVM %.6f: more than %.0f%% apart", loss, c.LogLoss, 100*probLogLossRel)
			}
			if math.Abs(acc-c.Accuracy) > probAccPts {
				t.Errorf("accuracy of the most probable label %.4f%%, LIBSVM %.4f%%", acc, c.Accuracy)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no probability case in libsvm-ref.txt")
	}
}

// A probability fit is a function of the data and the seed only: the
// number of workers does not change it.
func TestKernelProbabilityDeterministic(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	p := DefaultKernelParams()
	p.Probability = true
	var ref *KernelModel
	for _, workers := range []int{1, 3} {
		tr, err := newKernelTrainer(p, ds.Len(), ds.NumFeatures(), workers, ds.Len())
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := tr.Train(ds, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = m
			continue
		}
		if m.ProbA[0] != ref.ProbA[0] || m.ProbB[0] != ref.ProbB[0] {
			t.Errorf("%d workers: A, B = %v, %v; 1 worker: %v, %v", workers, m.ProbA[0], m.ProbB[0], ref.ProbA[0], ref.ProbB[0])
		}
	}
	// Larger decision values mean class Labels[0]: A < 0.
	if !(ref.ProbA[0] < 0) {
		t.Errorf("Platt A = %v, want < 0", ref.ProbA[0])
	}
}

// svrSigmaLIBSVM is what svm-train -s 3 -b 1 heart_scale (LIBSVM 3.24,
// the other options at their defaults) prints as σ of its Laplace model.
const svrSigmaLIBSVM = 0.495563

func TestKernelSVRLaplaceScale(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	p := DefaultKernelParams()
	p.SVMType = EpsSVR
	p.Probability = true
	m, _, err := TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ProbA) != 1 || m.ProbB != nil || !m.HasProbability() {
		t.Fatalf("probA %v probB %v", m.ProbA, m.ProbB)
	}
	t.Logf("sigma %.6f, LIBSVM %.6f", m.ProbA[0], svrSigmaLIBSVM)
	if math.Abs(m.ProbA[0]-svrSigmaLIBSVM) > svrSigmaRel*svrSigmaLIBSVM {
		t.Errorf("sigma %v, LIBSVM %v", m.ProbA[0], svrSigmaLIBSVM)
	}
	defer func() {
		if recover() == nil {
			t.Error("ProbabilityDense on an ε-SVR model did not panic")
		}
	}()
	m.ProbabilityDense(make([]float64, 2), ds.DenseRow(0))
}

func TestKernelProbabilityNeedsEstimates(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	m, _, err := TrainKernel(ds, DefaultKernelParams())
	if err != nil {
		t.Fatal(err)
	}
	if m.HasProbability() {
		t.Fatal("a model trained without Probability has estimates")
	}
	defer func() {
		if recover() == nil {
			t.Error("ProbabilitySparse without estimates did not panic")
		}
	}()
	idx, val := []int32{0}, []float32{1}
	m.ProbabilitySparse(make([]float64, 2), idx, val)
}

func TestKernelProbabilityAllocs(t *testing.T) {
	train := readRefData(t, "digits.train")
	p := DefaultKernelParams()
	p.Probability = true
	m, _, err := TrainKernel(train, p)
	if err != nil {
		t.Fatal(err)
	}
	prob := make([]float64, m.NumClasses())
	var x []float32
	var idx []int32
	if train.IsDense() {
		x = train.DenseRow(3)
		for k := range x {
			idx = append(idx, int32(k))
		}
	} else {
		idx, x = train.SparseRow(3)
	}
	dense := make([]float32, m.NumFeatures)
	for k, j := range idx {
		if int(j) < len(dense) {
			dense[j] = x[k]
		}
	}
	m.ProbabilityDense(prob, dense)
	want := append([]float64(nil), prob...)
	if n := testing.AllocsPerRun(50, func() { m.ProbabilityDense(prob, dense) }); n != 0 {
		t.Errorf("ProbabilityDense: %v allocations a call", n)
	}
	if n := testing.AllocsPerRun(50, func() { m.ProbabilitySparse(prob, idx, x) }); n != 0 {
		t.Errorf("ProbabilitySparse: %v allocations a call", n)
	}
	m.ProbabilitySparse(prob, idx, x)
	for c := range prob {
		if math.Abs(prob[c]-want[c]) > 1e-12 {
			t.Errorf("class %d: sparse %v, dense %v", m.Labels[c], prob[c], want[c])
		}
	}
}

// svmCVAccuracyLIBSVM is svm-train -v 5 heart_scale's "Cross Validation
// Accuracy" (LIBSVM 3.24, defaults). Folds are random, so a few points of
// difference are the folds, not the solver.
const svmCVAccuracyLIBSVM = 82.963

func TestCrossValidateKernel(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	pred, err := CrossValidateKernel(ds, DefaultKernelParams(), 5)
	if err != nil {
		t.Fatal(err)
	}
	s := ScorePredictions(pred, ds.Labels(), false)
	t.Logf("CV accuracy %.4f%%, LIBSVM %.4f%%", 100*s.Accuracy(), svmCVAccuracyLIBSVM)
	if d := math.Abs(100*s.Accuracy() - svmCVAccuracyLIBSVM); d > 3 {
		t.Errorf("CV accuracy %.4f%%, LIBSVM %.4f%%", 100*s.Accuracy(), svmCVAccuracyLIBSVM)
	}
	if _, err := CrossValidateKernel(ds, DefaultKernelParams(), 1); err == nil {
		t.Error("1-fold cross validation accepted")
	}
}

// The stratified folds cover every row once and hold each class in
// proportion: fold sizes of a class differ by at most one.
func TestKernelFoldsStratified(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	const folds = 7
	perm, start, err := kernelFolds(ds, DefaultKernelParams(), folds)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, ds.Len())
	for _, i := range perm {
		if seen[i] {
			t.Fatalf("row %d twice", i)
		}
		seen[i] = true
	}
	if start[folds] != ds.Len() {
		t.Fatalf("folds end at %d of %d rows", start[folds], ds.Len())
	}
	for _, label := range []float64{1, -1} {
		lo, hi := ds.Len(), 0
		for f := range folds {
			n := 0
			for _, i := range perm[start[f]:start[f+1]] {
				if ds.Label(int(i)) == label {
					n++
				}
			}
			lo, hi = min(lo, n), max(hi, n)
		}
		if hi-lo > 1 {
			t.Errorf("class %v: fold counts from %d to %d", label, lo, hi)
		}
	}
}
