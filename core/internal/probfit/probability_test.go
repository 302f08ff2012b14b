package probfit

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/model"
)

// Tolerances, per quantity.
const (
	plattParamTol = 1e-6  // A, B against an independent minimiser
	couplingTol   = 1e-6  // coupled probabilities against exact ones
	probSumTol    = 1e-12 // Σ p = 1 after normalisation
)

// plattRefProb is P(y=+1 | z) = 1/(1+e^z) written through tanh, a
// different evaluation from PlattPQ's.
func plattRefProb(z float64) float64 { return 0.5 * (1 - math.Tanh(z/2)) }

// plattRefTargets returns Platt's smoothed targets.
func plattRefTargets(positive []bool) []float64 {
	var np, nn float64
	for _, p := range positive {
		if p {
			np++
		} else {
			nn++
		}
	}
	t := make([]float64, len(positive))
	for i, p := range positive {
		if p {
			t[i] = (np + 1) / (np + 2)
		} else {
			t[i] = 1 / (nn + 2)
		}
	}
	return t
}

// plattRefNLL is the regularised negative log-likelihood straight from its
// definition, −Σ t log p + (1−t) log(1−p).
func plattRefNLL(dec, t []float64, A, B float64) float64 {
	var F float64
	for i, f := range dec {
		p := plattRefProb(A*f + B)
		F -= t[i]*math.Log(p) + (1-t[i])*math.Log(1-p)
	}
	return F
}

// bisect returns the root of an increasing function on [lo, hi], to the
// resolution of float64.
func bisect(g func(float64) float64, lo, hi float64) float64 {
	for range 200 {
		mid := 0.5 * (lo + hi)
		if mid == lo || mid == hi {
			break
		}
		if g(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// plattRefFit minimises F(A, B) by nested bisection: B*(A) zeroes ∂F/∂B,
// which increases with B; the profile F(A, B*(A)) is convex with
// derivative ∂F/∂A at (A, B*(A)) (envelope theorem), which increases with
// A. No Newton step, no line search: an independent route to the optimum.
func plattRefFit(dec []float64, positive []bool) (A, B float64) {
	t := plattRefTargets(positive)
	bOf := func(A float64) float64 {
		return bisect(func(B float64) float64 {
			g := 0.0
			for i, f := range dec {
				g += t[i] - plattRefProb(A*f+B)
			}
			return g
		}, -1e3, 1e3)
	}
	A = bisect(func(A float64) float64 {
		B := bOf(A)
		g := 0.0
		for i, f := range dec {
			g += f * (t[i] - plattRefProb(A*f+B))
		}
		return g
	}, -1e6, 1e6)
	return A, bOf(A)
}

// overlappingScores returns decision values of two overlapping classes:
// positives around +mu, negatives around −mu, unit spread.
func overlappingScores(r *rand.Rand, nPos, nNeg int, mu float64) ([]float64, []bool) {
	var dec []float64
	var pos []bool
	for range nPos {
		dec = append(dec, mu+r.NormFloat64())
		pos = append(pos, true)
	}
	for range nNeg {
		dec = append(dec, -mu+r.NormFloat64())
		pos = append(pos, false)
	}
	// Interleave, so that nothing depends on the classes being grouped.
	r.Shuffle(len(dec), func(i, j int) {
		dec[i], dec[j] = dec[j], dec[i]
		pos[i], pos[j] = pos[j], pos[i]
	})
	return dec, pos
}

func TestPlattFitAgainstNestedBisection(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 1))
	for _, c := range []struct {
		nPos, nNeg int
		mu, scale  float64
	}{
		{150, 150, 1, 1},
		{40, 260, 0.8, 1},
		{300, 25, 1.5, 1},
		{100, 100, 2, 30},     // large decision values: exp(A·f) far from 1
		{100, 100, 0.2, 1e-3}, // tiny ones: A large
	} {
		dec, pos := overlappingScores(r, c.nPos, c.nNeg, c.mu)
		for i := range dec {
			dec[i] *= c.scale
		}
		A, B := PlattFit(dec, pos)
		wantA, wantB := plattRefFit(dec, pos)
		if math.Abs(A-wantA) > plattParamTol*max(1, math.Abs(wantA)) || math.Abs(B-wantB) > plattParamTol*max(1, math.Abs(wantB)) {
			t.Errorf("%+v: PlattFit = (%.10g, %.10g), nested bisection (%.10g, %.10g)", c, A, B, wantA, wantB)
		}
		if A >= 0 {
			t.Errorf("%+v: A = %g, want < 0 (positives score higher)", c, A)
		}
		// The returned point is a minimum of the textbook objective: no
		// neighbour is lower.
		tt := plattRefTargets(pos)
		F := plattRefNLL(dec, tt, A, B)
		for _, d := range [][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}} {
			hA, hB := 1e-4*max(1, math.Abs(A)), 1e-4*max(1, math.Abs(B))
			if Fn := plattRefNLL(dec, tt, A+d[0]*hA, B+d[1]*hB); Fn < F-1e-9*math.Abs(F) {
				t.Errorf("%+v: F(A,B) = %.12g but F at step %v is %.12g", c, F, d, Fn)
			}
		}
	}
}

