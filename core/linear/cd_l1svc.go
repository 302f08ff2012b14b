package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Coordinate descent for L1-regularized L2-loss SVC (-s 5).
//
// Problem: min_w f(w) = ‖w‖₁ + Σ_i C_i max(0, 1 − y_i wᵀx_i)², y_i = ±1,
// C_i the cost of row i's class times its instance weight; no constraints. With a bias (-B) the bias pseudo-feature is one more
// coordinate of w, regularized like the others, as LIBLINEAR does for its
// L1-regularized solvers.
//
// Method: CDN, coordinate descent with a one-variable Newton direction and
// a line search. G.-X. Yuan, K.-W. Chang, C.-J. Hsieh, C.-J. Lin, "A
// Comparison of Optimization Methods and Software for Large-scale
// L1-regularized Linear Classification", JMLR 11 (2010): Section 4.1.2
// (CDN) and Appendix F (the L2-loss SVM: the loss's derivatives through
// b_i = 1 − y_i wᵀx_i, and the bound L(w + d e_j) − L(w) ≤ G_j d +
// (Σ_i C_i x_ij²) d² that accepts most steps without reading the losses).
// Each outer iteration visits the active features in a random order; at
// feature j, with G the loss's derivative and H its generalized second
// derivative,
//
//	d = −(G+1)/H   if G+1 ≤ H w_j
//	d = −(G−1)/H   if G−1 ≥ H w_j
//	d = −w_j       otherwise,
//
// then λ = 1, ½, ¼, … until f(w + λd e_j) − f(w) ≤ σλ(G d + |w_j + d| − |w_j|),
// σ = 0.01 (Armijo), at most 20 halvings.
//
// Shrinking (Section 4.1.2, as LIBLINEAR's solve_l1r_l2_svc): a feature
// with w_j = 0 whose derivative lies well inside the subdifferential,
// −1 + M/l < G < 1 − M/l with M the largest violation of the previous
// pass, leaves the active set (l is Σ_i w_i under instance weights, the
// rows a weighted row stands for, so that a row of weight 2 shrinks as the
// row given twice would). Stopping: the 1-norm of the minimum-norm
// subgradient over the active features, Σ_j |∇ˢ_j f|, at most eps times
// its value in the first pass; once it holds on a shrunk set, every
// feature comes back for a last check. A warm-started run (w ≠ 0 given)
// scales the test by the value at w = 0 instead (gnorm1AtZero): a test
// scaled by its own first pass would stop a good start too late.

// l1svc is the solver's state for one binary subproblem. Its vectors are
// sized once for the trainer's capacity and resliced per solve.
type l1svc struct {
	cols  *columns
	y     []int8     // ±1 per row
	C     [2]float64 // the class costs for y = −1 (0) and y = +1 (1)
	wt    []float64  // instance weights (nil: all 1): C_i = C[class]·wt[i]
	rowsW float64    // Σ_i wt[i] (the row count when wt is nil): shrinking's l
	// Per row: b_i = 1 − y_i wᵀx_i, y_i and C_i together, so that a
	// column's entry reads one place of memory (one bounds check, one
	// cache line) and converts nothing.
	r     []l1svcRow
	w     []float64 // the weights, features then the bias
	xjSq  []float64 // Σ_i C_i x_ij²: the step bound's curvature
	index []int32   // the features, active ones first
	rng   solve.RNG
}

// l1svcRow is a row's state in l1svc.
type l1svcRow struct{ b, y, C float64 }

// CDN's constants (Yuan et al. 2010, Section 4.1.2 and Appendix F).
const (
	l1Sigma         = 0.01 // Armijo's σ of the line search
	l1MaxLineSearch = 20   // halvings before a step is taken as it is
)

// newL1SVC allocates the solver for up to capRows rows and dim weights.
func newL1SVC(capRows, dim int) l1svc {
	return l1svc{
		w:     make([]float64, dim),
		r:     make([]l1svcRow, capRows),
		xjSq:  make([]float64, dim),
		index: make([]int32, dim),
	}
}

// cost returns C_i, row i's class cost times its instance weight.
func (s *l1svc) cost(i int32) float64 { return solve.Weighted(s.C[int(s.y[i]+1)>>1], s.wt, int(i)) }

