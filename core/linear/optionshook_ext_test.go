package linear_test

import (
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// init gives linear's internal tests package options' parser (see
// optionshook_test.go).
func init() {
	linear.LinearOptionsHook = func(args []string) (linear.LinearOptions, []string, error) {
		o, rest, err := options.ParseLinear(args)
		return linear.LinearOptions{Params: o.Params, CrossValidation: o.CrossValidation, Quiet: o.Quiet, FindC: o.FindC,
			StartC: o.StartC, IncrementalParams: o.Incremental()}, rest, err
	}
}
