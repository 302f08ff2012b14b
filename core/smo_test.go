package core

import (
	"bufio"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// smoDenseQ is a qMatrix over a precomputed float32 matrix, for testing the
// solver apart from the kernels and the cache. It counts getQ calls and
// swaps, and perm[t] is the original index of the variable at position t.
type smoDenseQ struct {
	l     int
	data  []float32 // row-major, symmetric, current ordering
	qd    []float64
	perm  []int
	calls int64
	swaps int
}

// newSMODenseQ returns Q_ij = y_i y_j K(i, j).
func newSMODenseQ(y []int8, K func(i, j int) float64) *smoDenseQ {
	l := len(y)
	q := &smoDenseQ{l: l, data: make([]float32, l*l), qd: make([]float64, l), perm: make([]int, l)}
	for i := range l {
		q.perm[i] = i
		for j := range l {
			q.data[i*l+j] = float32(float64(y[i]) * float64(y[j]) * K(i, j))
		}
		q.qd[i] = float64(q.data[i*l+i])
	}
	return q
}

func (q *smoDenseQ) getQ(i, length int) []float32 {
	q.calls++
	return q.data[i*q.l : i*q.l+length]
}

func (q *smoDenseQ) QD() []float64 { return q.qd }

func (q *smoDenseQ) swapIndex(i, j int) {
	if i == j {
		return
	}
	q.swaps++
	l := q.l
	for k := range l {
		q.data[i*l+k], q.data[j*l+k] = q.data[j*l+k], q.data[i*l+k]
	}
	for k := range l {
		q.data[k*l+i], q.data[k*l+j] = q.data[k*l+j], q.data[k*l+i]
	}
	q.qd[i], q.qd[j] = q.qd[j], q.qd[i]
	q.perm[i], q.perm[j] = q.perm[j], q.perm[i]
}

func (q *smoDenseQ) at(i, j int) float64 { return float64(q.data[i*q.l+j]) }

// identityOrder reports whether the matrix is back in its original order.
func (q *smoDenseQ) identityOrder() bool {
	for t, v := range q.perm {
		if v != t {
			return false
		}
	}
	return true
}

// smoProblem is one instance of min ½αᵀQα + pᵀα, yᵀα = Δ, 0 ≤ α ≤ C.
type smoProblem struct {
	Q      *smoDenseQ
	p      []float64
	y      []int8
	alpha0 []float64 // feasible starting point
	Cp, Cn float64
}

func (pr *smoProblem) C(t int) float64 {
	if pr.y[t] > 0 {
		return pr.Cp
	}
	return pr.Cn
}

// objective returns f(α) computed directly from the matrix.
func (pr *smoProblem) objective(alpha []float64) float64 {
	var f float64
	for i, ai := range alpha {
		var qa float64
		for j, aj := range alpha {
			qa += pr.Q.at(i, j) * aj
		}
		f += 0.5*ai*qa + pr.p[i]*ai
	}
	return f
}

// gradient returns Qα + p computed directly from the matrix.
func (pr *smoProblem) gradient(alpha []float64) []float64 {
	G := make([]float64, len(alpha))
	for i := range alpha {
		G[i] = pr.p[i]
		for j, aj := range alpha {
			G[i] += pr.Q.at(i, j) * aj
		}
	}
	return G
}

func (pr *smoProblem) run(t *testing.T, s *smo, par smoParams) ([]float64, smoResult) {
	t.Helper()
	alpha := append([]float64(nil), pr.alpha0...)
	res := s.solve(pr.Q, pr.p, pr.y, alpha, par)
	if !pr.Q.identityOrder() {
		t.Fatalf("Q not restored to its original ordering after solve")
	}
	return alpha, res
}

// smoCheckOptimal asserts the optimality conditions at alpha independently of
// the solver's own bookkeeping: feasibility (box, yᵀα = Δ of the start),
// the maximal violating pair gap m(α) − M(α) ≤ eps, every free variable's
// y_t G_t within eps of ρ, b = −ρ within eps of separating I_up from I_low,
// and the reported objective and counts.
func smoCheckOptimal(t *testing.T, pr *smoProblem, alpha []float64, res smoResult, eps float64) {
	t.Helper()
	const (
		feasTol = 1e-9  // box and equality, absolute
		gradTol = 1e-9  // G from scratch vs the solver's incremental G
		objTol  = 1e-10 // relative
	)
	var delta, delta0 float64
	for i, a := range alpha {
		if a < 0 || a > pr.C(i) {
			t.Fatalf("alpha[%d] = %g outside [0, %g]", i, a, pr.C(i))
		}
		delta += float64(pr.y[i]) * a
		delta0 += float64(pr.y[i]) * pr.alpha0[i]
	}
	if math.Abs(delta-delta0) > feasTol*(1+math.Abs(delta0)) {
		t.Errorf("yᵀα = %.12g, start had %.12g", delta, delta0)
	}
	if !res.Converged {
		t.Errorf("not converged after %d iterations", res.Iterations)
	}
	G := pr.gradient(alpha)
	m, M := math.Inf(-1), math.Inf(1)
	nSV, nBSV := 0, 0
	for i, a := range alpha {
		v := -float64(pr.y[i]) * G[i]
		up := (pr.y[i] > 0 && a < pr.C(i)) || (pr.y[i] < 0 && a > 0)
		low := (pr.y[i] < 0 && a < pr.C(i)) || (pr.y[i] > 0 && a > 0)
		if up {
			m = max(m, v)
		}
		if low {
			M = min(M, v)
		}
		if a > 0 {
			nSV++
			if a == pr.C(i) {
				nBSV++
			}
		}
		if a > 0 && a < pr.C(i) {
			if d := math.Abs(float64(pr.y[i])*G[i] - res.Rho); d > eps+gradTol {
				t.Errorf("free alpha[%d]: |y G − rho| = %g > eps %g", i, d, eps)
			}
		}
	}
	if m-M > eps+gradTol {
		t.Errorf("m − M = %g > eps %g", m-M, eps)
	}
	// b = −ρ must separate the sets up to eps: −y_t G_t ≤ b on I_up and
	// ≥ b on I_low.
	if b := -res.Rho; b < m-eps-gradTol || b > M+eps+gradTol {
		t.Errorf("b = −rho = %g violates m − eps ≤ b ≤ M + eps with m = %g, M = %g", b, m, M)
	}
	if want := pr.objective(alpha); math.Abs(res.Objective-want) > objTol*math.Abs(want)+1e-12 {
		t.Errorf("objective %.12g, direct %.12g", res.Objective, want)
	}
	if res.NumSV != nSV || res.NumBoundSV != nBSV {
		t.Errorf("nSV, nBSV = %d, %d; counted %d, %d", res.NumSV, res.NumBoundSV, nSV, nBSV)
	}
}

// perturb returns alpha with mass moved within draws random pairs of
// variables (seed's; a pair of two classes moves nothing), each by a random
// share of what keeps both in [0, C]: a feasible point (yᵀα kept) near
// alpha, for warm starts.
func (pr *smoProblem) perturb(alpha []float64, seed uint64, draws int) []float64 {
	r := solve.NewRNG(seed)
	pert := append([]float64(nil), alpha...)
	l := len(alpha)
	for range draws {
		i, j := r.Intn(l), r.Intn(l)
		if i == j || pr.y[i] != pr.y[j] {
			continue
		}
		d := smoFloat(&r) * min(pr.C(i)-pert[i], pert[j])
		pert[i] += d
		pert[j] -= d
	}
	return pert
}

// smoFloat returns uniform floats in [0, 1) from the package's RNG.
func smoFloat(r *solve.RNG) float64 { return float64(r.Next()>>11) / (1 << 53) }

// smoRBFProblem builds a C-SVC problem: l points in [-1,1]^2 labelled by
// a circle, with some labels flipped so that bounded variables appear.
func smoRBFProblem(l int, gamma, C float64, seed uint64) *smoProblem {
	r := solve.NewRNG(seed)
	x := make([][2]float64, l)
	y := make([]int8, l)
	for i := range x {
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

func smoLinearKernel(x [][]float64) func(i, j int) float64 {
	return func(i, j int) float64 {
		var s float64
		for k := range x[i] {
			s += x[i][k] * x[j][k]
		}
		return s
	}
}

func smoLinearProblem(x [][]float64, y []int8, C float64) *smoProblem {
	p := make([]float64, len(y))
	for i := range p {
		p[i] = -1
	}
	return &smoProblem{Q: newSMODenseQ(y, smoLinearKernel(x)), p: p, y: y, alpha0: make([]float64, len(y)), Cp: C, Cn: C}
}

// Hard-margin and clipped problems small enough to solve by hand (linear
// kernel, C-SVC, decision function wᵀx − ρ with w = Σ y_t α_t x_t).
func TestSMOHandSolved(t *testing.T) {
	cases := []struct {
		name     string
		x        [][]float64
		y        []int8
		C        float64
		alpha    []float64
		rho, obj float64
		maxIter  int // iterations the exact solution needs; 0: not checked
	}{
		// x = ±1: w = 1, ρ = 0; dual ½(α1+α2)² − α1 − α2 with α1 = α2 = ½.
		{"symmetric pair", [][]float64{{1}, {-1}}, []int8{1, -1}, 1, []float64{0.5, 0.5}, 0, -0.5, 0},
		// C = ¼ < ½: both at the bound; G = −½ each, ρ = midpoint of [−½, ½].
		{"clipped pair", [][]float64{{1}, {-1}}, []int8{1, -1}, 0.25, []float64{0.25, 0.25}, 0, -0.375, 0},
		// x = 2 (+1), 0 (−1): w = 1, wᵀx − ρ = ±1 gives ρ = 1; 2α1 = w.
		{"shifted pair", [][]float64{{2}, {0}}, []int8{1, -1}, 1, []float64{0.5, 0.5}, 1, -0.5, 0},
		// A third point x = 3 outside the margin keeps α = 0.
		{"pair and inactive point", [][]float64{{0}, {2}, {3}}, []int8{-1, 1, 1}, 1, []float64{0.5, 0.5, 0}, 1, -0.5, 0},
		// (0,0) −1, (1,0) +1, (0,1) +1: w = (2,2), ρ = 1, α = (4,2,2),
		// dual value −½‖w‖² = −4.
		{"triangle", [][]float64{{0, 0}, {1, 0}, {0, 1}}, []int8{-1, 1, 1}, 10, []float64{4, 2, 2}, 1, -4, 0},
		// C = 1 caps α1 = α2 + α3 at 1: α2 = α3 = ½ minimise ½(α2²+α3²) − 2(α2+α3),
		// f = −1.75; ρ = y2 G2 = ½ − 1.
		{"clipped triangle", [][]float64{{0, 0}, {1, 0}, {0, 1}}, []int8{-1, 1, 1}, 1, []float64{1, 0.5, 0.5}, -0.5, -1.75, 0},
		// One point with both labels: a_12 = 0, f = −2α along the feasible
		// line, so the τ step goes to the bound C = 10 in one iteration.
		// G = (−1, −1): ρ is the midpoint of [y1 G1, y2 G2] = [−1, 1].
		{"duplicate point, zero curvature", [][]float64{{1}, {1}}, []int8{1, -1}, 10, []float64{10, 10}, 0, -20, 1},
	}
	const tol = 1e-9
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pr := smoLinearProblem(c.x, c.y, c.C)
			for _, shrinking := range []bool{false, true} {
				s := newSMO(len(c.y))
				alpha, res := pr.run(t, s, smoParams{Cp: c.C, Cn: c.C, Eps: 1e-12, Shrinking: shrinking})
				for i := range alpha {
					if math.Abs(alpha[i]-c.alpha[i]) > tol {
						t.Errorf("shrinking %v: alpha = %v, want %v", shrinking, alpha, c.alpha)
						break
					}
				}
				if c.maxIter > 0 && res.Iterations > c.maxIter {
					t.Errorf("shrinking %v: %d iterations, want at most %d", shrinking, res.Iterations, c.maxIter)
				}
				if math.Abs(res.Rho-c.rho) > tol || math.Abs(res.Objective-c.obj) > tol {
					t.Errorf("shrinking %v: rho, obj = %.12g, %.12g; want %g, %g", shrinking, res.Rho, res.Objective, c.rho, c.obj)
				}
				smoCheckOptimal(t, pr, alpha, res, 1e-12)
			}
		})
	}
}

