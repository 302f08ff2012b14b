package linear

import (
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core/model"
)

// LinearSolver names a linear SVM formulation. The values are LIBLINEAR's
// -s numbers, so they mean the same thing on the command line and in files.
type LinearSolver int

// The formulations: duals solved by DCD (Hsieh et al. 2008; Ho & Lin 2012),
// L2-regularized primals by the line-search truncated Newton method (Galli
// & Lin 2022, newton.go), the L1-regularized ones by coordinate descent (Yuan et al.
// 2010; Yuan, Ho & Lin 2012).
const (
	L2Logistic      LinearSolver = 0  // -s 0: L2-regularized logistic regression, primal
	L2LossSVCDual   LinearSolver = 1  // -s 1: L2-regularized L2-loss SVC, dual (LIBLINEAR's default)
	L2LossSVCPrimal LinearSolver = 2  // -s 2: L2-regularized L2-loss SVC, primal
	L1LossSVCDual   LinearSolver = 3  // -s 3: L2-regularized L1-loss SVC, dual
	L1L2LossSVC     LinearSolver = 5  // -s 5: L1-regularized L2-loss SVC, primal (coordinate descent)
	L1Logistic      LinearSolver = 6  // -s 6: L1-regularized logistic regression, primal (newGLMNET)
	L2LogisticDual  LinearSolver = 7  // -s 7: L2-regularized logistic regression, dual (Yu, Huang & Lin 2011)
	L2LossSVRPrimal LinearSolver = 11 // -s 11: L2-regularized L2-loss SVR, primal
	L2LossSVRDual   LinearSolver = 12 // -s 12: L2-regularized L2-loss SVR, dual
	L1LossSVRDual   LinearSolver = 13 // -s 13: L2-regularized L1-loss SVR, dual
	// -s 40: L2-regularized multinomial (softmax) logistic regression,
	// primal, by a line-search Newton method (multinomial_lr.go): one
	// weight vector per class even for two classes, the bias weights not
	// penalized (scikit-learn's default LogisticRegression). LIBLINEAR has
	// no such solver; 40 stays clear of its numbers (0–7, 11–13, 21).
	L2LogisticMultinomial LinearSolver = 40
)

func (s LinearSolver) valid() bool {
	switch s {
	case L2Logistic, L2LossSVCDual, L2LossSVCPrimal, L1LossSVCDual, L2LossSVRPrimal, L2LossSVRDual, L1LossSVRDual,
		L1L2LossSVC, L1Logistic:
		return true
	case L2LogisticDual, L2LogisticMultinomial:
		return true
	}
	return false
}

// IsLogistic reports whether s is logistic regression, whose decision
// values are log-odds: its models give class probabilities (LIBLINEAR's
// convention, LinearModel.ProbabilityDense) without a fitted sigmoid.
func (s LinearSolver) IsLogistic() bool {
	return s == L2Logistic || s == L2LogisticDual || s == L1Logistic || s == L2LogisticMultinomial
}

// IsMultinomial reports whether s is multinomial logistic regression
// (-s 40): one decision function per class, even for two classes, the
// prediction their arg-max and the probabilities their softmax.
func (s LinearSolver) IsMultinomial() bool { return s == L2LogisticMultinomial }

// IsRegression reports whether s is an SVR formulation.
func (s LinearSolver) IsRegression() bool {
	return s == L2LossSVRPrimal || s == L2LossSVRDual || s == L1LossSVRDual
}

// IsL1 reports whether s is L1-regularized (-s 5, -s 6): min ‖w‖₁ + C·Σ
// loss, solved by coordinate descent over the features, whose weight
// vectors are sparse.
func (s LinearSolver) IsL1() bool { return s == L1L2LossSVC || s == L1Logistic }

// IsPrimal reports whether s is solved in the primal (by the Newton
// method).
func (s LinearSolver) IsPrimal() bool {
	return s == L2LossSVCPrimal || s == L2LossSVRPrimal || s == L2Logistic
}

