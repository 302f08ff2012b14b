package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Dual coordinate descent for L2-regularized logistic regression (-s 7).
//
// Primal:  min_w  P(w) = ½‖w‖² + Σ C_i log(1 + exp(−y_i wᵀx_i)).
// Dual:    min_α  D(α) = ½ αᵀQα + Σ α_i log α_i + (C_i − α_i) log(C_i − α_i)
//          subject to 0 ≤ α_i ≤ C_i,  Q_ij = y_i y_j x_iᵀx_j,
// with 0 log 0 = 0; at the optimum 0 < α_i < C_i, w = Σ y_i α_i x_i and
// P(w) = −(D(α) − Σ C_i log C_i). The solver reports
// D(α) − Σ C_i log C_i (LIBLINEAR's "Objective value"), whose optimum is
// −P(w*).
//
// H.-F. Yu, F.-L. Huang, C.-J. Lin, "Dual coordinate descent methods for
// logistic regression and maximum entropy models", Machine Learning 85
// (2011) 41–75, Section 3: Algorithm 3 (coordinate descent over the rows in
// a random order each outer pass, w kept equal to Σ y_i α_i x_i) with the
// one-variable sub-problem solved by the modified Newton method of
// Algorithm 4. For row i, with a = Q_ii = x_iᵀx_i, b = y_i wᵀx_i and
// s = C_i, the change z − α_i minimizes
//
//	g(z) = z log z + (s − z) log(s − z) + ½ a (z − α_i)² + b (z − α_i)
//
// over 0 < z < s. The paper keeps both α_i and α'_i = s − α_i (alpha and
// alphaC here), so that the one near s is never computed as a difference,
// and works on the one whose optimal value is at most s/2: g(z) in α_i, or
// the mirrored problem in α'_i (z' = s − z, b' = −b) — the test
// ½ a (α'_i − α_i) + b < 0 picks α'_i, since then g′ is negative at the
// midpoint between the two. On that side the Newton step from z is
// z − g′(z)/g″(z) with g″(z) = a + s/(z(s − z)); a step to z ≤ 0 is
// replaced by z·ξ, ξ = 0.1 (the paper's safeguard), and a start beyond s/2
// is first moved to 0.1·z. The inner tolerance starts at 10⁻² and is cut
// tenfold (down to min(10⁻⁸, eps)) after each outer pass that took at most
// l/10 Newton steps, as LIBLINEAR does.
//
// Stopping test (LIBLINEAR's): the largest |g′| at the start of a row's
// sub-problem over one outer pass is below eps. It is absolute, so a warm
// start is held to the same test as a cold one. No shrinking: every α_i is
// interior, so no variable sits at a bound to be shrunk.
//
// Warm start: alpha may hold a previous solution on entry (a -s 7 or -s 0
// run's α_i, or zeros for new rows); values outside (0, C_i) are moved to
// the paper's starting point min(10⁻³·C_i, 10⁻⁸) from the bound they pass,
// and w is rebuilt from α.

// Settings of the sub-problem's Newton method (Yu, Huang & Lin 2011).
const (
	lrMaxInner   = 100  // Newton steps per sub-problem
	lrXi         = 0.1  // ξ: the shrink factor of a step that leaves (0, s)
	lrInnerStart = 1e-2 // the first inner tolerance
)

// dcdLR is one binary logistic regression subproblem's solver state; the
// trainer owns its buffers, as for dcdSVC.
type dcdLR struct {
	dcdRows
	y      []int8     // +1 / −1
	xTx    []float64  // Q_ii = x_iᵀx_i
	alpha  []float64  // α_i
	alphaC []float64  // α'_i = C_i − α_i
	upper  [2]float64 // C_i of each class at weight 1
	wt     []float64  // instance weights (nil: all 1): C_i = upper·wt[i]
	eps    float64

	innerEps, innerEpsMin float64
	newton                int64 // inner Newton steps done

	// log(z/(C_i − z)) at z = α_i (logSide[i] = +1) or z = α'_i (−1), as
	// the last visit of row i computed it (0: none yet). Each visit starts
	// with g′ at the chosen side's current value; when that is the side
	// the last visit ended on, the logarithm is the one it already took,
	// the same bits, and the visit saves one of its two or three calls to
	// math.Log, the solver's largest cost. Sized by the trainer.
	logRatio []float64
	logSide  []int8
}

func (s *dcdLR) class(i int) int { return int(s.y[i]+1) >> 1 }

// lrStart is the paper's starting value of α_i (and of C_i − α_i) for a
// cost C: small and positive, since log α_i needs α_i > 0.
func lrStart(C float64) float64 { return min(1e-3*C, 1e-8) }