// smoProject returns the Euclidean projection of v onto
// {0 ≤ α ≤ C, yᵀα = delta}: α(λ) = clip(v + λy) with yᵀα(λ) increasing
// in λ, so λ is found by bisection.
func smoProject(dst, v []float64, pr *smoProblem, delta float64) {
	at := func(lam float64) float64 {
		var s float64
		for i := range v {
			dst[i] = min(max(v[i]+lam*float64(pr.y[i]), 0), pr.C(i))
			s += float64(pr.y[i]) * dst[i]
		}
		return s
	}
	// |λ| ≤ 100 suffices for these problems (|v_t| and C_t are O(1));
	// 64 halvings bring the bracket under 1e-17.
	lo, hi := -100.0, 100.0
	for range 64 {
		mid := (lo + hi) / 2
		if at(mid) < delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	at((lo + hi) / 2)
}

// smoFISTA solves the problem by accelerated projected gradient (Beck &
// Teboulle 2009), a method with nothing in common with SMO.
func smoFISTA(pr *smoProblem, iters int) []float64 {
	l := len(pr.y)
	var delta float64
	for i, a := range pr.alpha0 {
		delta += float64(pr.y[i]) * a
	}
	L := 0.0 // Gershgorin bound on the largest eigenvalue of Q
	for i := range l {
		var s float64
		for j := range l {
			s += math.Abs(pr.Q.at(i, j))
		}
		L = max(L, s)
	}
	x := append([]float64(nil), pr.alpha0...)
	z := append([]float64(nil), x...)
	v := make([]float64, l)
	xNew := make([]float64, l)
	tk := 1.0
	for range iters {
		G := pr.gradient(z)
		for i := range v {
			v[i] = z[i] - G[i]/L
		}
		smoProject(xNew, v, pr, delta)
		tNext := (1 + math.Sqrt(1+4*tk*tk)) / 2
		for i := range z {
			z[i] = xNew[i] + (tk-1)/tNext*(xNew[i]-x[i])
		}
		x, xNew = xNew, x
		tk = tNext
	}
	return x
}

// Small random problems of the general form (unequal Cp and Cn, p ≠ −e,
// Δ ≠ 0) against an independent accelerated projected-gradient solution.
func TestSMOAgainstProjectedGradient(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := solve.NewRNG(seed)
		const l = 8
		x := make([][]float64, l)
		y := make([]int8, l)
		p := make([]float64, l)
		for i := range x {
			x[i] = []float64{smoFloat(&r), smoFloat(&r), smoFloat(&r)}
			y[i] = 1
			if smoFloat(&r) < 0.5 {
				y[i] = -1
			}
			p[i] = -2*smoFloat(&r) + 0.5
		}
		gamma := 2.0
		K := func(i, j int) float64 {
			var d float64
			for k := range x[i] {
				d += (x[i][k] - x[j][k]) * (x[i][k] - x[j][k])
			}
			return math.Exp(-gamma * d)
		}
		pr := &smoProblem{Q: newSMODenseQ(y, K), p: p, y: y, alpha0: make([]float64, l), Cp: 0.7, Cn: 1.3}
		// A feasible start with Δ = yᵀα ≠ 0.
		for i := range pr.alpha0 {
			pr.alpha0[i] = pr.C(i) * smoFloat(&r)
		}
		want := smoFISTA(pr, 5000)
		fWant := pr.objective(want)
		for _, shrinking := range []bool{false, true} {
			alpha, res := pr.run(t, newSMO(l), smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: 1e-10, Shrinking: shrinking})
			smoCheckOptimal(t, pr, alpha, res, 1e-10)
			if math.Abs(res.Objective-fWant) > 1e-9*math.Abs(fWant) {
				t.Errorf("seed %d shrinking %v: objective %.12g, projected gradient %.12g", seed, shrinking, res.Objective, fWant)
			}
			for i := range alpha {
				if math.Abs(alpha[i]-want[i]) > 1e-5 {
					t.Errorf("seed %d shrinking %v: alpha %v, projected gradient %v", seed, shrinking, alpha, want)
					break
				}
			}
		}
	}
}

