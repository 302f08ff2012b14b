package core

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

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
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) > 1; i++ {
		name := args[i]
		if name == "-q" {
			o.Quiet = true
			continue
		}
		if i+1 >= len(args) {
			return o, nil, fmt.Errorf("%w: option %s needs a value", ErrParams, name)
		}
		i++
		val := args[i]
		num := func() (float64, error) {
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: option %s: %q is not a number", ErrParams, name, val)
			}
			return v, nil
		}
		integer := func() (int, error) {
			v, err := strconv.Atoi(val)
			if err != nil {
				return 0, fmt.Errorf("%w: option %s: %q is not an integer", ErrParams, name, val)
			}
			return v, nil
		}
		var err error
		switch {
		case name == "-s":
			var s int
			s, err = integer()
			p.Solver = LinearSolver(s)
		case name == "-c":
			p.C, err = num()
		case name == "-p":
			p.P, err = num()
		case name == "-e":
			p.Eps, err = num()
		case name == "-B":
			p.Bias, err = num()
		case name == "-v":
			o.CrossValidation, err = integer()
			if err == nil && o.CrossValidation < 2 {
				err = fmt.Errorf("%w: -v %d: n-fold cross validation needs n >= 2", ErrParams, o.CrossValidation)
			}
		case name == "-n":
			p.Threads, err = integer()
		case name == "-seed":
			var s uint64
			s, err = strconv.ParseUint(val, 10, 64)
			if err != nil {
				err = fmt.Errorf("%w: option -seed: %q is not an unsigned integer", ErrParams, val)
			}
			p.Seed = s
		case name == "-iter":
			p.MaxIter, err = integer()
		case strings.HasPrefix(name, "-w") && len(name) > 2:
			label, lerr := strconv.ParseInt(name[2:], 10, 32)
			if lerr != nil {
				return o, nil, fmt.Errorf("%w: option %s: %q is not a class label", ErrParams, name, name[2:])
			}
			var w float64
			w, err = num()
			p.Weights = append(p.Weights, ClassWeight{Label: int32(label), Weight: w})
		default:
			return o, nil, fmt.Errorf("%w: unknown option %s", ErrParams, name)
		}
		if err != nil {
			return o, nil, err
		}
	}
	if err := p.Validate(); err != nil {
		return o, nil, err
	}
	return o, args[i:], nil
}