// init sets the subproblem: the column view, labels y (len = rows), the
// class costs, the instance weights (nil: all 1; else len(y) values), a
// seed, and the start w (nil: w = 0; otherwise dim values).
func (s *l1svc) init(cols *columns, y []int8, Cp, Cn float64, wt []float64, seed uint64, start []float64) {
	l, dim := len(y), cols.cols
	if wt != nil {
		wt = wt[:l]
	}
	s.cols, s.y, s.C, s.wt, s.rng = cols, y, [2]float64{Cn, Cp}, wt, solve.NewRNG(seed)
	s.rowsW = solve.WeightSum(wt, l)
	w, r := s.w[:dim], s.r[:l]
	if start == nil {
		clear(w)
	} else {
		copy(w, start[:dim])
	}
	for i := range r {
		r[i] = l1svcRow{b: 1, y: float64(y[i]), C: s.cost(int32(i))}
	}
	for j := range dim {
		s.index[j] = int32(j)
		idx, val := cols.col(j)
		val = val[:len(idx)]
		var sq float64
		for k, i := range idx {
			v := float64(val[k])
			sq += r[i].C * v * v
			if w[j] != 0 {
				r[i].b -= w[j] * v * r[i].y
			}
		}
		s.xjSq[j] = sq
	}
}

// gnorm1AtZero returns Σ_j |∇ˢ_j f(0)|, the stopping test's scale at
// w = 0: there every b_i = 1, so G_j = −2 Σ_i C_i y_i x_ij.
func (s *l1svc) gnorm1AtZero() float64 {
	var sum float64
	for j := range s.cols.cols {
		idx, val := s.cols.col(j)
		val = val[:len(idx)]
		var G float64
		for k, i := range idx {
			G -= s.r[i].C * float64(s.y[i]) * float64(val[k])
		}
		sum += max(0, math.Abs(2*G)-1)
	}
	return sum
}

// solve runs CDN from the start init set until the stopping test holds at
// eps (already scaled by min(#pos, #neg)/l, as LIBLINEAR does) or maxIter
// outer iterations. warm selects the test's scale: the value at w = 0
// (warm) or that of the first pass (cold, as LIBLINEAR). It returns the
// result, the primal objective and NumSV filled; Updates counts the
// coordinates visited. It allocates nothing.
func (s *l1svc) solve(eps float64, maxIter int, warm bool) SolveResult {
	dim, l := s.cols.cols, len(s.y)
	w, rows := s.w[:dim], s.r[:l]
	index := s.index[:dim]
	fl := s.rowsW
	activeSize := dim
	GmaxOld := math.Inf(1)
	Gnorm1Init := -1.0
	if warm {
		Gnorm1Init = s.gnorm1AtZero()
	}
	var res SolveResult
	iter := 0
	for iter < maxIter {
		Gmax, Gnorm1 := 0.0, 0.0
		for k := range activeSize {
			r := k + s.rng.Intn(activeSize-k)
			index[k], index[r] = index[r], index[k]
		}
		for k := 0; k < activeSize; k++ {
			j := int(index[k])
			res.Updates++
			idx, val := s.cols.col(j)
			val = val[:len(idx)]
			// The loss's derivative and generalized second derivative.
			Gloss, H, loss := s.derivatives(idx, val)
			Gloss *= 2
			G := Gloss
			H = max(2*H, 1e-12)

			if l1Shrinkable(w[j], G, GmaxOld/fl) {
				activeSize--
				index[k], index[activeSize] = index[activeSize], index[k]
				k--
				continue
			}
			violation := l1Violation(w[j], G)
			Gmax = max(Gmax, violation)
			Gnorm1 += violation

			// The Newton direction of the one-variable problem.
			d := l1NewtonStep(w[j], G, H)
			if math.Abs(d) < 1e-12 {
				continue
			}
			s.lineSearch(j, d, G, Gloss, loss, idx, val)
		}
		if iter == 0 && !warm {
			Gnorm1Init = Gnorm1
		}
		iter++
		if Gnorm1 <= eps*Gnorm1Init {
			if activeSize == dim {
				res.Converged = true
				break
			}
			activeSize = dim
			GmaxOld = math.Inf(1)
			continue
		}
		GmaxOld = Gmax
	}
	res.Iterations = iter

	// The primal objective and the rows with a nonzero loss.
	var v float64
	for _, x := range w {
		v += math.Abs(x)
	}
	for _, r := range rows {
		if r.b > 0 {
			v += r.C * r.b * r.b
			res.NumSV++
		}
	}
	res.PrimalObjective = v
	return res
}

