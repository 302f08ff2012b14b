package linear

import (
	"math"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// Log-losses of liblinear-predict -b 1 on the test files, for models
// trained with -e 0.0001 (testdata/liblinear-ref.sh).
var liblinearLogLoss = []struct {
	name, args, train, test string
	logLoss                 float64
}{
	{"heart_scale", "-s 0", "heart_scale", "heart_scale", 0.353593},
	{"breast_cancer", "-s 0", "breast_cancer.train", "breast_cancer.test", 0.12421},
	{"digits", "-s 0", "digits.train", "digits.test", 0.204603},
	{"heart_scale", "-s 7", "heart_scale", "heart_scale", 0.353591},
	{"breast_cancer", "-s 7", "breast_cancer.train", "breast_cancer.test", 0.124211},
	{"digits", "-s 7", "digits.train", "digits.test", 0.2046},
	// L1-regularized logistic regression (-s 6): the same probabilities.
	{"heart_scale", "-s 6", "heart_scale", "heart_scale", 0.354557},
	{"breast_cancer", "-s 6", "breast_cancer.train", "breast_cancer.test", 0.118314},
	{"digits", "-s 6", "digits.train", "digits.test", 0.164397},
}

// linearLogLoss returns the mean −log p(true class) of m's probabilities on ds,
// checking on the way that every row's probabilities sum to 1 and that a
// dense row gives what its sparse form gives.
func linearLogLoss(t *testing.T, m *LinearModel, ds *data.Dataset) float64 {
	t.Helper()
	p := make([]float64, len(m.Labels))
	q := make([]float64, len(m.Labels))
	var dense []float32
	if !ds.IsDense() {
		dense = make([]float32, m.NumFeatures)
	}
	var sum float64
	for i := range ds.Len() {
		if ds.IsDense() {
			m.ProbabilityDense(p, ds.DenseRow(i))
		} else {
			idx, val := ds.SparseRow(i)
			m.ProbabilitySparse(p, idx, val)
			clear(dense)
			for k, j := range idx {
				if int(j) < len(dense) {
					dense[j] = val[k]
				}
			}
			m.ProbabilityDense(q, dense)
			for k := range p {
				if math.Abs(p[k]-q[k]) > 1e-12 {
					t.Fatalf("row %d: sparse %v, dense %v", i+1, p, q)
				}
			}
		}
		total := 0.0
		for k, v := range p {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("row %d: probability %g of class %d", i+1, v, m.Labels[k])
			}
			total += v
		}
		if math.Abs(total-1) > 1e-12 {
			t.Fatalf("row %d: probabilities sum to %.15g", i+1, total)
		}
		for k, l := range m.Labels {
			if float64(l) == ds.Label(i) {
				sum -= math.Log(max(p[k], 1e-15))
			}
		}
	}
	return sum / float64(ds.Len())
}

func TestLRLogLossParityWithLIBLINEAR(t *testing.T) {
	for _, ref := range liblinearLogLoss {
		t.Run(ref.name+strings.ReplaceAll(ref.args, " ", ""), func(t *testing.T) {
			opts, _, err := ParseLinearOptions(append(strings.Fields(ref.args), "-e", "0.0001"))
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := TrainLinear(readTestdata(t, ref.train), opts.Params)
			if err != nil {
				t.Fatal(err)
			}
			got := linearLogLoss(t, m, readTestdata(t, ref.test))
			t.Logf("log-loss %.6g, LIBLINEAR %.6g", got, ref.logLoss)
			if rel := math.Abs(got-ref.logLoss) / ref.logLoss; rel > 0.01 {
				t.Errorf("log-loss %.6g, LIBLINEAR %.6g (relative difference %.2g)", got, ref.logLoss, rel)
			}
		})
	}
}

