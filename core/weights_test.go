package core

import (
	"math"
	"reflect"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
)

// weightObjRelTol is the acceptance tolerance of a weighted training
// against the same rows duplicated: objectives equal to 1e-6, relative.
const weightObjRelTol = 1e-6

// weightedAndDuplicated returns ds with every third row given weight 2
// (and row 1 weight 3), and the unweighted data set in which those rows
// appear two (three) times, each copy right after the row.
func weightedAndDuplicated(t *testing.T, ds *data.Dataset) (weighted, dup *data.Dataset) {
	t.Helper()
	times := func(i int) int {
		switch {
		case i == 1:
			return 3
		case i%3 == 0:
			return 2
		}
		return 1
	}
	l, extra, extraNZ := ds.Len(), 0, 0
	for i := range l {
		extra += times(i) - 1
		extraNZ += (times(i) - 1) * max(rowNonzeros(ds, i), 0)
	}
	weighted = newLike(ds, l, ds.Nonzeros())
	dup = newLike(ds, l+extra, ds.Nonzeros()+extraNZ)
	for i := range l {
		solve.AppendRow(weighted, ds, i)
		if err := weighted.SetWeight(i, float64(times(i))); err != nil {
			t.Fatal(err)
		}
		for range times(i) {
			solve.AppendRow(dup, ds, i)
		}
	}
	return weighted, dup
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / max(math.Abs(a), math.Abs(b), 1e-300)
}

// TestWeightedLinearMatchesDuplicatedRows: for every linear formulation a
// row of weight k trains as the row given k times — the same optimal
// objective (dual for the DCD solvers, primal for TRON's).
func TestWeightedLinearMatchesDuplicatedRows(t *testing.T) {
	heart := readTestdata(t, "heart_scale")
	diabetes := readTestdata(t, "diabetes.train")
	for _, solver := range []linear.LinearSolver{linear.L2Logistic, linear.L2LossSVCDual, linear.L2LossSVCPrimal, linear.L1LossSVCDual,
		linear.L2LogisticDual, linear.L1L2LossSVC, linear.L1Logistic, linear.L2LossSVRPrimal, linear.L2LossSVRDual, linear.L1LossSVRDual} {
		t.Run(solver.String(), func(t *testing.T) {
			ds := heart
			if solver.IsRegression() {
				ds = diabetes
			}
			wds, dup := weightedAndDuplicated(t, ds)
			p := linear.DefaultLinearParams()
			p.Solver, p.C, p.Bias, p.MaxIter = solver, 0.5, 1, 100000
			p.Eps = 1e-8
			if solver.IsPrimal() {
				p.Eps = 1e-7 // relative to ‖∇f(0)‖
			}
			if solver.IsL1() {
				p.Eps = 1e-10 // relative to the first pass's Σ_j |∇ˢ_j f|
			}
			if solver.IsRegression() {
				p.C, p.P = 0.01, 0.2
				p.AbsoluteEps = true
			}
			mw, _, err := linear.TrainLinear(wds, p)
			if err != nil {
				t.Fatal(err)
			}
			md, _, err := linear.TrainLinear(dup, p)
			if err != nil {
				t.Fatal(err)
			}
			if !mw.Result.Converged || !md.Result.Converged {
				t.Fatalf("not converged: weighted %v, duplicated %v", mw.Result.Converged, md.Result.Converged)
			}
			fw, fd := mw.Result.DualObjective, md.Result.DualObjective
			// -s 7's dual has −Σ C_i log C_i, which a merged row does not
			// split as its copies do: compare its primal.
			// -s 5 and -s 6 are solved in the primal and have no dual
			// objective.
			if solver.IsPrimal() || solver == linear.L2LogisticDual || solver.IsL1() {
				fw, fd = mw.Result.PrimalObjective, md.Result.PrimalObjective
			}
			d := relDiff(fw, fd)
			if d > weightObjRelTol {
				t.Errorf("objective weighted %.12g, duplicated %.12g: relative difference %.2g > %g", fw, fd, d, weightObjRelTol)
			}
			t.Logf("objective weighted %.12g, duplicated %.12g, relative difference %.2g", fw, fd, d)
			// The weights matter: the unweighted rows give another optimum.
			mu, _, err := linear.TrainLinear(ds, p)
			if err != nil {
				t.Fatal(err)
			}
			fu := mu.Result.DualObjective
			if solver.IsPrimal() || solver == linear.L2LogisticDual || solver.IsL1() {
				fu = mu.Result.PrimalObjective
			}
			if relDiff(fu, fd) < 100*weightObjRelTol {
				t.Errorf("unweighted objective %.12g as the duplicated one %.12g: the test cannot tell", fu, fd)
			}
		})
	}
}

