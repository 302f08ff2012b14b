package linear

import "testing"

// TestWeightedSolverAllocs: with instance weights a DCD pass and a Newton
// solve allocate nothing, as without.
func TestWeightedSolverAllocs(t *testing.T) {
	wds := readTestdata(t, "heart_scale")
	for i := range wds.Len() {
		if i%3 == 0 {
			if err := wds.SetWeight(i, 2); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := DefaultLinearParams()
	p.Solver, p.Bias = L2LossSVCPrimal, 1
	tr, err := NewLinearTrainer(p, wds.Len(), wds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	wk := &tr.workers[0]
	y := wk.y[:wds.Len()]
	for i := range y {
		y[i] = int8(wds.Label(i))
	}
	alpha := make([]float64, wds.Len())
	wk.svc.init(wds, y, alpha, wk.QD, 1, 1, true, 1, 0.1, 1)
	if wk.svc.wt == nil {
		t.Fatal("DCD did not see the weights")
	}
	if n := testing.AllocsPerRun(20, func() { wk.svc.pass() }); n != 0 {
		t.Errorf("weighted SVC pass allocates %v times", n)
	}
	wk.fsvc.init(wds, y, 1, 1, 1, wk.QD, wk.z, wk.u, wk.I)
	w := wk.w[:wds.NumFeatures()+1]
	if n := testing.AllocsPerRun(5, func() {
		clear(w)
		wk.newton.minimize(&wk.fsvc, w, 1e-6, tr.newtonSettings(false, 0), 1000)
	}); n != 0 {
		t.Errorf("weighted Newton method allocates %v times", n)
	}
}
