package options

import (
	"fmt"
	"strings"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// LinearOptions are the options of LIBLINEAR's train command: the training
// parameters and what the command does with them.
type LinearOptions struct {
	Params linear.LinearParams
	// CrossValidation is the fold count of -v (0: train a model instead).
	CrossValidation int
	// Quiet is -q: no training report.
	Quiet bool
	// TwinGiven records that -twin was given: Incremental then keeps it.
	TwinGiven bool
	// FindC is -C: search C by cross-validation (linear.FindLinearC) instead of
	// training, over CrossValidation folds (5 when -v is not given).
	FindC bool
	// StartC is where the -C search starts: -c when given with -C, else 0
	// (linear.FindLinearC's own start).
	StartC float64
}

// Incremental returns the parameters for a trainer that retrains as rows
// arrive (the daemon, the C ABI trainer): those parsed, with PrimalTwin
// set for -s 1 and -s 12 unless -twin said otherwise.
func (o *LinearOptions) Incremental() linear.LinearParams {
	p := o.Params
	if !o.TwinGiven {
		p.PrimalTwin = p.Solver == linear.L2LossSVCDual || p.Solver == linear.L2LossSVRDual
	}
	return p
}

// LinearUsage lists the options ParseLinear accepts, in LIBLINEAR's
// layout.
const LinearUsage = `options:
-s type : set type of solver (default 1)
   for multi-class classification (one-vs-rest)
	 0 -- L2-regularized logistic regression (primal)
	 1 -- L2-regularized L2-loss support vector classification (dual)
	 2 -- L2-regularized L2-loss support vector classification (primal)
	 3 -- L2-regularized L1-loss support vector classification (dual)
	 5 -- L1-regularized L2-loss support vector classification
	 6 -- L1-regularized logistic regression
	 7 -- L2-regularized logistic regression (dual)
   multinomial (softmax), one weight vector per class, bias not penalized
	40 -- L2-regularized multinomial logistic regression (primal, Newton)
   multinomial (softmax), one weight vector per class, bias not penalized
	40 -- L2-regularized multinomial logistic regression (primal, Newton)
   for regression
	11 -- L2-regularized L2-loss support vector regression (primal)
	12 -- L2-regularized L2-loss support vector regression (dual)
	13 -- L2-regularized L1-loss support vector regression (dual)
-c cost : set the parameter C (default 1)
-p epsilon : set the epsilon in loss function of SVR (default 0.1)
-e epsilon : set tolerance of termination criterion
	-s 0, 2 and 11: |f'(w)|_2 <= eps*min(pos,neg)/l*|f'(w0)|_2 (-s 0 and 2; -s 11
		without min(pos,neg)/l), f the primal function, w0 = 0; default 0.01 (-s 0, 2), 0.001 (-s 11)
	-s 1 and 3: dual maximal violation <= eps (default 0.1)
	-s 5 and 6: |f'(w)|_1 <= eps*min(pos,neg)/l*|f'(w0)|_1, f'(w) the minimum-norm
		subgradient (default 0.01)
	-s 7: max |dual sub-problem gradient| <= eps (default 0.1)
	-s 40: |f'(w)|_2 <= eps*|f'(w0)|_2, w0 = 0 (default 1e-4)
	-s 40: |f'(w)|_2 <= eps*|f'(w0)|_2, w0 = 0 (default 1e-4)
	-s 12 and 13: |f'(alpha)|_1 <= eps |f'(alpha0)|_1, alpha0 = 0 (default 0.1)
-B bias : if bias >= 0, instance x becomes [x; bias]; if < 0, no bias term added (default -1)
-wi weight : weights adjust the parameter C of different classes (see daemon/cmd/svmgo/README.md)
-b probability_estimates : 1 fits Platt's sigmoid to each decision function of an SVC
	model by internal 5-fold cross-validation, for probability outputs (default 0);
	logistic regression (-s 0, 7) gives probabilities without it
-v n : n-fold cross validation mode
-C : find parameter C by cross validation (-s 0, 1, 2, 11, 12; 5 folds unless -v; -c gives the first C)
-q : quiet mode (no outputs)
-n threads : classes trained at once for one-vs-rest (default: one per CPU; does not change the model)
-seed n : seed of the random permutations (default 1)
-twin 0|1 : 1 trains -s 1 and -s 12 through their primal twins (-s 2, -s 11) by Newton's
	method, stopping at 0.1*eps (-s 1) or 0.01*eps (-s 12) of the primal rule (default 0;
	the daemon and the C ABI trainer default to 1: it pays when rows are added)
-iter n : maximum outer iterations (Newton iterations for -s 2 and 11) per subproblem (default 1000)
`

// ParseLinear parses LIBLINEAR train options from args, starting from
// linear.DefaultLinearParams (with the solver's linear.DefaultEps when -e is not given),
// and returns them with the arguments after the last
// option (the file names). Errors name the option and wrap core.ErrParams.
func ParseLinear(args []string) (LinearOptions, []string, error) {
	o := LinearOptions{Params: linear.DefaultLinearParams()}
	p := &o.Params
	epsSet, cSet := false, false
	args = takeFlag(args, "-C", &o.FindC)
	files, err := scanOptions(args, &o.Quiet, func(v optionValue) error {
		if ok, err := sharedOption(v, &o.CrossValidation, &p.Seed, &p.MaxIter, &p.Weights); ok {
			return err
		}
		var err error
		switch v.name {
		case "-s":
			var s int
			s, err = v.integer()
			p.Solver = linear.LinearSolver(s)
		case "-c":
			p.C, err = v.num()
			cSet = true
		case "-p":
			p.P, err = v.num()
		case "-e":
			p.Eps, err = v.num()
			epsSet = true
		case "-B":
			p.Bias, err = v.num()
		case "-n":
			p.Threads, err = v.integer()
		case "-b":
			var b int
			b, err = v.integer()
			if err == nil && b != 0 && b != 1 {
				err = fmt.Errorf("%w: -b %d: want 0 or 1", core.ErrParams, b)
			}
			p.Probability = b == 1
		case "-twin":
			var t int
			t, err = v.integer()
			if err == nil && t != 0 && t != 1 {
				err = fmt.Errorf("%w: -twin %d: want 0 or 1", core.ErrParams, t)
			}
			p.PrimalTwin, o.TwinGiven = t == 1, true
		default:
			return fmt.Errorf("%w: unknown option %s", core.ErrParams, v.name)
		}
		return err
	})
	if err != nil {
		return o, nil, err
	}
	if !epsSet {
		p.Eps = linear.DefaultEps(p.Solver)
	}
	if o.FindC {
		if cSet {
			o.StartC = p.C
		}
		if o.CrossValidation == 0 {
			o.CrossValidation = 5
		}
	}
	if err := p.Validate(); err != nil {
		return o, nil, err
	}
	return o, files, nil
}

// takeFlag removes the value-less option name from the options at the head
// of args (each other option taking one value, -q none) and reports in
// *set whether it was there.
func takeFlag(args []string, name string, set *bool) []string {
	out := make([]string, 0, len(args))
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) > 1; i++ {
		switch args[i] {
		case name:
			*set = true
			continue
		case "-q":
		default:
			if i+1 < len(args) {
				out = append(out, args[i])
				i++
			}
		}
		out = append(out, args[i])
	}
	return append(out, args[i:]...)
}