// TestLinearPlatt checks the sigmoids of linear SVC models trained with
// -b 1: for each decision function, the held-out decision values are
// recomputed here from models trained by TrainLinear on each fold's rows
// (the fold split rebuilt from the seed), and Platt's objective's gradient
// at the stored (A, B) must vanish — F is convex, so that is its minimum.
// The probabilities sum to 1, dense and sparse rows agree, and on the test
// file they beat the class prior's log-loss.
func TestLinearPlatt(t *testing.T) {
	for _, c := range []struct{ train, test, args string }{
		{"heart_scale", "heart_scale", "-s 1 -b 1"},
		{"breast_cancer.train", "breast_cancer.test", "-s 3 -b 1 -B 1 -w2 3"},
		{"digits.train", "digits.test", "-s 2 -b 1 -w4 2"},
	} {
		t.Run(c.train+strings.ReplaceAll(c.args, " ", ""), func(t *testing.T) {
			opts, _, err := ParseLinearOptions(strings.Fields(c.args))
			if err != nil {
				t.Fatal(err)
			}
			p := opts.Params
			ds := readTestdata(t, c.train)
			m, _, err := TrainLinear(ds, p)
			if err != nil {
				t.Fatal(err)
			}
			if !m.Info().Probability || len(m.ProbA) != m.NrW() {
				t.Fatalf("Probability %v, %d sigmoids for %d decision functions", m.Info().Probability, len(m.ProbA), m.NrW())
			}
			for k := range m.NrW() {
				dec, y := heldOutDecisions(t, ds, m, k)
				gA, gB := plattGradient(dec, y, m.ProbA[k], m.ProbB[k])
				if math.Abs(gA) > 1e-5 || math.Abs(gB) > 1e-5 {
					t.Errorf("decision function %d: A %.6g B %.6g, gradient (%.3g, %.3g)", k, m.ProbA[k], m.ProbB[k], gA, gB)
				}
				if m.ProbA[k] >= 0 {
					t.Errorf("decision function %d: A = %g, want < 0 (larger values mean the class)", k, m.ProbA[k])
				}
			}
			test := readTestdata(t, c.test)
			got := linearLogLoss(t, m, test)
			prior := priorLogLoss(ds, test, m.Labels)
			t.Logf("A %.4g B %.4g; test log-loss %.4g, class prior's %.4g", m.ProbA, m.ProbB, got, prior)
			if got >= prior {
				t.Errorf("test log-loss %.4g, no better than the prior's %.4g", got, prior)
			}
		})
	}
}

