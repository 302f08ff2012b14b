package core

import "math"

// Trust-region Newton method (TRON) for the L2-regularized primal problems.
//
// Problem: min_w f(w), f twice differentiable (or with a generalized
// Hessian, as the L2 losses have) and strictly convex: here
// f(w) = ½‖w‖² + Σ C_i ξ(w; x_i, y_i) with ξ the squared hinge (L2-loss
// SVC, primal_l2svc.go) or the squared ε-insensitive loss (L2-loss SVR,
// primal_l2svr.go). No constraints.
//
// Each iteration approximately minimizes the quadratic model
// q(s) = ∇f(w)ᵀs + ½ sᵀ∇²f(w)s subject to ‖s‖_M ≤ Δ by conjugate gradient
// (Steihaug's truncated CG), accepts w + s when the actual reduction is a
// large enough part of the predicted one, and updates the radius Δ.
//
// C.-J. Lin, R. C. Weng, S. S. Keerthi, "Trust Region Newton Method for
// Large-Scale Logistic Regression", JMLR 9 (2008): Algorithm 2 (trust
// region Newton) with Algorithm 3 (CG inside the trust region), and the
// radius update of Section 2.1 (η₀ = 1e-4, η₁ = 0.25, η₂ = 0.75;
// σ₁ = 0.25, σ₂ = 0.5, σ₃ = 4). As LIBLINEAR (2.20 and later) does, CG is
// preconditioned by the diagonal M = (1 − a)I + a·diag(∇²f), a = 0.01,
// and the trust region is measured in the M-norm (C.-Y. Hsia, W.-L.
// Chiang, C.-J. Lin, "Preconditioned Conjugate Gradient Methods in
// Truncated Newton Frameworks for Large-scale Linear Classification",
// ACML 2018). Departure: a warm start uses a = 1, the plain diagonal
// (tronCGFor in lineartrain_primal.go says why).
//
// Stopping: ‖∇f(w)‖ ≤ eps·‖∇f(0)‖, the gradient at w = 0 whatever the
// starting point, so a warm start from a good w stops after few iterations
// or none (C.-H. Tsai, C.-Y. Lin, C.-J. Lin, "Incremental and Decremental
// Training for Linear Classification", KDD 2014, Section 3). CG stops when
// ‖r‖_{M⁻¹} ≤ epsCG·‖∇f(w)‖_{M⁻¹}; LIBLINEAR's epsCG is 0.1 cold and 0.5
// warm.
//
// A warm start adds a test on the objective (objEps > 0): the Newton
// decrement's estimate of what is left, f(w) − f(w*) ≈ ½∇fᵀ(∇²f)⁻¹∇f
// (S. Boyd, L. Vandenberghe, "Convex Optimization", 2004, Section 9.5.1),
// with the Hessian replaced by its diagonal D, must be at most
// objEps·|f(w)|. The gradient test alone lets a warm start stop as soon as
// it is inside, where a cold run, whose last Newton step lands well inside,
// is much nearer the optimum (below; LinearTrainer.objEps says how far).
// D is the preconditioner of a warm start (tronCGFor), so the estimate
// costs one pass over the rows of I, made only once the gradient test
// holds.
//
// The gradient test bounds the objective only loosely: for the L2 losses,
// f(w) − f(w*) ≤ ½‖∇f(w)‖² (f is 1-strongly convex; for the L2-loss SVC it
// is exactly the duality gap at α(w)), so two runs that pass it may differ
// by up to ½(eps·‖∇f(0)‖)². A cold run usually ends well inside the test,
// its last Newton step landing far below the threshold, while a warm start
// from a good w stops as soon as it is inside: at LIBLINEAR's default eps
// the two objectives can differ by 1e-3 relative (debdesc_bin), and only a
// tighter eps makes them agree closely (examples/bench/warm.sh).

// primalFunction is an objective TRON minimizes. fun evaluates f at w and
// keeps the margins; grad, called at the w of the last fun call, fixes the
// set of rows with a nonzero loss, which Hv and diagH then use (the
// generalized Hessian at the w of the last grad call: TRON calls grad only
// at an accepted w). None allocates.
type primalFunction interface {
	// fun returns f(w).
	fun(w []float64) float64
	// grad writes ∇f(w) to g; w is the point of the last fun call.
	grad(w, g []float64)
	// funAtZeroGrad is fun(w) that also writes ∇f(0) to g0, reading each
	// row once for both: the stopping test's scale costs no extra pass.
	funAtZeroGrad(w, g0 []float64) float64
	// Hv writes ∇²f·s to Hs.
	Hv(s, Hs []float64)
	// diagH writes the diagonal of ∇²f to M.
	diagH(M []float64)
	// gradDiag is grad then diagH, in one pass over the rows where they
	// can share it (the same values).
	gradDiag(w, g, M []float64)
	// dualDone reports whether the dual variables w determines meet the
	// dual's stopping test (the primal twin of a dual formulation, where
	// it replaces TRON's own test); g is ∇f at the w of the last grad
	// call. It returns false when no dual test is set.
	dualDone(g []float64) bool
	// rowReads returns how many rows the calls so far have read.
	rowReads() int64
	// forgetStart reports whether the values of the first funAtZeroGrad
	// and grad were given for some rows rather than read from them (a
	// previous run's, LinearGradient), and makes any later call read
	// every row.
	forgetStart() bool
}

