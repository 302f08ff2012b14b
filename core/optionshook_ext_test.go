package core_test

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// init gives core's internal tests package options' parsers (see
// optionshook_test.go).
func init() {
	core.LinearOptionsHook = func(args []string) (core.LinearOptions, []string, error) {
		o, rest, err := options.ParseLinear(args)
		return core.LinearOptions{Params: o.Params, CrossValidation: o.CrossValidation, Quiet: o.Quiet, FindC: o.FindC,
			StartC: o.StartC, IncrementalParams: o.Incremental()}, rest, err
	}
	core.KernelOptionsHook = func(args []string) (core.KernelOptions, []string, error) {
		o, rest, err := options.ParseKernel(args)
		return core.KernelOptions{Params: o.Params, CrossValidation: o.CrossValidation, Quiet: o.Quiet}, rest, err
	}
	core.TrainParamsHook = func(args []string, family core.Family) (core.TrainParams, []string, error) {
		syntax := map[core.Family]options.Syntax{core.LinearFamily: options.SyntaxLinear, core.KernelFamily: options.SyntaxKernel}[family]
		o, rest, err := options.ParseTrain(args, syntax)
		return o.Params(), rest, err
	}
}
