package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// newGLMNET for L1-regularized logistic regression (-s 6).
//
// Problem: min_w f(w) = ‖w‖₁ + Σ_i C_i log(1 + exp(−y_i wᵀx_i)), y_i = ±1,
// C_i the cost of row i's class times its instance weight; no constraints. With a bias (-B) the bias pseudo-feature is one more
// coordinate of w, regularized like the others, as LIBLINEAR does.
//
// Method: G.-X. Yuan, C.-H. Ho, C.-J. Lin, "An Improved GLMNET for
// L1-regularized Logistic Regression", JMLR 13 (2012) (KDD 2011):
// Algorithm 3 (newGLMNET). Each Newton iteration minimizes the quadratic
// model of the loss L plus the 1-norm,
//
//	q(d) = ∇L(w)ᵀd + ½ dᵀ(∇²L(w) + νI)d + ‖w + d‖₁ − ‖w‖₁,  ν = 1e-12,
//
// by coordinate descent over the features (Section 3.2: each
// one-variable problem solved in closed form, the steps clipped to ±10,
// the products Xd kept per row so a coordinate's gradient costs one column
// read), then takes w + λd with λ = 1, ½, … the first step passing the
// Armijo test f(w + λd) − f(w) ≤ σλ(∇L(w)ᵀd + ‖w + d‖₁ − ‖w‖₁), σ = 0.01.
// With τ_i = C_i/(1 + e^{wᵀx_i}) and D_i = C_i σ(wᵀx_i)(1 − σ(wᵀx_i)),
//
//	∇_j L(w) = −Σ_i τ_i x_ij + Σ_{y_i=−1} C_i x_ij,   ∇²L(w) = Xᵀ diag(D) X.
//
// Shrinking at both levels (Section 3.4): a feature with w_j = 0 and
// −1 + M/l < ∇_j L < 1 − M/l, M the largest violation of the previous
// Newton iteration (of the previous coordinate pass, inside), leaves the
// active set; l is Σ_i w_i under instance weights, as in cd_l1svc.go. Stopping (Section 3.5): Σ_j |∇ˢ_j f(w)| over the active
// features at most eps times its value at w = 0 (the first Newton
// iteration's, cold); the inner coordinate descent stops when its own sum
// falls to ε_in times that scale, ε_in starting at 1 and divided by 4
// whenever a single pass sufficed (Section 3.5's adaptive inner
// tolerance, as LIBLINEAR's solve_l1r_lr).

// glmnetLR is the solver's state for one binary subproblem, sized once for
// the trainer's capacity and resliced per solve.
type glmnetLR struct {
	cols  *columns
	y     []int8
	C     [2]float64 // the class costs for y = −1 (0) and y = +1 (1)
	wt    []float64  // instance weights (nil: all 1): C_i = C[class]·wt[i]
	rowsW float64    // Σ_i wt[i] (the row count when wt is nil): shrinking's l
	// Per feature: w, the trial point wpd = w + d, the Hessian's diagonal
	// (plus ν), the loss gradient, and Σ_{y_i=−1} C_i x_ij.
	w, wpd, Hdiag, Grad, xjnegSum []float64
	index                         []int32
	// Per row: xᵢᵀd, e^{wᵀx_i}, its trial value, τ_i and D_i.
	xTd, expWTx, expWTxNew, tau, D []float64
	rng                            solve.RNG
}

// newGLMNET's constants (Yuan, Ho & Lin 2012, and LIBLINEAR's defaults).
const (
	glmnetNu            = 1e-12 // ν, the Hessian's shift
	glmnetMaxNewtonIter = 100   // Newton iterations (LIBLINEAR's cap)
	glmnetMaxStep       = 10.0  // a coordinate step's clip
)

// newGLMNET allocates the solver for up to capRows rows and dim weights.
func newGLMNET(capRows, dim int) glmnetLR {
	f := make([]float64, 5*dim)
	r := make([]float64, 5*capRows)
	fv := func(k int) []float64 { return f[k*dim : (k+1)*dim : (k+1)*dim] }
	rv := func(k int) []float64 { return r[k*capRows : (k+1)*capRows : (k+1)*capRows] }
	return glmnetLR{
		w: fv(0), wpd: fv(1), Hdiag: fv(2), Grad: fv(3), xjnegSum: fv(4),
		index: make([]int32, dim),
		xTd:   rv(0), expWTx: rv(1), expWTxNew: rv(2), tau: rv(3), D: rv(4),
	}
}

// cost returns C_i, row i's class cost times its instance weight.
func (s *glmnetLR) cost(i int32) float64 { return solve.Weighted(s.C[int(s.y[i]+1)>>1], s.wt, int(i)) }

