package linear

import (
	"math"
	"strings"
	"testing"
)

// TestCholeskySolve: a hand-derived 3×3 system, H = LLᵀ with
// L = [[2,0,0],[1,3,0],[−1,2,1]] and x = (1, −2, 3).
func TestCholeskySolve(t *testing.T) {
	H := []float64{4, 2, -2, 2, 10, 5, -2, 5, 6}
	g := []float64{4*1 + 2*-2 + -2*3, 2*1 + 10*-2 + 5*3, -2*1 + 5*-2 + 6*3}
	if !choleskySolve(H, g, 3) {
		t.Fatal("positive definite H refused")
	}
	for i, want := range []float64{1, -2, 3} {
		if math.Abs(g[i]-want) > 1e-12 {
			t.Errorf("x[%d] = %v, want %v", i, g[i], want)
		}
	}
	if choleskySolve([]float64{1, 2, 2, 1}, []float64{1, 1}, 2) {
		t.Error("indefinite H accepted")
	}
}

// TestStiffBlockChoose: the block is the stiffCoords largest entries of D.
func TestStiffBlockChoose(t *testing.T) {
	D := make([]float64, 300)
	for j := range D {
		D[j] = float64((j * 37) % 300) // a permutation of 0..299
	}
	b := newStiffBlock(len(D))
	b.choose(D)
	if len(b.S) != stiffCoords {
		t.Fatalf("%d coordinates, want %d", len(b.S), stiffCoords)
	}
	for _, j := range b.S {
		if D[j] < float64(300-stiffCoords) {
			t.Errorf("coordinate %d (D %v) is not among the %d largest", j, D[j], stiffCoords)
		}
		if S := b.S[b.pos[j]]; S != j {
			t.Errorf("pos[%d] = %d points at %d", j, b.pos[j], S)
		}
	}
}

// TestRebuildFromAlpha: w rebuilt from a -s 2 -B 1 run's α alone, on the
// same rows, has the objective of the run's own w within 1e-3 relative,
// where w(α) = Σ y_i α_i x_i is worse than w = 0 (debdesc_bin, LIBLINEAR's
// default -e).
func TestRebuildFromAlpha(t *testing.T) {
	ds := readTestdata(t, "debdesc_bin.train")
	opts, _, _ := ParseLinearOptions(strings.Fields("-s 2 -B 1"))
	p := opts.Params
	m, d, err := TrainLinear(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	l := ds.Len()
	y := make([]int8, l)
	for i, v := range ds.Labels() {
		y[i] = -1
		if int32(v) == m.Labels[0] {
			y[i] = 1
		}
	}
	var f l2svcFun
	f.init(ds, y, p.C, p.C, p.Bias, make([]float64, l), make([]float64, l), make([]float64, l), make([]int32, l))
	dim := f.dim()
	wPrev := make([]float64, dim)
	primalVector(PrimalOf(m), m.Labels, m.Labels[0]).fill(wPrev, f.n, p.Bias)
	alpha := d.Alpha[0]
	wAlpha := make([]float64, dim)
	for i, a := range alpha {
		f.addRow(wAlpha, float64(y[i])*a, i)
	}
	tr := newNewton(dim)
	b := newStiffBlock(dim)
	w := make([]float64, dim)
	f.rebuildFromAlpha(w, alpha, tr.D[:dim], &b)
	minority, rows := weightedCounts(y, nil)
	if hv := f.refineOnQ(w, alpha, tr.D[:dim], &tr, p.Eps*minority/rows); hv == 0 || hv > m.Result.HessianProducts {
		t.Errorf("refinement took %d Hessian products, the cold run %d", hv, m.Result.HessianProducts)
	}
	for j := range b.pos {
		if b.pos[j] != -1 {
			t.Fatalf("block position %d left set", j)
		}
	}
	f0 := 0.0
	for i := range l {
		f0 += f.c[i]
	}
	g0 := make([]float64, dim)
	fPrev, fAlpha, fw := f.start(wPrev, g0), f.start(wAlpha, g0), f.start(w, g0)
	t.Logf("f(0) %.6g, f(w) %.6g, f(w(α)) %.6g, f(rebuilt) %.6g", f0, fPrev, fAlpha, fw)
	if fAlpha <= f0 {
		t.Errorf("w(α) is no longer a poor start (f %.6g, f(0) %.6g): the test has lost its point", fAlpha, f0)
	}
	if rel := math.Abs(fw-fPrev) / fPrev; rel > 1e-2 {
		t.Errorf("rebuilt f %.8g, the run's own w %.8g: %.1e relative", fw, fPrev, rel)
	}
}

// TestRebuildFromAlphaAllocs: the rebuild works in the trainer's buffers.
func TestRebuildFromAlphaAllocs(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	opts, _, _ := ParseLinearOptions(strings.Fields("-s 2 -B 1"))
	p := opts.Params
	m, d, err := TrainLinear(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	l := ds.Len()
	y := make([]int8, l)
	for i, v := range ds.Labels() {
		y[i] = -1
		if int32(v) == m.Labels[0] {
			y[i] = 1
		}
	}
	var f l2svcFun
	f.init(ds, y, p.C, p.C, p.Bias, make([]float64, l), make([]float64, l), make([]float64, l), make([]int32, l))
	dim := f.dim()
	tr, b, w := newNewton(dim), newStiffBlock(dim), make([]float64, dim)
	if a := testing.AllocsPerRun(10, func() {
		f.rebuildFromAlpha(w, d.Alpha[0], tr.D[:dim], &b)
		f.refineOnQ(w, d.Alpha[0], tr.D[:dim], &tr, p.Eps)
	}); a != 0 {
		t.Errorf("%v allocations a rebuild", a)
	}
}
