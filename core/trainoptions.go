package core

import (
	"fmt"
	"slices"
)

// Syntax is which program's options a training option string is written
// in: LIBLINEAR's train (ParseLinearOptions) or LIBSVM's svm-train
// (ParseKernelOptions). The two give -s and -n different meanings (-s 3 is
// L1-loss SVC in one and ε-SVR in the other), so a program that takes
// either in one string (the C ABI trainer, svmgo watch) must know which.
type Syntax int

// The syntaxes.
const (
	// SyntaxAuto lets KernelSyntax decide: svm-train's when any of -t -g
	// -d -r -m -h -b is present, LIBLINEAR's otherwise.
	SyntaxAuto Syntax = iota
	// SyntaxLinear is LIBLINEAR's train: a linear model.
	SyntaxLinear
	// SyntaxKernel is LIBSVM's svm-train: a kernel model.
	SyntaxKernel
)

// syntaxNames are the values of the -syntax option, by Syntax.
var syntaxNames = [...]string{SyntaxAuto: "auto", SyntaxLinear: "linear", SyntaxKernel: "kernel"}

// String names the syntax as the -syntax option takes it.
func (s Syntax) String() string {
	if s >= 0 && int(s) < len(syntaxNames) {
		return syntaxNames[s]
	}
	return fmt.Sprintf("Syntax(%d)", int(s))
}

// SyntaxOption is the option that names the syntax of the options after it:
// "-syntax linear" or "-syntax kernel" ("-syntax auto" is the default). It
// must come first.
const SyntaxOption = "-syntax"

// TrainOptions are training options of either syntax, parsed.
type TrainOptions struct {
	// Syntax is the syntax they were read in: SyntaxLinear or
	// SyntaxKernel, never SyntaxAuto.
	Syntax Syntax
	// Linear holds LIBLINEAR's options when Syntax is SyntaxLinear.
	Linear LinearOptions
	// Kernel holds svm-train's options when Syntax is SyntaxKernel.
	Kernel KernelOptions
}

// IsKernel reports whether the options train a kernel model.
func (o *TrainOptions) IsKernel() bool { return o.Syntax == SyntaxKernel }

// CrossValidation returns the -v fold count of either syntax, 0 without -v.
func (o *TrainOptions) CrossValidation() int {
	if o.IsKernel() {
		return o.Kernel.CrossValidation
	}
	return o.Linear.CrossValidation
}

// ParseTrainOptions parses training options from args (an option string
// split at white space, or a command line) and returns them with the
// arguments after the last option (the file names). syntax is the syntax
// to read them in; with SyntaxAuto, the one a leading "-syntax
// linear|kernel" names, and without it (or with "-syntax auto")
// KernelSyntax decides. Errors name the option and wrap ErrParams; an
// option of the other syntax is an unknown option, and so is -syntax when
// the caller chose the syntax.
func ParseTrainOptions(args []string, syntax Syntax) (TrainOptions, []string, error) {
	if syntax == SyntaxAuto {
		if len(args) > 0 && args[0] == SyntaxOption {
			if len(args) < 2 {
				return TrainOptions{}, nil, fmt.Errorf("%w: option %s needs a value (linear, kernel or auto)", ErrParams, SyntaxOption)
			}
			i := slices.Index(syntaxNames[:], args[1])
			if i < 0 {
				return TrainOptions{}, nil, fmt.Errorf("%w: option %s: %q is not linear, kernel or auto", ErrParams, SyntaxOption, args[1])
			}
			syntax, args = Syntax(i), args[2:]
		}
		if slices.Contains(args, SyntaxOption) {
			return TrainOptions{}, nil, fmt.Errorf("%w: option %s must come first, once", ErrParams, SyntaxOption)
		}
	}
	if syntax == SyntaxAuto {
		syntax = SyntaxLinear
		if KernelSyntax(args) {
			syntax = SyntaxKernel
		}
	}
	o := TrainOptions{Syntax: syntax}
	var (
		rest []string
		err  error
	)
	switch syntax {
	case SyntaxKernel:
		o.Kernel, rest, err = ParseKernelOptions(args)
	case SyntaxLinear:
		o.Linear, rest, err = ParseLinearOptions(args)
	default:
		panic(fmt.Sprintf("core: ParseTrainOptions: %v", syntax))
	}
	if err != nil {
		return TrainOptions{}, nil, err
	}
	return o, rest, nil
}
