package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Dual coordinate descent for L2-regularized L1- and L2-loss ε-SVR.
//
// Primal:  min_w  ½‖w‖² + Σ C_i ξ_ε(w; x_i, y_i),  C_i = C·w_i (w_i the
//          instance weight of row i),
//          ξ_ε = max(0, |y_i − wᵀx_i| − p) (L1 loss) or its square (L2 loss).
// Dual:    min_β  f(β) = ½ βᵀ(Q + λI)β − yᵀβ + p‖β‖₁
//          subject to −U_i ≤ β_i ≤ U_i,  Q_ij = x_iᵀx_j,
//          L1 loss: U_i = C_i, λ_i = 0;  L2 loss: U_i = ∞, λ_i = 1/(2C_i)
//          (λ_i on the diagonal: ½ Σ λ_i β_i²).
// Primal from dual: w = Σ β_i x_i.
//
// C.-H. Ho and C.-J. Lin, "Large-scale Linear Support Vector Regression",
// JMLR 13 (2012), Algorithm 4: each step minimizes the one-variable
// subproblem, whose |β_i| term makes the Newton direction a soft-threshold
// of the gradients G ± p; shrinking as in Section 4.2.
//
// Stopping: ‖∇ᴾf(β)‖₁ ≤ eps·scale. LIBLINEAR takes scale from its first
// pass, which depends on the starting point; here it is the norm at β = 0,
// Σ max(0, |y_i| − p), computed without a pass, so a warm start meets the
// same test as a cold one. With AbsoluteEps the scale is 1. With instance
// weights both the norm and the scale weigh each row's term by w_i, so
// that a row of weight 2 counts as the row given twice (whose two
// coordinates have the merged one's gradient).

// dcdSVR is one regression problem's solver state.
type dcdSVR struct {
	dcdRows
	y      []float64
	QD     []float64 // x_iᵀx_i + λ
	beta   []float64
	lambda float64 // λ_i and U_i at weight 1 (bound)
	upper  float64
	wt     []float64 // instance weights; nil: all 1
	p      float64
	tol    float64 // eps·scale
	// polish marks a start from a given w (initFromW), as for dcdSVC.
	polish bool

	GmaxOld float64
}

// bound returns row i's U_i and λ_i.
func (s *dcdSVR) bound(i int) (U, lambda float64) {
	if s.wt != nil {
		w := s.wt[i]
		return s.upper * w, s.lambda / w
	}
	return s.upper, s.lambda
}

// init prepares a solve over ds (targets ds.Labels()) with dual variables
// beta, a warm start when nonzero (clipped here).
func (s *dcdSVR) init(ds *data.Dataset, beta, QD []float64, C, p float64, l1 bool, bias, eps float64, absolute bool, seed uint64) {
	s.sizeRows(ds, bias, s.w[:cap(s.w)], s.index[:cap(s.index)], seed)
	s.y, s.beta, s.QD, s.p = ds.Labels(), beta, QD[:ds.Len()], p
	s.wt = solve.RowWeights(ds)
	if l1 {
		s.lambda, s.upper = 0, C
	} else {
		s.lambda, s.upper = 0.5/C, math.Inf(1)
	}
	scale := 0.0
	for i := range s.beta {
		U, lambda := s.bound(i)
		s.QD[i] = s.sqNorm(i) + lambda
		b := min(max(s.beta[i], -U), U)
		s.beta[i] = b
		if b != 0 {
			s.addScaled(b, i)
		}
		scale += solve.Weighted(max(0, math.Abs(s.y[i])-p), s.wt, i)
	}
	if absolute {
		scale = 1
	}
	s.tol = eps * scale
	s.GmaxOld = math.Inf(1)
	s.polish = false
}

// initFromW prepares an L2-loss solve from beta and its w0 = Σ β_i x_i,
// computed by the caller, as dcdSVC.initFromW.
func (s *dcdSVR) initFromW(ds *data.Dataset, beta, QD []float64, C, p, bias, eps float64, absolute bool, seed uint64, w0 []float64) {
	s.sizeRows(ds, bias, s.w[:cap(s.w)], s.index[:cap(s.index)], seed)
	s.y, s.beta, s.QD, s.p = ds.Labels(), beta, QD[:ds.Len()], p
	s.wt = solve.RowWeights(ds)
	s.lambda, s.upper = 0.5/C, math.Inf(1)
	copy(s.w, w0)
	scale := 0.0
	for i, y := range s.y {
		scale += solve.Weighted(max(0, math.Abs(y)-p), s.wt, i)
	}
	if absolute {
		scale = 1
	}
	s.tol = eps * scale
	s.GmaxOld = math.Inf(1)
	s.polish = true
}