func TestSMOShrinkingSameObjective(t *testing.T) {
	pr := smoRBFProblem(300, 4, 10, 7)
	const eps = 1e-3
	s := newSMO(300)
	a0, r0 := pr.run(t, s, smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: eps})
	smoCheckOptimal(t, pr, a0, r0, eps)
	if pr.Q.swaps != 0 {
		t.Errorf("%d swaps without shrinking", pr.Q.swaps)
	}
	a1, r1 := pr.run(t, s, smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: eps, Shrinking: true})
	smoCheckOptimal(t, pr, a1, r1, eps)
	if pr.Q.swaps == 0 {
		t.Errorf("shrinking never moved a variable: the test does not exercise it")
	}
	if rel := math.Abs(r1.Objective-r0.Objective) / math.Abs(r0.Objective); rel > 1e-6 {
		t.Errorf("objective %.10g with shrinking, %.10g without (relative %g)", r1.Objective, r0.Objective, rel)
	}
	t.Logf("no shrinking: %d iterations, %d columns; shrinking: %d iterations, %d columns, %d swaps; obj %.8g nSV %d nBSV %d",
		r0.Iterations, r0.QColumns, r1.Iterations, r1.QColumns, pr.Q.swaps, r1.Objective, r1.NumSV, r1.NumBoundSV)
}