// TestWeightedL1StopsAsDuplicated: -s 5 and -s 6, and TRON's -s 0 and
// -s 2, at LIBLINEAR's default tolerance stop where the run on duplicated
// rows stops, not only at the same optimum under a tight one. Their tests
// scale by min(#pos, #neg)/l (and -s 5/-s 6 shrink by M/l); with the rows
// counted by their weights the two runs agree to rounding, while counting
// the stored rows instead leaves them apart in objective on digits
// (one-vs-rest over 10 classes, a class weight on top): by 1.2e-3 (-s 5)
// through the tolerance, by 1.4e-3 (-s 5) and 1.7e-2 (-s 6) through
// shrinking, by 1.4e-2 (-s 2) through TRON's tolerance.
func TestWeightedL1StopsAsDuplicated(t *testing.T) {
	digits := readTestdata(t, "digits.train")
	wds, dup := weightedAndDuplicated(t, digits)
	for _, solver := range []linear.LinearSolver{linear.L1L2LossSVC, linear.L1Logistic, linear.L2LossSVCPrimal, linear.L2Logistic} {
		p := linear.DefaultLinearParams()
		p.Solver, p.C, p.Bias = solver, 0.5, 1
		p.Weights = []ClassWeight{{Label: 3, Weight: 2.5}}
		mw, _, err := linear.TrainLinear(wds, p)
		if err != nil {
			t.Fatal(err)
		}
		md, _, err := linear.TrainLinear(dup, p)
		if err != nil {
			t.Fatal(err)
		}
		fw, fd := mw.Result.PrimalObjective, md.Result.PrimalObjective
		d := relDiff(fw, fd)
		tol := weightObjRelTol
		if solver == linear.L2LossSVCPrimal {
			// Stopped at LIBLINEAR's loose -e 0.01 after the same 7 Newton
			// iterations, the two runs' CG steps differ by rounding (the
			// duplicated rows are summed in another order): 1.1e-6 apart.
			// Counting stored rows in the tolerance left them 1.4e-2 apart.
			tol = 1e-5
		}
		if d > tol || !mw.Result.Converged || !md.Result.Converged {
			t.Errorf("%v: objective weighted %.12g, duplicated %.12g: relative difference %.2g > %g (converged %v, %v)",
				solver, fw, fd, d, tol, mw.Result.Converged, md.Result.Converged)
		}
		t.Logf("%v: objective weighted %.12g, duplicated %.12g, relative difference %.2g; iterations %d, %d; updates %d, %d",
			solver, fw, fd, d, mw.Result.Iterations, md.Result.Iterations, mw.Result.Updates, md.Result.Updates)
	}
}

