package linear

import (
	"math"
	"slices"
)

// Line-search truncated Newton method for the L2-regularized primal
// problems (-s 0, -s 2, -s 11; the warm starts of -s 1 and -s 12).
//
// Problem: min_w f(w) = ½‖w‖² + Σ_i C_i ξ(w; x_i, y_i), ξ the logistic loss
// (primal_lr.go), the squared hinge (primal_l2svc.go) or the squared
// ε-insensitive loss (primal_l2svr.go); f is strictly convex and twice
// differentiable (the L2 losses through a generalized Hessian). No
// constraints.
//
// Each iteration solves the Newton system ∇²f(w)·s = −∇f(w) approximately
// by preconditioned conjugate gradient, then backtracks from the full
// step: η = 1, ½, ¼, … (at most 20 tries), the first with
// f(w + ηs) − f(w) ≤ 0.01·η·∇f(w)ᵀs (Armijo), each trial O(l) from the
// margins z + η·Xs, Xs read once per iteration (the loss's lineSearch).
//
// L. Galli, C.-J. Lin, "A Study on Truncated Newton Methods for Linear
// Classification", IEEE TNNLS, 2022: the line-search truncated Newton
// method, CG stopped by the quadratic model's relative decrease (S. G.
// Nash, A. Sofer, Oper. Res. Lett. 9, 1990): with
// Q_j = ∇fᵀs_j + ½ s_jᵀ∇²f s_j after j CG steps, stop once
// j·(Q_j − Q_{j−1}) ≥ tol·Q_j, tol = min(epsCG, ‖∇f(w)‖_{M⁻¹}^{1/2}),
// epsCG = 0.5 as LIBLINEAR 2.50 sets it. CG is preconditioned by
// M = (1 − a)I + a·diag(∇²f), a = 0.01 (C.-Y. Hsia, W.-L. Chiang,
// C.-J. Lin, ACML 2018). The outer stopping rule is LIBLINEAR's,
// ‖∇f(w)‖ ≤ eps·‖∇f(0)‖, with ∇f(0) whatever the start (C.-H. Tsai,
// C.-Y. Lin, C.-J. Lin, KDD 2014, Section 3); it also stops where f no
// longer decreases in floating point (|Δf| ≤ 1e-12·|f|) or the line
// search fails.
//
// Departures, all measured (lineartrain_primal.go, newtonSettings):
//   - ∇²f's diagonal comes from ∇f's pass (primalFunction.grad); from
//     w = 0, ∇f(0) is ∇f(w) and the margins need no row. A cold run reads
//     the rows 1 + 2·(iterations) + (CG steps) times, LIBLINEAR
//     4 + 3·(iterations) + (CG steps).
//   - A warm start preconditions CG by the plain diagonal (a = 1), solves
//     its first system to CG tolerance 0.1 and each to ½rᵀD⁻¹r < ½objEps·|f|
//     (r CG's residual: half the test below, the rest for margins that cross),
//     and stops only once the Newton decrement ½∇fᵀD⁻¹∇f is at most objEps·|f(w)|
//     too (Boyd & Vandenberghe, 9.5.1): from a good w the gradient test passes at
//     once, as far from the optimum as it allows. It may take the trained rows'
//     f, ∇f, ∇f(0) and diagonal as given (LinearGradient, a start only).
//   - Passes over large data run in two halves on two cores (primalRows.split).

// primalFunction is an objective the Newton method minimizes: LIBLINEAR's
// function interface, with f(w) and ∇f(0) in one call and ∇f with ∇²f's
// diagonal in another (each one pass over the rows). None allocates.
type primalFunction interface {
	// start returns f(w), keeping w's margins, and writes ∇f(0) to g0;
	// g0 nil means w = 0, whose margins need no row read (and ∇f(0) is the
	// next grad's).
	start(w, g0 []float64) float64
	// grad writes ∇f(w) to g and the diagonal of ∇²f(w) to D, w the point
	// of the last start or lineSearch; it fixes the generalized Hessian
	// that Hv then uses.
	grad(w, g, D []float64)
	// Hv writes ∇²f·s to Hs.
	Hv(s, Hs []float64)
	// stepDots adds α·x_iᵀs of the last Hv's rows to the line search's
	// margin steps; first (a warm CG's start) zeroes them and starts it.
	stepDots(alpha float64, first bool)
	// lineSearch moves w to w + ηs by backtracking (above), given
	// fw = f(w) and gs = ∇f(w)ᵀs, and returns η and f(w + ηs); η = 0 (w
	// unchanged) when no trial decreased f enough.
	lineSearch(w, s []float64, fw, gs float64) (eta, fnew float64)
	// dualDone reports whether the dual variables w determines meet the
	// dual's stopping test (the primal twin of a dual formulation, where
	// it replaces the Newton method's own); g is ∇f(w). False when no dual
	// test is set.
	dualDone(g []float64) bool
	// forgetStart reports whether the values of the first start and grad
	// were given for some rows rather than read from them (a previous
	// run's, LinearGradient), and makes every later call read every row.
	forgetStart() bool
	// gradStep is grad after lineSearch moved w by ηs, from g and D at the old
	// w and CG's residual r = −g − ∇²f·s; false (nothing done) where it cannot.
	gradStep(g, D, r []float64, eta float64) bool
}

