package core

import "fmt"

// LinearOptions are the options of LIBLINEAR's train command: the training
// parameters and what the command does with them.
type LinearOptions struct {
	Params LinearParams
	// CrossValidation is the fold count of -v (0: train a model instead).
	CrossValidation int
	// Quiet is -q: no training report.
	Quiet bool
}

// LinearUsage lists the options ParseLinearOptions accepts, in LIBLINEAR's
// layout.
const LinearUsage = `options:
-s type : set type of solver (default 1)
   for multi-class classification (one-vs-rest)
	 1 -- L2-regularized L2-loss support vector classification (dual)
	 3 -- L2-regularized L1-loss support vector classification (dual)
   for regression
	12 -- L2-regularized L2-loss support vector regression (dual)
	13 -- L2-regularized L1-loss support vector regression (dual)
-c cost : set the parameter C (default 1)
-p epsilon : set the epsilon in loss function of SVR (default 0.1)
-e epsilon : set tolerance of termination criterion (default 0.1)
	-s 1 and 3: dual maximal violation <= eps
	-s 12 and 13: |f'(alpha)|_1 <= eps |f'(alpha0)|_1, alpha0 = 0
-B bias : if bias >= 0, instance x becomes [x; bias]; if < 0, no bias term added (default -1)
-wi weight : weights adjust the parameter C of different classes (see README for details)
-v n : n-fold cross validation mode
-q : quiet mode (no outputs)
-n threads : classes trained at once for one-vs-rest (default: one per CPU; does not change the model)
-seed n : seed of the random permutations (default 1)
-iter n : maximum outer iterations per subproblem (default 1000)
`

// ParseLinearOptions parses LIBLINEAR train options from args, starting from
// DefaultLinearParams, and returns them with the arguments after the last
// option (the file names). Errors name the option and wrap ErrParams.
func ParseLinearOptions(args []string) (LinearOptions, []string, error) {
	o := LinearOptions{Params: DefaultLinearParams()}
	p := &o.Params
	files, err := scanOptions(args, &o.Quiet, func(v optionValue) error {
		if ok, err := sharedOption(v, &o.CrossValidation, &p.Seed, &p.MaxIter, &p.Weights); ok {
			return err
		}
		var err error
		switch v.name {
		case "-s":
			var s int
			s, err = v.integer()
			p.Solver = LinearSolver(s)
		case "-c":
			p.C, err = v.num()
		case "-p":
			p.P, err = v.num()
		case "-e":
			p.Eps, err = v.num()
		case "-B":
			p.Bias, err = v.num()
		case "-n":
			p.Threads, err = v.integer()
		default:
			return fmt.Errorf("%w: unknown option %s", ErrParams, v.name)
		}
		return err
	})
	if err != nil {
		return o, nil, err
	}
	if err := p.Validate(); err != nil {
		return o, nil, err
	}
	return o, files, nil
}
