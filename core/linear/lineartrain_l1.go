package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// The L1-regularized formulations in the linear trainer: -s 5 by CDN
// (cd_l1svc.go) and -s 6 by newGLMNET (glmnet_lr.go), both coordinate
// methods over the features of a column view (columns.go) that the
// trainer builds at the start of each training call.

// l1Worker is the L1 part of a worker, allocated for -s 5 and -s 6 only.
type l1Worker struct {
	svc l1svc
	lr  glmnetLR
}

// l1Bytes returns the memory of one worker's L1 solver for capRows rows
// and dim weights.
func l1Bytes(s LinearSolver, capRows, dim int) int {
	switch s {
	case L1L2LossSVC:
		return capRows*3*8 + dim*(8+8+4) // b, y_i, C_i; w, xjSq, index
	case L1Logistic:
		return capRows*5*8 + dim*(5*8+4) // xTd, e^{wᵀx} twice, τ, D; w, wpd, Hdiag, Grad, xjnegSum, index
	}
	return 0
}

// newL1Worker allocates the solver of s for capRows rows and dim weights.
func newL1Worker(s LinearSolver, capRows, dim int) l1Worker {
	switch s {
	case L1L2LossSVC:
		return l1Worker{svc: newL1SVC(capRows, dim)}
	case L1Logistic:
		return l1Worker{lr: newGLMNET(capRows, dim)}
	}
	return l1Worker{}
}

// solveL1 solves one binary subproblem of -s 5 or -s 6 over the trainer's
// column view, from start when given (a warm start: the test is then
// scaled at w = 0, see cd_l1svc.go) or from 0, writes the loss's
// derivatives to alpha, and returns the result and the weights (a view of
// a worker buffer). wt holds the instance weights (nil: all 1), which
// multiply each row's C.
//
// The tolerance is LIBLINEAR's, eps·min(#pos, #neg)/l, with the rows
// counted by their weights (#pos = Σ_{y_i=+1} w_i, l = Σ_i w_i): a row of
// weight 2 is the row given twice, so a weighted run meets the test of the
// run on duplicated rows, not a looser or tighter one. With weights nil
// the counts are integers, as before.
func (t *LinearTrainer) solveL1(wk *dcdWorker, y []int8, wt []float64, alpha []float64, start *startW, Cp, Cn float64, k int) (SolveResult, []float64) {
	p := &t.params
	dim := t.cols.cols
	n := dim
	if p.Bias >= 0 {
		n--
	}
	var w0 []float64
	if start != nil {
		w0 = wk.w[:dim]
		start.fill(w0, n, p.Bias)
	}
	minority, rows := weightedCounts(y, wt)
	eps := p.Eps * minority / rows
	var res SolveResult
	var w []float64
	if p.Solver == L1L2LossSVC {
		s := &wk.l1.svc
		s.init(&t.cols, y, Cp, Cn, wt, solve.SubSeed(p.Seed, k), w0)
		res = s.solve(eps, p.MaxIter, w0 != nil)
		s.dual(alpha)
		w = s.w[:dim]
	} else {
		s := &wk.l1.lr
		s.init(&t.cols, y, Cp, Cn, wt, solve.SubSeed(p.Seed, k), w0)
		res = s.solve(eps, p.MaxIter)
		s.dual(alpha)
		w = s.w[:dim]
	}
	return res, w
}

// weightedCounts returns LIBLINEAR's scale of the stopping tolerance,
// min(#pos, #neg) and l, with each row counted by its instance weight (wt
// nil: all 1; then the counts are the integers LIBLINEAR uses). A missing
// class counts 1, as in LIBLINEAR, so that the tolerance is not 0.
func weightedCounts(y []int8, wt []float64) (minority, rows float64) {
	l := len(y)
	if wt == nil {
		pos := positives(y)
		return float64(max(min(pos, l-pos), 1)), float64(l)
	}
	var pos float64
	for i, v := range wt[:l] {
		rows += v
		if y[i] > 0 {
			pos += v
		}
	}
	minority = min(pos, rows-pos)
	if minority == 0 {
		minority = 1
	}
	return minority, rows
}

// l1Violation is how far one coordinate of an L1-regularized problem is
// from optimal: the minimum-norm subgradient of G·d + |w + d| at d = 0,
// with G the loss's partial derivative at w.
func l1Violation(w, G float64) float64 {
	Gp, Gn := G+1, G-1
	switch {
	case w > 0:
		return math.Abs(Gp)
	case w < 0:
		return math.Abs(Gn)
	case Gp < 0:
		return -Gp
	case Gn > 0:
		return Gn
	}
	return 0
}

// l1Shrinkable reports a coordinate at w = 0 whose G lies inside
// (−1 + bound, 1 − bound), which LIBLINEAR's shrinking expects to stay at
// 0; bound ≥ 0 is the last pass's largest violation over l (+Inf on the
// first pass). Such a coordinate's violation is 0.
func l1Shrinkable(w, G, bound float64) bool {
	return w == 0 && G+1 > bound && G-1 < -bound
}

// l1NewtonStep is the d that minimizes G·d + ½H·d² + |w + d| − |w|: the
// one-variable Newton direction of CDN and of newGLMNET's inner problem.
func l1NewtonStep(w, G, H float64) float64 {
	Gp, Gn := G+1, G-1
	switch {
	case Gp < H*w:
		return -Gp / H
	case Gn > H*w:
		return -Gn / H
	}
	return -w
}

// positiveMask returns all ones when x > 0 and 0 otherwise (NaN too); the
// compiler makes it a conditional move, not a branch.
func positiveMask(x float64) uint64 {
	var m uint64
	if x > 0 {
		m = ^uint64(0)
	}
	return m
}

// ifPositive returns t when m is positiveMask's all ones and +0 when m is
// 0. The L1 solvers' sums over a column take a term only for rows with a
// positive loss (b_i > 0), a sign that changes from row to row without a
// pattern a branch predictor can learn; adding the masked +0 instead of
// skipping the term costs no mispredicted branch and leaves each sum
// bit-identical: it starts at +0 and never becomes −0 (x + (+0) = x for
// every x but −0), and an Inf or NaN term of a skipped row is masked too.
func ifPositive(t float64, m uint64) float64 {
	return math.Float64frombits(math.Float64bits(t) & m)
}

// positives counts the labels +1 in y.
func positives(y []int8) int {
	pos := 0
	for _, v := range y {
		if v > 0 {
			pos++
		}
	}
	return pos
}
