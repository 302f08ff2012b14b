package core

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestParseTrainOptions checks the syntax each option string is read in and
// what -s and -n mean there: the meanings LIBLINEAR's train and LIBSVM's
// svm-train usage texts give them.
func TestParseTrainOptions(t *testing.T) {
	for _, c := range []struct {
		options string
		check   func(t *testing.T, o TrainOptions)
	}{
		{"-s 3", func(t *testing.T, o TrainOptions) { // train: L1-loss SVC (dual)
			if o.Syntax != SyntaxLinear || o.Linear.Params.Solver != L1LossSVCDual {
				t.Errorf("syntax %v, solver %v; want linear, L1LossSVCDual", o.Syntax, o.Linear.Params.Solver)
			}
		}},
		{"-syntax linear -s 3", func(t *testing.T, o TrainOptions) {
			if o.Syntax != SyntaxLinear || o.Linear.Params.Solver != L1LossSVCDual {
				t.Errorf("syntax %v, solver %v; want linear, L1LossSVCDual", o.Syntax, o.Linear.Params.Solver)
			}
		}},
		{"-syntax kernel -s 3 -p 0.25", func(t *testing.T, o TrainOptions) { // svm-train: ε-SVR, RBF by default
			k := o.Kernel.Params
			if o.Syntax != SyntaxKernel || k.SVMType != EpsSVR || k.Kernel.Type != RBFKernel || k.P != 0.25 {
				t.Errorf("syntax %v, %v %v p %v; want kernel, epsilon-SVR, RBF, 0.25", o.Syntax, k.SVMType, k.Kernel.Type, k.P)
			}
		}},
		{"-s 3 -t 0", func(t *testing.T, o TrainOptions) { // auto: -t makes it svm-train's
			k := o.Kernel.Params
			if o.Syntax != SyntaxKernel || k.SVMType != EpsSVR || k.Kernel.Type != LinearKernel {
				t.Errorf("syntax %v, %v %v; want kernel, epsilon-SVR, linear kernel", o.Syntax, k.SVMType, k.Kernel.Type)
			}
		}},
		{"-syntax auto -t 2 -c 4", func(t *testing.T, o TrainOptions) {
			if o.Syntax != SyntaxKernel || o.Kernel.Params.SVMType != CSVC || o.Kernel.Params.C != 4 {
				t.Errorf("syntax %v, %v C %v; want kernel, C-SVC, 4", o.Syntax, o.Kernel.Params.SVMType, o.Kernel.Params.C)
			}
		}},
		{"-syntax linear -n 2", func(t *testing.T, o TrainOptions) { // train: thread count
			if o.Syntax != SyntaxLinear || o.Linear.Params.Threads != 2 {
				t.Errorf("syntax %v, threads %d; want linear, 2", o.Syntax, o.Linear.Params.Threads)
			}
		}},
		{"-syntax kernel -s 2 -n 0.2", func(t *testing.T, o TrainOptions) { // svm-train: ν of a one-class SVM
			if o.Syntax != SyntaxKernel || o.Kernel.Params.SVMType != OneClass || o.Kernel.Params.Nu != 0.2 {
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
			o, rest, err := ParseTrainOptions(append(strings.Fields(c.options), "train.txt"), SyntaxAuto)
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

// TestParseTrainOptionsRefuses checks the option strings that name no
// syntax or mix them.
func TestParseTrainOptionsRefuses(t *testing.T) {
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
		_, _, err := ParseTrainOptions(strings.Fields(options), SyntaxAuto)
		if err == nil || !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one wrapping ErrParams that says %q", options, err, want)
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

// TestParseTrainOptionsFixedSyntax: a caller that chose the syntax (the
// command's train and train-linear) gets that syntax whatever the options,
// and -syntax is no option there.
func TestParseTrainOptionsFixedSyntax(t *testing.T) {
	o, _, err := ParseTrainOptions([]string{"-s", "3"}, SyntaxKernel)
	if err != nil || o.Syntax != SyntaxKernel || o.Kernel.Params.SVMType != EpsSVR {
		t.Errorf("-s 3 as svm-train's: %+v, %v; want epsilon-SVR", o, err)
	}
	o, _, err = ParseTrainOptions([]string{"-s", "3", "-n", "2"}, SyntaxLinear)
	if err != nil || o.Syntax != SyntaxLinear || o.Linear.Params.Solver != L1LossSVCDual || o.Linear.Params.Threads != 2 {
		t.Errorf("-s 3 -n 2 as train's: %+v, %v; want L1-loss SVC, 2 threads", o, err)
	}
	for _, s := range []Syntax{SyntaxLinear, SyntaxKernel} {
		_, _, err := ParseTrainOptions([]string{"-syntax", s.String(), "-c", "1"}, s)
		if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "-syntax") {
			t.Errorf("-syntax in %v options: %v, want an unknown option error", s, err)
		}
	}
	_, _, err = ParseTrainOptions([]string{"-t", "2"}, SyntaxLinear)
	if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "-t") {
		t.Errorf("-t in train's options: %v, want an unknown option error", err)
	}
}