func TestPlattFitClosedForms(t *testing.T) {
	// Two distinct decision values: the sigmoid, with two parameters,
	// matches each group's mean target exactly, so
	// A·f_g + B = log(1/t̄_g − 1) for both groups.
	// Group 1 at f = 2: 30 positives, 5 negatives; group 2 at f = −1:
	// 4 positives, 40 negatives. N₊ = 34, N₋ = 45.
	var dec []float64
	var pos []bool
	add := func(f float64, n int, p bool) {
		for range n {
			dec = append(dec, f)
			pos = append(pos, p)
		}
	}
	add(2, 30, true)
	add(-1, 40, false)
	add(2, 5, false)
	add(-1, 4, true)
	hi, lo := 35.0/36, 1.0/47
	t1 := (30*hi + 5*lo) / 35
	t2 := (4*hi + 40*lo) / 44
	z1, z2 := math.Log(1/t1-1), math.Log(1/t2-1)
	wantA := (z1 - z2) / 3
	wantB := z1 - 2*wantA
	A, B := PlattFit(dec, pos)
	if math.Abs(A-wantA) > plattParamTol || math.Abs(B-wantB) > plattParamTol {
		t.Errorf("two groups: PlattFit = (%.12g, %.12g), want (%.12g, %.12g)", A, B, wantA, wantB)
	}

	// One decision value: A does not matter and stays 0; B matches the
	// mean target.
	dec = make([]float64, 50)
	pos = make([]bool, 50)
	for i := range 20 {
		pos[i] = true
	}
	tbar := (20*(21.0/22) + 30*(1.0/32)) / 50
	A, B = PlattFit(dec, pos)
	if wantB := math.Log(1/tbar - 1); A != 0 || math.Abs(B-wantB) > plattParamTol {
		t.Errorf("constant decisions: PlattFit = (%g, %.12g), want (0, %.12g)", A, B, wantB)
	}

	// No data: the starting point, B = log(1/1) = 0.
	if A, B := PlattFit(nil, nil); A != 0 || B != 0 {
		t.Errorf("no data: PlattFit = (%g, %g), want (0, 0)", A, B)
	}
}

func TestPlattFitSeparable(t *testing.T) {
	// Separable scores: the smoothed targets keep the optimum finite; the
	// fit must still end with finite parameters and order the classes.
	dec := []float64{-3, -2, -1.5, -1, 1, 1.2, 2, 4}
	pos := []bool{false, false, false, false, true, true, true, true}
	A, B := PlattFit(dec, pos)
	wantA, wantB := plattRefFit(dec, pos)
	if math.IsNaN(A) || math.IsInf(A, 0) || A >= 0 {
		t.Fatalf("separable: A = %g", A)
	}
	if math.Abs(A-wantA) > plattParamTol*max(1, math.Abs(wantA)) || math.Abs(B-wantB) > plattParamTol*max(1, math.Abs(wantB)) {
		t.Errorf("separable: PlattFit = (%.10g, %.10g), nested bisection (%.10g, %.10g)", A, B, wantA, wantB)
	}
	if p := PlattProb(4, A, B); p <= 0.5 || p >= 1 {
		t.Errorf("separable: P(+1 | 4) = %g", p)
	}
}