// init prepares a solve over ds with targets y (±1) and dual variables
// alpha (a warm start when nonzero), using alphaC and xTx (len ≥ ds.Len())
// as work buffers. Cp and Cn are the costs of positive and negative rows.
func (s *dcdLR) init(ds *data.Dataset, y []int8, alpha, alphaC, xTx []float64, Cp, Cn, bias, eps float64, seed uint64) {
	l := ds.Len()
	s.sizeRows(ds, bias, s.w[:cap(s.w)], s.index[:cap(s.index)], seed)
	s.y, s.alpha, s.alphaC, s.xTx, s.eps = y[:l], alpha[:l], alphaC[:l], xTx[:l], eps
	s.upper = [2]float64{Cn, Cp}
	s.wt = solve.RowWeights(ds)
	for i := range s.alpha {
		C := solve.Weighted(s.upper[s.class(i)], s.wt, i)
		s.xTx[i] = s.sqNorm(i)
		a := s.alpha[i]
		switch lo := lrStart(C); {
		case !(a > 0): // NaN too
			a = lo
		case a >= C:
			a = C - lo
		}
		s.alpha[i], s.alphaC[i] = a, C-a
		s.addScaled(float64(s.y[i])*a, i)
	}
	clear(s.logSide[:l])
	s.innerEps, s.innerEpsMin = lrInnerStart, min(1e-8, eps)
	s.newton = 0
}

// pass runs one outer iteration over all rows and reports whether the
// stopping test held on it. It allocates nothing.
func (s *dcdLR) pass() bool {
	s.permute()
	var Gmax float64
	var steps int64
	for k := 0; k < s.activeSize; k++ {
		i := int(s.index[k])
		s.touchNext(k)
		C := solve.Weighted(s.upper[s.class(i)], s.wt, i)
		yi := float64(s.y[i])
		a, b := s.xTx[i], yi*s.dot(i)
		s.updates++

		// The side whose optimum is at most C/2: α_i, or α'_i with the
		// sign of b (and of the change in w) flipped.
		zp, zq, sign := &s.alpha[i], &s.alphaC[i], 1.0
		if 0.5*a*(s.alphaC[i]-s.alpha[i])+b < 0 {
			zp, zq, sign = zq, zp, -1.0
		}
		side := int8(sign)
		old := *zp
		z := old
		var logRatio float64 // log(z/(C − z))
		switch {
		case C-z < 0.5*C:
			z *= 0.1
			logRatio = lrLog(z / (C - z))
		case s.logSide[i] == side:
			logRatio = s.logRatio[i]
		default:
			logRatio = lrLog(z / (C - z))
		}
		gp := a*(z-old) + sign*b + logRatio
		Gmax = max(Gmax, math.Abs(gp))

		inner := 0
		for ; inner < lrMaxInner && math.Abs(gp) >= s.innerEps; inner++ {
			gpp := a + C/(C-z)/z
			if t := z - gp/gpp; t > 0 {
				z = t
			} else {
				z *= lrXi
			}
			logRatio = lrLog(z / (C - z))
			gp = a*(z-old) + sign*b + logRatio
		}
		if inner > 0 {
			*zp, *zq = z, C-z
			s.addScaled(sign*(z-old)*yi, i)
			steps += int64(inner)
		}
		if z == *zp {
			s.logRatio[i], s.logSide[i] = logRatio, side
		}
	}
	s.iter++
	s.newton += steps
	if Gmax < s.eps {
		return true
	}
	if steps <= int64(s.activeSize/10) {
		s.innerEps = max(s.innerEpsMin, 0.1*s.innerEps)
	}
	return false
}

// solve runs passes until the stopping test holds or maxIter passes are
// done, and returns the result with its objectives.
func (s *dcdLR) solve(maxIter int) SolveResult {
	converged := false
	for !converged && s.iter < maxIter {
		converged = s.pass()
	}
	res := SolveResult{Iterations: s.iter, Updates: s.updates, NewtonIterations: int(s.newton), Converged: converged}
	s.objectives(&res)
	return res
}

// objectives sets res's dual objective (D(α) − Σ C_i log C_i), primal
// objective P(w) and duality gap, with one pass over the rows. Every α_i
// is a support vector (0 < α_i < C_i).
func (s *dcdLR) objectives(res *SolveResult) {
	half := 0.5 * s.wNormSq()
	f, loss := half, 0.0
	for i, a := range s.alpha {
		C := solve.Weighted(s.upper[s.class(i)], s.wt, i)
		f += xlogx(a) + xlogx(s.alphaC[i]) - xlogx(C)
		loss += C * logisticLoss(float64(s.y[i])*s.dot(i))
	}
	res.NumSV = len(s.alpha)
	res.DualObjective = f
	res.PrimalObjective = half + loss
	res.DualityGap = res.PrimalObjective + f
}

// logisticLoss returns log(1 + e^{−z}) without overflow.
func logisticLoss(z float64) float64 {
	if z >= 0 {
		return math.Log1p(math.Exp(-z))
	}
	return -z + math.Log1p(math.Exp(z))
}

// xlogx returns v·log v, 0 for v ≤ 0: the terms of logistic regression's
// dual objective (Yu, Huang & Lin 2011), Σ α log α + (C − α) log(C − α) −
// C log C.
func xlogx(v float64) float64 {
	if v <= 0 {
		return 0
	}
	return v * math.Log(v)
}
