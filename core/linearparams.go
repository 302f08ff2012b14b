package core

import (
	"errors"
	"fmt"
	"math"
)

// LinearSolver names a linear SVM formulation. The values are LIBLINEAR's
// -s numbers, so they mean the same thing on the command line and in files.
type LinearSolver int

// The formulations DCD solves (Hsieh et al. 2008; Ho & Lin 2012).
const (
	L2LossSVCDual LinearSolver = 1  // -s 1: L2-regularized L2-loss SVC, dual (LIBLINEAR's default)
	L1LossSVCDual LinearSolver = 3  // -s 3: L2-regularized L1-loss SVC, dual
	L2LossSVRDual LinearSolver = 12 // -s 12: L2-regularized L2-loss SVR, dual
	L1LossSVRDual LinearSolver = 13 // -s 13: L2-regularized L1-loss SVR, dual
)

func (s LinearSolver) valid() bool {
	switch s {
	case L2LossSVCDual, L1LossSVCDual, L2LossSVRDual, L1LossSVRDual:
		return true
	}
	return false
}

// IsRegression reports whether s is an SVR formulation.
func (s LinearSolver) IsRegression() bool { return s == L2LossSVRDual || s == L1LossSVRDual }

// String returns LIBLINEAR's name for the formulation.
func (s LinearSolver) String() string {
	switch s {
	case L2LossSVCDual:
		return "L2R_L2LOSS_SVC_DUAL"
	case L1LossSVCDual:
		return "L2R_L1LOSS_SVC_DUAL"
	case L2LossSVRDual:
		return "L2R_L2LOSS_SVR_DUAL"
	case L1LossSVRDual:
		return "L2R_L1LOSS_SVR_DUAL"
	}
	return fmt.Sprintf("LinearSolver(%d)", int(s))
}

// ClassWeight scales C for the samples of one class (LIBLINEAR's -wi).
type ClassWeight struct {
	Label  int32
	Weight float64
}

// LinearParams are the training parameters of a linear SVM. Start from
// DefaultLinearParams, which holds LIBLINEAR's defaults.
type LinearParams struct {
	Solver LinearSolver
	// C is the cost of a loss unit (-c), > 0.
	C float64
	// Eps is the stopping tolerance (-e), > 0. For SVC it bounds the
	// largest projected-gradient violation (max PG − min PG), as LIBLINEAR
	// does. For SVR it bounds the 1-norm of the projected gradient, relative
	// to its value at β = 0 unless AbsoluteEps is set.
	Eps float64
	// AbsoluteEps makes the SVR test absolute: ‖∇ᴾf(β)‖₁ ≤ Eps. The
	// relative test's scale is computed at β = 0 whatever the starting
	// point, so a warm start is held to the same test as a cold one.
	AbsoluteEps bool
	// P is the width of the ε-insensitive loss for SVR (-p), ≥ 0.
	P float64
	// Bias is the value of the bias pseudo-feature (-B); negative: no bias.
	Bias float64
	// Weights scale C per class (-wi).
	Weights []ClassWeight
	// MaxIter caps the outer passes of each binary subproblem; a run that
	// hits it reports Converged = false.
	MaxIter int
	// Seed seeds the solver's random permutations: equal inputs and seeds
	// give equal models, bit for bit.
	Seed uint64
	// Threads bounds how many one-vs-rest subproblems train at once (0: one
	// per CPU). It does not change the result.
	Threads int
}

// DefaultLinearParams returns LIBLINEAR's defaults: -s 1 -c 1 -e 0.1
// -p 0.1 -B -1, at most 1000 outer passes.
func DefaultLinearParams() LinearParams {
	return LinearParams{
		Solver:  L2LossSVCDual,
		C:       1,
		Eps:     0.1,
		P:       0.1,
		Bias:    -1,
		MaxIter: 1000,
		Seed:    1,
	}
}

// ErrParams is wrapped by the errors that report invalid training parameters.
var ErrParams = errors.New("core: invalid parameters")

// Validate reports the first parameter that is out of range.
func (p *LinearParams) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrParams}, args...)...)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !p.Solver.valid():
		return bad("unknown solver -s %d (want 1, 3, 12 or 13)", int(p.Solver))
	case !(p.C > 0) || !finite(p.C):
		return bad("C = %v, want C > 0", p.C)
	case !(p.Eps > 0) || !finite(p.Eps):
		return bad("eps = %v, want eps > 0", p.Eps)
	case !(p.P >= 0) || !finite(p.P):
		return bad("p = %v, want p >= 0", p.P)
	case !finite(p.Bias):
		return bad("bias = %v is not finite", p.Bias)
	case p.MaxIter <= 0:
		return bad("max iterations = %d, want > 0", p.MaxIter)
	case p.Threads < 0:
		return bad("threads = %d, want >= 0", p.Threads)
	}
	for _, w := range p.Weights {
		if !(w.Weight > 0) || !finite(w.Weight) {
			return bad("weight %v for class %d, want > 0", w.Weight, w.Label)
		}
	}
	return nil
}

// weightOf returns the C multiplier of a class: its -wi weight, or 1.
func (p *LinearParams) weightOf(label int32) float64 {
	for _, w := range p.Weights {
		if w.Label == label {
			return w.Weight
		}
	}
	return 1
}

// SolveResult describes one binary (or regression) subproblem's solve.
type SolveResult struct {
	// Label is the positive class of a one-vs-rest or binary subproblem
	// (0 for regression).
	Label int32
	// Iterations counts outer passes over the active set.
	Iterations int
	// Updates counts coordinate steps: one per visited variable.
	Updates int64
	// DualObjective is f(α), the dual objective as the papers state it, to
	// be minimized: ½αᵀQ̄α − eᵀα for SVC and ½βᵀQ̄β − yᵀβ + p‖β‖₁ for SVR.
	// It is the "Objective value" LIBLINEAR prints.
	DualObjective float64
	// PrimalObjective is P(w) = ½‖w‖² + C·Σ loss. At the optimum P(w) = −f(α).
	PrimalObjective float64
	// DualityGap is P(w) + f(α) ≥ 0: how far from optimal the pair is.
	DualityGap float64
	// NumSV counts nonzero dual variables; NumBoundSV those at the upper
	// bound (L1 loss only).
	NumSV, NumBoundSV int
	// Converged is false when MaxIter stopped the solve.
	Converged bool
}

// TrainResult describes a training call: the subproblems and their totals.
type TrainResult struct {
	// Subproblems holds one entry per decision function.
	Subproblems []SolveResult
	// Iterations is the largest outer pass count of a subproblem.
	Iterations int
	// Updates is the total number of coordinate steps.
	Updates int64
	// DualObjective, PrimalObjective and DualityGap are summed over the
	// subproblems.
	DualObjective, PrimalObjective, DualityGap float64
	// NumSV counts the rows that are a support vector of any subproblem.
	NumSV int
	// Converged is true when every subproblem converged.
	Converged bool
}