// TRON's constants (Lin, Weng & Keerthi 2008, Section 2.1; Hsia et al.
// 2018 for alphaPCG).
const (
	tronEta0, tronEta1, tronEta2       = 1e-4, 0.25, 0.75
	tronSigma1, tronSigma2, tronSigma3 = 0.25, 0.5, 4.0
	tronAlphaPCG                       = 0.01
)

// tronCG is how TRON's inner conjugate gradient runs: it stops at
// ‖r‖_{M⁻¹} ≤ eps·‖∇f(w)‖_{M⁻¹} and is preconditioned by
// M = (1 − precond)I + precond·diag(∇²f).
type tronCG struct {
	eps, precond float64
}

// tron is the solver's state: vectors of the problem's dimension, sized
// once by the trainer (capacity) and resliced per solve.
type tron struct {
	g, s, r, d, Hd, z, M, wNew []float64
	g0                         []float64 // ∇f(0), kept for a later warm start (LinearGradient)
	cg                         tronCG
	// progress, when not nil, is told of each accepted Newton step (the
	// trainer sets it, with the subproblem's class, before minimize).
	progress func(iteration int, objective, violation float64)
}

// tronBuffers is the number of float64 vectors a tron holds.
const tronBuffers = 9

// newTRON allocates a tron for problems of up to n variables.
func newTRON(n int) tron {
	buf := make([]float64, tronBuffers*n)
	v := func(k int) []float64 { return buf[k*n : (k+1)*n : (k+1)*n] }
	return tron{g: v(0), s: v(1), r: v(2), d: v(3), Hd: v(4), z: v(5), M: v(6), wNew: v(7), g0: v(8)}
}

// tronResult is what one minimization did.
type tronResult struct {
	iterations int     // accepted Newton steps
	hv         int     // Hessian-vector products (CG steps)
	f          float64 // f at the returned w
	gnorm      float64 // ‖∇f‖ at the returned w
	gnorm0     float64 // ‖∇f(0)‖
	converged  bool    // the stopping test held
}

// minimize runs TRON on f from w (updated in place) until
// ‖∇f(w)‖ ≤ eps·‖∇f(0)‖ and, when objEps > 0, ½∇fᵀD⁻¹∇f ≤ objEps·|f(w)|
// (D the Hessian's diagonal), or maxIter Newton iterations, its CG run as
// cg says. On return t.g holds ∇f(w), t.g0 ∇f(0), and f's margins are
// those of w. It
// panics if w is longer than the buffers, or if objEps > 0 and cg's
// preconditioner is not the plain diagonal (precond 1), which the
// objective test reads.
func (t *tron) minimize(f primalFunction, w []float64, eps, objEps float64, cg tronCG, maxIter int) tronResult {
	n := len(w)
	g, s, r, M, wNew, g0 := t.g[:n], t.s[:n], t.r[:n], t.M[:n], t.wNew[:n], t.g0[:n]
	if objEps > 0 && cg.precond != 1 {
		panic("core: tron.minimize: the objective test needs the diagonal preconditioner")
	}
	t.cg = cg
	var res tronResult

	var fw, gnorm float64
	// evaluate sets f(w), ∇f(0) and ∇f(w).
	evaluate := func() {
		fw = f.funAtZeroGrad(w, g0)
		res.gnorm0 = norm2(g0)
		f.grad(w, g)
		gnorm = norm2(g)
		res.f, res.gnorm = fw, gnorm
	}
	evaluate()
	// done tests the stopping rule at w; whenever it returns false it has
	// set M for the next CG run (after the test: a run that stops needs no
	// M, unless the objective test reads it). haveD: M already holds the
	// diagonal at w (gradDiag), which is M itself when precond is 1.
	haveD := false
	done := func() bool {
		fresh := haveD
		haveD = false
		if gnorm <= eps*res.gnorm0 {
			if objEps <= 0 {
				return true
			}
			if !fresh {
				t.precondition(f, M) // D itself: precond is 1
			}
			if 0.5*dotMinv(g, g, M) <= objEps*math.Abs(fw) {
				return true
			}
			return false
		}
		if f.dualDone(g) {
			return true
		}
		if !fresh {
			t.precondition(f, M)
		}
		return false
	}
	for done() {
		if !f.forgetStart() {
			res.converged = true
			return res
		}
		// Stopping at a start whose values were partly given: read them.
		evaluate()
	}
	delta := math.Sqrt(dotMinv(g, g, M))
	deltaSet := false

	for res.iterations < maxIter {
		steps, reachedBoundary := t.pcg(f, delta, n)
		res.hv += steps
		copy(wNew, w)
		axpy(wNew, 1, s)
		gs := dot64(g, s)
		prered := -0.5 * (gs - dot64(s, r))
		fnew := f.fun(wNew)
		actred := fw - fnew

		snorm := math.Sqrt(dotM(s, s, M))
		if !deltaSet {
			delta = min(delta, snorm)
			deltaSet = true
		}
		var alpha float64
		if fnew-fw-gs <= 0 {
			alpha = tronSigma3
		} else {
			alpha = max(tronSigma1, -0.5*(gs/(fnew-fw-gs)))
		}
		switch {
		case actred < tronEta0*prered:
			delta = min(alpha*snorm, tronSigma2*delta)
		case actred < tronEta1*prered:
			delta = max(tronSigma1*delta, min(alpha*snorm, tronSigma2*delta))
		case actred < tronEta2*prered:
			delta = max(tronSigma1*delta, min(alpha*snorm, tronSigma3*delta))
		case reachedBoundary:
			delta = tronSigma3 * delta
		default:
			delta = max(delta, min(alpha*snorm, tronSigma3*delta))
		}

		accepted := actred > tronEta0*prered
		if !accepted && res.iterations == 0 && f.forgetStart() {
			// A first step that fails from given values: read them, and
			// start again from w.
			evaluate()
			if done() {
				res.converged = true
				return res
			}
			delta, deltaSet = math.Sqrt(dotMinv(g, g, M)), false
			continue
		}
		if accepted {
			f.forgetStart()
			res.iterations++
			copy(w, wNew)
			fw = fnew
			if cg.precond == 1 {
				// The plain diagonal (a warm start's) is read next unless
				// the run stops on the gradient test alone: by the
				// objective test or the CG run. With ∇f, in one pass.
				f.gradDiag(w, g, M)
				haveD = true
			} else {
				f.grad(w, g)
			}
			gnorm = norm2(g)
			res.f, res.gnorm = fw, gnorm
			if t.progress != nil {
				t.progress(res.iterations, fw, gnorm/res.gnorm0)
			}
			if done() {
				res.converged = true
				return res
			}
		}
		if prered <= 0 || fw < -1e32 ||
			(math.Abs(actred) <= 1e-12*math.Abs(fw) && math.Abs(prered) <= 1e-12*math.Abs(fw)) {
			// No further progress is possible in floating point: w is as
			// good as this precision gives, but the test did not hold.
			if !accepted {
				f.fun(w) // the last fun call was at the rejected step
			}
			return res
		}
	}
	return res
}

