package options

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/libsvmgo/libsvmgo/core"
)

// optionValue is one option of a train command line (LIBLINEAR's or
// svm-train's syntax) and the argument after it.
type optionValue struct{ name, val string }

func (v optionValue) num() (float64, error) {
	f, err := strconv.ParseFloat(v.val, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%w: option %s: %q is not a number", core.ErrParams, v.name, v.val)
	}
	return f, nil
}

func (v optionValue) integer() (int, error) {
	n, err := strconv.Atoi(v.val)
	if err != nil {
		return 0, fmt.Errorf("%w: option %s: %q is not an integer", core.ErrParams, v.name, v.val)
	}
	return n, nil
}

// scanOptions walks args while they are options: "-q" sets *quiet, every
// other option takes the next argument and goes to set. It returns the
// arguments after the last option (the file names).
func scanOptions(args []string, quiet *bool, set func(optionValue) error) ([]string, error) {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) > 1; i++ {
		name := args[i]
		if name == "-q" {
			*quiet = true
			continue
		}
		if i+1 >= len(args) {
			return nil, fmt.Errorf("%w: option %s needs a value", core.ErrParams, name)
		}
		i++
		if err := set(optionValue{name, args[i]}); err != nil {
			return nil, err
		}
	}
	return args[i:], nil
}

// sharedOption sets the options both train commands give the same meaning
// (-v, -seed, -iter, -wi) and reports whether v was one of them.
func sharedOption(v optionValue, folds *int, seed *uint64, maxIter *int, weights *[]core.ClassWeight) (bool, error) {
	var err error
	switch {
	case v.name == "-v":
		*folds, err = v.integer()
		if err == nil && *folds < 2 {
			err = fmt.Errorf("%w: -v %d: n-fold cross validation needs n >= 2", core.ErrParams, *folds)
		}
	case v.name == "-seed":
		*seed, err = strconv.ParseUint(v.val, 10, 64)
		if err != nil {
			err = fmt.Errorf("%w: option -seed: %q is not an unsigned integer", core.ErrParams, v.val)
		}
	case v.name == "-iter":
		*maxIter, err = v.integer()
	case strings.HasPrefix(v.name, "-w") && len(v.name) > 2:
		label, lerr := strconv.ParseInt(v.name[2:], 10, 32)
		if lerr != nil {
			return true, fmt.Errorf("%w: option %s: %q is not a class label", core.ErrParams, v.name, v.name[2:])
		}
		var w float64
		w, err = v.num()
		*weights = append(*weights, core.ClassWeight{Label: int32(label), Weight: w})
	default:
		return false, nil
	}
	return true, err
}

// kernelOnlyOptions are the options that only LIBSVM's svm-train has:
// one of them in an option string makes it svm-train's. -s, -c, -e, -p,
// -wi, -v, -q are in both programs; -n is LIBLINEAR's thread count and
// svm-train's ν, so "-n 2" names neither; -b is in both (svm-train's
// probability estimates, LIBLINEAR's Platt sigmoids for an SVC).
var kernelOnlyOptions = [...]string{"-t", "-g", "-d", "-r", "-m", "-M", "-h"}

// bothProgramsOption is the one option that both programs take and that
// earlier releases counted as svm-train's: "-s 1 -b 1" is LIBLINEAR's
// L2-loss SVC with probabilities and svm-train's ν-SVC with them.
const bothProgramsOption = "-b"

// KernelSyntax reports whether args, train options split at white space,
// are in svm-train's syntax (ParseKernel) by an option only svm-train has:
// any of -t -g -d -r -m -h. ParseTrain asks it when the options do not name
// their syntax.
func KernelSyntax(args []string) bool {
	for _, a := range args {
		for _, k := range kernelOnlyOptions {
			if a == k {
				return true
			}
		}
	}
	return false
}