// heldOutDecisions returns the decision values of subproblem k that
// 5-fold cross-validation gives, computed independently of
// fitProbability: the shuffle from solve.SubSeed(Seed, k) (Fisher–Yates with
// the solvers' generator), and for each fold a binary model trained by
// TrainLinear on the other rows, in the same order, with the
// subproblem's costs as class weights.
func heldOutDecisions(t *testing.T, ds *data.Dataset, m *LinearModel, k int) (dec []float64, y []int8) {
	p := m.Params
	l := ds.Len()
	y = make([]int8, l)
	for i := range y {
		y[i] = -1
		if int32(ds.Label(i)) == m.Labels[k] {
			y[i] = 1
		}
	}
	Cp, Cn := p.C*p.weightOf(m.Labels[k]), p.C
	if m.NrW() == 1 {
		Cn = p.C * p.weightOf(m.Labels[1])
	}
	perm := make([]int, l)
	for i := range perm {
		perm[i] = i
	}
	r := solve.NewRNG(solve.SubSeed(p.Seed, k))
	for i := range perm {
		j := i + r.Intn(l-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	sub := p
	sub.Probability, sub.C = false, 1
	sub.Weights = []model.ClassWeight{{Label: 1, Weight: Cp}, {Label: -1, Weight: Cn}}
	dec = make([]float64, l)
	for f := range 5 {
		begin, end := f*l/5, (f+1)*l/5
		var fold *data.Dataset
		if ds.IsDense() {
			fold = data.NewDense(l, ds.NumFeatures())
		} else {
			fold = data.NewSparse(l, ds.Nonzeros(), 0)
		}
		for _, i := range append(append([]int(nil), perm[:begin]...), perm[end:]...) {
			var err error
			if ds.IsDense() {
				err = fold.AppendDense(float64(y[i]), ds.DenseRow(i))
			} else {
				idx, val := ds.SparseRow(i)
				err = fold.AppendSparse(float64(y[i]), idx, val)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		fm, _, err := TrainLinear(fold, sub)
		if err != nil {
			t.Fatal(err)
		}
		if fm.Labels[0] != 1 {
			t.Fatalf("fold %d: labels %v, want +1 first", f, fm.Labels)
		}
		var d [1]float64
		for _, i := range perm[begin:end] {
			if ds.IsDense() {
				dec[i] = fm.DecisionDense(d[:], ds.DenseRow(i))[0]
			} else {
				idx, val := ds.SparseRow(i)
				dec[i] = fm.DecisionSparse(d[:], idx, val)[0]
			}
		}
	}
	return dec, y
}

// plattGradient returns ∂F/∂A and ∂F/∂B of Platt's objective with his
// smoothed targets t_i (Platt 1999; Lin, Lin & Weng 2007):
// F = Σ log(1 + e^{z_i}) − (1 − t_i) z_i, z_i = A·dec_i + B, whose
// derivative in z_i is t_i − 1/(1 + e^{z_i}).
func plattGradient(dec []float64, y []int8, A, B float64) (gA, gB float64) {
	var nPos, nNeg float64
	for _, v := range y {
		if v > 0 {
			nPos++
		} else {
			nNeg++
		}
	}
	for i, f := range dec {
		t := 1 / (nNeg + 2)
		if y[i] > 0 {
			t = (nPos + 1) / (nPos + 2)
		}
		g := t - 1/(1+math.Exp(A*f+B))
		gA += g * f
		gB += g
	}
	return gA, gB
}

// priorLogLoss is the test log-loss of predicting the training class
// frequencies for every row.
func priorLogLoss(train, test *data.Dataset, labels []int32) float64 {
	freq := map[float64]float64{}
	for _, v := range train.Labels() {
		freq[v] += 1 / float64(train.Len())
	}
	var s float64
	for _, v := range test.Labels() {
		s -= math.Log(max(freq[v], 1e-15))
	}
	return s / float64(test.Len())
}

// TestLinearProbabilityAllocs checks that the probability predictors
// allocate nothing.
func TestLinearProbabilityAllocs(t *testing.T) {
	opts, _, _ := ParseLinearOptions(strings.Fields("-s 7 -B 1"))
	ds := readTestdata(t, "digits.train")
	m, _, err := TrainLinear(ds, opts.Params)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, len(m.Labels))
	idx, val := []int32{0, 5, 17}, []float32{0.5, 1, -2}
	x := make([]float32, m.NumFeatures)
	if n := testing.AllocsPerRun(100, func() { m.ProbabilitySparse(dst, idx, val) }); n != 0 {
		t.Errorf("ProbabilitySparse allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { m.ProbabilityDense(dst, x) }); n != 0 {
		t.Errorf("ProbabilityDense allocates %v times", n)
	}
}

// TestLinearProbabilityLimits checks the sigmoid arithmetic at extreme
// decision values: no NaN where every σ underflows (the softmax limit),
// and a model without probabilities refuses, as for a caller bug.
func TestLinearProbabilityLimits(t *testing.T) {
	m := &LinearModel{Solver: L2Logistic, Labels: []int32{1, 2, 3}, NumFeatures: 1, Bias: -1, W: []float32{1, 2, 3}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	p := m.ProbabilityDense(make([]float64, 3), []float32{-1000})
	// σ(−1000), σ(−2000), σ(−3000) are all 0 in float64; their ratios
	// tend to e^{1000}: the first class takes everything.
	if p[0] != 1 || p[1] != 0 || p[2] != 0 {
		t.Errorf("at x = −1000: %v, want [1 0 0]", p)
	}
	p = m.ProbabilityDense(p, []float32{0})
	for k := range p {
		if math.Abs(p[k]-1.0/3) > 1e-15 {
			t.Errorf("at x = 0: %v, want thirds", p)
		}
	}
	b := &LinearModel{Solver: L2Logistic, Labels: []int32{1, -1}, NumFeatures: 1, Bias: -1, W: []float32{1}}
	if p := b.ProbabilityDense(make([]float64, 2), []float32{-800}); p[0] != 0 || p[1] != 1 {
		t.Errorf("binary at −800: %v", p)
	}
	if p := b.ProbabilityDense(make([]float64, 2), []float32{2}); math.Abs(p[0]-1/(1+math.Exp(-2))) > 1e-16 || math.Abs(p[0]+p[1]-1) > 1e-15 {
		t.Errorf("binary at 2: %v", p)
	}
	svc := &LinearModel{Solver: L2LossSVCDual, Labels: []int32{1, -1}, NumFeatures: 1, Bias: -1, W: []float32{1}}
	if svc.Info().Probability {
		t.Error("an SVC model without Platt parameters reports probabilities")
	}
	defer func() {
		if recover() == nil {
			t.Error("ProbabilityDense of an SVC model without Platt parameters did not panic")
		}
	}()
	svc.ProbabilityDense(make([]float64, 2), []float32{1})
}

// TestLinearPlattValidate checks that Validate refuses Platt parameters
// that do not fit the model.
func TestLinearPlattValidate(t *testing.T) {
	base := LinearModel{Solver: L2LossSVCDual, Labels: []int32{1, 2, 3}, NumFeatures: 1, Bias: -1, W: []float32{1, 2, 3}}
	for _, c := range []struct {
		name   string
		change func(m *LinearModel)
		ok     bool
	}{
		{"fits", func(m *LinearModel) { m.ProbA, m.ProbB = []float64{-1, -2, -3}, []float64{0, 0, 0} }, true},
		{"short", func(m *LinearModel) { m.ProbA, m.ProbB = []float64{-1, -2}, []float64{0, 0} }, false},
		{"A only", func(m *LinearModel) { m.ProbA = []float64{-1, -2, -3} }, false},
		{"NaN", func(m *LinearModel) { m.ProbA, m.ProbB = []float64{-1, math.NaN(), -3}, []float64{0, 0, 0} }, false},
		{"logistic", func(m *LinearModel) {
			m.Solver = L2LogisticDual
			m.ProbA, m.ProbB = []float64{-1, -2, -3}, []float64{0, 0, 0}
		}, false},
	} {
		m := base
		c.change(&m)
		if err := m.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: Validate = %v", c.name, err)
		}
	}
	if _, _, err := ParseLinearOptions([]string{"-s", "12", "-b", "1"}); err == nil {
		t.Error("-s 12 -b 1 accepted")
	}
}

// TestLinearPlattDeterministic checks that the sigmoids depend on the seed
// alone: one thread and two give bit-identical ProbA and ProbB, another
// seed other folds.
func TestLinearPlattDeterministic(t *testing.T) {
	ds := readTestdata(t, "digits.train")
	opts, _, _ := ParseLinearOptions(strings.Fields("-s 1 -b 1"))
	fit := func(seed uint64, threads int) *LinearModel {
		p := opts.Params
		p.Seed, p.Threads = seed, threads
		m, _, err := TrainLinear(ds, p)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b, c := fit(3, 1), fit(3, 2), fit(4, 1)
	for k := range a.ProbA {
		if math.Float64bits(a.ProbA[k]) != math.Float64bits(b.ProbA[k]) || math.Float64bits(a.ProbB[k]) != math.Float64bits(b.ProbB[k]) {
			t.Fatalf("decision function %d: (%v, %v) with one thread, (%v, %v) with two", k, a.ProbA[k], a.ProbB[k], b.ProbA[k], b.ProbB[k])
		}
	}
	if a.ProbA[0] == c.ProbA[0] && a.ProbB[0] == c.ProbB[0] {
		t.Error("seeds 3 and 4 give the same sigmoid: the folds do not follow the seed")
	}
}