// precondition sets M = (1 − a)I + a·diag(∇²f), a = t.cg.precond.
func (t *tron) precondition(f primalFunction, M []float64) {
	f.diagH(M)
	a := t.cg.precond
	for j, h := range M {
		M[j] = (1 - a) + a*h
	}
}

// pcg approximately solves ∇²f·s = −g inside ‖s‖_M ≤ delta by
// preconditioned conjugate gradient (Algorithm 3 of Lin, Weng & Keerthi
// with the M-norm). It leaves s and the residual r = −g − ∇²f·s in t and
// returns the CG steps taken and whether s reached the boundary.
func (t *tron) pcg(f primalFunction, delta float64, n int) (int, bool) {
	g, s, r, d, Hd, z, M := t.g[:n], t.s[:n], t.r[:n], t.d[:n], t.Hd[:n], t.z[:n], t.M[:n]
	for j := range s {
		s[j] = 0
		r[j] = -g[j]
		z[j] = r[j] / M[j]
		d[j] = z[j]
	}
	zTr := dot64(z, r)
	cgtol := t.cg.eps * math.Sqrt(zTr)
	maxCG := max(n, 5)
	for it := 0; it < maxCG; {
		if math.Sqrt(zTr) <= cgtol {
			return it, false
		}
		it++
		f.Hv(d, Hd)
		alpha := zTr / dot64(d, Hd)
		axpy(s, alpha, d)
		if sM := math.Sqrt(dotM(s, s, M)); sM > delta {
			// Step back and go to the boundary along d: the τ ≥ 0 with
			// ‖s + τd‖_M = delta.
			axpy(s, -alpha, d)
			sTMd, sTMs, dTMd := dotM(s, d, M), dotM(s, s, M), dotM(d, d, M)
			dsq := delta * delta
			rad := math.Sqrt(sTMd*sTMd + dTMd*(dsq-sTMs))
			if sTMd >= 0 {
				alpha = (dsq - sTMs) / (sTMd + rad)
			} else {
				alpha = (rad - sTMd) / dTMd
			}
			axpy(s, alpha, d)
			axpy(r, -alpha, Hd)
			return it, true
		}
		axpy(r, -alpha, Hd)
		for j := range z {
			z[j] = r[j] / M[j]
		}
		zTrNew := dot64(z, r)
		beta := zTrNew / zTr
		for j := range d {
			d[j] = z[j] + beta*d[j]
		}
		zTr = zTrNew
	}
	return maxCG, false
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

// dotM returns uᵀ diag(M) v.
func dotM(u, v, M []float64) float64 {
	v, M = v[:len(u)], M[:len(u)]
	var s float64
	for j, x := range u {
		s += x * M[j] * v[j]
	}
	return s
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