// lineSearch moves w_j along d by the first step λ = 1, ½, … that passes
// the Armijo test, keeping b in step; G is the derivative of the loss (and
// Gloss, equal to it, the part the step bound uses), lossOld the column's
// rows' loss Σ C_i max(0, b_i)² at w.
func (s *l1svc) lineSearch(j int, d, G, Gloss, lossOld float64, idx []int32, val []float32) {
	w := s.w
	wj := w[j]
	delta := math.Abs(wj+d) - math.Abs(wj) + G*d
	dOld := 0.0
	ls := 0
	for ; ls < l1MaxLineSearch; ls++ {
		dDiff := dOld - d
		cond := math.Abs(wj+d) - math.Abs(wj) - l1Sigma*delta
		// The bound on the loss's change accepts the step unread.
		if s.xjSq[j]*d*d+Gloss*d+cond <= 0 {
			s.moveB(dDiff, idx, val)
			break
		}
		lossNew := s.moveBLoss(dDiff, idx, val)
		if cond+lossNew-lossOld <= 0 {
			break
		}
		dOld = d
		d *= 0.5
		delta *= 0.5
	}
	w[j] += d
	if ls >= l1MaxLineSearch {
		// Many halvings leave b with rounding from the partial updates:
		// recompute it from w.
		s.recomputeB()
	}
}

// A column's entries name their rows (idx); a column that has every row
// (len(idx) = l, a feature nonzero everywhere, as most are on few-feature
// dense data) lists them in order, idx[q] = q, and the loops below read the
// rows directly: the same terms in the same order, without the index load
// and its bounds check.

// derivatives returns the column's Σ_i C_i y_i x_ij b_i, Σ_i C_i x_ij² and
// Σ_i C_i b_i² over its rows with b_i > 0 (the loss's derivative and half
// its second derivative, up to the factors −2 and 2, and the column's
// rows' loss, which the line search needs next and would otherwise read
// the column again for). Rows with b_i ≤ 0 add +0 instead of being skipped:
// b_i is masked to +0 (see ifPositive), so C_i y_i x_ij·0 = ±0 and
// C_i·0·0 = +0 leave the sums as they were.
func (s *l1svc) derivatives(idx []int32, val []float32) (Gloss, H, loss float64) {
	rows := s.r[:len(s.y)]
	if len(idx) == len(rows) {
		rows = rows[:len(val)]
		for q, x := range val {
			r := &rows[q]
			v := float64(x)
			c := r.C * v
			m := positiveMask(r.b)
			b := ifPositive(r.b, m)
			Gloss -= c * r.y * b
			H += ifPositive(c*v, m)
			loss += r.C * b * b
		}
		return Gloss, H, loss
	}
	val = val[:len(idx)]
	for q, i := range idx {
		r := &rows[i]
		v := float64(val[q])
		c := r.C * v
		m := positiveMask(r.b)
		b := ifPositive(r.b, m)
		Gloss -= c * r.y * b
		H += ifPositive(c*v, m)
		loss += r.C * b * b
	}
	return Gloss, H, loss
}

// moveB adds dDiff·y_i x_ij to the column's b_i.
func (s *l1svc) moveB(dDiff float64, idx []int32, val []float32) {
	rows := s.r[:len(s.y)]
	if len(idx) == len(rows) {
		rows = rows[:len(val)]
		for q, x := range val {
			r := &rows[q]
			r.b += dDiff * float64(x) * r.y
		}
		return
	}
	val = val[:len(idx)]
	for q, i := range idx {
		r := &rows[i]
		r.b += dDiff * float64(val[q]) * r.y
	}
}

// moveBLoss adds dDiff·y_i x_ij to the column's b_i and returns the
// column's rows' loss Σ C_i max(0, b_i)² after.
func (s *l1svc) moveBLoss(dDiff float64, idx []int32, val []float32) (loss float64) {
	rows := s.r[:len(s.y)]
	if len(idx) == len(rows) {
		rows = rows[:len(val)]
		for q, x := range val {
			r := &rows[q]
			b := r.b + dDiff*float64(x)*r.y
			r.b = b
			b = ifPositive(b, positiveMask(b))
			loss += r.C * b * b
		}
		return loss
	}
	val = val[:len(idx)]
	for q, i := range idx {
		r := &rows[i]
		b := r.b + dDiff*float64(val[q])*r.y
		r.b = b
		b = ifPositive(b, positiveMask(b))
		loss += r.C * b * b
	}
	return loss
}

// recomputeB sets b_i = 1 − y_i wᵀx_i from w.
func (s *l1svc) recomputeB() {
	rows := s.r[:len(s.y)]
	for i := range rows {
		rows[i].b = 1
	}
	for j := range s.cols.cols {
		wj := s.w[j]
		if wj == 0 {
			continue
		}
		idx, val := s.cols.col(j)
		val = val[:len(idx)]
		for q, i := range idx {
			rows[i].b -= wj * float64(val[q]) * rows[i].y
		}
	}
}

// dual writes α_i = 2C_i·max(0, b_i), the loss's derivative in each row's
// margin (the dual variables of the L2-loss SVC at the same w).
func (s *l1svc) dual(alpha []float64) {
	for i, r := range s.r[:len(s.y)] {
		alpha[i] = 2 * r.C * max(0, r.b)
	}
}