func TestPlattProb(t *testing.T) {
	A, B := -2.5, 0.3
	prev := -1.0
	for f := -20.0; f <= 20; f += 0.25 {
		p := PlattProb(f, A, B)
		if p < prev {
			t.Fatalf("PlattProb not monotone: P(%g) = %g < P(%g) = %g", f, p, f-0.25, prev)
		}
		prev = p
		if want := plattRefProb(A*f + B); math.Abs(p-want) > 1e-15 {
			t.Errorf("PlattProb(%g) = %.17g, want %.17g", f, p, want)
		}
		// Swapping the classes (A, B → −A, −B) gives 1 − p.
		if q := PlattProb(f, -A, -B); math.Abs(p+q-1) > 1e-15 {
			t.Errorf("P(%g) + P_swapped = %.17g", f, p+q)
		}
	}
	// No overflow at extreme inputs.
	for _, c := range []struct{ f, want float64 }{
		{1e300, 1}, {-1e300, 0}, {800, 1}, {-800, 0},
	} {
		if p := PlattProb(c.f, -1, 0); p != c.want {
			t.Errorf("PlattProb(%g, −1, 0) = %g, want %g", c.f, p, c.want)
		}
	}
	if p := PlattProb(-800, -1, 0); p == 0 && PlattProb(-700, -1, 0) == 0 {
		t.Errorf("PlattProb underflows early")
	}
}

// couplingRefQP solves min ½pᵀQp subject to Σp = 1 by its KKT system,
// p = Q⁻¹e / eᵀQ⁻¹e (Gaussian elimination with partial pivoting): the
// exact solution when it is positive, which PairwiseCoupling's fixed
// point must approach.
func couplingRefQP(r []float64, k int) []float64 {
	a := make([][]float64, k)
	for t := range k {
		a[t] = make([]float64, k+1)
		for j := range k {
			if j != t {
				a[t][t] += r[j*k+t] * r[j*k+t]
				a[t][j] = -r[j*k+t] * r[t*k+j]
			}
		}
		a[t][k] = 1
	}
	for c := range k {
		piv := c
		for i := c + 1; i < k; i++ {
			if math.Abs(a[i][c]) > math.Abs(a[piv][c]) {
				piv = i
			}
		}
		a[c], a[piv] = a[piv], a[c]
		for i := c + 1; i < k; i++ {
			m := a[i][c] / a[c][c]
			for j := c; j <= k; j++ {
				a[i][j] -= m * a[c][j]
			}
		}
	}
	x := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		s := a[i][k]
		for j := i + 1; j < k; j++ {
			s -= a[i][j] * x[j]
		}
		x[i] = s / a[i][i]
	}
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	for i := range x {
		x[i] /= sum
	}
	return x
}