// newtonSettings is how CG runs: preconditioned by M = (1 − precond)I +
// precond·diag(∇²f), tolerance epsCG (epsCG0 first); objEps > 0 adds a
// warm start's objective test (then precond must be 1).
type newtonSettings struct {
	epsCG0, epsCG, precond, objEps float64
}

// The line search's constants (LIBLINEAR 2.50's): sufficient decrease
// 0.01, at most 20 halvings; and the cold preconditioner's mix a.
const (
	armijoEta      = 0.01
	maxLineSearch  = 20
	newtonAlphaPCG = 0.01
)

// newton is the solver's state: vectors sized once by the trainer.
type newton struct {
	g, s, r, d, Hd, D, M []float64
	g0                   []float64 // ∇f(0), kept for a later warm start (LinearGradient)
	part                 []float64 // a pass's second half: two vectors (primalRows.split)
	// progress, when not nil, is told of each Newton step (the trainer
	// sets it, with the subproblem's class, before minimize).
	progress func(iteration int, objective, violation float64)
}

// newtonBuffers is the number of float64 vectors a newton holds.
const newtonBuffers = 10

// newNewton allocates a newton for problems of up to n variables.
func newNewton(n int) newton {
	buf := make([]float64, newtonBuffers*n)
	v := func(k int) []float64 { return buf[k*n : (k+1)*n : (k+1)*n] }
	return newton{g: v(0), s: v(1), r: v(2), d: v(3), Hd: v(4), D: v(5), M: v(6), g0: v(7), part: buf[8*n:]}
}

// newtonResult is what one minimization did.
type newtonResult struct {
	iterations int     // Newton steps taken
	hv         int     // Hessian-vector products (CG steps)
	f          float64 // f at the returned w
	gnorm      float64 // ‖∇f‖ at the returned w
	gnorm0     float64 // ‖∇f(0)‖
	converged  bool    // the stopping test held
}

// minimize runs the Newton method on f from w (in place) until the tests
// above hold or maxIter iterations; then t.g is ∇f(w), t.D its diagonal,
// t.g0 ∇f(0). It panics if w outgrows the buffers, or objEps > 0 with precond ≠ 1.
func (t *newton) minimize(f primalFunction, w []float64, eps float64, set newtonSettings, maxIter int) newtonResult {
	n := len(w)
	g, s, D, M, g0 := t.g[:n], t.s[:n], t.D[:n], t.M[:n], t.g0[:n]
	if set.objEps > 0 && set.precond != 1 {
		panic("core: newton.minimize: the objective test needs the diagonal preconditioner")
	}
	var res newtonResult
	var fw float64
	evaluate := func() {
		if !slices.ContainsFunc(w, func(x float64) bool { return x != 0 }) { // cold: ∇f(0) is ∇f(w)
			fw = f.start(w, nil)
			f.grad(w, g, D)
			copy(g0, g)
		} else {
			fw = f.start(w, g0)
			f.grad(w, g, D)
		}
		res.gnorm0, res.f, res.gnorm = norm2(g0), fw, norm2(g)
	}
	done := func() bool {
		if res.gnorm <= eps*res.gnorm0 {
			// D is the Hessian's diagonal: the Newton decrement's estimate.
			return set.objEps <= 0 || 0.5*dotMinv(g, g, D) <= set.objEps*math.Abs(fw)
		}
		return f.dualDone(g)
	}
	evaluate()
	for done() {
		if !f.forgetStart() {
			res.converged = true
			return res
		}
		evaluate() // stopping at a start whose values were partly given: read them
	}
	for res.iterations < maxIter {
		a := set.precond
		for j, h := range D {
			M[j] = (1 - a) + a*h
		}
		epsCG := set.epsCG
		if res.iterations == 0 {
			epsCG = set.epsCG0
		}
		res.hv += t.pcg(f, n, epsCG, set.objEps > 0, set.objEps*math.Abs(fw))
		eta, fnew := f.lineSearch(w, s, fw, dot64(g, s))
		given := f.forgetStart()
		if eta == 0 {
			if res.iterations == 0 && given {
				// A first step that fails from given values: read them,
				// and start again from w.
				evaluate()
				if done() {
					res.converged = true
					return res
				}
				continue
			}
			return res
		}
		res.iterations++
		actred := fw - fnew
		fw = fnew
		if set.objEps <= 0 || !f.gradStep(g, D, t.r[:n], eta) {
			f.grad(w, g, D)
		}
		res.f, res.gnorm = fw, norm2(g)
		if t.progress != nil {
			t.progress(res.iterations, fw, res.gnorm/res.gnorm0)
		}
		if done() {
			res.converged = true
			return res
		}
		if fw < -1e32 || math.Abs(actred) <= 1e-12*math.Abs(fw) {
			return res // no further progress in floating point
		}
	}
	return res
}

