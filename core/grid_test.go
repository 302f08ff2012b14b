package core

import (
	"math"
	"strconv"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestPathStartGradient: the gradient PathStart carries to C' = 4C is
// ∇f at its start (bounded α on the new bound, free α kept), checked against G_t = Σ_j Q_tj α'_j − 1 summed
// from kernel values, and a training from it reaches the cold optimum.
func TestPathStartGradient(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	wds, _ := weightedAndDuplicated(t, ds) // weights too: bounds C·w_i
	p := DefaultKernelParams()
	p.C, p.Eps = 0.5, 1e-6
	p.Kernel.Gamma = 0.05
	tr, err := NewKernelTrainer(p, wds.Len(), wds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	_, d, err := tr.Train(wds, nil)
	if err != nil {
		t.Fatal(err)
	}
	p4 := p
	p4.C = 4 * p.C
	s := d.PathStart(wds, p4, 4)
	if s.Gradient == nil {
		t.Fatal("no gradient carried")
	}
	// Recompute G of the pair's rows: class Pairs[0][0] first, data order.
	a, pos := s.Alpha[0], s.Pairs[0][0]
	var rows []int
	for _, first := range []bool{true, false} {
		for i := range wds.Len() {
			if (int32(wds.Label(i)) == pos) == first {
				rows = append(rows, i)
			}
		}
	}
	y := func(i int) float64 {
		if int32(wds.Label(i)) == pos {
			return 1
		}
		return -1
	}
	atBound := 0
	for k, i := range rows {
		g := -1.0
		for _, j := range rows {
			if a[j] != 0 {
				g += y(i) * y(j) * p.Kernel.Dense(wds.DenseRow(i), wds.DenseRow(j)) * a[j]
			}
		}
		if got := s.Gradient.G[0][k]; math.Abs(got-g) > 1e-5*(1+math.Abs(g)) {
			t.Fatalf("G of row %d = %.10g, recomputed %.10g", i, got, g)
		}
		if a[i] == p4.C*wds.Weight(i) {
			atBound++
		}
	}
	if atBound == 0 {
		t.Fatal("no α at its new bound: the test does not test the bounds")
	}
	fresh, err := NewKernelTrainer(p4, wds.Len(), wds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	warm, _, err := fresh.Train(wds, s)
	if err != nil {
		t.Fatal(err)
	}
	cold, _, err := TrainKernel(wds, p4)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(warm.Result.Objective, cold.Result.Objective); d > 1e-6 {
		t.Errorf("warm objective %.10g, cold %.10g", warm.Result.Objective, cold.Result.Objective)
	}
	// A fresh trainer has no cached columns: what the start saves here is
	// the gradient (the grid's C paths also keep the cache).
	if warm.Result.KernelEvals >= cold.Result.KernelEvals {
		t.Errorf("the path start saved nothing: %d kernel evaluations, cold %d", warm.Result.KernelEvals, cold.Result.KernelEvals)
	}
	t.Logf("kernel evaluations %d, cold %d; iterations %d, cold %d",
		warm.Result.KernelEvals, cold.Result.KernelEvals, warm.Result.Iterations, cold.Result.Iterations)
}

// TestGridSearchMatchesCrossValidation: a cold grid point is
// CrossValidateKernel at its C and γ, exactly; the warm path agrees to a
// row or two at a fraction of the kernel evaluations.
func TestGridSearchMatchesCrossValidation(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	o := GridOptions{Params: DefaultKernelParams(), Log2C: []float64{3, -3, 1, -1}, Log2G: []float64{-7, -3}, Folds: 5}
	o.Cold = true
	cold, err := GridSearch(ds, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Cold = false
	warm, err := GridSearch(ds, o)
	if err != nil {
		t.Fatal(err)
	}
	for k, pt := range cold.Points {
		p := o.Params
		p.C, p.Kernel.Gamma = math.Exp2(pt.Log2C), math.Exp2(pt.Log2G)
		pred, err := CrossValidateKernel(ds, p, 5)
		if err != nil {
			t.Fatal(err)
		}
		want := 100 * ScorePredictions(pred, ds.Labels(), false).Accuracy()
		if math.Abs(pt.Rate-want) > 1e-9 {
			t.Errorf("log2c %v log2g %v: cold grid rate %v, CrossValidateKernel %v", pt.Log2C, pt.Log2G, pt.Rate, want)
		}
		if w := warm.Points[k]; math.Abs(w.Rate-want) > 2*100.0/270+1e-9 {
			t.Errorf("log2c %v log2g %v: warm grid rate %v, cross-validation %v", w.Log2C, w.Log2G, w.Rate, want)
		}
	}
	if warm.KernelEvals*3 > cold.KernelEvals {
		t.Errorf("warm path: %d kernel evaluations, cold %d", warm.KernelEvals, cold.KernelEvals)
	}
	t.Logf("kernel evaluations warm %d, cold %d; iterations warm %d, cold %d",
		warm.KernelEvals, cold.KernelEvals, warm.Iterations, cold.Iterations)
}

// TestGridSearchMultiClassSmallCache: with ten classes (45 pairs scored by
// one-vs-one votes) a cold grid point is CrossValidateKernel's, exactly;
// and a cache budget too small to keep the held-out rows' kernel values
// (most are computed again at each C) and the pairs' columns changes no
// rate, warm or cold.
func TestGridSearchMultiClassSmallCache(t *testing.T) {
	digits := readTestdata(t, "digits.train")
	ds := data.NewDense(500, digits.NumFeatures()) // the first 500 rows: all ten classes, a short race pass
	for i := range 500 {
		if err := ds.AppendDense(digits.Label(i), digits.DenseRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	o := GridOptions{Params: DefaultKernelParams(), Log2C: []float64{3, -1}, Log2G: []float64{-5}, Folds: 3}
	for _, cold := range []bool{true, false} {
		o.Cold = cold
		o.Params.CacheMB = 100
		big, err := GridSearch(ds, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Params.CacheMB = 0.02 // a worker keeps the held-out values of 3 to 7 of the 333 training rows
		small, err := GridSearch(ds, o)
		if err != nil {
			t.Fatal(err)
		}
		for k, pt := range big.Points {
			if small.Points[k].Rate != pt.Rate {
				t.Errorf("cold %v, log2c %v: rate %v with a small cache, %v with a large one", cold, pt.Log2C, small.Points[k].Rate, pt.Rate)
			}
			if !cold {
				continue
			}
			p := o.Params
			p.C, p.Kernel.Gamma = math.Exp2(pt.Log2C), math.Exp2(pt.Log2G)
			pred, err := CrossValidateKernel(ds, p, 3)
			if err != nil {
				t.Fatal(err)
			}
			if want := 100 * ScorePredictions(pred, ds.Labels(), false).Accuracy(); math.Abs(pt.Rate-want) > 1e-9 {
				t.Errorf("log2c %v: cold grid rate %v, CrossValidateKernel %v", pt.Log2C, pt.Rate, want)
			}
		}
		if small.KernelEvals <= big.KernelEvals && cold {
			t.Errorf("cold: %d kernel evaluations with a small cache, %d with a large one: the cache did not bind", small.KernelEvals, big.KernelEvals)
		}
	}
}

// TestGridSearchLIBSVMFolds: with svm-train's folds the rates are
// Debian's svm-grid's (LIBSVM 3.24's svm-train -v 5, grid.py's printing
// of %g), cell for cell, on heart_scale.
func TestGridSearchLIBSVMFolds(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	// svm-grid -svmtrain /usr/bin/svm-train -gnuplot null -out null heart_scale
	want := map[[2]float64]string{
		{5, -7}: "83.3333", {-1, -7}: "83.3333", {5, -1}: "77.037", {11, -13}: "84.4444",
		{-5, 3}: "55.5556", {1, -1}: "76.2963", {9, -9}: "83.7037", {-3, -5}: "83.7037",
	}
	var cs, gs []float64
	for k := range want {
		cs, gs = append(cs, k[0]), append(gs, k[1])
	}
	for _, cold := range []bool{true, false} {
		res, err := GridSearch(ds, GridOptions{Params: DefaultKernelParams(), Log2C: cs, Log2G: gs, Folds: 5,
			LIBSVMFolds: true, Cold: cold})
		if err != nil {
			t.Fatal(err)
		}
		for _, pt := range res.Points {
			w, ok := want[[2]float64{pt.Log2C, pt.Log2G}]
			if !ok {
				continue
			}
			if got := strconv.FormatFloat(pt.Rate, 'g', 6, 64); got != w {
				t.Errorf("cold %v: log2c %v log2g %v: rate %s, svm-grid %s", cold, pt.Log2C, pt.Log2G, got, w)
			}
		}
	}
}