// heart_scale, RBF with LIBSVM's defaults (γ = 1/13, C = 1, eps = 1e-3).
// svm-train 3.24 (Debian libsvm-tools 3.24+ds-6) prints
// obj = -100.877288, rho = 0.424462, nSV = 132, nBSV = 107
// (core/testdata/libsvm-ref.txt, case heart_scale).
func TestSMOHeartScaleMatchesLIBSVM(t *testing.T) {
	x, labels := smoReadDense(t, "testdata/heart_scale", 13)
	l := len(labels)
	y := make([]int8, l)
	for i, v := range labels {
		y[i] = -1
		if v == labels[0] { // LIBSVM's first label is the positive class
			y[i] = 1
		}
	}
	gamma := 1.0 / 13
	K := func(i, j int) float64 {
		var d float64
		for k := range x[i] {
			d += (x[i][k] - x[j][k]) * (x[i][k] - x[j][k])
		}
		return math.Exp(-gamma * d)
	}
	p := make([]float64, l)
	for i := range p {
		p[i] = -1
	}
	pr := &smoProblem{Q: newSMODenseQ(y, K), p: p, y: y, alpha0: make([]float64, l), Cp: 1, Cn: 1}
	alpha, res := pr.run(t, newSMO(l), smoParams{Cp: 1, Cn: 1, Shrinking: true})
	smoCheckOptimal(t, pr, alpha, res, smoDefaultEps)
	const wantObj, wantRho = -100.877288, 0.424462
	if rel := math.Abs(res.Objective-wantObj) / math.Abs(wantObj); rel > 1e-5 {
		t.Errorf("objective %.6f, LIBSVM %.6f (relative %g)", res.Objective, wantObj, rel)
	}
	if rel := math.Abs(res.Rho-wantRho) / wantRho; rel > 1e-3 {
		t.Errorf("rho %.6f, LIBSVM %.6f", res.Rho, wantRho)
	}
	// svm-train reports iter=162; a count within 10% shows the same
	// (second-order) working-set rule: a first-order rule needs about 250.
	if res.Iterations < 146 || res.Iterations > 178 {
		t.Errorf("%d iterations, LIBSVM 162", res.Iterations)
	}
	if res.NumSV < 131 || res.NumSV > 133 || res.NumBoundSV < 106 || res.NumBoundSV > 108 {
		t.Errorf("nSV, nBSV = %d, %d; LIBSVM 132, 107", res.NumSV, res.NumBoundSV)
	}
	t.Logf("iter %d obj %.6f rho %.6f nSV %d nBSV %d columns %d", res.Iterations, res.Objective, res.Rho, res.NumSV, res.NumBoundSV, res.QColumns)
}

// smoReadDense reads a LIBSVM text file into dense rows, with a parser
// of its own so that the test does not lean on the package's reader.
func smoReadDense(t *testing.T, path string, n int) ([][]float64, []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var x [][]float64
	var labels []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		lab, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		row := make([]float64, n)
		for _, fv := range fields[1:] {
			k, v, _ := strings.Cut(fv, ":")
			idx, err1 := strconv.Atoi(k)
			val, err2 := strconv.ParseFloat(v, 64)
			if err1 != nil || err2 != nil || idx < 1 || idx > n {
				t.Fatalf("%s: bad pair %q", path, fv)
			}
			row[idx-1] = val
		}
		x = append(x, row)
		labels = append(labels, lab)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return x, labels
}

func TestSMOWarmStart(t *testing.T) {
	pr := smoRBFProblem(200, 4, 10, 11)
	const eps = 1e-5
	par := smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: eps, Shrinking: true}
	s := newSMO(200)
	cold, rc := pr.run(t, s, par)
	smoCheckOptimal(t, pr, cold, rc, eps)

	// From the optimum: the gradient costs one column per support vector
	// and the stopping test holds at once.
	pr.alpha0 = cold
	again, ra := pr.run(t, s, par)
	smoCheckOptimal(t, pr, again, ra, eps)
	if ra.Iterations > 2 || ra.QColumns > int64(rc.NumSV)+4 {
		t.Errorf("warm start at the optimum: %d iterations, %d columns (nSV %d)", ra.Iterations, ra.QColumns, rc.NumSV)
	}

	// From a perturbed feasible point: mass moved between same-class pairs
	// keeps yᵀα.
	pert := pr.perturb(cold, 5, 100)
	pr.alpha0 = pert
	warm, rw := pr.run(t, s, par)
	smoCheckOptimal(t, pr, warm, rw, eps)
	if rel := math.Abs(rw.Objective-rc.Objective) / math.Abs(rc.Objective); rel > 1e-6 {
		t.Errorf("warm objective %.10g, cold %.10g (relative %g)", rw.Objective, rc.Objective, rel)
	}
	t.Logf("cold: %d iterations %d columns; at optimum: %d iterations %d columns; perturbed: %d iterations %d columns",
		rc.Iterations, rc.QColumns, ra.Iterations, ra.QColumns, rw.Iterations, rw.QColumns)
}

