package linear

import (
	"math"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// The primal side of linear training: -s 0, -s 2 and -s 11 by the Newton
// method (newton.go), and the L2-loss duals' warm starts (-s 1, -s 12)
// through their primal twins.

// usesNewton reports whether a run (a subproblem) is solved by the Newton
// method: the primals, the L2-loss duals through their primal twins, and
// the L2-loss duals given only a primal start (startOnly).
func (p *LinearParams) usesNewton(startOnly bool) bool {
	return p.Solver.IsPrimal() || (p.Solver.hasL2Loss() && (p.PrimalTwin || startOnly))
}

// primalTol returns a Newton run's stopping tolerance: Eps for the
// primals; for a primal twin, Eps times the ratio of LIBLINEAR's defaults
// (-s 2 to -s 1, -s 11 to -s 12); 0 for an L2-loss dual started from w
// alone, which stops on the dual's test.
func (p *LinearParams) primalTol() float64 {
	switch {
	case p.Solver.IsPrimal():
		return p.Eps
	case !p.PrimalTwin:
		return 0
	case p.Solver.IsRegression():
		return p.Eps * DefaultEps(L2LossSVRPrimal) / DefaultEps(L2LossSVRDual)
	}
	return p.Eps * DefaultEps(L2LossSVCPrimal) / DefaultEps(L2LossSVCDual)
}

// startW is one decision function's primal warm start.
type startW struct {
	w []float64 // feature weights
	b float64   // bias weight
}

// fill writes the start into w (n features, then the bias weight when
// bias >= 0), cutting or zero-extending the feature weights.
func (s *startW) fill(w []float64, n int, bias float64) {
	clear(w)
	copy(w[:n], s.w)
	if bias >= 0 {
		w[n] = s.b
	}
}

// primalVector returns the primal warm start for the subproblem whose
// positive class is pos: that class's vector or, when both runs are binary
// over the same classes in the other order, the one vector negated.
func primalVector(warm *LinearPrimal, labels []int32, pos int32) *startW {
	if warm == nil {
		return nil
	}
	at := func(k int, sign float64) *startW {
		s := &startW{w: warm.W[k]}
		if warm.BiasW != nil {
			s.b = warm.BiasW[k]
		}
		if sign < 0 {
			w := make([]float64, len(s.w))
			for j, v := range s.w {
				w[j] = -v
			}
			s.w, s.b = w, -s.b
		}
		return s
	}
	for k, l := range warm.Labels {
		if l == pos && k < len(warm.W) {
			return at(k, 1)
		}
	}
	if len(warm.W) == 1 && len(warm.Labels) >= 1 && len(labels) == 2 && warm.Labels[0] != pos &&
		(warm.Labels[0] == labels[0] || warm.Labels[0] == labels[1]) {
		return at(0, -1)
	}
	return nil
}

// primalSVC solves one binary L2-loss SVC subproblem by the Newton method
// from start, else w(α) with its stiff coordinates restored when warmed
// (primal_rebuild.go), else 0; writes w's dual variables to alpha; returns
// the result and the weights (a worker's buffer): for -s 1 from w alone
// (not PrimalTwin), w − ∇f(w) once the dual's test holds, else DCD
// finishes from α. from is the previous run's state (usableGradient) and
// keep receives this run's as k's, each when not nil.
func (t *LinearTrainer) primalSVC(wk *dcdWorker, ds *data.Dataset, y []int8, alpha []float64, start *startW,
	Cp, Cn float64, warmed bool, k int, from, keep *LinearGradient) (SolveResult, []float64) {
	p := &t.params
	f := &wk.fsvc
	f.init(ds, y, Cp, Cn, p.Bias, wk.QD, wk.z, wk.u, wk.I) // QD is DCD's, free until the Newton method is done
	w := wk.w[:f.dim()]
	var reads int64
	rebuilt := from == nil && start == nil && warmed // w from α alone, below
	if !rebuilt {
		reads = f.startAt(w, from, k, start, warmed, alpha)
	}
	// LIBLINEAR's scale, min(#pos, #neg)/l, with rows counted by their
	// instance weights, so that a weighted run stops where its duplicated
	// rows would (the same numbers when every weight is 1).
	minority, rows := weightedCounts(y, solve.RowWeights(ds))
	tol := p.primalTol() * minority / rows
	var rebuildHv int
	if rebuilt {
		// w(α) with what the previous run's w was restored
		// (primal_rebuild.go); the Newton method's vectors are free
		// until it runs.
		D := wk.newton.D[:len(w)]
		reads = f.rebuildFromAlpha(w, alpha, D, &wk.stiff)
		if tol > 0 {
			rebuildHv = f.refineOnQ(w, alpha, D, &wk.newton, tol)
		}
	}
	// An L2-loss dual started from w alone stops on its own test.
	dualTest := tol == 0
	if dualTest {
		f.dualEps = p.Eps
	}
	set := t.newtonSettings(warmed, p.primalTol())
	set.objEps *= hingeObjScale
	r := wk.newton.minimize(f, w, tol, set, p.MaxIter)
	r.hv += rebuildHv
	g := wk.newton.g[:len(w)]
	sums := dualSums{terms: 0.5 * distSq(w, g)}
	f.dual(alpha, &sums)
	res := primalResult(r, reads+f.reads, nil)

	if dualTest {
		s := &wk.svc
		s.initFromW(ds, y, alpha, wk.QD, Cp, Cn, p.Bias, p.Eps, solve.SubSeed(p.Seed, k), wMinusG(w, g))
		return dualFinish(res, r, func(res *SolveResult) { s.objectives(res, Cp, Cn, false) },
			func() SolveResult { return s.solve(p.MaxIter, Cp, Cn, false) }), s.w
	}

	keep.set(k, [2]float64{Cp, Cn}, w, f.z, &wk.newton, r.f)
	return primalResult(r, res.Updates, &sums), w
}

// set records, when g is not nil, decision function k's Newton run that
// ended at w with margins z and f(w) = fw, nw holding its last ∇f, ∇f(0)
// and diagonal, under the costs box.
func (g *LinearGradient) set(k int, box [2]float64, w, z []float64, nw *newton, fw float64) {
	if g == nil {
		return
	}
	g.Box[k] = box
	g.W[k], g.G[k], g.Z[k] = slices.Clone(w), slices.Clone(nw.g[:len(w)]), slices.Clone(z)
	// The loss is f less its regularizer: the last pass summed them.
	g.G0[k], g.Loss[k] = slices.Clone(nw.g0[:len(w)]), fw-0.5*dot64(w, w)
	h := slices.Clone(nw.D[:len(w)])
	for j := range h {
		h[j]-- // the loss's part
	}
	g.H[k] = h
}

// primalSVR is primalSVC for L2-loss SVR: -s 11, and -s 12 as a primal
// twin or from w alone, where the Newton method checks the dual test
// ‖∇ᴾf(β)‖₁ ≤ eps·scale.
func (t *LinearTrainer) primalSVR(wk *dcdWorker, ds *data.Dataset, beta []float64, start *startW, warmed bool) (SolveResult, []float64) {
	p := &t.params
	f := &wk.fsvr
	f.init(ds, p.C, p.P, p.Bias, wk.QD, wk.z, wk.u, wk.I)
	w := wk.w[:f.dim()]
	reads := f.startAt(w, nil, 0, start, warmed, beta)
	tol := p.primalTol()
	dualTest := tol == 0
	if dualTest {
		scale := 1.0
		if !p.AbsoluteEps {
			scale = 0
			for i, y := range f.y {
				scale += f.weigh(max(0, math.Abs(y)-p.P), i)
			}
		}
		f.dualTol = p.Eps * scale
	}
	r := wk.newton.minimize(f, w, tol, t.newtonSettings(warmed, tol), p.MaxIter)
	g := wk.newton.g[:len(w)]
	sums := dualSums{terms: 0.5 * distSq(w, g)}
	f.dual(beta, &sums)
	res := primalResult(r, reads+f.reads, nil)

	if dualTest {
		s := &wk.svr
		s.initFromW(ds, beta, wk.QD, p.C, p.P, p.Bias, p.Eps, p.AbsoluteEps, solve.SubSeed(p.Seed, 0), wMinusG(w, g))
		return dualFinish(res, r, func(res *SolveResult) { s.objectives(res, p.C, false) },
			func() SolveResult { return s.solve(p.MaxIter, p.C, false) }), s.w
	}

	return primalResult(r, res.Updates, &sums), w
}

// primalLR solves one binary logistic regression subproblem (-s 0) by the
// Newton method, as primalSVC does -s 2, and writes
// α_i = C_i σ(−y_i wᵀx_i) to alpha.
func (t *LinearTrainer) primalLR(wk *dcdWorker, ds *data.Dataset, y []int8, alpha []float64, start *startW,
	Cp, Cn float64, warmed bool, k int, from, keep *LinearGradient) (SolveResult, []float64) {
	p := &t.params
	f := &wk.flr
	f.init(ds, y, Cp, Cn, p.Bias, wk.QD, wk.z, wk.u, wk.D)
	w := wk.w[:f.dim()]
	reads := f.startAt(w, from, k, start, warmed, alpha)
	minority, rows := weightedCounts(y, solve.RowWeights(ds)) // as primalSVC counts them
	tol := p.Eps * minority / rows
	r := wk.newton.minimize(f, w, tol, t.newtonSettings(warmed, p.Eps), p.MaxIter)
	g := wk.newton.g[:len(w)]
	// The loss in f(w), the dual's terms but −Σ α_i z_i (lrFun.dual).
	sums := dualSums{terms: 0.5*distSq(w, g) - (r.f - 0.5*dot64(w, w))}
	f.dual(alpha, &sums)
	keep.set(k, [2]float64{Cp, Cn}, w, f.z, &wk.newton, r.f)
	return primalResult(r, reads+f.reads, &sums), w
}

// dualSums is what an objective's dual method adds up as it writes the
// dual variables v its w determines: the dual objective (from
// ½‖w − ∇f(w)‖²) + Σ_i term(v_i), and the nonzero v_i.
type dualSums struct {
	terms   float64
	nonzero int
}

// primalResult is what a Newton run r that read reads rows reports, and,
// given the sums d over the dual variables its w determines, the dual
// objective, the support vectors and the gap.
func primalResult(r newtonResult, reads int64, d *dualSums) SolveResult {
	res := SolveResult{Iterations: r.iterations, NewtonIterations: r.iterations, HessianProducts: r.hv,
		Updates: reads, Converged: r.converged, PrimalObjective: r.f}
	if d == nil {
		return res
	}
	res.NumSV = d.nonzero
	res.DualObjective, res.DualityGap = d.terms, r.f+d.terms
	return res
}

// wMinusG overwrites g = ∇f(w) with w − g, the dual variables' weights
// (Σ y_i α_i x_i, Σ β_i x_i), and returns it.
func wMinusG(w, g []float64) []float64 {
	for j, v := range w {
		g[j] = v - g[j]
	}
	return g
}

// dualFinish is the result of a dual's run from a Newton run r's w (res
// its primalResult): the dual's objectives where r met the dual's test,
// else the dual solver's run from there, r's work added.
func dualFinish(res SolveResult, r newtonResult, objectives func(*SolveResult), solve func() SolveResult) SolveResult {
	if r.converged {
		objectives(&res)
		return res
	}
	d := solve()
	d.Iterations += res.Iterations
	d.Updates += res.Updates
	d.NewtonIterations, d.HessianProducts = r.iterations, r.hv
	return d
}

// newtonSettings returns how the Newton method runs in t for a warm or
// cold run whose gradient tolerance is eps. Cold, and on a -C search's
// path: LIBLINEAR 2.50's CG tolerance 0.5 and mix a = 0.01. Warm: the
// plain diagonal a = 1, which the objective test (newton.go) reads too, at
// eps² (the excess is quadratic in the gradient), the first system to CG
// tolerance 0.1 (measurements: examples/bench/README.md, "Primal Newton's
// measured settings"). eps = 0 (an L2-loss dual's own test) gives 0.
func (t *LinearTrainer) newtonSettings(warm bool, eps float64) newtonSettings {
	if !warm || t.cPath {
		return newtonSettings{epsCG0: 0.5, epsCG: 0.5, precond: newtonAlphaPCG}
	}
	return newtonSettings{epsCG0: 0.1, epsCG: 0.5, precond: 1, objEps: eps * eps}
}

// hingeObjScale scales the squared hinge's warm objective test (-s 2, -s 1's
// twin) to 2·eps², a Newton iteration fewer than eps² and still closer to
// f* than cold; logistic regression keeps eps² (measured settings, above).
const hingeObjScale = 2

// distSq returns ‖u − v‖².
func distSq(u, v []float64) float64 {
	v = v[:len(u)]
	var s float64
	for j, x := range u {
		d := x - v[j]
		s += d * d
	}
	return s
}

// startAt sets w, the Newton method's starting point: decision function
// k's of a kept state from (whose rows it then takes as given), else the
// given start, else w(α) = Σ y_i α_i x_i for a warm dual α (Σ β_i x_i for
// a regression's β), else 0. It returns the rows it read.
func (r *primalRows) startAt(w []float64, from *LinearGradient, k int, start *startW, warmed bool, alpha []float64) int64 {
	clear(w)
	switch {
	case from != nil:
		copyWidened(w, from.W[k], from.Features, r.bias)
		r.known, r.kf, r.alpha, r.given = from, k, alpha, true // rows 0..Rows−1 as from gives them
	case start != nil:
		start.fill(w, r.n, r.bias)
	case warmed:
		for i, a := range alpha {
			if r.sign != nil {
				a *= float64(r.sign[i])
			}
			if a != 0 {
				r.addRow(w, a, i)
			}
		}
		return int64(len(alpha))
	}
	return 0
}