// pcg solves ∇²f·s = −g approximately by CG preconditioned by t.M (the rule above or
// rᵀM⁻¹r < zStop, at most max(n, 5) steps, or until no curvature is left) into t.s, and
// returns the products; warm, their rows' x_iᵀs sum to the step's (stepDots).
func (t *newton) pcg(f primalFunction, n int, epsCG float64, warm bool, zStop float64) int {
	g, s, r, d, Hd, M := t.g[:n], t.s[:n], t.r[:n], t.d[:n], t.Hd[:n], t.M[:n]
	var zTr float64
	for j, gj := range g {
		s[j], r[j] = 0, -gj
		d[j] = -gj / M[j]
		zTr -= d[j] * gj
	}
	tol := min(epsCG, math.Sqrt(math.Sqrt(zTr)))
	var Q float64 // the quadratic model at s
	maxCG := max(n, 5)
	f.stepDots(0, warm)
	for it := 1; it <= maxCG; it++ {
		f.Hv(d, Hd)
		dHd := dot64(d, Hd)
		if dHd <= 1e-16 {
			return it
		}
		alpha := zTr / dHd
		f.stepDots(alpha, false)
		// s += αd, r −= α·Hd, and the sums the rule and β need, in one loop.
		var sr, sg, zTrNew float64
		for j := range s {
			s[j] += alpha * d[j]
			r[j] -= alpha * Hd[j]
			sr += s[j] * r[j]
			sg += s[j] * g[j]
			zTrNew += r[j] * r[j] / M[j]
		}
		newQ := -0.5 * (sr - sg)
		if dQ := newQ - Q; newQ > 0 || dQ > 0 || float64(it)*dQ >= tol*newQ || zTrNew < zStop {
			return it
		}
		Q = newQ
		beta := zTrNew / zTr
		for j := range d {
			d[j] = r[j]/M[j] + beta*d[j]
		}
		zTr = zTrNew
	}
	return maxCG
}

// norm2 returns ‖v‖₂.
func norm2(v []float64) float64 { return math.Sqrt(dot64(v, v)) }

// dot64 returns uᵀv over equal lengths.
func dot64(u, v []float64) float64 {
	v = v[:len(u)]
	var s0, s1 float64
	j := 0
	for ; j+2 <= len(u); j += 2 {
		s0 += u[j] * v[j]
		s1 += u[j+1] * v[j+1]
	}
	if j < len(u) {
		s0 += u[j] * v[j]
	}
	return s0 + s1
}

// dotMinv returns uᵀ diag(M)⁻¹ v.
func dotMinv(u, v, M []float64) float64 {
	v, M = v[:len(u)], M[:len(u)]
	var s float64
	for j, x := range u {
		s += x * v[j] / M[j]
	}
	return s
}

// axpy does dst += a·x over equal lengths.
func axpy(dst []float64, a float64, x []float64) {
	x = x[:len(dst)]
	for j := range dst {
		dst[j] += a * x[j]
	}
}
