package main

import (
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// TestKernelTrainerProbabilityFromC trains "-t 2 -c 10 -b 1" through the
// C ABI and checks the probabilities and decision values of the test rows
// against core.TrainKernel on the same rows, bit for bit; the C program
// also checks that "-t 9" is refused.
func TestKernelTrainerProbabilityFromC(t *testing.T) {
	exe := compileC(t, "kernel_trainer", false)
	const opts, nf = "-t 2 -c 10 -b 1", 13
	labels, x := denseRows(t, "../core/testdata/heart_scale", 0, 200, nf)
	_, testX := denseRows(t, "../core/testdata/heart_scale", 200, -1, nf)
	dir := t.TempDir()
	dataPath, test, out := filepath.Join(dir, "data"), filepath.Join(dir, "test"), filepath.Join(dir, "out")
	writeRaw(t, dataPath+".labels", labels)
	writeRaw(t, dataPath+".f32", x)
	writeRaw(t, test+".f32", testX)
	trows := len(testX) / nf
	runC(t, exe, opts, dataPath, strconv.Itoa(len(labels)), strconv.Itoa(nf), test, strconv.Itoa(trows), out)

	o, _, err := options.ParseKernel(strings.Fields(opts))
	if err != nil {
		t.Fatal(err)
	}
	ds := data.NewDense(len(labels), nf)
	for i, y := range labels {
		if err := ds.AppendDense(y, x[i*nf:(i+1)*nf]); err != nil {
			t.Fatal(err)
		}
	}
	m, _, err := core.TrainKernel(ds, o.Params)
	if err != nil {
		t.Fatal(err)
	}
	if !m.HasProbability() || len(m.Labels) != 2 {
		t.Fatalf("the Go model has probability %v and %d classes, want a binary model with probabilities", m.HasProbability(), len(m.Labels))
	}
	var wantProb, wantDec []float64
	for i := range trows {
		row := testX[i*nf : (i+1)*nf]
		wantProb = append(wantProb, m.ProbabilityDense(make([]float64, 2), row)...)
		wantDec = append(wantDec, m.DecisionDense(make([]float64, 1), row)...)
	}
	prob := readFloat64s(t, out+".prob")
	sameBits(t, "probabilities", prob, wantProb)
	sameBits(t, "decision values", readFloat64s(t, out+".dec"), wantDec)
	for i := range trows {
		if p := prob[2*i] + prob[2*i+1]; math.Abs(p-1) > 1e-12 {
			t.Fatalf("row %d: probabilities sum to %v", i, p)
		}
	}
}

// TestKernelTrainerWarmRemove adds rows, fits, removes rows, adds rows
// and fits warm through the capi trainer, and checks the warm fit against
// a cold fit of core on the rows then held: objective within 1e-4
// relative and the same test labels.
func TestKernelTrainerWarmRemove(t *testing.T) {
	const nf = 13
	labels, x := denseRows(t, "../core/testdata/heart_scale", 0, 220, nf)
	_, testX := denseRows(t, "../core/testdata/heart_scale", 220, -1, nf)
	h, err := newTrainer("-t 2 -c 10", 300, nf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if h.trainer.Family() != core.KernelFamily {
		t.Fatal("-t 2 did not make a kernel trainer")
	}
	if err := addDense(h, labels[:200], x[:200*nf], 200, nf); err != nil {
		t.Fatal(err)
	}
	if _, err := fitKernel(h); err != nil {
		t.Fatal(err)
	}
	var del []int
	for r := 3; r < 200; r += 9 {
		del = append(del, r)
	}
	if err := remove(h, del); err != nil {
		t.Fatal(err)
	}
	if h.dual.Kernel.Gradient == nil {
		t.Error("removing rows dropped the gradient (core keeps it without the removed rows)")
	}
	if err := addDense(h, labels[200:], x[200*nf:], 20, nf); err != nil {
		t.Fatal(err)
	}
	warm, err := fitKernel(h)
	if err != nil {
		t.Fatal(err)
	}
	// Rows added with nothing removed keep the gradient usable; the
	// kernel evaluations tell whether it was used.
	if err := addDense(h, labels[:2], x[:2*nf], 2, nf); err != nil {
		t.Fatal(err)
	}
	again, err := fitKernel(h)
	if err != nil {
		t.Fatal(err)
	}

	p := core.DefaultKernelParams()
	p.C = 10
	cold, _, err := core.TrainKernel(h.ds, p)
	if err != nil {
		t.Fatal(err)
	}
	// h.ds now also holds the last two rows; train cold on the rows the
	// warm fit had too.
	ds2 := data.NewDense(h.ds.Len(), nf)
	for i := range h.ds.Len() - 2 {
		if err := ds2.AppendDense(h.ds.Label(i), h.ds.DenseRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	coldWarm, _, err := core.TrainKernel(ds2, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		warm, cold *core.KernelModel
	}{{"after remove", warm, coldWarm}, {"after add", again, cold}} {
		w, k := c.warm.Result.Objective, c.cold.Result.Objective
		if math.Abs(w-k) > 1e-4*math.Abs(k) {
			t.Errorf("%s: warm objective %.10g, cold %.10g", c.name, w, k)
		}
		diff := 0
		for i := range len(testX) / nf {
			row := testX[i*nf : (i+1)*nf]
			if c.warm.PredictDense(row) != c.cold.PredictDense(row) {
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("%s: %d test labels differ between the warm and cold fits", c.name, diff)
		}
	}
	t.Logf("kernel evaluations: warm after add %d, cold %d", again.Result.KernelEvals, cold.Result.KernelEvals)
	if again.Result.KernelEvals >= cold.Result.KernelEvals/2 {
		t.Errorf("warm fit after adding 2 rows made %d kernel evaluations, cold %d: the kept gradient was not used",
			again.Result.KernelEvals, cold.Result.KernelEvals)
	}
}

// TestKernelTrainerOptions checks which syntax option strings select and
// the refusals of kernel options.
func TestKernelTrainerOptions(t *testing.T) {
	for _, c := range []struct {
		options string
		kernel  bool
	}{
		{"-s 3", false}, {"-s 1 -n 2", false}, {"-c 10 -B 1", false},
		{"-t 0", true}, {"-s 3 -t 2 -p 0.1", true}, {"-g 0.5", true}, {"-h 0", true},
		{"-t 2 -b 1", true}, {"-syntax linear -s 1 -b 1", false}, {"-m 1", true}, {"-s 2 -t 2 -n 0.3", true}, {"-d 2 -r 1 -t 1", true},
		{"-syntax kernel -s 3", true}, {"-syntax kernel", true}, {"-syntax linear -s 3", false},
		{"-syntax auto -t 0", true},
	} {
		h, err := newTrainer(c.options, 10, 4, 0)
		if err != nil {
			t.Errorf("%q: %v", c.options, err)
			continue
		}
		if got := h.trainer.Family() == core.KernelFamily; got != c.kernel {
			t.Errorf("%q: kernel trainer %v, want %v", c.options, got, c.kernel)
		}
	}
	// -b alone names no family (it chose svm-train's before svmgo.h 0.6):
	// refused, with the -syntax that settles it in the message.
	for _, opts := range []string{"-b 1", "-s 1 -b 1", "-c 4 -b 0"} {
		_, err := newTrainer(opts, 10, 4, 0)
		if !errors.Is(err, options.ErrAmbiguousFamily) || statusOf(err) != statusInvalidArgument ||
			!strings.Contains(err.Error(), "-syntax kernel") {
			t.Errorf("%q: error %v, want an invalid-argument error wrapping ErrAmbiguousFamily", opts, err)
		}
	}
	// -s 3 is L1-loss SVC in LIBLINEAR's syntax, ε-SVR in svm-train's.
	// Fitted on four rows of two classes: an ε-SVR kernel model for
	// the one, an L1-loss SVC linear model for the other.
	fitted := func(options string) core.Model {
		t.Helper()
		h, err := newTrainer(options, 10, 2, 0)
		if err != nil {
			t.Fatalf("%q: %v", options, err)
		}
		if err := addDense(h, []float64{1, -1, 1, -1}, []float32{1, 0, -1, 0, 2, 1, -2, 1}, 4, 2); err != nil {
			t.Fatal(err)
		}
		m, err := fit(h)
		if err != nil {
			t.Fatalf("%q: %v", options, err)
		}
		return m
	}
	if info := fitted("-syntax kernel -s 3").Info(); info.Kind != core.KindKernel || info.Task != core.TaskRegression {
		t.Errorf("-syntax kernel -s 3: a %s %v model, want a kernel regression (epsilon-SVR) one", info.Kind, info.Task)
	}
	if m, ok := fitted("-s 3").(*linear.LinearModel); !ok || m.Solver != linear.L1LossSVCDual {
		t.Errorf("-s 3: %T, want a linear model of L1-loss SVC (dual)", m)
	}
	for _, bad := range []string{"-t 9", "-t 2 -v 5", "-t 2 -c 0", "-t 2 -s 7", "-g 1 -B 1", "-t 2 file",
		"-syntax linear -t 2", "-syntax kernel -B 1", "-syntax svm", "-syntax", "-s 1 -syntax kernel"} {
		_, err := newTrainer(bad, 10, 4, 0)
		if err == nil || statusOf(err) != statusInvalidArgument {
			t.Errorf("%q: %v, want SVMGO_E_INVALID_ARGUMENT", bad, err)
		}
	}
}