// randomPairwise returns r for k classes with r_ij = p_i/(p_i+p_j)
// perturbed by up to noise (then clipped to (0,1)), and p.
func randomPairwise(rg *rand.Rand, k int, noise float64) (r, p []float64) {
	p = make([]float64, k)
	sum := 0.0
	for i := range p {
		p[i] = 0.05 + rg.Float64()
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	r = make([]float64, k*k)
	for i := range k {
		for j := i + 1; j < k; j++ {
			v := p[i]/(p[i]+p[j]) + noise*(2*rg.Float64()-1)
			v = min(max(v, 0.01), 0.99)
			r[i*k+j], r[j*k+i] = v, 1-v
		}
	}
	return r, p
}

func checkDistribution(t *testing.T, what string, p []float64) {
	t.Helper()
	sum := 0.0
	for _, v := range p {
		if !(v >= 0 && v <= 1) {
			t.Errorf("%s: probability %g out of [0, 1]: %v", what, v, p)
		}
		sum += v
	}
	if math.Abs(sum-1) > probSumTol {
		t.Errorf("%s: probabilities sum to %.17g", what, sum)
	}
}

// couplingTight is a stopping tolerance far below LIBSVM's, under which
// the fixed point must reach the exact minimiser.
const (
	couplingTight      = 1e-13
	couplingTightIters = 10000
)

// couplingResidual returns max_t |(Qp)_t − pᵀQp| of p for r, computed
// from the definition: the optimality condition PairwiseCoupling stops on.
func couplingResidual(r, p []float64, k int) float64 {
	Qp := make([]float64, k)
	pQp := 0.0
	for t := range k {
		for j := range k {
			if j != t {
				// Row t of Q: Q_tt = Σ_{j≠t} r_jt², Q_tj = −r_jt·r_tj.
				Qp[t] += r[j*k+t]*r[j*k+t]*p[t] - r[j*k+t]*r[t*k+j]*p[j]
			}
		}
		pQp += p[t] * Qp[t]
	}
	worst := 0.0
	for _, v := range Qp {
		worst = max(worst, math.Abs(v-pQp))
	}
	return worst
}

func TestPairwiseCouplingConsistent(t *testing.T) {
	// r_ij = p_i/(p_i+p_j) is fitted exactly by p (Qp = 0): coupling run
	// to a tight tolerance must give p back; with LIBSVM's tolerance the
	// optimality condition must hold to 0.005/k.
	rg := rand.New(rand.NewPCG(7, 2))
	worst := 0.0
	for _, k := range []int{2, 3, 4, 5, 10, 26} {
		for range 5 {
			r, want := randomPairwise(rg, k, 0)
			scratch := make([]float64, PairwiseCouplingScratch(k))
			got := make([]float64, k)
			if !CoupleFixedPoint(got, r, k, couplingTight, couplingTightIters, scratch) {
				t.Errorf("k=%d: not converged to %g", k, couplingTight)
			}
			checkDistribution(t, "consistent", got)
			for i := range k {
				if math.Abs(got[i]-want[i]) > couplingTol {
					t.Errorf("k=%d: p = %v, want %v", k, got, want)
					break
				}
			}
			if !PairwiseCoupling(got, r, k, scratch) {
				t.Errorf("k=%d: not converged", k)
			}
			checkDistribution(t, "consistent, LIBSVM's tolerance", got)
			if res := couplingResidual(r, got, k); res >= 0.005/float64(k) {
				t.Errorf("k=%d: residual %g at LIBSVM's tolerance %g", k, res, 0.005/float64(k))
			}
			for i := range k {
				worst = max(worst, math.Abs(got[i]-want[i]))
			}
		}
	}
	t.Logf("LIBSVM's tolerance: largest |p − p_true| = %.3g", worst)
}

func TestPairwiseCouplingAgainstQP(t *testing.T) {
	// Inconsistent pairwise estimates: the fixed point solves the QP, whose
	// KKT solution is computed independently.
	rg := rand.New(rand.NewPCG(7, 3))
	worst := 0.0
	for _, k := range []int{3, 4, 6, 10} {
		for range 10 {
			r, _ := randomPairwise(rg, k, 0.15)
			want := couplingRefQP(r, k)
			if slices.Min(want) <= 0 {
				continue // the bound p ≥ 0 is active: no closed form
			}
			scratch := make([]float64, PairwiseCouplingScratch(k))
			got := make([]float64, k)
			if !CoupleFixedPoint(got, r, k, couplingTight, couplingTightIters, scratch) {
				t.Errorf("k=%d: not converged to %g", k, couplingTight)
			}
			checkDistribution(t, "inconsistent", got)
			for i := range k {
				if math.Abs(got[i]-want[i]) > couplingTol {
					t.Errorf("k=%d: p = %v, QP solution %v", k, got, want)
					break
				}
			}
			PairwiseCoupling(got, r, k, scratch)
			checkDistribution(t, "inconsistent, LIBSVM's tolerance", got)
			if res := couplingResidual(r, got, k); res >= 0.005/float64(k) {
				t.Errorf("k=%d: residual %g at LIBSVM's tolerance %g", k, res, 0.005/float64(k))
			}
			for i := range k {
				worst = max(worst, math.Abs(got[i]-want[i]))
			}
		}
	}
	t.Logf("LIBSVM's tolerance: largest |p − p_QP| = %.3g", worst)
}

// couplingNaiveSweeps repeats the fixed-point sweep of PairwiseCoupling
// the slow way, every quantity recomputed from p before each coordinate
// update, for sweeps sweeps.
func couplingNaiveSweeps(r []float64, k, sweeps int) []float64 {
	p := make([]float64, k)
	for i := range p {
		p[i] = 1 / float64(k)
	}
	Qrow := func(t int) []float64 {
		row := make([]float64, k)
		for j := range k {
			if j != t {
				row[t] += r[j*k+t] * r[j*k+t]
				row[j] = -r[j*k+t] * r[t*k+j]
			}
		}
		return row
	}
	for range sweeps {
		for t := range k {
			Qp := make([]float64, k)
			pQp := 0.0
			for i := range k {
				for j, q := range Qrow(i) {
					Qp[i] += q * p[j]
				}
				pQp += p[i] * Qp[i]
			}
			p[t] += (pQp - Qp[t]) / Qrow(t)[t]
			sum := 0.0
			for _, v := range p {
				sum += v
			}
			for i := range p {
				p[i] /= sum
			}
		}
	}
	return p
}

func TestPairwiseCouplingSweeps(t *testing.T) {
	// The incremental updates of Qp and pᵀQp are exact: a given number of
	// sweeps lands where the naive sweeps land. This pins the path, which
	// matters at LIBSVM's loose tolerance.
	rg := rand.New(rand.NewPCG(7, 7))
	for _, k := range []int{3, 5, 9} {
		r, _ := randomPairwise(rg, k, 0.1)
		scratch := make([]float64, PairwiseCouplingScratch(k))
		got := make([]float64, k)
		for sweeps := 1; sweeps <= 4; sweeps++ {
			CoupleFixedPoint(got, r, k, 0, sweeps, scratch)
			want := couplingNaiveSweeps(r, k, sweeps)
			for i := range k {
				if math.Abs(got[i]-want[i]) > 1e-13 {
					t.Errorf("k=%d, %d sweeps: p = %v, naive %v", k, sweeps, got, want)
					break
				}
			}
		}
	}
}

func TestPairwiseCouplingRelabel(t *testing.T) {
	// Renaming the classes permutes the minimiser. The sweep order changes
	// with the names, so the answers agree to the stopping tolerance.
	rg := rand.New(rand.NewPCG(7, 4))
	for _, noise := range []float64{0, 0.1} {
		for _, k := range []int{3, 5, 8} {
			r, _ := randomPairwise(rg, k, noise)
			perm := rg.Perm(k) // new name of class i is perm[i]
			rp := make([]float64, k*k)
			for i := range k {
				for j := range k {
					rp[perm[i]*k+perm[j]] = r[i*k+j]
				}
			}
			scratch := make([]float64, PairwiseCouplingScratch(k))
			p, pp := make([]float64, k), make([]float64, k)
			CoupleFixedPoint(p, r, k, couplingTight, couplingTightIters, scratch)
			CoupleFixedPoint(pp, rp, k, couplingTight, couplingTightIters, scratch)
			for i := range k {
				if math.Abs(pp[perm[i]]-p[i]) > couplingTol {
					t.Errorf("noise %g k=%d: p = %v, relabelled %v (perm %v)", noise, k, p, pp, perm)
					break
				}
			}
		}
	}
}

func TestPairwiseProbabilities(t *testing.T) {
	// Two classes: Platt's probability directly, clipped.
	dst := make([]float64, 2)
	scratch := make([]float64, ProbabilityScratch(2))
	PairwiseProbabilities(dst, []float64{0.7}, []float64{-3}, []float64{0.2}, scratch)
	if want := plattRefProb(-3*0.7 + 0.2); math.Abs(dst[0]-want) > 1e-15 || math.Abs(dst[1]-(1-want)) > 1e-15 {
		t.Errorf("binary: %v, want [%g %g]", dst, want, 1-want)
	}
	PairwiseProbabilities(dst, []float64{100}, []float64{-3}, []float64{0}, scratch)
	hi := 1 - ProbMin // a variable: 1 − hi rounds as the code's does
	if dst[0] != hi || dst[1] != 1-hi {
		t.Errorf("binary, certain: %v, want clipped to %g", dst, ProbMin)
	}

	// Three classes: the pair order (0,1), (0,2), (1,2) and r_ji = 1 − r_ij,
	// then coupling.
	dec := []float64{0.5, -0.2, 1.1}
	A := []float64{-2, -1.5, -3}
	B := []float64{0.1, -0.3, 0.2}
	k := 3
	r := make([]float64, k*k)
	pair := [][2]int{{0, 1}, {0, 2}, {1, 2}}
	for n, ij := range pair {
		v := plattRefProb(A[n]*dec[n] + B[n])
		r[ij[0]*k+ij[1]], r[ij[1]*k+ij[0]] = v, 1-v
	}
	want := make([]float64, k)
	PairwiseCoupling(want, r, k, make([]float64, PairwiseCouplingScratch(k)))
	got := make([]float64, k)
	PairwiseProbabilities(got, dec, A, B, make([]float64, ProbabilityScratch(k)))
	for i := range k {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("three classes: %v, want %v", got, want)
			break
		}
	}
	checkDistribution(t, "three classes", got)
}

