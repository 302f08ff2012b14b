package core

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// faceCG from a point off the free face's minimiser: α stays in the box
// with yᵀα unchanged, f decreases, the solver's G is Qα + p computed
// directly, and unless a step reached a bound the free variables' −y_t G_t
// are within eps/2 of their mean (the face's optimality, which SMO's
// pairwise steps reach in many iterations when Q_FF is near singular).
// The problem has rows in near-duplicate pairs (K ≈ 1 between them), as
// shuttle's, and C = 100.
func TestSMOFaceCG(t *testing.T) {
	const l, eps = 120, 1e-3
	pr := smoTwinProblem(l, 1, 100, 41)
	par := smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: eps, Shrinking: true}
	s := newSMO(l)
	cold, rc := pr.run(t, s, par)
	smoCheckOptimal(t, pr, cold, rc, eps)
	// Mass moved between free variables of one class, a small share of
	// their room: off the face's minimiser, on the same face.
	pert := append([]float64(nil), cold...)
	r := solve.NewRNG(9)
	for range 200 {
		i, j := r.Intn(l), r.Intn(l)
		if i == j || pr.y[i] != pr.y[j] || !(pert[i] > 0 && pert[i] < pr.C(i)) || !(pert[j] > 0 && pert[j] < pr.C(j)) {
			continue
		}
		d := 0.1 * smoFloat(&r) * min(pr.C(i)-pert[i], pert[j])
		pert[i] += d
		pert[j] -= d
	}
	s.setup(pr.Q, pr.p, pr.y, pert, nil, nil, nil, par)
	s.initGradient()
	free := s.countFree()
	f0 := pr.objective(s.alpha[:l])
	var d0 float64
	for i, a := range s.alpha[:l] {
		d0 += float64(pr.y[i]) * a
	}
	k, steps := s.faceCG()
	if k != free || k < 3 || k > cgMax {
		t.Fatalf("faceCG saw %d free variables, %d are: the case is not the one meant", k, free)
	}
	if steps == 0 {
		t.Fatalf("faceCG took no step from a perturbed point (%d free)", k)
	}
	alpha := s.alpha[:l]
	var d float64
	for i, a := range alpha {
		if a < 0 || a > pr.C(i) {
			t.Fatalf("alpha[%d] = %g outside [0, %g]", i, a, pr.C(i))
		}
		d += float64(pr.y[i]) * a
	}
	if math.Abs(d-d0) > 1e-9*(1+math.Abs(d0)) {
		t.Errorf("yᵀα %.12g after faceCG, %.12g before", d, d0)
	}
	if f := pr.objective(alpha); !(f < f0) {
		t.Errorf("f %.12g after faceCG, %.12g before: no decrease", f, f0)
	}
	G := pr.gradient(alpha)
	for i := range l {
		if math.Abs(G[i]-s.G[i]) > 1e-6*(1+math.Abs(G[i])) {
			t.Fatalf("G[%d] = %.12g, direct %.12g", i, s.G[i], G[i])
		}
	}
	lo, hi, nFree := math.Inf(1), math.Inf(-1), 0
	for i, a := range alpha {
		if a > 0 && a < pr.C(i) {
			v := -float64(pr.y[i]) * G[i]
			lo, hi = min(lo, v), max(hi, v)
			nFree++
		}
	}
	if nFree != free {
		t.Fatalf("a CG step reached a bound (%d free before, %d after): the case is not the one meant", free, nFree)
	}
	if hi-lo > eps {
		t.Errorf("the free variables' −y G spread over %g > eps after faceCG", hi-lo)
	}
	t.Logf("%d free, %d CG steps, %d free after; spread %.3g; f %.10g -> %.10g", k, steps, nFree, hi-lo, f0, pr.objective(alpha))

	// A warm solve from the perturbed point (which runs faceCG) reaches
	// the cold optimum.
	pr.alpha0 = pert
	par.Warm, par.ShrinkAtStart = true, true
	warm, rw := pr.run(t, s, par)
	smoCheckOptimal(t, pr, warm, rw, eps)
	if rel := math.Abs(rw.Objective-rc.Objective) / math.Abs(rc.Objective); rel > 1e-5 {
		t.Errorf("warm objective %.10g, cold %.10g", rw.Objective, rc.Objective)
	}
}

// smoTwinProblem is smoRBFProblem's C-SVC problem with its points in
// pairs 1e-4 apart, both of a pair with the first one's label: Q has
// near-equal rows, as shuttle's many alike rows give it.
func smoTwinProblem(l int, gamma, C float64, seed uint64) *smoProblem {
	r := solve.NewRNG(seed)
	x := make([][2]float64, l)
	y := make([]int8, l)
	for i := range x {
		if i%2 == 1 {
			x[i] = [2]float64{x[i-1][0] + 1e-4, x[i-1][1]}
			y[i] = y[i-1]
			continue
		}
		x[i] = [2]float64{2*smoFloat(&r) - 1, 2*smoFloat(&r) - 1}
		y[i] = 1
		if x[i][0]*x[i][0]+x[i][1]*x[i][1] < 0.5 {
			y[i] = -1
		}
		if smoFloat(&r) < 0.1 {
			y[i] = -y[i]
		}
	}
	K := func(i, j int) float64 {
		dx, dy := x[i][0]-x[j][0], x[i][1]-x[j][1]
		return math.Exp(-gamma * (dx*dx + dy*dy))
	}
	p := make([]float64, l)
	for i := range p {
		p[i] = -1
	}
	return &smoProblem{Q: newSMODenseQ(y, K), p: p, y: y, alpha0: make([]float64, l), Cp: C, Cn: C}
}
