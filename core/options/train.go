package options

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/libsvmgo/libsvmgo/core"
)

// Syntax is which program's options a training option string is written
// in: LIBLINEAR's train (ParseLinear, a linear model) or LIBSVM's
// svm-train (ParseKernel, a kernel model). The two give -s and -n different meanings (-s 3 is
// L1-loss SVC in one and ε-SVR in the other), so a program that takes
// either in one string (the C ABI trainer, svmgo watch) must know which.
type Syntax int

// The syntaxes.
const (
	// SyntaxAuto reads the syntax from the options: a leading "-syntax
	// linear|kernel", else svm-train's when an option only it has is
	// present (KernelSyntax), else LIBLINEAR's; -b without either is
	// refused as ambiguous (ErrAmbiguousFamily).
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

// ErrAmbiguousFamily is wrapped by ParseTrain's error (and so by the C ABI
// trainer's and svmgo watch's) for options in SyntaxAuto that name no
// family but hold -b, which both programs take: "-s 1 -b 1" is LIBLINEAR's
// L2-loss SVC with Platt probabilities and svm-train's ν-SVC with
// probability estimates. Before the options package, -b chose svm-train.
var ErrAmbiguousFamily error = ambiguousFamilyError{}

// ambiguousFamilyError is ErrAmbiguousFamily's type. A value of it is
// made at compile time; fmt.Errorf would run at every start of every
// program that links this package (svmgo's every command: 1.2% of a
// heart_scale train-linear's CPU, perf).
type ambiguousFamilyError struct{}

func (ambiguousFamilyError) Error() string {
	return core.ErrParams.Error() + ": options name no model family"
}

// Unwrap returns core.ErrParams.
func (ambiguousFamilyError) Unwrap() error { return core.ErrParams }

// TrainOptions are training options of either syntax, parsed.
type TrainOptions struct {
	// Syntax is the syntax they were read in: SyntaxLinear or
	// SyntaxKernel, never SyntaxAuto.
	Syntax Syntax
	// Linear holds LIBLINEAR's options when Syntax is SyntaxLinear.
	Linear LinearOptions
	// Kernel holds svm-train's options when Syntax is SyntaxKernel.
	Kernel KernelOptions
	// Scale is the scaling trained into the model (--scale), in either
	// syntax.
	Scale core.ScaleParams
}

// IsKernel reports whether the options train a kernel model.
func (o *TrainOptions) IsKernel() bool { return o.Syntax == SyntaxKernel }

// Params returns the training parameters the options give, of the family
// their syntax names, as core.NewTrainer, core.TrainModel and
// core.CrossValidate take them.
func (o *TrainOptions) Params() core.TrainParams {
	p := core.TrainParams{Family: core.LinearFamily, Linear: o.Linear.Params, Scale: o.Scale}
	if o.IsKernel() {
		p = core.TrainParams{Family: core.KernelFamily, Kernel: o.Kernel.Params, Scale: o.Scale}
	}
	return p
}

// CrossValidation returns the -v fold count of either syntax, 0 without -v.
func (o *TrainOptions) CrossValidation() int {
	if o.IsKernel() {
		return o.Kernel.CrossValidation
	}
	return o.Linear.CrossValidation
}

// ParseTrain parses training options from args (an option string split at
// white space, or a command line) and returns them with the arguments
// after the last option (the file names). syntax is the syntax to read
// them in; with SyntaxAuto, the one a leading "-syntax linear|kernel"
// names, and without it (or with "-syntax auto") svm-train's when an
// option only svm-train has is present (KernelSyntax), LIBLINEAR's
// otherwise, and an error wrapping ErrAmbiguousFamily when -b, which both
// programs take, is present without such an option. Errors name the option
// and wrap core.ErrParams; an option of the other syntax is an unknown
// option, and so is -syntax when the caller chose the syntax.
func ParseTrain(args []string, syntax Syntax) (TrainOptions, []string, error) {
	if syntax == SyntaxAuto {
		if len(args) > 0 && args[0] == SyntaxOption {
			if len(args) < 2 {
				return TrainOptions{}, nil, fmt.Errorf("%w: option %s needs a value (linear, kernel or auto)", core.ErrParams, SyntaxOption)
			}
			i := slices.Index(syntaxNames[:], args[1])
			if i < 0 {
				return TrainOptions{}, nil, fmt.Errorf("%w: option %s: %q is not linear, kernel or auto", core.ErrParams, SyntaxOption, args[1])
			}
			syntax, args = Syntax(i), args[2:]
		}
		if slices.Contains(args, SyntaxOption) {
			return TrainOptions{}, nil, fmt.Errorf("%w: option %s must come first, once", core.ErrParams, SyntaxOption)
		}
	}
	if syntax == SyntaxAuto {
		syntax = SyntaxLinear
		if KernelSyntax(args) {
			syntax = SyntaxKernel
		} else if slices.Contains(args, bothProgramsOption) {
			return TrainOptions{}, nil, fmt.Errorf("%w: %s is both LIBLINEAR's option and svm-train's; "+
				"begin with \"%s linear\" or \"%s kernel\" (or give a kernel option: -t -g -d -r -m -h)",
				ErrAmbiguousFamily, bothProgramsOption, SyntaxOption, SyntaxOption)
		}
	}
	scaleOpt, args, err := takeScaleOptions(args)
	if err != nil {
		return TrainOptions{}, nil, err
	}
	o := TrainOptions{Syntax: syntax, Scale: scaleOpt}
	var rest []string
	switch syntax {
	case SyntaxKernel:
		o.Kernel, rest, err = ParseKernel(args)
	case SyntaxLinear:
		o.Linear, rest, err = ParseLinear(args)
	default:
		panic(fmt.Sprintf("options: ParseTrain: %v", syntax))
	}
	if err != nil {
		return TrainOptions{}, nil, err
	}
	return o, rest, nil
}

// ---- Scaling options (core.ScaleParams), the same in both syntaxes ----

// ScaleUsage documents the scaling options for the commands' usage.
const ScaleUsage = `--scale : fit per-feature ranges on the training rows (as svm-scale does),
   train on the scaled rows and store the ranges in the model, which then
   scales raw rows itself when it predicts
--scale-lower l, --scale-upper u : the interval features are scaled to
   (default -1 and 1; give -l 0 for sparse non-negative data to keep it sparse)
`

// takeScaleOptions removes the scaling options (with one dash or two,
// with the value as the next argument or after "=") from the options
// that start args and returns them with the rest. The options end at the
// first argument that does not start with "-" and does not follow an
// option that takes a value (every other option of both syntaxes takes
// one, except -q and -C), as the syntax parsers read them.
func takeScaleOptions(args []string) (core.ScaleParams, []string, error) {
	o := core.ScaleParams{Lower: -1, Upper: 1}
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(strings.TrimLeft(a, "-"), "scale") }) {
		return o, args, nil
	}
	rest := make([]string, 0, len(args))
	set := false
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) > 1; i++ {
		name, val, hasVal := strings.Cut(strings.TrimPrefix(args[i], "-"), "=")
		name = strings.TrimPrefix(name, "-")
		switch name {
		case "scale":
			if hasVal {
				return o, nil, fmt.Errorf("%w: option --scale takes no value", core.ErrParams)
			}
			o.Enabled = true
			continue
		case "scale-lower", "scale-upper":
			if !hasVal {
				if i+1 >= len(args) {
					return o, nil, fmt.Errorf("%w: option --%s needs a value", core.ErrParams, name)
				}
				i++
				val = args[i]
			}
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return o, nil, fmt.Errorf("%w: option --%s: %q is not a finite number", core.ErrParams, name, val)
			}
			if name == "scale-lower" {
				o.Lower = v
			} else {
				o.Upper = v
			}
			set = true
			continue
		}
		rest = append(rest, args[i])
		if args[i] != "-q" && args[i] != "-C" && i+1 < len(args) {
			i++
			rest = append(rest, args[i])
		}
	}
	if set && !o.Enabled {
		return o, nil, fmt.Errorf("%w: --scale-lower and --scale-upper need --scale", core.ErrParams)
	}
	if !(o.Lower < o.Upper) {
		return o, nil, fmt.Errorf("%w: --scale-lower %v is not below --scale-upper %v", core.ErrParams, o.Lower, o.Upper)
	}
	return o, append(rest, args[i:]...), nil
}