func TestProbabilityAllocs(t *testing.T) {
	rg := rand.New(rand.NewPCG(7, 5))
	dec, pos := overlappingScores(rg, 50, 50, 1)
	k := 10
	r, _ := randomPairwise(rg, k, 0.1)
	dst := make([]float64, k)
	scratch := make([]float64, ProbabilityScratch(k))
	pairs := k * (k - 1) / 2
	pd, pA, pB := make([]float64, pairs), make([]float64, pairs), make([]float64, pairs)
	for i := range pairs {
		pd[i], pA[i], pB[i] = rg.NormFloat64(), -3, 0.1
	}
	var sink float64
	for name, f := range map[string]func(){
		"PlattFit":              func() { a, b := PlattFit(dec, pos); sink += a + b },
		"PlattProb":             func() { sink += PlattProb(0.3, -2, 0.1) },
		"PairwiseCoupling":      func() { PairwiseCoupling(dst, r, k, scratch) },
		"PairwiseProbabilities": func() { PairwiseProbabilities(dst, pd, pA, pB, scratch) },
	} {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s: %g allocations per call", name, a)
		}
	}
	_ = sink
}

func TestLaplaceScale(t *testing.T) {
	for _, c := range []struct {
		name string
		z    []float64
		want float64
	}{
		{"none", nil, 0},
		{"zero", []float64{0, 0, 0}, 0},
		// mean |z| = 21.2; limit 5·√2·21.2 ≈ 149.9 keeps 100.
		{"kept", []float64{1, -1, 2, -2, 100}, 21.2},
		// 20 residuals of ±1 and one of 200: mean |z| = 220/21 ≈ 10.48,
		// limit ≈ 74.1 drops 200; the rest average 1.
		{"trimmed", append(slices.Repeat([]float64{1, -1}, 10), 200), 1},
		// Two outliers: mean |z| = (8·0.5 + 2·30)/10 = 6.4, limit ≈ 45.3
		// keeps both, so σ = 6.4.
		{"two outliers", []float64{0.5, -0.5, 0.5, -0.5, 0.5, -0.5, 0.5, -0.5, 30, -30}, 6.4},
		// 99 residuals of 0.1 and one of −10: mean 0.199, limit ≈ 1.407
		// drops −10: σ = 0.1.
		{"one far", append(slices.Repeat([]float64{0.1}, 99), -10), 0.1},
		// Near the limit. 19 ones and 8: mean 1.35, limit ≈ 9.55 keeps 8
		// (a limit of 5·mean, 6.75, would not).
		{"inside", append(slices.Repeat([]float64{1}, 19), 8), 1.35},
		// 19 ones and −12: mean 1.55, limit ≈ 10.96 drops −12.
		{"just outside", append(slices.Repeat([]float64{1}, 19), -12), 1},
	} {
		if got := LaplaceScale(c.z); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: LaplaceScale = %.15g, want %g", c.name, got, c.want)
		}
	}
}