// TestWeightedKernelMatchesDuplicatedRows is the same check for SMO:
// C-SVC (binary and one-vs-one), ε-SVR, one-class, whose weight is the
// row's bound (Σα = ν Σ w), and ν-SVC (binary and one-vs-one) and ν-SVR,
// whose weight is the row's bound (C w_t for ν-SVR) and counts in the sums
// (νΣw/2 per class, CνΣw/2 per side): the same objective, ρ, and decision
// value at every row.
func TestWeightedKernelMatchesDuplicatedRows(t *testing.T) {
	heart := readTestdata(t, "heart_scale")
	diabetes := readTestdata(t, "diabetes.train")
	digits := readTestdata(t, "digits.train").Prefix(500) // 10 classes, 45 pairs
	// Three classes: heart_scale's labels with every fifth row moved to a
	// third class.
	three := newLike(heart, heart.Len(), heart.Nonzeros())
	for i := range heart.Len() {
		y := heart.Label(i)
		if i%5 == 0 {
			y = 2
		}
		if err := three.AppendDense(y, heart.DenseRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		ds   *data.Dataset
		set  func(p *KernelParams)
	}{
		{"C-SVC", heart, func(p *KernelParams) { p.C = 2 }},
		{"C-SVC/3 classes, class weight", three, func(p *KernelParams) {
			p.C = 2
			p.Weights = []ClassWeight{{Label: 2, Weight: 1.5}}
		}},
		{"eps-SVR", diabetes, func(p *KernelParams) { p.SVMType, p.C, p.P = EpsSVR, 0.5, 0.2 }},
		{"one-class", heart, func(p *KernelParams) { p.SVMType, p.Nu = OneClass, 0.3 }},
		{"one-class/linear", heart, func(p *KernelParams) {
			p.SVMType, p.Nu, p.Kernel = OneClass, 0.45, Kernel{Type: LinearKernel}
		}},
		{"nu-SVC", heart, func(p *KernelParams) { p.SVMType, p.Nu = NuSVC, 0.4 }},
		{"nu-SVC/no shrinking", heart, func(p *KernelParams) { p.SVMType, p.Nu, p.Shrinking = NuSVC, 0.2, false }},
		{"nu-SVC/3 classes", three, func(p *KernelParams) { p.SVMType, p.Nu = NuSVC, 0.3 }},
		{"nu-SVC/digits", digits, func(p *KernelParams) { p.SVMType, p.Nu, p.Kernel.Gamma = NuSVC, 0.1, 1.0/64 }},
		{"nu-SVR", diabetes, func(p *KernelParams) { p.SVMType, p.C, p.Nu = NuSVR, 10, 0.4 }},
		{"nu-SVR/linear", diabetes, func(p *KernelParams) {
			p.SVMType, p.C, p.Nu, p.Kernel = NuSVR, 0.5, 0.6, Kernel{Type: LinearKernel}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultKernelParams()
			p.Eps = 1e-8
			p.Kernel.Gamma = 1.0 / 13
			c.set(&p)
			wds, dup := weightedAndDuplicated(t, c.ds)
			mw, _, err := TrainKernel(wds, p)
			if err != nil {
				t.Fatal(err)
			}
			md, _, err := TrainKernel(dup, p)
			if err != nil {
				t.Fatal(err)
			}
			fw, fd := mw.Result.Objective, md.Result.Objective
			d := relDiff(fw, fd)
			if d > weightObjRelTol {
				t.Errorf("objective weighted %.12g, duplicated %.12g: relative difference %.2g > %g", fw, fd, d, weightObjRelTol)
			}
			t.Logf("objective weighted %.12g, duplicated %.12g, relative difference %.2g", fw, fd, d)
			for k := range mw.Rho {
				if math.Abs(mw.Rho[k]-md.Rho[k]) > 1e-5*max(1, math.Abs(md.Rho[k])) {
					t.Errorf("rho[%d] weighted %.10g, duplicated %.10g", k, mw.Rho[k], md.Rho[k])
				}
			}
			for k, s := range mw.Result.Subproblems {
				// ν's r: 1/C of the equivalent C-SVC, −ε of the ε-SVR.
				if r := md.Result.Subproblems[k].R; math.Abs(s.R-r) > 1e-5*max(1, math.Abs(r)) {
					t.Errorf("sub %d: r weighted %.10g, duplicated %.10g", k, s.R, r)
				}
			}
			dw := make([]float64, mw.NumDecisionValues())
			dd := make([]float64, md.NumDecisionValues())
			for i := range c.ds.Len() {
				x := c.ds.DenseRow(i)
				mw.DecisionDense(dw, x)
				md.DecisionDense(dd, x)
				for k := range dw {
					if math.Abs(dw[k]-dd[k]) > 1e-5*max(1, math.Abs(dd[k])) {
						t.Fatalf("row %d: decision value %d weighted %.10g, duplicated %.10g", i, k, dw[k], dd[k])
					}
				}
			}
			mu, _, err := TrainKernel(c.ds, p)
			if err != nil {
				t.Fatal(err)
			}
			if relDiff(mu.Result.Objective, fd) < 100*weightObjRelTol {
				t.Errorf("unweighted objective %.12g as the duplicated one %.12g: the test cannot tell", mu.Result.Objective, fd)
			}
		})
	}
}

// TestUnitWeightsTrainBitForBit: a data set whose weights were set and
// are all 1 again trains exactly as one that never had weights.
func TestUnitWeightsTrainBitForBit(t *testing.T) {
	heart := readTestdata(t, "heart_scale")
	ones := newLike(heart, heart.Len(), heart.Nonzeros())
	for i := range heart.Len() {
		solve.AppendRow(ones, heart, i)
	}
	for _, w := range []float64{2, 1} { // allocate the weights, then back to 1
		for i := range ones.Len() {
			if err := ones.SetWeight(i, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	if ones.Weights() == nil {
		t.Fatal("weights not allocated: the test does not test the weighted data set")
	}
	for _, solver := range []linear.LinearSolver{linear.L2Logistic, linear.L2LossSVCDual, linear.L2LossSVCPrimal, linear.L1LossSVCDual,
		linear.L2LogisticDual, linear.L1L2LossSVC, linear.L1Logistic, linear.L2LossSVRPrimal, linear.L2LossSVRDual, linear.L1LossSVRDual} {
		p := linear.DefaultLinearParams()
		p.Solver = solver
		a, da, err := linear.TrainLinear(heart, p)
		if err != nil {
			t.Fatal(err)
		}
		b, db, err := linear.TrainLinear(ones, p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(da, db) {
			t.Errorf("-s %d: weights 1 give another model", int(solver))
		}
	}
	for _, svm := range []SVMType{CSVC, EpsSVR, OneClass, NuSVC, NuSVR} {
		p := DefaultKernelParams()
		p.SVMType = svm
		a, da, err := TrainKernel(heart, p)
		if err != nil {
			t.Fatal(err)
		}
		b, db, err := TrainKernel(ones, p)
		if err != nil {
			t.Fatal(err)
		}
		same := a.SV.Len() == b.SV.Len()
		for i := 0; same && i < a.SV.Len(); i++ {
			if a.SV.IsDense() {
				same = b.SV.IsDense() && reflect.DeepEqual(a.SV.DenseRow(i), b.SV.DenseRow(i))
				continue
			}
			ia, va := a.SV.SparseRow(i)
			ib, vb := b.SV.SparseRow(i)
			same = reflect.DeepEqual(ia, ib) && reflect.DeepEqual(va, vb)
		}
		if !same || !reflect.DeepEqual(a.Coef, b.Coef) || !reflect.DeepEqual(a.Rho, b.Rho) ||
			!reflect.DeepEqual(a.Result, b.Result) || !reflect.DeepEqual(da.Alpha, db.Alpha) {
			t.Errorf("%v: weights 1 give another model: %+v\n%+v", svm, a.Result, b.Result)
		}
	}
}

// TestWeightChangeWarmStart: after a weight changes, a warm start from the
// previous α (clipped into the new box, the equality repaired) reaches the
// cold start's optimum.
func TestWeightChangeWarmStart(t *testing.T) {
	heart := readTestdata(t, "heart_scale")
	wds, _ := weightedAndDuplicated(t, heart)
	p := DefaultKernelParams()
	p.C, p.Eps = 4, 1e-6
	tr, err := NewKernelTrainer(p, wds.Len(), wds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	_, dual, err := tr.Train(wds, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Shrink the box of every bounded support vector: their α must be
	// clipped.
	clipped := 0
	for i, a := range dual.Alpha[0] {
		if a >= p.C*wds.Weight(i)-1e-12 {
			_ = wds.SetWeight(i, 0.25)
			clipped++
		}
	}
	if clipped == 0 {
		t.Fatal("no bounded support vector to clip")
	}
	warm, _, err := tr.Train(wds, dual)
	if err != nil {
		t.Fatal(err)
	}
	cold, _, err := TrainKernel(wds, p)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(warm.Result.Objective, cold.Result.Objective); d > 1e-6 {
		t.Errorf("warm objective %.10g, cold %.10g", warm.Result.Objective, cold.Result.Objective)
	}
	lp := linear.DefaultLinearParams()
	lp.Solver, lp.Eps = linear.L1LossSVCDual, 1e-6
	lt, err := linear.NewLinearTrainer(lp, wds.Len(), wds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	_, ldual, err := lt.Train(heart, nil)
	if err != nil {
		t.Fatal(err)
	}
	lwarm, _, err := lt.Train(wds, ldual)
	if err != nil {
		t.Fatal(err)
	}
	lcold, _, err := linear.TrainLinear(wds, lp)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(lwarm.Result.DualObjective, lcold.Result.DualObjective); d > 1e-5 {
		t.Errorf("linear warm objective %.10g, cold %.10g", lwarm.Result.DualObjective, lcold.Result.DualObjective)
	}
}

func TestWeightedSMOAllocs(t *testing.T) {
	pr := smoRBFProblem(60, 4, 10, 9)
	s := newSMO(60)
	wv := make([]float64, 60)
	for i := range wv {
		wv[i] = 0.5 + float64(i%4)
	}
	a := make([]float64, 60)
	par := smoParams{Cp: pr.Cp, Cn: pr.Cn, Weight: wv, Shrinking: true}
	var res smoResult
	if n := testing.AllocsPerRun(10, func() {
		clear(a)
		res = s.solve(pr.Q, pr.p, pr.y, a, par)
	}); n != 0 || !res.Converged {
		t.Errorf("weighted SMO allocates %v times (converged %v)", n, res.Converged)
	}
	for i, v := range a {
		if C := boxOf(pr.y[i], pr.Cp, pr.Cn) * wv[i]; v > C {
			t.Fatalf("α_%d = %v above its bound %v", i, v, C)
		}
	}
	// ν: a weighted solve allocates nothing either (started as nuStart
	// starts, per side: rows filled in order to their bounds w_t).
	pn := make([]float64, 60)
	par = smoParams{Cp: 1, Cn: 1, Weight: wv, Shrinking: true, Nu: true}
	if n := testing.AllocsPerRun(10, func() {
		rest := [2]float64{0.3 * solve.WeightSum(wv, 60) / 2, 0.3 * solve.WeightSum(wv, 60) / 2}
		for i, y := range pr.y {
			side := (1 - int(y)) / 2 // 0 for y = +1
			a[i] = min(wv[i], rest[side])
			rest[side] -= a[i]
		}
		res = s.solve(pr.Q, pn, pr.y, a, par)
	}); n != 0 || !res.Converged || res.Iterations == 0 {
		t.Errorf("weighted ν SMO allocates %v times (converged %v, %d iterations)", n, res.Converged, res.Iterations)
	}
}

// TestScaleKeepsWeights: scaling (--scale) changes a row's features, not
// its weight.
func TestScaleKeepsWeights(t *testing.T) {
	wds, _ := weightedAndDuplicated(t, readTestdata(t, "heart_scale"))
	r, err := rowscale.FitScale(wds, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	sds, err := rowscale.ScaleDataset(wds, r)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sds.Weights(), wds.Weights()) || sds.Weights() == nil {
		t.Errorf("scaled weights %v, want %v", sds.Weights()[:4], wds.Weights()[:4])
	}
}

// TestWeightedProbabilityFolds: the internal cross-validation of -b 1
// trains its folds with the rows' instance weights, as LIBSVM's
// instance-weight branch does. Every row at weight 2 is C doubled for
// C-SVC and ε-SVR, so the weighted model's ProbA and ProbB are those of
// the unweighted one at 2C (the folds do not depend on the weights).
func TestWeightedProbabilityFolds(t *testing.T) {
	for _, c := range []struct {
		name string
		data string
		svm  SVMType
	}{
		{"C-SVC", "heart_scale", CSVC},
		{"C-SVC/10 classes", "digits.train", CSVC},
		{"eps-SVR", "diabetes.train", EpsSVR},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := readTestdata(t, c.data)
			if c.data == "digits.train" {
				ds = ds.Prefix(300)
			}
			p := DefaultKernelParams()
			p.SVMType, p.Probability, p.C, p.Eps = c.svm, true, 0.5, 1e-6
			p.Kernel.Gamma = 1.0 / float64(ds.NumFeatures())
			p2 := p
			p2.C = 2 * p.C
			m2, _, err := TrainKernel(ds, p2)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ds.Len() {
				if err := ds.SetWeight(i, 2); err != nil {
					t.Fatal(err)
				}
			}
			mw, _, err := TrainKernel(ds, p)
			if err != nil {
				t.Fatal(err)
			}
			for k := range m2.ProbA {
				if relDiff(mw.ProbA[k], m2.ProbA[k]) > 1e-4 {
					t.Errorf("ProbA[%d]: weights 2 %.8g, 2C %.8g", k, mw.ProbA[k], m2.ProbA[k])
				}
			}
			for k := range m2.ProbB {
				if math.Abs(mw.ProbB[k]-m2.ProbB[k]) > 1e-4*max(1, math.Abs(m2.ProbB[k])) {
					t.Errorf("ProbB[%d]: weights 2 %.8g, 2C %.8g", k, mw.ProbB[k], m2.ProbB[k])
				}
			}
		})
	}
}

// TestWeightedLinearProbabilityFolds is TestWeightedProbabilityFolds for
// the Platt sigmoids of linear SVC (-s 1, -s 3 with -b 1).
func TestWeightedLinearProbabilityFolds(t *testing.T) {
	for _, solver := range []linear.LinearSolver{linear.L2LossSVCDual, linear.L1LossSVCDual} {
		ds := readTestdata(t, "digits.train").Prefix(300)
		p := linear.DefaultLinearParams()
		p.Solver, p.Probability, p.C, p.Bias, p.Eps = solver, true, 0.5, 1, 1e-6
		p2 := p
		p2.C = 2 * p.C
		m2, _, err := linear.TrainLinear(ds, p2)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ds.Len() {
			if err := ds.SetWeight(i, 2); err != nil {
				t.Fatal(err)
			}
		}
		mw, _, err := linear.TrainLinear(ds, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(m2.ProbA) == 0 {
			t.Fatalf("-s %d: no Platt parameters", int(solver))
		}
		for k := range m2.ProbA {
			if math.Abs(mw.ProbA[k]-m2.ProbA[k]) > 1e-3*max(1, math.Abs(m2.ProbA[k])) ||
				math.Abs(mw.ProbB[k]-m2.ProbB[k]) > 1e-3*max(1, math.Abs(m2.ProbB[k])) {
				t.Errorf("-s %d: sigmoid %d: weights 2 (%.8g, %.8g), 2C (%.8g, %.8g)",
					int(solver), k, mw.ProbA[k], mw.ProbB[k], m2.ProbA[k], m2.ProbB[k])
			}
		}
	}
}
