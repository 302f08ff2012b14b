package options

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
)

// TestParseKernelDefaults: no options give svm-train's defaults
// (core.DefaultKernelParams) and leave the file names.
func TestParseKernelDefaults(t *testing.T) {
	o, rest, err := ParseKernel([]string{"train.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o, KernelOptions{Params: core.DefaultKernelParams()}) || !reflect.DeepEqual(rest, []string{"train.txt"}) {
		t.Errorf("no options: got %+v %v", o, rest)
	}
}

func TestParseKernelEachFlag(t *testing.T) {
	for _, c := range []struct {
		args string
		set  func(o *KernelOptions)
	}{
		{"-s 2", func(o *KernelOptions) { o.Params.SVMType = core.OneClass }},
		{"-s 3", func(o *KernelOptions) { o.Params.SVMType = core.EpsSVR }},
		{"-s 0", func(o *KernelOptions) {}},
		{"-t 0", func(o *KernelOptions) { o.Params.Kernel.Type = core.LinearKernel }},
		{"-t 1", func(o *KernelOptions) { o.Params.Kernel.Type = core.PolyKernel }},
		{"-t 3", func(o *KernelOptions) { o.Params.Kernel.Type = core.SigmoidKernel }},
		{"-d 5", func(o *KernelOptions) { o.Params.Kernel.Degree = 5 }},
		{"-d 0", func(o *KernelOptions) { o.Params.Kernel.Degree = 0 }},
		{"-g 0.25", func(o *KernelOptions) { o.Params.Kernel.Gamma = 0.25 }},
		{"-g 0", func(o *KernelOptions) {}},
		{"-r -1.5", func(o *KernelOptions) { o.Params.Kernel.Coef0 = -1.5 }},
		{"-c 1e3", func(o *KernelOptions) { o.Params.C = 1000 }},
		{"-n 0.1", func(o *KernelOptions) { o.Params.Nu = 0.1 }},
		{"-n 1", func(o *KernelOptions) { o.Params.Nu = 1 }},
		{"-p 0", func(o *KernelOptions) { o.Params.P = 0 }},
		{"-p 2.5", func(o *KernelOptions) { o.Params.P = 2.5 }},
		{"-m 0.5", func(o *KernelOptions) { o.Params.CacheMB = 0.5 }},
		{"-e 1e-5", func(o *KernelOptions) { o.Params.Eps = 1e-5 }},
		{"-h 0", func(o *KernelOptions) { o.Params.Shrinking = false }},
		{"-h 1", func(o *KernelOptions) {}},
		{"-b 1", func(o *KernelOptions) { o.Params.Probability = true }},
		{"-b 0", func(o *KernelOptions) {}},
		{"-w3 2", func(o *KernelOptions) { o.Params.Weights = []core.ClassWeight{{Label: 3, Weight: 2}} }},
		{"-w-1 0.5", func(o *KernelOptions) { o.Params.Weights = []core.ClassWeight{{Label: -1, Weight: 0.5}} }},
		{"-v 5", func(o *KernelOptions) { o.CrossValidation = 5 }},
		{"-v 2", func(o *KernelOptions) { o.CrossValidation = 2 }},
		{"-q", func(o *KernelOptions) { o.Quiet = true }},
		{"-seed 18446744073709551615", func(o *KernelOptions) { o.Params.Seed = math.MaxUint64 }},
		{"-iter 0", func(o *KernelOptions) { o.Params.MaxIter = 0 }},
		{"-iter 500", func(o *KernelOptions) { o.Params.MaxIter = 500 }},
	} {
		want := KernelOptions{Params: core.DefaultKernelParams()}
		c.set(&want)
		got, rest, err := ParseKernel(append(strings.Fields(c.args), "train", "model"))
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %+v, want %+v", c.args, got, want)
		}
		if !reflect.DeepEqual(rest, []string{"train", "model"}) {
			t.Errorf("%q: rest %q", c.args, rest)
		}
	}
}