// cvRecorder is a fake fit for the cross-validation functions: it records
// each call's training rows, and its decide gives a fixed function of the
// row, failing the test if a row of the training part is asked for.
type cvRecorder struct {
	t      *testing.T
	l      int
	fits   int
	seen   []int // how often each row was decided
	inFold []bool
	trains [][]int32
}

func newCVRecorder(t *testing.T, l int) *cvRecorder {
	return &cvRecorder{t: t, l: l, seen: make([]int, l), inFold: make([]bool, l)}
}

func cvValue(row int32) float64 { return 0.5 + float64(row)*0.25 }

func (c *cvRecorder) fit(train []int32) (func(int32) float64, error) {
	c.fits++
	c.trains = append(c.trains, slices.Clone(train))
	inTrain := make([]bool, c.l)
	for _, i := range train {
		if inTrain[i] {
			c.t.Errorf("fit %d: row %d twice in training", c.fits, i)
		}
		inTrain[i] = true
	}
	return func(row int32) float64 {
		if inTrain[row] {
			c.t.Errorf("fit %d: decide(%d) for a training row", c.fits, row)
		}
		c.seen[row]++
		return cvValue(row)
	}, nil
}

func TestCrossValidatedDecisions(t *testing.T) {
	const l = 23
	y := make([]int8, l)
	for i := range y {
		y[i] = 1
		if i%3 == 0 {
			y[i] = -1
		}
	}
	rec := newCVRecorder(t, l)
	dst := make([]float64, l)
	for i := range dst {
		dst[i] = math.NaN()
	}
	if err := CrossValidatedDecisions(dst, y, 5, 42, rec.fit); err != nil {
		t.Fatal(err)
	}
	if rec.fits != 5 {
		t.Errorf("%d fits, want 5", rec.fits)
	}
	for i, n := range rec.seen {
		if n != 1 {
			t.Errorf("row %d decided %d times", i, n)
		}
		if dst[i] != cvValue(int32(i)) {
			t.Errorf("dst[%d] = %g, want %g", i, dst[i], cvValue(int32(i)))
		}
	}
	// Fold sizes f·l/5 boundaries: 4, 5, 4, 5, 5 held out.
	for f, tr := range rec.trains {
		held := (f+1)*l/5 - f*l/5
		if len(tr) != l-held {
			t.Errorf("fold %d: %d training rows, want %d", f+1, len(tr), l-held)
		}
	}
	// The same seed gives the same folds, another seed others.
	again := newCVRecorder(t, l)
	CrossValidatedDecisions(make([]float64, l), y, 5, 42, again.fit)
	other := newCVRecorder(t, l)
	CrossValidatedDecisions(make([]float64, l), y, 5, 43, other.fit)
	for f := range rec.trains {
		if !slices.Equal(rec.trains[f], again.trains[f]) {
			t.Errorf("seed 42 twice: fold %d differs", f+1)
		}
	}
	if slices.EqualFunc(rec.trains, other.trains, slices.Equal) {
		t.Errorf("seeds 42 and 43 gave the same folds")
	}
}