// init sets the subproblem as l1svc.init does.
func (s *glmnetLR) init(cols *columns, y []int8, Cp, Cn float64, wt []float64, seed uint64, start []float64) {
	l, dim := len(y), cols.cols
	if wt != nil {
		wt = wt[:l]
	}
	s.cols, s.y, s.C, s.wt, s.rng = cols, y, [2]float64{Cn, Cp}, wt, solve.NewRNG(seed)
	s.rowsW = solve.WeightSum(wt, l)
	w := s.w[:dim]
	if start == nil {
		clear(w)
	} else {
		copy(w, start[:dim])
	}
	expWTx := s.expWTx[:l]
	clear(expWTx) // wᵀx_i first, exponentiated below
	for j := range dim {
		s.index[j] = int32(j)
		idx, val := cols.col(j)
		val = val[:len(idx)]
		var neg float64
		for k, i := range idx {
			v := float64(val[k])
			if y[i] < 0 {
				neg += s.cost(i) * v
			}
			if w[j] != 0 {
				expWTx[i] += w[j] * v
			}
		}
		s.xjnegSum[j] = neg
	}
	for i := range expWTx {
		expWTx[i] = math.Exp(expWTx[i])
	}
	s.setWeights()
}

// setWeights sets τ and D from e^{wᵀx}. D is written C·t(1 − t) with
// t = 1/(1 + e^{wᵀx}), which is C·e·t² without its overflow to NaN.
func (s *glmnetLR) setWeights() {
	l := len(s.y)
	e, tau, D := s.expWTx[:l], s.tau[:l], s.D[:l]
	for i := range e {
		c := s.cost(int32(i))
		t := 1 / (1 + e[i])
		tau[i] = c * t
		D[i] = c * t * (1 - t)
	}
}

// gnorm1AtZero returns Σ_j |∇ˢ_j f(0)|, the stopping test's scale: at
// w = 0 every τ_i = C_i/2.
func (s *glmnetLR) gnorm1AtZero() float64 {
	var sum float64
	for j := range s.cols.cols {
		idx, val := s.cols.col(j)
		val = val[:len(idx)]
		var t float64
		for k, i := range idx {
			t += 0.5 * s.cost(i) * float64(val[k])
		}
		sum += max(0, math.Abs(s.xjnegSum[j]-t)-1)
	}
	return sum
}

// solve runs newGLMNET from the start init set until the stopping test
// holds at eps (already scaled by min(#pos, #neg)/l, as LIBLINEAR does) or
// maxIter coordinate passes in one Newton iteration, or 100 Newton
// iterations. It returns the result with the primal objective and NumSV
// (rows whose loss derivative is not negligible: all of them, in logistic
// regression) filled; Iterations counts Newton iterations, Updates the
// coordinates visited. It allocates nothing.
func (s *glmnetLR) solve(eps float64, maxIter int) SolveResult {
	w, wpd := s.w[:s.cols.cols], s.wpd[:s.cols.cols]

	var res SolveResult
	Gnorm1Init := s.gnorm1AtZero()
	wNorm := 0.0
	for j, x := range w {
		wNorm += math.Abs(x)
		wpd[j] = x
	}
	innerEps := 1.0
	GmaxOld := math.Inf(1)
	newtonIter := 0
	for newtonIter < glmnetMaxNewtonIter {
		Gmax, Gnorm1, activeSize := s.gradientShrink(GmaxOld, &res)
		if Gnorm1 <= eps*Gnorm1Init {
			res.Converged = true
			break
		}

		passes := s.minimizeQuadratic(activeSize, maxIter, innerEps*Gnorm1Init, &res)

		var accepted bool
		if wNorm, accepted = s.lineSearch(wNorm); !accepted {
			// No step passed: rebuild e^{wᵀx} from w, free of the
			// rounding the trial products accumulated.
			s.rebuildExpWTx()
			s.setWeights()
			copy(wpd, w)
		}
		if passes == 1 {
			innerEps *= 0.25
		}
		newtonIter++
		GmaxOld = Gmax
	}
	res.Iterations = newtonIter
	res.NewtonIterations = newtonIter
	res.PrimalObjective = s.objective(&res)
	return res
}