// ε-SVR and one-class are the same solver with other Q, p, y and start.
func TestSMOOtherFormulations(t *testing.T) {
	const l = 80
	r := solve.NewRNG(3)
	xs := make([]float64, l)
	z := make([]float64, l)
	for i := range xs {
		xs[i] = 6 * smoFloat(&r)
		z[i] = math.Sin(xs[i]) + 0.1*(smoFloat(&r)-0.5)
	}
	rbf := func(i, j int) float64 { d := xs[i] - xs[j]; return math.Exp(-0.5 * d * d) }

	t.Run("epsilon-SVR", func(t *testing.T) {
		// Variables (α, α*): y = (+e, −e), p = (ε − z, ε + z), Q = yyᵀ ∘ [K K; K K].
		const epsilon, C = 0.1, 2.0
		y := make([]int8, 2*l)
		p := make([]float64, 2*l)
		for i := range l {
			y[i], y[i+l] = 1, -1
			p[i], p[i+l] = epsilon-z[i], epsilon+z[i]
		}
		K := func(i, j int) float64 { return rbf(i%l, j%l) }
		pr := &smoProblem{Q: newSMODenseQ(y, K), p: p, y: y, alpha0: make([]float64, 2*l), Cp: C, Cn: C}
		for _, shrinking := range []bool{false, true} {
			alpha, res := pr.run(t, newSMO(2*l), smoParams{Cp: C, Cn: C, Shrinking: shrinking})
			smoCheckOptimal(t, pr, alpha, res, smoDefaultEps)
			// The fit Σ (α_t − α*_t) K(x_t, x) − ρ stays within ε of the
			// targets wherever both multipliers are 0, up to the tolerance.
			for k := range l {
				if alpha[k] != 0 || alpha[k+l] != 0 {
					continue
				}
				f := -res.Rho
				for t2 := range l {
					f += (alpha[t2] - alpha[t2+l]) * rbf(t2, k)
				}
				if math.Abs(f-z[k]) > epsilon+smoDefaultEps {
					t.Errorf("point %d inside the tube has |f − z| = %g > ε", k, math.Abs(f-z[k]))
				}
			}
		}
	})
	t.Run("one-class", func(t *testing.T) {
		// y = e, p = 0, C = 1, Σα = νl: LIBSVM's start puts the first ⌊νl⌋
		// variables at 1 and the remainder on the next one.
		const nu = 0.3
		y := make([]int8, l)
		for i := range y {
			y[i] = 1
		}
		pr := &smoProblem{Q: newSMODenseQ(y, rbf), p: make([]float64, l), y: y, alpha0: make([]float64, l), Cp: 1, Cn: 1}
		n := int(nu * l)
		for i := range n {
			pr.alpha0[i] = 1
		}
		pr.alpha0[n] = nu*l - float64(n)
		alpha, res := pr.run(t, newSMO(l), smoParams{Cp: 1, Cn: 1, Shrinking: true})
		smoCheckOptimal(t, pr, alpha, res, smoDefaultEps)
		if res.NumSV < n {
			t.Errorf("nSV %d below νl = %g", res.NumSV, nu*l)
		}
	})
}

// The iteration cap stops a solve that shrinking has already reduced; the
// returned objective needs the gradient of the shrunk variables rebuilt.
func TestSMOMaxIter(t *testing.T) {
	pr := smoRBFProblem(300, 4, 10, 7)
	alpha, res := pr.run(t, newSMO(300), smoParams{Cp: pr.Cp, Cn: pr.Cn, Shrinking: true, MaxIter: 400})
	if res.Converged || res.Iterations != 400 {
		t.Fatalf("Converged %v after %d iterations, want false after 400", res.Converged, res.Iterations)
	}
	if pr.Q.swaps == 0 {
		t.Errorf("nothing was shrunk before the cap: the test does not exercise the rebuild")
	}
	if want := pr.objective(alpha); math.Abs(res.Objective-want) > 1e-10*math.Abs(want) {
		t.Errorf("objective %.12g, direct %.12g", res.Objective, want)
	}
	if res.Gap <= smoDefaultEps {
		t.Errorf("gap %g after 400 iterations: the test problem is too easy", res.Gap)
	}
}

// Both ways of rebuilding the gradient of shrunk variables agree with Qα + p.
func TestSMOReconstructGradient(t *testing.T) {
	const l = 120
	pr := smoRBFProblem(l, 4, 10, 13)
	s := newSMO(l)
	alpha, _ := pr.run(t, s, smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: 1e-1})
	want := pr.gradient(alpha)
	// Solver state at that α, all active, in the identity ordering.
	s.Q, s.l, s.Cp, s.Cn = pr.Q, l, pr.Cp, pr.Cn
	copy(s.y, pr.y)
	copy(s.p, pr.p)
	copy(s.alpha, alpha)
	for t := range l {
		s.index[t] = int32(t)
		s.setStatus(t)
	}
	s.activeSize = l
	s.initGradient()
	// Shrink the bounded variables among the last 40 positions.
	for t := l - 1; t >= l-40; t-- {
		if s.alphaStatus[t] != freeAlpha {
			s.activeSize--
			s.swap(t, s.activeSize)
		}
	}
	if s.activeSize == l {
		t.Fatalf("setup: nothing bounded among the last 40")
	}
	for name, rebuild := range map[string]func(){"by inactive": s.reconstructByInactive, "by free": s.reconstructByFree} {
		for k := s.activeSize; k < l; k++ {
			s.G[k] = math.NaN()
		}
		rebuild()
		for k := s.activeSize; k < l; k++ {
			if w := want[s.index[k]]; math.Abs(s.G[k]-w) > 1e-9*(1+math.Abs(w)) {
				t.Fatalf("%s: G at position %d = %.12g, want %.12g", name, k, s.G[k], w)
			}
		}
	}
	s.restoreOrder()
	if !pr.Q.identityOrder() {
		t.Errorf("restoreOrder left Q permuted")
	}
}

