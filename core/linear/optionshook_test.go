package linear

// The linear tests read LIBLINEAR option strings as the command does (the
// reference figures in testdata/liblinear250-ref.txt record train command
// lines), through package options. options imports linear, so only
// linear's external tests may import it: optionshook_ext_test.go (package
// linear_test) sets LinearOptionsHook in its init, and
// ParseLinearOptions calls it.
var LinearOptionsHook func(args []string) (LinearOptions, []string, error)

// LinearOptions is options.LinearOptions as the linear tests see it.
type LinearOptions struct {
	Params          LinearParams
	CrossValidation int
	Quiet, FindC    bool
	StartC          float64
	// IncrementalParams is options.LinearOptions.Incremental().
	IncrementalParams LinearParams
}

// Incremental returns the parameters options.LinearOptions.Incremental
// gives.
func (o *LinearOptions) Incremental() LinearParams { return o.IncrementalParams }

// ParseLinearOptions is options.ParseLinear.
func ParseLinearOptions(args []string) (LinearOptions, []string, error) {
	return LinearOptionsHook(args)
}
