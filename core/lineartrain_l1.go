package core

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
// a worker buffer). The tolerance is LIBLINEAR's: eps·min(#pos, #neg)/l.
func (t *LinearTrainer) solveL1(wk *dcdWorker, y []int8, alpha []float64, start *startW, Cp, Cn float64, k int) (SolveResult, []float64) {
	p := &t.params
	l, dim := len(y), t.cols.cols
	n := dim
	if p.Bias >= 0 {
		n--
	}
	var w0 []float64
	if start != nil {
		w0 = wk.w[:dim]
		start.fill(w0, n, p.Bias)
	}
	pos := positives(y)
	eps := p.Eps * float64(max(min(pos, l-pos), 1)) / float64(l)
	var res SolveResult
	var w []float64
	if p.Solver == L1L2LossSVC {
		s := &wk.l1.svc
		s.init(&t.cols, y, Cp, Cn, subSeed(p.Seed, k), w0)
		res = s.solve(eps, p.MaxIter, w0 != nil)
		s.dual(alpha)
		w = s.w[:dim]
	} else {
		s := &wk.l1.lr
		s.init(&t.cols, y, Cp, Cn, subSeed(p.Seed, k), w0)
		res = s.solve(eps, p.MaxIter)
		s.dual(alpha)
		w = s.w[:dim]
	}
	return res, w
}