func TestSMOAllocs(t *testing.T) {
	pr := smoRBFProblem(60, 4, 10, 9)
	s := newSMO(60)
	alpha := make([]float64, 60)
	par := smoParams{Cp: pr.Cp, Cn: pr.Cn, Shrinking: true}
	var res smoResult
	allocs := testing.AllocsPerRun(10, func() {
		clear(alpha)
		res = s.solve(pr.Q, pr.p, pr.y, alpha, par)
	})
	if allocs != 0 {
		t.Errorf("%g allocations per solve, want 0", allocs)
	}
	if !res.Converged || res.Iterations == 0 {
		t.Errorf("solve did no work: %+v", res)
	}
}

func TestSMOSizeAndPanics(t *testing.T) {
	s := newSMO(100)
	want := 8*(cap(s.alpha)+cap(s.G)+cap(s.Gbar)+cap(s.p)+cap(s.ny)+cap(s.wt)) + cap(s.y) + cap(s.alphaStatus) + cap(s.sets) + 4*(cap(s.index)+cap(s.nz)+cap(s.qbuf)) + 16*cap(s.gbarEv)
	if got := smoBytes(100); got != want {
		t.Errorf("smoBytes(100) = %d, want %d", got, want)
	}
	// One solver serves problems of any size up to its capacity, in any order.
	big := newSMO(60)
	for _, l := range []int{10, 60, 30} {
		pr := smoRBFProblem(l, 4, 10, uint64(l))
		alpha, res := pr.run(t, big, smoParams{Cp: pr.Cp, Cn: pr.Cn, Shrinking: true})
		smoCheckOptimal(t, pr, alpha, res, smoDefaultEps)
	}
	pr := smoRBFProblem(10, 1, 1, 1)
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	mustPanic("alpha above C", func() {
		a := make([]float64, 10)
		a[3] = 2
		newSMO(10).solve(pr.Q, pr.p, pr.y, a, smoParams{Cp: 1, Cn: 1})
	})
	mustPanic("beyond capacity", func() {
		newSMO(5).solve(pr.Q, pr.p, pr.y, make([]float64, 10), smoParams{Cp: 1, Cn: 1})
	})
	mustPanic("zero bound", func() {
		newSMO(10).solve(pr.Q, pr.p, pr.y, make([]float64, 10), smoParams{Cp: 0, Cn: 1})
	})
}

// flushGbar makes each deferred update on exactly the positions that were
// inactive when it happened, and a variable whose updates cancel costs no
// column.
func TestSMOFlushGbar(t *testing.T) {
	const l = 50
	pr := smoRBFProblem(l, 4, 10, 17)
	s := newSMO(l)
	s.Q, s.l, s.Cp, s.Cn = pr.Q, l, pr.Cp, pr.Cn
	s.Gbar = s.Gbar[:l]
	clear(s.Gbar)
	s.index = s.index[:l]
	for t := range l {
		s.index[t] = int32(t)
	}
	r := solve.NewRNG(3)
	for range 200 { // any ordering: the events name variables by the caller's index
		i, j := r.Intn(l), r.Intn(l)
		s.Q.swapIndex(i, j)
		s.index[i], s.index[j] = s.index[j], s.index[i]
	}
	pos := make([]int, l)
	for t, j := range s.index[:l] {
		pos[j] = t
	}
	// In time order; from (the active size then) never grows.
	ev := []gbarEvent{
		{j: 3, from: 45, c: 10}, {j: 7, from: 45, c: -10}, {j: 3, from: 45, c: -10}, // 3 cancels at once
		{j: 9, from: 40, c: 10}, {j: 7, from: 40, c: 10}, // 7 cancels from 45 up
		{j: 9, from: 30, c: -10}, {j: 12, from: 30, c: 10}, {j: 9, from: 20, c: 10},
	}
	s.gbarEv = append(s.gbarEv[:0], ev...)
	want := make([]float64, l)
	for u := range l {
		for _, e := range ev {
			if u >= int(e.from) {
				want[u] += e.c * pr.Q.at(u, pos[e.j])
			}
		}
	}
	calls := pr.Q.calls
	s.flushGbar()
	for u := range l {
		if math.Abs(s.Gbar[u]-want[u]) > 1e-12*(1+math.Abs(want[u])) {
			t.Errorf("Gbar at position %d = %.15g, want %.15g", u, s.Gbar[u], want[u])
		}
	}
	if n := pr.Q.calls - calls; n != 3 {
		t.Errorf("%d columns for variables 3, 7, 9 and 12, want 3 (3's updates cancel)", n)
	}
	if len(s.gbarEv) != 0 {
		t.Errorf("%d events left after the flush", len(s.gbarEv))
	}
}