func TestCrossValidatedDecisionsOneClassFolds(t *testing.T) {
	// Two rows, five folds: each row is held out alone and trained on the
	// other, a single class: the held-out row gets that class's sign and
	// fit is never called.
	rec := newCVRecorder(t, 2)
	dst := []float64{9, 9}
	if err := CrossValidatedDecisions(dst, []int8{1, -1}, 5, 1, rec.fit); err != nil {
		t.Fatal(err)
	}
	if rec.fits != 0 || dst[0] != -1 || dst[1] != 1 {
		t.Errorf("two rows: %d fits, dst %v, want 0 fits, [-1 1]", rec.fits, dst)
	}
	// One row: its training part is empty, value 0.
	dst = []float64{9}
	if err := CrossValidatedDecisions(dst, []int8{1}, 5, 1, rec.fit); err != nil || dst[0] != 0 || rec.fits != 0 {
		t.Errorf("one row: %v, dst %v, %d fits", err, dst, rec.fits)
	}
	// Five rows, one negative: the fold holding it trains on positives only
	// (value +1 without a fit); the other four fit normally.
	rec = newCVRecorder(t, 5)
	dst = make([]float64, 5)
	if err := CrossValidatedDecisions(dst, []int8{1, 1, -1, 1, 1}, 5, 7, rec.fit); err != nil {
		t.Fatal(err)
	}
	if rec.fits != 4 || dst[2] != 1 {
		t.Errorf("one negative: %d fits, dst %v", rec.fits, dst)
	}
	for i, v := range dst {
		if i != 2 && v != cvValue(int32(i)) {
			t.Errorf("one negative: dst[%d] = %g", i, v)
		}
	}
}

