package options

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestParseTrain checks the syntax each option string is read in and
// what -s and -n mean there: the meanings LIBLINEAR's train and LIBSVM's
// svm-train usage texts give them.
func TestParseTrain(t *testing.T) {
	for _, c := range []struct {
		options string
		check   func(t *testing.T, o TrainOptions)
	}{
		{"-s 3", func(t *testing.T, o TrainOptions) { // train: L1-loss SVC (dual)
			if o.Syntax != SyntaxLinear || o.Linear.Params.Solver != linear.L1LossSVCDual {
				t.Errorf("syntax %v, solver %v; want linear, linear.L1LossSVCDual", o.Syntax, o.Linear.Params.Solver)
			}
		}},
		{"-syntax linear -s 3", func(t *testing.T, o TrainOptions) {
			if o.Syntax != SyntaxLinear || o.Linear.Params.Solver != linear.L1LossSVCDual {
				t.Errorf("syntax %v, solver %v; want linear, linear.L1LossSVCDual", o.Syntax, o.Linear.Params.Solver)
			}
		}},
		{"-syntax kernel -s 3 -p 0.25", func(t *testing.T, o TrainOptions) { // svm-train: ε-SVR, RBF by default
			k := o.Kernel.Params
			if o.Syntax != SyntaxKernel || k.SVMType != core.EpsSVR || k.Kernel.Type != core.RBFKernel || k.P != 0.25 {
				t.Errorf("syntax %v, %v %v p %v; want kernel, epsilon-SVR, RBF, 0.25", o.Syntax, k.SVMType, k.Kernel.Type, k.P)
			}
		}},
		{"-s 3 -t 0", func(t *testing.T, o TrainOptions) { // auto: -t makes it svm-train's
			k := o.Kernel.Params
			if o.Syntax != SyntaxKernel || k.SVMType != core.EpsSVR || k.Kernel.Type != core.LinearKernel {
				t.Errorf("syntax %v, %v %v; want kernel, epsilon-SVR, linear kernel", o.Syntax, k.SVMType, k.Kernel.Type)
			}
		}},
		{"-syntax auto -t 2 -c 4", func(t *testing.T, o TrainOptions) {
			if o.Syntax != SyntaxKernel || o.Kernel.Params.SVMType != core.CSVC || o.Kernel.Params.C != 4 {
				t.Errorf("syntax %v, %v C %v; want kernel, C-SVC, 4", o.Syntax, o.Kernel.Params.SVMType, o.Kernel.Params.C)
			}
		}},
		{"-syntax linear -n 2", func(t *testing.T, o TrainOptions) { // train: thread count
			if o.Syntax != SyntaxLinear || o.Linear.Params.Threads != 2 {
				t.Errorf("syntax %v, threads %d; want linear, 2", o.Syntax, o.Linear.Params.Threads)
			}
		}},
		{"-syntax kernel -s 2 -n 0.2", func(t *testing.T, o TrainOptions) { // svm-train: ν of a one-class SVM
			if o.Syntax != SyntaxKernel || o.Kernel.Params.SVMType != core.OneClass || o.Kernel.Params.Nu != 0.2 {
				t.Errorf("syntax %v, %v nu %v; want kernel, one-class, 0.2", o.Syntax, o.Kernel.Params.SVMType, o.Kernel.Params.Nu)
			}
		}},
		{"-syntax kernel -v 5", func(t *testing.T, o TrainOptions) {
			if o.CrossValidation() != 5 || !o.IsKernel() {
				t.Errorf("cross validation %d, kernel %v; want 5, true", o.CrossValidation(), o.IsKernel())
			}
		}},
		{"-v 3 -c 2", func(t *testing.T, o TrainOptions) {
			if o.CrossValidation() != 3 || o.IsKernel() || o.Linear.Params.C != 2 {
				t.Errorf("cross validation %d, kernel %v, C %v; want 3, false, 2", o.CrossValidation(), o.IsKernel(), o.Linear.Params.C)
			}
		}},
	} {
		t.Run(c.options, func(t *testing.T) {
			o, rest, err := ParseTrain(append(strings.Fields(c.options), "train.txt"), SyntaxAuto)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rest, []string{"train.txt"}) {
				t.Errorf("rest %q, want [train.txt]", rest)
			}
			c.check(t, o)
		})
	}
}

// TestParseTrainRefuses checks the option strings that name no
// syntax or mix them.
func TestParseTrainRefuses(t *testing.T) {
	for options, want := range map[string]string{
		"-syntax":                       "needs a value",
		"-syntax svm -s 0":              `"svm" is not linear, kernel or auto`,
		"-s 1 -syntax kernel":           "must come first",
		"-syntax linear -syntax linear": "must come first",
		"-syntax linear -s 3 -t 0":      "-t",   // svm-train's option in LIBLINEAR's syntax
		"-syntax kernel -s 3 -B 1":      "-B",   // and the other way round
		"-syntax kernel -s 7":           "-s 7", // no such svm_type
		"-syntax linear -s 4":           "4",    // Crammer and Singer: not offered
	} {
		_, _, err := ParseTrain(strings.Fields(options), SyntaxAuto)
		if err == nil || !errors.Is(err, core.ErrParams) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one wrapping core.ErrParams that says %q", options, err, want)
		}
	}
}

