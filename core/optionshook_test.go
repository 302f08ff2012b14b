package core

import "github.com/libsvmgo/libsvmgo/core/linear"

// Core's tests read option strings as the commands do (the reference
// figures in testdata/libsvm-ref.txt record svm-train and train command
// lines), through package options. options imports core, so only core's
// external tests may import it: optionshook_ext_test.go (package
// core_test) sets these hooks in its init, and the helpers below, which
// keep the parsers' old names for the tests, call them.
var (
	LinearOptionsHook func(args []string) (LinearOptions, []string, error)
	KernelOptionsHook func(args []string) (KernelOptions, []string, error)
	// TrainParamsHook reads options of either family; family 0 reads the
	// family from the options (options.SyntaxAuto).
	TrainParamsHook func(args []string, family Family) (TrainParams, []string, error)
)

// LinearOptions is options.LinearOptions as core's tests see it.
type LinearOptions struct {
	Params          linear.LinearParams
	CrossValidation int
	Quiet, FindC    bool
	StartC          float64
	// IncrementalParams is options.LinearOptions.Incremental().
	IncrementalParams linear.LinearParams
}

// Incremental returns the parameters options.LinearOptions.Incremental
// gives.
func (o *LinearOptions) Incremental() linear.LinearParams { return o.IncrementalParams }

// KernelOptions is options.KernelOptions as core's tests see it.
type KernelOptions struct {
	Params          KernelParams
	CrossValidation int
	Quiet           bool
}

// ParseLinearOptions is options.ParseLinear.
func ParseLinearOptions(args []string) (LinearOptions, []string, error) {
	return LinearOptionsHook(args)
}

// ParseKernelOptions is options.ParseKernel.
func ParseKernelOptions(args []string) (KernelOptions, []string, error) {
	return KernelOptionsHook(args)
}

// parseTrainParams is options.ParseTrain's parameters, in the syntax of
// family (0: read from the options).
func parseTrainParams(args []string, family Family) (TrainParams, []string, error) {
	return TrainParamsHook(args, family)
}
