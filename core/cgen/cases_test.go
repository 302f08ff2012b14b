package cgen

import (
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/shareddata"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
	"github.com/libsvmgo/libsvmgo/core/scale"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// modelCase is one model of the acceptance's matrix: a shared set, a
// kind, trained here.
type modelCase struct {
	name      string
	set       string // the shared set: set.train and set.test, or one file for both
	what      string // the model, for the size table
	kernel    bool
	svm       core.SVMType
	kt        core.KernelType
	solver    linear.LinearSolver
	trainRows int  // 0: every training row (kernel models of large sets take the first rows)
	scaled    bool // trained behind --scale [-1, 1]
	bits      []int
}

// cases covers every shared set with a linear and (but for the 9,132
// features of debdesc_bin, whose kernel models no microcontroller holds) a
// kernel model; classification, regression and one-class; every kernel;
// scaling folded and applied; float, int8 and int16.
var cases = []modelCase{
	{name: "heart_lin", set: "heart_scale", what: "linear SVC", solver: linear.L2LossSVCDual, bits: []int{8, 16}},
	{name: "heart_rbf", set: "heart_scale", what: "RBF C-SVC", kernel: true, svm: core.CSVC, kt: core.RBFKernel, bits: []int{8, 16}},
	{name: "heart_sig", set: "heart_scale", what: "sigmoid C-SVC", kernel: true, svm: core.CSVC, kt: core.SigmoidKernel, bits: []int{8}},
	{name: "bc_lin", set: "breast_cancer", what: "linear SVC", solver: linear.L2LossSVCDual, bits: []int{8}},
	{name: "bc_rbf", set: "breast_cancer", what: "RBF C-SVC", kernel: true, svm: core.CSVC, kt: core.RBFKernel, bits: []int{8}},
	{name: "bc_one", set: "breast_cancer", what: "RBF one-class", kernel: true, svm: core.OneClass, kt: core.RBFKernel, bits: []int{8}},
	{name: "digits_lin", set: "digits", what: "linear SVC, 10 classes", solver: linear.L2LossSVCDual, bits: []int{8}},
	{name: "digits_rbf", set: "digits", what: "RBF C-SVC, 10 classes", kernel: true, svm: core.CSVC, kt: core.RBFKernel, bits: []int{8, 16}},
	{name: "digits_poly", set: "digits", what: "poly C-SVC, 10 classes", kernel: true, svm: core.CSVC, kt: core.PolyKernel, bits: []int{8}},
	{name: "diab_lin", set: "diabetes", what: "linear SVR, --scale", solver: linear.L2LossSVRDual, scaled: true, bits: []int{8}},
	{name: "diab_svr", set: "diabetes", what: "RBF ε-SVR, --scale", kernel: true, svm: core.EpsSVR, kt: core.RBFKernel, scaled: true, bits: []int{8}},
	{name: "diab_klin", set: "diabetes", what: "linear-kernel ε-SVR", kernel: true, svm: core.EpsSVR, kt: core.LinearKernel, bits: []int{8}},
	{name: "deb_lin", set: "debdesc_bin", what: "linear SVC, 9,132 features", solver: linear.L2LossSVCDual, bits: []int{8}},
	{name: "shuttle_lin", set: "shuttle", what: "linear SVC, 7 classes, --scale", solver: linear.L2LossSVCDual, scaled: true, bits: []int{8}},
	{name: "shuttle_rbf", set: "shuttle", what: "RBF C-SVC, 7 classes (4,000 training rows)", kernel: true, svm: core.CSVC, kt: core.RBFKernel, trainRows: 4000, bits: []int{8}},
}

// loadSet reads a shared set's training and test rows.
func loadSet(t testing.TB, set string) (train, test *data.Dataset) {
	t.Helper()
	read := func(name string, opt data.ReadOptions) *data.Dataset {
		ds, err := data.ReadFile(shareddata.Path(t, name), opt)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	if set == "heart_scale" {
		ds := read(set, data.ReadOptions{})
		return ds, ds
	}
	train = read(set+".train", data.ReadOptions{})
	return train, read(set+".test", data.ReadOptions{MaxFeatures: train.NumFeatures()})
}

// firstRows returns the first n rows of ds (all when n is 0 or more).
func firstRows(t testing.TB, ds *data.Dataset, n int) *data.Dataset {
	t.Helper()
	if n == 0 || n >= ds.Len() {
		return ds
	}
	return ds.Prefix(n)
}

// train fits c's float model.
func (c modelCase) train(t testing.TB, train *data.Dataset) core.Model {
	t.Helper()
	train = firstRows(t, train, c.trainRows)
	var r *scale.Ranges
	if c.scaled {
		var err error
		r, err = rowscale.FitScale(train, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if train, err = rowscale.ScaleDataset(train, r); err != nil {
			t.Fatal(err)
		}
	}
	m := c.fit(t, train)
	if r != nil {
		if err := m.(interface{ SetScale(*scale.Ranges) error }).SetScale(r); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// fit trains c's float model on rows already scaled.
func (c modelCase) fit(t testing.TB, train *data.Dataset) core.Model {
	t.Helper()
	if !c.kernel {
		p := linear.DefaultLinearParams()
		p.Solver = c.solver
		tr, err := linear.NewLinearTrainer(p, train.CapRows(), train.NumFeatures())
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := tr.Train(train, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	p := core.DefaultKernelParams()
	p.SVMType, p.Kernel.Type = c.svm, c.kt
	if c.kt == core.PolyKernel {
		p.Kernel.Degree, p.Kernel.Coef0 = 3, 1
	}
	if c.kt == core.SigmoidKernel {
		p.Kernel.Gamma, p.Kernel.Coef0 = 0.01, -0.5
	}
	if c.svm == core.OneClass {
		p.Nu = 0.1
	}
	tr, err := core.NewKernelTrainer(p, train.CapRows(), train.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	m, err := tr.TrainModel(train)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// quantized returns m quantized to bits.
func quantized(t testing.TB, m core.Model, bits int) core.Model {
	t.Helper()
	var q core.Model
	var err error
	if lm, ok := m.(*linear.LinearModel); ok {
		q, err = quantize.QuantizeLinear(lm, bits)
	} else {
		q, err = quantize.QuantizeKernel(m.(*core.KernelModel), bits)
	}
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// sizeLog receives a line per model and Cortex-M (name, set, model, bits
// (0: float), target, rows run, flash, model arrays, code beyond them,
// RAM, one feature vector's bytes): the file SVMGO_CGEN_SIZES names, from
// which examples/mcu/size_table.py writes examples/mcu/README.md's table.
var sizeLog io.Writer = io.Discard

// shortSets are the sets -short covers, on the host only: two small ones
// (linear, RBF, sigmoid, classification and regression, scaling; make test-mcu,
// in make test too, runs the rest).
var shortSets = map[string]bool{"heart_scale": true, "diabetes": true}

// TestGeneratedMatchesLibrary is the acceptance: for every case, float and
// quantized, the generated C compiles with -std=c99 -pedantic -Wall
// -Wextra -Werror and, alone, with -ffreestanding -nostdlib into an object
// without undefined symbols; on the host it predicts every test row as the
// library does, and on a Cortex-M4F and a Cortex-M3 under qemu (the rows
// mcuRows spreads over the set) too. -short runs the small sets on the
// host only (make test-mcu runs the rest).
func TestGeneratedMatchesLibrary(t *testing.T) {
	mcu := !testing.Short() && haveMCU(t)
	if p := os.Getenv("SVMGO_CGEN_SIZES"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sizeLog = f
		defer func() { sizeLog = io.Discard }()
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && !shortSets[c.set] {
				t.Skip("-short: make test-mcu runs it")
			}
			train, test := loadSet(t, c.set)
			m := c.train(t, train)
			checkGenerated(t, c, c.name, m, test, mcu)
			for _, b := range c.bits {
				checkGenerated(t, c, c.name+"_q"+strconv.Itoa(b), quantized(t, m, b), test, mcu)
			}
		})
	}
}