func TestSyntaxString(t *testing.T) {
	for s, want := range map[Syntax]string{SyntaxAuto: "auto", SyntaxLinear: "linear", SyntaxKernel: "kernel", 7: "Syntax(7)"} {
		if got := s.String(); got != want {
			t.Errorf("Syntax(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}

// TestParseTrainFixedSyntax: a caller that chose the syntax (the
// command's train and train-linear) gets that syntax whatever the options,
// and -syntax is no option there.
func TestParseTrainFixedSyntax(t *testing.T) {
	o, _, err := ParseTrain([]string{"-s", "3"}, SyntaxKernel)
	if err != nil || o.Syntax != SyntaxKernel || o.Kernel.Params.SVMType != core.EpsSVR {
		t.Errorf("-s 3 as svm-train's: %+v, %v; want epsilon-SVR", o, err)
	}
	o, _, err = ParseTrain([]string{"-s", "3", "-n", "2"}, SyntaxLinear)
	if err != nil || o.Syntax != SyntaxLinear || o.Linear.Params.Solver != linear.L1LossSVCDual || o.Linear.Params.Threads != 2 {
		t.Errorf("-s 3 -n 2 as train's: %+v, %v; want L1-loss SVC, 2 threads", o, err)
	}
	for _, s := range []Syntax{SyntaxLinear, SyntaxKernel} {
		_, _, err := ParseTrain([]string{"-syntax", s.String(), "-c", "1"}, s)
		if !errors.Is(err, core.ErrParams) || !strings.Contains(err.Error(), "-syntax") {
			t.Errorf("-syntax in %v options: %v, want an unknown option error", s, err)
		}
	}
	_, _, err = ParseTrain([]string{"-t", "2"}, SyntaxLinear)
	if !errors.Is(err, core.ErrParams) || !strings.Contains(err.Error(), "-t") {
		t.Errorf("-t in train's options: %v, want an unknown option error", err)
	}
}

// TestParseTrainFamilyExplicit: an option string that names no family is
// LIBLINEAR's, an option only svm-train has makes it svm-train's, and -b,
// which both programs have, is refused until the family is named (it chose
// svm-train's before, turning "-s 1 -b 1" into a ν-SVC).
func TestParseTrainFamilyExplicit(t *testing.T) {
	for options, want := range map[string]core.Family{
		"":                            core.LinearFamily,
		"-s 1 -c 10":                  core.LinearFamily,
		"-s 2 -n 1":                   core.LinearFamily,
		"-t 2 -b 1":                   core.KernelFamily,
		"-s 1 -g 0.5 -b 0":            core.KernelFamily,
		"-m 8 -c 4":                   core.KernelFamily,
		"-syntax linear -s 1 -b 1":    core.LinearFamily,
		"-syntax kernel -s 1 -b 1":    core.KernelFamily,
		"-syntax kernel":              core.KernelFamily,
		"--scale -s 0 -h 0":           core.KernelFamily,
		"-syntax linear --scale -B 1": core.LinearFamily,
	} {
		o, _, err := ParseTrain(strings.Fields(options), SyntaxAuto)
		if err != nil {
			t.Errorf("%q: %v", options, err)
			continue
		}
		if p := o.Params(); p.Family != want || (p.Family == core.KernelFamily) != o.IsKernel() {
			t.Errorf("%q: family %v (kernel %v), want %v", options, p.Family, o.IsKernel(), want)
		}
	}
	for _, options := range []string{"-b 1", "-s 1 -b 1", "-s 0 -c 4 -b 0", "-syntax auto -b 1 -q"} {
		_, _, err := ParseTrain(strings.Fields(options), SyntaxAuto)
		if !errors.Is(err, ErrAmbiguousFamily) || !errors.Is(err, core.ErrParams) || !strings.Contains(err.Error(), "-syntax linear") {
			t.Errorf("%q: error %v, want ErrAmbiguousFamily naming -syntax", options, err)
		}
	}
	// A caller that fixed the syntax is never ambiguous.
	if o, _, err := ParseTrain(strings.Fields("-s 1 -b 1"), SyntaxLinear); err != nil || !o.Linear.Params.Probability {
		t.Errorf("-s 1 -b 1 as LIBLINEAR's: %+v, %v", o, err)
	}
}

// TestParamsCarryScale: Params gives the family's parameters and the
// scaling, whichever the syntax.
func TestParamsCarryScale(t *testing.T) {
	o, _, err := ParseTrain(strings.Fields("-t 1 -c 3 --scale --scale-lower 0"), SyntaxAuto)
	if err != nil {
		t.Fatal(err)
	}
	p := o.Params()
	if p.Family != core.KernelFamily || p.Kernel.C != 3 || p.Kernel.Kernel.Type != core.PolyKernel ||
		p.Scale != (core.ScaleParams{Enabled: true, Lower: 0, Upper: 1}) || p.Linear.C != 0 {
		t.Errorf("params %+v", p)
	}
}