// gradientShrink is a Newton iteration's pass over the active features:
// each one's Hessian diagonal and gradient, shrinking those whose
// violation is below GmaxOld (LIBLINEAR's rule) to the end of the index.
// It returns the largest and the summed violation and the active count.
func (s *glmnetLR) gradientShrink(GmaxOld float64, res *SolveResult) (Gmax, Gnorm1 float64, activeSize int) {
	dim := s.cols.cols
	w, Hdiag, Grad, index := s.w[:dim], s.Hdiag[:dim], s.Grad[:dim], s.index[:dim]
	fl := s.rowsW
	activeSize = dim
	for k := 0; k < activeSize; k++ {
		j := int(index[k])
		idx, val := s.cols.col(j)
		val = val[:len(idx)]
		h, t := s.curvature(idx, val)
		Hdiag[j] = h
		Grad[j] = -t + s.xjnegSum[j]
		res.Updates++

		if l1Shrinkable(w[j], Grad[j], GmaxOld/fl) {
			activeSize--
			index[k], index[activeSize] = index[activeSize], index[k]
			k--
			continue
		}
		violation := l1Violation(w[j], Grad[j])
		Gmax = max(Gmax, violation)
		Gnorm1 += violation
	}
	return Gmax, Gnorm1, activeSize
}

// lineSearch searches w + λd (d = wpd − w, λ = 1, ½, …) for the
// sufficient decrease of newGLMNET's rule, up to l1MaxLineSearch halvings.
// An accepted step becomes w (and e^{wᵀx}, the weights); it returns the
// new ‖w‖₁ and whether a step was accepted (else wNorm unchanged).
func (s *glmnetLR) lineSearch(wNorm float64) (float64, bool) {
	dim, l := s.cols.cols, len(s.y)
	w, wpd, Grad := s.w[:dim], s.wpd[:dim], s.Grad[:dim]
	xTd, expWTx, expWTxNew := s.xTd[:l], s.expWTx[:l], s.expWTxNew[:l]
	y := s.y
	delta, wNormNew := 0.0, 0.0
	for j := range w {
		delta += Grad[j] * (wpd[j] - w[j])
		if wpd[j] != 0 {
			wNormNew += math.Abs(wpd[j])
		}
	}
	delta += wNormNew - wNorm
	negsumXTd := 0.0
	for i, v := range xTd {
		if y[i] < 0 {
			negsumXTd += s.cost(int32(i)) * v
		}
	}
	for range l1MaxLineSearch {
		cond := wNormNew - wNorm + negsumXTd - l1Sigma*delta
		for i, v := range xTd {
			e := math.Exp(v)
			expWTxNew[i] = expWTx[i] * e
			cond += s.cost(int32(i)) * math.Log((1+expWTxNew[i])/(e+expWTxNew[i]))
		}
		if cond <= 0 {
			copy(w, wpd)
			copy(expWTx, expWTxNew)
			s.setWeights()
			return wNormNew, true
		}
		wNormNew = 0
		for j := range wpd {
			wpd[j] = (w[j] + wpd[j]) * 0.5
			if wpd[j] != 0 {
				wNormNew += math.Abs(wpd[j])
			}
		}
		delta *= 0.5
		negsumXTd *= 0.5
		for i := range xTd {
			xTd[i] *= 0.5
		}
	}
	return wNorm, false
}

// rebuildExpWTx computes e^{wᵀx_i} of every row from w afresh.
func (s *glmnetLR) rebuildExpWTx() {
	w, expWTx := s.w[:s.cols.cols], s.expWTx[:len(s.y)]
	clear(expWTx)
	for j := range w {
		if w[j] == 0 {
			continue
		}
		idx, val := s.cols.col(j)
		val = val[:len(idx)]
		for q, i := range idx {
			expWTx[i] += w[j] * float64(val[q])
		}
	}
	for i := range expWTx {
		expWTx[i] = math.Exp(expWTx[i])
	}
}

// objective returns the primal objective ‖w‖₁ + Σ C_i log(1 + e^{−y_i wᵀx_i})
// at the final w and counts the support vectors (rows of nonzero dual
// weight) into res.
func (s *glmnetLR) objective(res *SolveResult) float64 {
	l := len(s.y)
	expWTx, tau, D := s.expWTx[:l], s.tau[:l], s.D[:l]
	var v float64
	for _, x := range s.w[:s.cols.cols] {
		v += math.Abs(x)
	}
	for i, e := range expWTx {
		c := s.cost(int32(i))
		if s.y[i] > 0 {
			v += c * math.Log1p(1/e)
		} else {
			v += c * math.Log1p(e)
		}
		if tau[i] != 0 && D[i] != 0 {
			res.NumSV++
		}
	}
	return v
}