func TestParseKernelCombined(t *testing.T) {
	args := "-s 0 -t 1 -d 2 -g 0.1 -r 1 -c 4 -m 8 -e 0.01 -h 0 -b 1 -w1 2 -w-1 0.5 -w7 3 -v 10 -q -seed 9 -iter 1000 data.txt"
	o, rest, err := ParseKernel(strings.Fields(args))
	if err != nil {
		t.Fatal(err)
	}
	want := core.DefaultKernelParams()
	want.Kernel = core.Kernel{Type: core.PolyKernel, Degree: 2, Gamma: 0.1, Coef0: 1}
	want.C, want.CacheMB, want.Eps, want.Shrinking, want.Probability = 4, 8, 0.01, false, true
	want.Weights = []core.ClassWeight{{Label: 1, Weight: 2}, {Label: -1, Weight: 0.5}, {Label: 7, Weight: 3}} // in command-line order
	want.Seed, want.MaxIter = 9, 1000
	if !reflect.DeepEqual(o, KernelOptions{Params: want, CrossValidation: 10, Quiet: true}) {
		t.Errorf("got %+v", o)
	}
	if !reflect.DeepEqual(rest, []string{"data.txt"}) {
		t.Errorf("rest %q", rest)
	}
	// A lone "-" is a file name (stdin), as it ends LIBSVM's option loop.
	if _, rest, err := ParseKernel([]string{"-c", "2", "-", "m"}); err != nil || !reflect.DeepEqual(rest, []string{"-", "m"}) {
		t.Errorf(`"-" as file: %q, %v`, rest, err)
	}
}

func TestParseKernelErrors(t *testing.T) {
	for _, bad := range []string{
		"-s 5", "-s -1", "-s x",
		"-s 1 -n 0", "-s 1 -n 1.01", "-s 4 -n 0", "-s 4 -n nan", "-s 4 -c 0", "-s 1 -w1 2",
		"-t 4", "-t -1", "-t rbf",
		"-t 1 -d -1", "-d 2.5",
		"-g -0.1", "-g x", "-g nan", "-g inf",
		"-r inf", "-r y",
		"-c 0", "-c -1", "-c nan", "-c +Inf",
		"-s 2 -n 0", "-s 2 -n 1.5", "-s 2 -n -0.5", "-n x",
		"-s 3 -p -0.1", "-p x",
		"-m 0", "-m -5", "-m x",
		"-e 0", "-e -1", "-e x",
		"-h 2", "-h yes", "-b 2", "-b -1",
		"-s 2 -b 1",
		"-v 1", "-v 0", "-v x",
		"-w1", "-wx 2", "-w1 0", "-w1 -2", "-w1 x", "-w1 2 -w1 3", "-w99999999999 1",
		"-seed -1", "-seed x",
		"-iter -1", "-iter x",
		"-z 1", "-x", "-c",
	} {
		_, _, err := ParseKernel(append(strings.Fields(bad), "train"))
		if !errors.Is(err, core.ErrParams) {
			t.Errorf("%q: error %v, want core.ErrParams", bad, err)
		}
	}
	// Errors name the option that is wrong.
	for args, want := range map[string]string{
		"-c x":        "-c",
		"-z 1":        "unknown option -z",
		"-w1 2 -w1 3": "class 1 is weighted twice",
		"-s 5":        "-s 5",
		"-s 1 -w1 2":  "ν-SVC has no C",
		"-e":          "-e needs a value",
	} {
		if _, _, err := ParseKernel(strings.Fields(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one mentioning %q", args, err, want)
		}
	}
}

// TestKernelIncremental: a trainer that retrains as rows arrive keeps
// kernel columns within -m unless -M is given (-M 0 included) or its rows
// are narrower than KeepMinRowWidth (rows of 9 values keep them), and an
// ε-SVR keeps none without -M; svm-train's own parse keeps its default of
// none.
func TestKernelIncremental(t *testing.T) {
	for _, c := range []struct {
		args       string
		width      int
		parsed, mb float64
	}{
		{"-t 2", 784, 0, 100},
		{"-t 2", KeepMinRowWidth, 0, 100},
		{"-t 2", KeepMinRowWidth - 1, 0, 0},
		{"-t 2", 9, 0, 100},
		{"-t 2 -m 7.5", 64, 0, 7.5},
		{"-t 2 -m 7.5 -M 3", 64, 3, 3},
		{"-t 2 -M 3", 9, 3, 3},
		{"-t 2 -M 0", 784, 0, 0},
		{"-s 2 -n 0.1 -m 40", 100, 0, 40},
		{"-s 3 -m 40", 784, 0, 0},
	} {
		o, _, err := ParseKernel(strings.Fields(c.args))
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		if o.Params.KeepMB != c.parsed {
			t.Errorf("%s: parsed KeepMB %v, want %v", c.args, o.Params.KeepMB, c.parsed)
		}
		if got := o.Incremental(c.width).KeepMB; got != c.mb {
			t.Errorf("%s, rows of %d: incremental KeepMB %v, want %v", c.args, c.width, got, c.mb)
		}
	}
}