// pass runs one outer iteration over the active set and reports whether
// the stopping test held on it. It allocates nothing.
func (s *dcdSVR) pass() bool {
	s.permute()
	GmaxNew, Gnorm1New := 0.0, 0.0
	for k := 0; k < s.activeSize; k++ {
		i := int(s.index[k])
		s.touchNext(k)
		b := s.beta[i]
		U, lambda := s.bound(i)
		s.updates++
		G := -s.y[i] + lambda*b + s.dot(i)
		H := s.QD[i]
		Gp, Gn := G+s.p, G-s.p

		violation := 0.0
		switch {
		case b == 0:
			if Gp < 0 {
				violation = -Gp
			} else if Gn > 0 {
				violation = Gn
			} else if Gp > s.GmaxOld && Gn < -s.GmaxOld {
				s.shrink(k)
				k--
				continue
			}
		case b >= U:
			if Gp > 0 {
				violation = Gp
			} else if Gp < -s.GmaxOld {
				s.shrink(k)
				k--
				continue
			}
		case b <= -U:
			if Gn < 0 {
				violation = -Gn
			} else if Gn > s.GmaxOld {
				s.shrink(k)
				k--
				continue
			}
		case b > 0:
			violation = math.Abs(Gp)
		default:
			violation = math.Abs(Gn)
		}
		GmaxNew = max(GmaxNew, violation)
		Gnorm1New += solve.Weighted(violation, s.wt, i)

		// Newton direction of the one-variable subproblem.
		var d float64
		switch {
		case Gp < H*b:
			d = -Gp / H
		case Gn > H*b:
			d = -Gn / H
		default:
			d = -b
		}
		if math.Abs(d) < 1e-12 {
			continue
		}
		s.beta[i] = min(max(b+d, -U), U)
		if d = s.beta[i] - b; d != 0 {
			s.addScaled(d, i)
		}
	}
	s.iter++

	if Gnorm1New <= s.tol {
		return true
	}
	s.GmaxOld = GmaxNew
	return false
}

// unshrink makes every variable active again, as dcdSVC.unshrink.
func (s *dcdSVR) unshrink() {
	s.activeSize = len(s.beta)
	s.GmaxOld = math.Inf(1)
}

// gradNorm1 returns ‖∇ᴾf(β)‖₁ at the current β, reading every row once
// and changing nothing.
func (s *dcdSVR) gradNorm1() float64 {
	var sum float64
	for i, b := range s.beta { // in row order, which hardware prefetching follows
		U, lambda := s.bound(i)
		s.updates++
		G := -s.y[i] + lambda*b + s.dot(i)
		Gp, Gn := G+s.p, G-s.p
		var v float64
		switch {
		case b == 0:
			v = max(0, -Gp, Gn)
		case b >= U:
			v = max(0, Gp)
		case b <= -U:
			v = max(0, -Gn)
		case b > 0:
			v = math.Abs(Gp)
		default:
			v = math.Abs(Gn)
		}
		sum += solve.Weighted(v, s.wt, i)
	}
	return sum
}

// solve runs passes until the stopping test holds or maxIter passes are
// done, and returns the result.
func (s *dcdSVR) solve(maxIter int, C float64, l1 bool) SolveResult {
	converged := false
	if s.polish {
		converged = s.gradNorm1() <= s.tol
		for i := range s.beta {
			if !converged {
				_, lambda := s.bound(i)
				s.QD[i] = s.sqNorm(i) + lambda
			}
		}
	}
	for !converged && s.iter < maxIter {
		// As for SVC: a test that held on the active set is checked on
		// every variable at the β to be returned before stopping.
		if !s.pass() {
			continue
		}
		if s.gradNorm1() <= s.tol {
			converged = true
			break
		}
		s.unshrink()
	}
	res := SolveResult{Iterations: s.iter, Updates: s.updates, Converged: converged}
	s.objectives(&res, C, l1)
	return res
}

// objectives sets res's dual and primal objectives, duality gap and
// support vector counts at the current β and w, with one pass over the
// rows.
func (s *dcdSVR) objectives(res *SolveResult, C float64, l1 bool) {
	half := 0.5 * s.wNormSq()
	f, loss := half, 0.0
	for i, b := range s.beta {
		U, lambda := s.bound(i)
		f += s.p*math.Abs(b) - s.y[i]*b + 0.5*lambda*b*b
		if b != 0 {
			res.NumSV++
			if math.Abs(b) == U {
				res.NumBoundSV++
			}
		}
		Ci := C
		if s.wt != nil {
			Ci *= s.wt[i]
		}
		xi := max(0, math.Abs(s.y[i]-s.dot(i))-s.p)
		if l1 {
			loss += Ci * xi
		} else {
			loss += Ci * xi * xi
		}
	}
	res.DualObjective = f
	res.PrimalObjective = half + loss
	res.DualityGap = res.PrimalObjective + f
}