// A warm start shrunk from its first iteration defers the Gbar updates of
// inactive variables; with any room for them (down to the two of one
// iteration, flushed every iteration) the solve reaches the optimum, and G
// and Gbar agree with their definitions.
func TestSMOWarmShrunkGbar(t *testing.T) {
	const l = 1200 // ShrinkAtStart needs more than smoShrinkEvery variables
	pr := smoRBFProblem(l, 4, 10, 19)
	const eps = 1e-5
	par := smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: eps, Shrinking: true}
	s := newSMO(l)
	cold, rc := pr.run(t, s, par)
	smoCheckOptimal(t, pr, cold, rc, eps)
	pert := pr.perturb(cold, 7, 400)
	pr.alpha0 = pert
	par.ShrinkAtStart = true
	for _, room := range []int{gbarEventCap(l), 2} {
		s.gbarEv = s.gbarEv[:0:room]
		warm, rw := pr.run(t, s, par)
		smoCheckOptimal(t, pr, warm, rw, eps)
		if rel := math.Abs(rw.Objective-rc.Objective) / math.Abs(rc.Objective); rel > 1e-6 {
			t.Errorf("room %d: warm objective %.10g, cold %.10g", room, rw.Objective, rc.Objective)
		}
		G, Gbar := s.gradient(l)
		wantG := pr.gradient(warm)
		for u := range l {
			var gbar float64
			for j, a := range warm {
				if a == pr.C(j) {
					gbar += a * pr.Q.at(u, j)
				}
			}
			if math.Abs(G[u]-wantG[u]) > 1e-9*(1+math.Abs(wantG[u])) || math.Abs(Gbar[u]-gbar) > 1e-9*(1+math.Abs(gbar)) {
				t.Fatalf("room %d: at %d G, Gbar = %.12g, %.12g; want %.12g, %.12g", room, u, G[u], Gbar[u], wantG[u], gbar)
			}
		}
		t.Logf("room %d: %d iterations, %d columns (cold %d, %d)", room, rw.Iterations, rw.QColumns, rc.Iterations, rc.QColumns)
	}
}

// smoParams.Warm checks optimality with a scan of G before asking for a
// column: from an optimal start it computes no column beyond the
// gradient's, where selectPair computes one to find that no j is left;
// from a perturbed start it changes no iterate (same α bit for bit, same
// iterations) and no more columns.
func TestSMOWarmCheckWithoutColumn(t *testing.T) {
	const l, eps = 1200, 1e-3
	pr := smoRBFProblem(l, 4, 10, 23)
	par := smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: eps, Shrinking: true}
	s := newSMO(l)
	cold, rc := pr.run(t, s, par)
	smoCheckOptimal(t, pr, cold, rc, eps)
	pert := pr.perturb(cold, 5, 40)
	for _, start := range []struct {
		name  string
		alpha []float64
	}{{"optimal", cold}, {"perturbed", pert}} {
		pr.alpha0 = start.alpha
		par.ShrinkAtStart, par.Warm = true, false
		plain, rp := pr.run(t, s, par)
		par.Warm = true
		warm, rw := pr.run(t, s, par)
		smoCheckOptimal(t, pr, warm, rw, eps)
		if !slices.Equal(plain, warm) || rp.Iterations != rw.Iterations || rp.Rho != rw.Rho {
			t.Errorf("%s start: Warm changed the solve: %d/%d iterations, ρ %v/%v", start.name, rw.Iterations, rp.Iterations, rw.Rho, rp.Rho)
		}
		if rw.QColumns > rp.QColumns {
			t.Errorf("%s start: %d columns with Warm, %d without", start.name, rw.QColumns, rp.QColumns)
		}
		t.Logf("%s start: %d iterations, columns %d with Warm, %d without", start.name, rw.Iterations, rw.QColumns, rp.QColumns)
		if start.name == "optimal" && (rw.Iterations != 0 || rw.QColumns >= rp.QColumns) {
			t.Errorf("optimal start: %d iterations, %d columns with Warm, %d without: want 0 and fewer", rw.Iterations, rw.QColumns, rp.QColumns)
		}
	}
}

// The first shrinking round of a warm start from a stored gradient judges
// the bounded variables against the previous optimum's threshold
// (smo.bStart, which is −ρ there) as well as the current m and M: after
// a few α moved far from that optimum (as removed rows and the repair move
// them), it keeps fewer variables active than m and M alone would, and the
// solve still reaches the cold optimum.
func TestSMOWarmShrinkFromThreshold(t *testing.T) {
	const l, eps = 1200, 1e-3
	pr := smoRBFProblem(l, 4, 10, 29)
	par := smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: eps, Shrinking: true}
	s := newSMO(l)
	cold, rc := pr.run(t, s, par)
	smoCheckOptimal(t, pr, cold, rc, eps)
	G0 := pr.gradient(cold)
	Gbar0 := make([]float64, l)
	for u := range l {
		for j, a := range cold {
			if a == pr.C(j) {
				Gbar0[u] += a * pr.Q.at(u, j)
			}
		}
	}
	s.setup(pr.Q, pr.p, pr.y, cold, cold, G0, Gbar0, par)
	s.initGradientFrom(cold, append([]float64(nil), G0...), append([]float64(nil), Gbar0...))
	if b := s.bStart; math.Abs(b+rc.Rho) > 1e-9*(1+math.Abs(rc.Rho)) {
		t.Errorf("threshold at the optimum %.12g, want −ρ = %.12g", b, -rc.Rho)
	}
	r := solve.NewRNG(3)
	pert := append([]float64(nil), cold...)
	for moved := 0; moved < 6; {
		i, j := r.Intn(l), r.Intn(l)
		if i == j || pr.y[i] != pr.y[j] || pert[j] == 0 || pert[i] == pr.C(i) {
			continue
		}
		d := min(pr.C(i)-pert[i], pert[j])
		pert[i] += d
		pert[j] -= d
		moved++
	}
	var active [2]int
	for k, fromStart := range []bool{false, true} {
		G, Gbar := s.gradient(l)
		copy(G, G0)
		copy(Gbar, Gbar0)
		s.setup(pr.Q, pr.p, pr.y, pert, cold, G, Gbar, par)
		s.initGradientFrom(cold, G, Gbar)
		s.shrinkFromStart = fromStart
		s.shrink()
		active[k] = s.activeSize
		s.restoreOrder()
	}
	t.Logf("first round keeps %d of %d variables with the threshold, %d without", active[1], l, active[0])
	if active[1] >= active[0] {
		t.Errorf("first warm round keeps %d active with the threshold, %d without: want fewer", active[1], active[0])
	}
	par.ShrinkAtStart, par.Warm = true, true
	G, Gbar := s.gradient(l)
	copy(G, G0)
	copy(Gbar, Gbar0)
	warm := append([]float64(nil), pert...)
	rw := s.solveFrom(pr.Q, pr.p, pr.y, warm, cold, G, Gbar, par)
	if !pr.Q.identityOrder() {
		t.Fatal("Q not restored to its original ordering after solve")
	}
	smoCheckOptimal(t, pr, warm, rw, eps)
	if rel := math.Abs(rw.Objective-rc.Objective) / math.Abs(rc.Objective); rel > 1e-5 {
		t.Errorf("warm objective %.10g, cold %.10g", rw.Objective, rc.Objective)
	}
}

