package options

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core"
)

// KernelOptions are the options of LIBSVM's svm-train command: the training
// parameters and what the command does with them.
type KernelOptions struct {
	Params core.KernelParams
	// CrossValidation is the fold count of -v (0: train a model instead).
	CrossValidation int
	// Quiet is -q: no training report.
	Quiet bool
	// KeepGiven records that -M was given: Incremental then keeps it.
	KeepGiven bool
}

// Incremental returns the parameters for a trainer that retrains as rows
// arrive (the daemon, the C ABI trainer and so partial_fit) on rows of
// about rowWidth values each (the features of dense rows, the nonzeros a
// sparse row holds): those parsed, with KeepMB set to CacheMB when -M was
// not given and rowWidth is at least KeepMinRowWidth, so that such a
// trainer keeps its support vectors' kernel columns between retrains
// within the budget the user set for the cache (-m, 100 MiB by default):
// its kernel memory is then at most twice -m. Without them a warm retrain
// computes again the columns the last one computed: on a Fashion-MNIST
// pair (784 features, 4,950 rows, 1% of the rows replaced) that cost 1.05
// of a cold solve's CPU, against 0.09 with them (33.7 MiB kept); on
// shuttle (9 features, 43,065 rows, 1% in and out) 0.114 of a cold
// solve's kernel evaluations against 0.043. -M 0 keeps none; svm-train itself trains once and keeps none (KeepMB 0), and
// neither does ε-SVR unless -M is given: its matrix reads kept columns,
// but no wide regression set has measured the default.
func (o *KernelOptions) Incremental(rowWidth int) core.KernelParams {
	p := o.Params
	if !o.KeepGiven && !p.SVMType.IsRegression() && rowWidth >= KeepMinRowWidth {
		p.KeepMB = p.CacheMB
	}
	return p
}

// KeepMinRowWidth is the narrowest rows for which Incremental keeps kernel
// columns by default: every row with a value. It was 64 while keeping
// them cost CPU on narrower rows (warm over cold CPU of the in-process
// stream, no columns kept against 20 MiB or more: shuttle, 9 features,
// 0.141 against 0.150; heart_scale, 13, 0.51 against 0.56;
// breast_cancer, 30, 0.30 against 0.35): each retrain allocated the
// columns it captured, and stored every kept entry with a locked
// exchange. Without those (kkeep.go: spare
// columns, plain stores on one worker) they pay there too: warm CPU with
// -M 100 against -M 0 on one core, median of alternated runs: shuttle
// 0.965, breast_cancer (30) 0.82, heart_scale (13) 0.88, shuttle×4 in a
// store of 10,000 rows 1.01 (noise) for 0.26 of the kernel evaluations.
// ε-SVR keeps none by default still: diabetes (8 features, 349 rows)
// takes 1.13 times the CPU with them.
const KeepMinRowWidth = 1

// KernelUsage lists the options ParseKernel accepts, in svm-train's
// layout.
const KernelUsage = `options:
-s svm_type : set type of SVM (default 0)
	0 -- C-SVC		(multi-class classification)
	1 -- nu-SVC		(multi-class classification)
	2 -- one-class SVM
	3 -- epsilon-SVR	(regression)
	4 -- nu-SVR		(regression)
-t kernel_type : set type of kernel function (default 2)
	0 -- linear: u'*v
	1 -- polynomial: (gamma*u'*v + coef0)^degree
	2 -- radial basis function: exp(-gamma*|u-v|^2)
	3 -- sigmoid: tanh(gamma*u'*v + coef0)
-d degree : set degree in kernel function (default 3)
-g gamma : set gamma in kernel function (default 1/num_features)
-r coef0 : set coef0 in kernel function (default 0)
-c cost : set the parameter C of C-SVC, epsilon-SVR, and nu-SVR (default 1)
-n nu : set the parameter nu of nu-SVC, one-class SVM, and nu-SVR (default 0.5)
-p epsilon : set the epsilon in loss function of epsilon-SVR (default 0.1)
-m cachesize : set cache memory size in MB (default 100)
-M keptsize : MB of support vectors' kernel columns a trainer keeps between warm retrains (default 0: none; the daemon's and the C ABI trainer's default: the -m size, none for regression)
-e epsilon : set tolerance of termination criterion (default 0.001)
-h shrinking : whether to use the shrinking heuristics, 0 or 1 (default 1)
-b probability_estimates : whether to train a SVC or SVR model for probability estimates, 0 or 1 (default 0)
-wi weight : set the parameter C of class i to weight*C, for C-SVC (default 1)
-v n : n-fold cross validation mode
-q : quiet mode (no outputs)
-seed n : seed of the cross-validation folds of -b 1 (default 1)
-iter n : maximum SMO iterations per subproblem (default 0: max(10000000, 100*l))
`

// ParseKernel parses svm-train options from args, starting from
// core.DefaultKernelParams, and returns them with the arguments after the last
// option (the file names). Errors name the option and wrap core.ErrParams.
// Real values are read as float64, as upstream svm-train's atof reads
// them; Debian's svm-train 3.24 (libsvm-tools 3.24+ds-6) reads them as
// float32 (-n 0.1 trains with ν = 0.100000001490116…), so its models can
// differ from ones trained with the same text in the last digits and, near
// a tie, in a support vector.
func ParseKernel(args []string) (KernelOptions, []string, error) {
	o := KernelOptions{Params: core.DefaultKernelParams()}
	p := &o.Params
	files, err := scanOptions(args, &o.Quiet, func(v optionValue) error {
		if ok, err := sharedOption(v, &o.CrossValidation, &p.Seed, &p.MaxIter, &p.Weights); ok {
			return err
		}
		// LIBSVM reads -h and -b with atoi, so "-h 2" means on; here only 0
		// and 1 are flags.
		flag := func() (bool, error) {
			switch v.val {
			case "0":
				return false, nil
			case "1":
				return true, nil
			}
			return false, fmt.Errorf("%w: option %s: %q is not 0 or 1", core.ErrParams, v.name, v.val)
		}
		var err error
		switch v.name {
		case "-s":
			var s int
			s, err = v.integer()
			p.SVMType = core.SVMType(s)
		case "-t":
			var t int
			t, err = v.integer()
			p.Kernel.Type = core.KernelType(t)
		case "-d":
			p.Kernel.Degree, err = v.integer()
		case "-g":
			p.Kernel.Gamma, err = v.num()
		case "-r":
			p.Kernel.Coef0, err = v.num()
		case "-c":
			p.C, err = v.num()
		case "-n":
			p.Nu, err = v.num()
		case "-p":
			p.P, err = v.num()
		case "-m":
			p.CacheMB, err = v.num()
		case "-M":
			p.KeepMB, err = v.num()
			o.KeepGiven = true
		case "-e":
			p.Eps, err = v.num()
		case "-h":
			p.Shrinking, err = flag()
		case "-b":
			p.Probability, err = flag()
		default:
			return fmt.Errorf("%w: unknown option %s", core.ErrParams, v.name)
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