// minimizeQuadratic runs the inner coordinate descent on q(d) over the
// first activeSize features of index, updating wpd = w + d (equal to w
// on entry) and xTd = Xd (reset here), until the sum of its violations is at most
// tol or maxIter passes; it returns the passes made.
func (s *glmnetLR) minimizeQuadratic(activeSize, maxIter int, tol float64, res *SolveResult) int {
	dim, l := s.cols.cols, len(s.y)
	fl := s.rowsW
	w, wpd, Hdiag, Grad := s.w[:dim], s.wpd[:dim], s.Hdiag[:dim], s.Grad[:dim]
	index := s.index[:dim]
	clear(s.xTd[:l])
	QPGmaxOld := math.Inf(1)
	QPActiveSize := activeSize
	iter := 0
	for iter < maxIter {
		QPGmax, QPGnorm1 := 0.0, 0.0
		for k := range QPActiveSize {
			r := k + s.rng.Intn(QPActiveSize-k)
			index[k], index[r] = index[r], index[k]
		}
		for k := 0; k < QPActiveSize; k++ {
			j := int(index[k])
			res.Updates++
			H := Hdiag[j]
			G := Grad[j] + (wpd[j]-w[j])*glmnetNu
			idx, val := s.cols.col(j)
			val = val[:len(idx)]
			G = s.quadGradient(G, idx, val)
			if l1Shrinkable(wpd[j], G, QPGmaxOld/fl) {
				QPActiveSize--
				index[k], index[QPActiveSize] = index[QPActiveSize], index[k]
				k--
				continue
			}
			violation := l1Violation(wpd[j], G)
			QPGmax = max(QPGmax, violation)
			QPGnorm1 += violation

			// The one-variable problem's solution, clipped.
			z := l1NewtonStep(wpd[j], G, H)
			if math.Abs(z) < 1e-12 {
				continue
			}
			z = min(max(z, -glmnetMaxStep), glmnetMaxStep)
			wpd[j] += z
			s.moveXTd(z, idx, val)
		}
		iter++
		if QPGnorm1 <= tol {
			if QPActiveSize == activeSize {
				break
			}
			QPActiveSize = activeSize
			QPGmaxOld = math.Inf(1)
			continue
		}
		QPGmaxOld = QPGmax
	}
	return iter
}

// The column loops: a column that has every row (len(idx) = l) lists them
// in order, idx[q] = q, and is read without its row indices, as in
// cd_l1svc.go: the same terms in the same order.

// curvature returns the column's ν + Σ_i x_ij² D_i (the Hessian's
// diagonal) and Σ_i x_ij τ_i.
func (s *glmnetLR) curvature(idx []int32, val []float32) (h, t float64) {
	l := len(s.y)
	D, tau := s.D[:l], s.tau[:l]
	h = glmnetNu
	if len(idx) == l {
		D, tau = D[:len(val)], tau[:len(val)]
		for q, x := range val {
			v := float64(x)
			h += v * v * D[q]
			t += v * tau[q]
		}
		return h, t
	}
	val = val[:len(idx)]
	for q, i := range idx {
		v := float64(val[q])
		h += v * v * D[i]
		t += v * tau[i]
	}
	return h, t
}

// quadGradient returns G + Σ_i x_ij D_i (Xd)_i, the column's derivative of
// the quadratic model at d given the rest of it in G.
func (s *glmnetLR) quadGradient(G float64, idx []int32, val []float32) float64 {
	l := len(s.y)
	D, xTd := s.D[:l], s.xTd[:l]
	if len(idx) == l {
		D, xTd = D[:len(val)], xTd[:len(val)]
		for q, x := range val {
			G += float64(x) * D[q] * xTd[q]
		}
		return G
	}
	val = val[:len(idx)]
	for q, i := range idx {
		G += float64(val[q]) * D[i] * xTd[i]
	}
	return G
}

// moveXTd adds z·x_ij to the column's (Xd)_i.
func (s *glmnetLR) moveXTd(z float64, idx []int32, val []float32) {
	xTd := s.xTd[:len(s.y)]
	if len(idx) == len(xTd) {
		xTd = xTd[:len(val)]
		for q, x := range val {
			xTd[q] += float64(x) * z
		}
		return
	}
	val = val[:len(idx)]
	for q, i := range idx {
		xTd[i] += float64(val[q]) * z
	}
}

// dual writes α_i = C_i σ(−y_i wᵀx_i), the loss's derivative in each
// row's margin (the dual variables of logistic regression at the same w).
func (s *glmnetLR) dual(alpha []float64) {
	for i, e := range s.expWTx[:len(s.y)] {
		c := s.cost(int32(i))
		t := 1 / (1 + e) // σ(−wᵀx_i)
		if s.y[i] > 0 {
			alpha[i] = c * t
		} else {
			alpha[i] = c * (1 - t)
		}
	}
}