// hasL2Loss reports whether s has the squared loss, or is logistic
// regression: the formulations whose dual solution follows from w, so that
// they warm-start through the primal (the Newton method).
func (s LinearSolver) hasL2Loss() bool {
	return s == L2LossSVCDual || s == L2LossSVCPrimal || s == L2LossSVRPrimal || s == L2LossSVRDual || s == L2Logistic
}

// isL2LossSVC reports whether s is an L2-loss SVC (-s 1, -s 2), whose
// warm start from α alone rebuilds w (primal_rebuild.go).
func (s LinearSolver) isL2LossSVC() bool { return s == L2LossSVCDual || s == L2LossSVCPrimal }

// DefaultEps returns LIBLINEAR's default stopping tolerance (-e) for s:
// 0.01 for -s 0, -s 2, -s 5 and -s 6, 0.001 for -s 11, 0.1 for the duals
// (and ours: 1e-4 for -s 40, whose Newton steps reach it in a few more
// iterations; scikit-learn's tol is 1e-4 too)
// (-s 7 included).
func DefaultEps(s LinearSolver) float64 {
	switch s {
	case L2LossSVCPrimal, L2Logistic, L1L2LossSVC, L1Logistic:
		return 0.01
	case L2LossSVRPrimal:
		return 0.001
	case L2LogisticMultinomial:
		return 1e-4
	}
	return 0.1
}

// String returns LIBLINEAR's name for the formulation.
func (s LinearSolver) String() string {
	switch s {
	case L2Logistic:
		return "L2R_LR"
	case L2LossSVCDual:
		return "L2R_L2LOSS_SVC_DUAL"
	case L2LossSVCPrimal:
		return "L2R_L2LOSS_SVC"
	case L2LossSVRPrimal:
		return "L2R_L2LOSS_SVR"
	case L1LossSVCDual:
		return "L2R_L1LOSS_SVC_DUAL"
	case L2LossSVRDual:
		return "L2R_L2LOSS_SVR_DUAL"
	case L2LogisticDual:
		return "L2R_LR_DUAL"
	case L1LossSVRDual:
		return "L2R_L1LOSS_SVR_DUAL"
	case L1L2LossSVC:
		return "L1R_L2LOSS_SVC"
	case L1Logistic:
		return "L1R_LR"
	case L2LogisticMultinomial:
		return "L2R_LR_MULTINOMIAL"
	}
	return fmt.Sprintf("LinearSolver(%d)", int(s))
}