func TestCrossValidatedDecisionsErrors(t *testing.T) {
	y := []int8{1, -1, 1, -1, 1, -1}
	if err := CrossValidatedDecisions(make([]float64, 6), y, 1, 1, nil); !errors.Is(err, model.ErrParams) {
		t.Errorf("1 fold: %v, want ErrParams", err)
	}
	boom := errors.New("boom")
	err := CrossValidatedDecisions(make([]float64, 6), y, 3, 1, func([]int32) (func(int32) float64, error) {
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("failing fit: %v, want it wrapped", err)
	}
}

func TestFitBinaryProbability(t *testing.T) {
	// A fit whose decide is a fixed function of the row makes the
	// cross-validated values known: the result is PlattFit of them.
	rg := rand.New(rand.NewPCG(7, 6))
	dec, pos := overlappingScores(rg, 60, 40, 1)
	y := make([]int8, len(pos))
	for i, p := range pos {
		y[i] = -1
		if p {
			y[i] = 1
		}
	}
	fit := func([]int32) (func(int32) float64, error) {
		return func(row int32) float64 { return dec[row] }, nil
	}
	A, B, err := FitBinaryProbability(y, 3, fit)
	if err != nil {
		t.Fatal(err)
	}
	wantA, wantB := PlattFit(dec, pos)
	if A != wantA || B != wantB {
		t.Errorf("FitBinaryProbability = (%g, %g), want (%g, %g)", A, B, wantA, wantB)
	}
}

func TestFitSVRScale(t *testing.T) {
	// predict = target − residual, with residuals ±1 and one far outlier,
	// so σ = 1 (see TestLaplaceScale's "trimmed").
	const l = 21
	y := make([]float64, l)
	res := append(slices.Repeat([]float64{1, -1}, 10), 200)
	for i := range y {
		y[i] = float64(i) * 1.5
	}
	rec := newCVRecorder(t, l)
	fit := func(train []int32) (func(int32) float64, error) {
		decide, _ := rec.fit(train)
		return func(row int32) float64 {
			decide(row)
			return y[row] - res[row]
		}, nil
	}
	sigma, err := FitSVRScale(y, 11, fit)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sigma-1) > 1e-12 {
		t.Errorf("σ = %.15g, want 1", sigma)
	}
	for i, n := range rec.seen {
		if n != 1 {
			t.Errorf("row %d predicted %d times", i, n)
		}
	}
	if err := CrossValidatedPredictions(make([]float64, 3), 0, 1, fit); !errors.Is(err, model.ErrParams) {
		t.Errorf("0 folds: %v, want ErrParams", err)
	}
}