// A warm start (Warm, ShrinkAtStart) shrinks at once when few of its
// variables are free, and not at all when they are a large part of the
// problem (smoWarmFreeShare): there it runs without a reconstruction of
// the gradient (the round at 10·eps that makes every variable active
// again never comes). Either way it reaches the cold optimum.
func TestSMOWarmManyFreeUnshrunk(t *testing.T) {
	const l, eps = 1200, 1e-5
	for _, c := range []struct {
		gamma, C float64
		manyFree bool
	}{{100, 10, true}, {4, 10, false}} {
		pr := smoRBFProblem(l, c.gamma, c.C, 19)
		par := smoParams{Cp: pr.Cp, Cn: pr.Cn, Eps: eps, Shrinking: true}
		s := newSMO(l)
		cold, rc := pr.run(t, s, par)
		smoCheckOptimal(t, pr, cold, rc, eps)
		pert := pr.perturb(cold, 7, 400)
		free := 0
		for i, a := range pert {
			if a > 0 && a < pr.C(i) {
				free++
			}
		}
		if many := free*smoWarmFreeShare >= l; many != c.manyFree {
			t.Fatalf("γ %g: %d of %d variables free at the warm start: the case is not the one meant", c.gamma, free, l)
		}
		pr.alpha0 = pert
		par.ShrinkAtStart, par.Warm = true, true
		warm, rw := pr.run(t, s, par)
		smoCheckOptimal(t, pr, warm, rw, eps)
		if rel := math.Abs(rw.Objective-rc.Objective) / math.Abs(rc.Objective); rel > 1e-6 {
			t.Errorf("γ %g: warm objective %.10g, cold %.10g", c.gamma, rw.Objective, rc.Objective)
		}
		if s.unshrunk == c.manyFree {
			t.Errorf("γ %g, %d of %d free: unshrunk %v after the warm solve, want %v", c.gamma, free, l, s.unshrunk, !c.manyFree)
		}
		t.Logf("γ %g: %d free at the start, %d iterations (cold %d), unshrunk %v", c.gamma, free, rw.Iterations, rc.Iterations, s.unshrunk)
	}
}

// TestSMOGradientInto: a solve in buffers lent to the solver
// (gradientInto) gives the α, result and gradient of a solve in its own,
// bit for bit, leaves ∇f and Gbar in the lent memory (where a C-SVC run
// keeps each pair's), and after gradientInto(nil, nil) the solver works
// in its own buffers again, the lent ones untouched by the next solve.
func TestSMOGradientInto(t *testing.T) {
	const l = 300
	pr := smoRBFProblem(l, 4, 10, 5)
	par := smoParams{Cp: pr.Cp, Cn: pr.Cn, Shrinking: true}
	own := newSMO(l)
	want, wantRes := pr.run(t, own, par)
	wantG, wantGbar := own.gradient(l)
	wantG, wantGbar = slices.Clone(wantG), slices.Clone(wantGbar)

	s := newSMO(l)
	G, Gbar := make([]float64, l), make([]float64, l)
	s.gradientInto(G, Gbar)
	got, gotRes := pr.run(t, s, par)
	if !slices.Equal(got, want) || gotRes != wantRes {
		t.Fatalf("lent buffers: result %+v, own %+v (α equal %v)", gotRes, wantRes, slices.Equal(got, want))
	}
	if !slices.Equal(G, wantG) || !slices.Equal(Gbar, wantGbar) {
		t.Fatal("the lent buffers do not hold the solve's G and Gbar")
	}
	s.gradientInto(nil, nil)
	keptG := slices.Clone(G)
	pr2 := smoRBFProblem(l, 2, 1, 6)
	pr2.run(t, s, smoParams{Cp: pr2.Cp, Cn: pr2.Cn, Shrinking: true})
	if !slices.Equal(G, keptG) {
		t.Fatal("a solve after gradientInto(nil, nil) wrote into the lent buffer")
	}
	if g, _ := s.gradient(l); &g[0] == &G[0] {
		t.Fatal("gradient still returns the lent buffer")
	}
}