// LinearParams are the training parameters of a linear SVM. Start from
// DefaultLinearParams, which holds LIBLINEAR's defaults.
type LinearParams struct {
	Solver LinearSolver
	// C is the cost of a loss unit (-c), > 0.
	C float64
	// Eps is the stopping tolerance (-e), > 0; DefaultEps gives
	// LIBLINEAR's per solver. For dual SVC it bounds the largest
	// projected-gradient violation (max PG − min PG), as LIBLINEAR does.
	// For dual SVR it bounds the 1-norm of the projected gradient, relative
	// to its value at β = 0 unless AbsoluteEps is set. For the primal
	// solvers it bounds ‖∇f(w)‖ relative to ‖∇f(0)‖, times
	// max(min(#pos, #neg), 1)/#rows for SVC (LIBLINEAR's rule). For the
	// L1-regularized solvers (-s 5, -s 6) it bounds the 1-norm of the
	// minimum-norm subgradient, ‖∇ˢf(w)‖₁, relative to its value in the
	// first pass (-s 5) or at w = 0 (-s 6, and a warm-started -s 5),
	// times the same class ratio.
	Eps float64
	// AbsoluteEps makes the dual SVR test absolute: ‖∇ᴾf(β)‖₁ ≤ Eps. The
	// relative test's scale is computed at β = 0 whatever the starting
	// point, so a warm start is held to the same test as a cold one.
	AbsoluteEps bool
	// PrimalTwin trains the L2-loss duals -s 1 and -s 12 through their
	// primal twins (the same problems as -s 2 and -s 11) by the Newton
	// method, cold and
	// warm, as an incremental trainer should: a warm-started primal Newton
	// method saves far more than DCD's warm start when rows are added. The
	// stopping rule is then the primal's, at Eps times 0.1 (-s 1) or 0.01
	// (-s 12), the ratio of LIBLINEAR's default tolerances; the model and
	// its dual variables are those of the dual formulation as usual. The
	// daemon and the C ABI trainer set it unless told otherwise (-twin 0).
	PrimalTwin bool
	// P is the width of the ε-insensitive loss for SVR (-p), ≥ 0.
	P float64
	// Bias is the value of the bias pseudo-feature (-B); negative: no bias.
	Bias float64
	// Weights scale C per class (-wi).
	Weights []model.ClassWeight
	// MaxIter caps the outer passes (DCD) or Newton iterations of
	// each binary subproblem; a run that hits it reports Converged = false.
	MaxIter int
	// Seed seeds the solver's random permutations: equal inputs and seeds
	// give equal models, bit for bit.
	Seed uint64
	// Threads bounds how many one-vs-rest subproblems train at once (0: one
	// per CPU). It does not change the result.
	Threads int
	// Probability (-b 1) fits Platt's sigmoid to each decision function of
	// an SVC model by internal 5-fold cross-validation (linearprob.go), so
	// that the model gives class probabilities. It costs about five more
	// trainings, and each worker fitting sigmoids holds a copy of the rows
	// and a trainer of its own while it runs. Logistic regression gives
	// probabilities without it: there it changes nothing. Not for
	// regression.
	Probability bool
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

// Validate reports the first parameter that is out of range.
func (p *LinearParams) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{model.ErrParams}, args...)...)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !p.Solver.valid():
		return bad("unknown solver -s %d (want 0, 1, 2, 3, 5, 6, 7, 11, 12, 13 or 40)", int(p.Solver))
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
	case p.Probability && p.Solver.IsRegression():
		return bad("probability estimates (-b 1) are for classification, not -s %d", int(p.Solver))
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
	// Iterations counts outer passes over the active set (DCD) or Newton
	// iterations (the primals -s 0, -s 2 and -s 11).
	Iterations int
	// Updates counts the rows read: for DCD one per visited variable (a
	// coordinate step); for the Newton method every row a function,
	// gradient, line search or Hessian-vector product read. It measures work in the same unit for
	// both methods.
	Updates int64
	// NewtonIterations and HessianProducts count the Newton
	// method's steps and Hessian-vector products (its CG steps): those of -s 0, -s 2
	// and -s 11, and of the primal warm start of -s 1 and -s 12. For -s 7
	// NewtonIterations counts the inner Newton steps of the one-variable
	// sub-problems.
	NewtonIterations, HessianProducts int
	// DualObjective is f(α), the dual objective as the papers state it, to
	// be minimized: ½αᵀQ̄α − eᵀα for SVC, ½βᵀQ̄β − yᵀβ + p‖β‖₁ for SVR, and
	// for logistic regression ½αᵀQα + Σ α_i log α_i + (C_i − α_i) log(C_i − α_i)
	// − C_i log C_i. It is the "Objective value" LIBLINEAR prints.
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
	// Updates is the total number of rows read (coordinate steps for DCD).
	Updates int64
	// NewtonIterations and HessianProducts are the Newton method's, summed.
	NewtonIterations, HessianProducts int
	// DualObjective, PrimalObjective and DualityGap are summed over the
	// subproblems.
	DualObjective, PrimalObjective, DualityGap float64
	// NumSV counts the rows that are a support vector of any subproblem.
	NumSV int
	// Converged is true when every subproblem converged.
	Converged bool
}
