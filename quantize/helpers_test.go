package quantize

import (
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// The test models are trained from core/testdata once per test binary and
// shared (models are immutable).

var testdata = filepath.Join("..", "core", "testdata")

var cache struct {
	sync.Mutex
	data   map[string]*data.Dataset
	models map[string]any
}

// dataset reads core/testdata/name once.
func dataset(t testing.TB, name string) *data.Dataset {
	t.Helper()
	cache.Lock()
	defer cache.Unlock()
	if ds, ok := cache.data[name]; ok {
		return ds
	}
	ds, err := data.ReadFile(filepath.Join(testdata, name), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cache.data == nil {
		cache.data = map[string]*data.Dataset{}
	}
	cache.data[name] = ds
	return ds
}

// subset returns the first n rows of ds in a data set of its layout.
func subset(ds *data.Dataset, n int) *data.Dataset {
	n = min(n, ds.Len())
	var out *data.Dataset
	if ds.IsDense() {
		out = data.NewDense(n, ds.NumFeatures())
	} else {
		out = data.NewSparse(n, ds.Nonzeros(), 0)
	}
	for i := range n {
		if err := out.AppendRowOf(ds, i); err != nil {
			panic(err)
		}
	}
	return out
}

// cached returns the value cached under key, made by train on first use.
func cached[M any](t testing.TB, key string, train func() (M, error)) M {
	t.Helper()
	cache.Lock()
	if m, ok := cache.models[key]; ok {
		cache.Unlock()
		return m.(M)
	}
	cache.Unlock()
	m, err := train()
	if err != nil {
		t.Fatalf("training %s: %v", key, err)
	}
	cache.Lock()
	defer cache.Unlock()
	if cache.models == nil {
		cache.models = map[string]any{}
	}
	cache.models[key] = m
	return m
}

// linearCase is a linear model of the tests with its test set.
type linearCase struct {
	name string
	data string // core/testdata base name
	rows int    // training rows used (0: all)
	p    func(*linear.LinearParams)
}

func (c linearCase) model(t testing.TB) *linear.LinearModel {
	return cached(t, "linear/"+c.name, func() (*linear.LinearModel, error) {
		ds := dataset(t, c.data+".train")
		if c.rows > 0 {
			ds = subset(ds, c.rows)
		}
		p := linear.DefaultLinearParams()
		if c.p != nil {
			c.p(&p)
		}
		tr, err := linear.NewLinearTrainer(p, ds.Len(), ds.NumFeatures())
		if err != nil {
			return nil, err
		}
		m, _, err := tr.Train(ds, nil)
		return m, err
	})
}

func (c linearCase) test(t testing.TB) *data.Dataset { return dataset(t, c.data+".test") }

// The acceptance models (svmgo train-linear defaults), then the other
// formulations.
var linearCases = []linearCase{
	{name: "breast_cancer", data: "breast_cancer"},
	{name: "digits", data: "digits"},
	{name: "debdesc_bin", data: "debdesc_bin"},
	{name: "digits-s3-B1", data: "digits", p: func(p *linear.LinearParams) { p.Solver, p.Bias = linear.L1LossSVCDual, 1 }},
	{name: "diabetes-s12", data: "diabetes", p: func(p *linear.LinearParams) { p.Solver = linear.L2LossSVRDual }},
	{name: "diabetes-s13-B1", data: "diabetes", p: func(p *linear.LinearParams) { p.Solver, p.Bias = linear.L1LossSVRDual, 1 }},
	// L1-regularized: sparse weights, stored sparse.
	{name: "breast_cancer-s6", data: "breast_cancer", p: func(p *linear.LinearParams) { p.Solver, p.C, p.Eps = linear.L1Logistic, 0.1, 0.01 }},
	{name: "digits-s5-B1", data: "digits", p: func(p *linear.LinearParams) { p.Solver, p.Bias, p.Eps = linear.L1L2LossSVC, 1, 0.01 }},
	{name: "debdesc_bin-s6", data: "debdesc_bin", p: func(p *linear.LinearParams) { p.Solver, p.C, p.Eps = linear.L1Logistic, 0.05, 0.01 }},
}

// kernelCase is a kernel model of the tests with its test set.
type kernelCase struct {
	name string
	data string
	rows int // training rows used (0: all)
	p    func(*core.KernelParams)
}

func (c kernelCase) model(t testing.TB) *core.KernelModel {
	return cached(t, "kernel/"+c.name, func() (*core.KernelModel, error) {
		ds := dataset(t, c.data+".train")
		if c.rows > 0 {
			ds = subset(ds, c.rows)
		}
		p := core.DefaultKernelParams()
		if c.p != nil {
			c.p(&p)
		}
		// The cache budget changes the time, not the model: 8 MB instead
		// of svm-train's 100 spares zeroing 100 MB per model.
		p.CacheMB = 8
		tr, err := core.NewKernelTrainer(p, ds.Len(), ds.NumFeatures())
		if err != nil {
			return nil, err
		}
		m, _, err := tr.Train(ds, nil)
		return m, err
	})
}

func (c kernelCase) test(t testing.TB) *data.Dataset {
	ds := dataset(t, c.data+".test")
	if c.rows > 0 {
		return subset(ds, c.rows)
	}
	return ds
}

// The acceptance models (svmgo train defaults), then the other
// formulations and kernels, and a sparse text model (debdesc_bin, 1500
// rows), whose support vectors take the sparse layout.
var kernelCases = []kernelCase{
	{name: "breast_cancer", data: "breast_cancer"},
	{name: "digits", data: "digits"},
	{name: "diabetes-svr", data: "diabetes", p: func(p *core.KernelParams) { p.SVMType = core.EpsSVR }},
	{name: "breast_cancer-oneclass", data: "breast_cancer", p: func(p *core.KernelParams) { p.SVMType = core.OneClass }},
	{name: "breast_cancer-poly", data: "breast_cancer", p: func(p *core.KernelParams) {
		p.Kernel = core.Kernel{Type: core.PolyKernel, Degree: 3, Gamma: 0.05, Coef0: 1}
	}},
	{name: "breast_cancer-sigmoid", data: "breast_cancer", p: func(p *core.KernelParams) {
		p.Kernel = core.Kernel{Type: core.SigmoidKernel, Gamma: 0.01, Coef0: -0.5}
	}},
	{name: "digits-linear-b1", data: "digits", p: func(p *core.KernelParams) {
		p.Kernel = core.Kernel{Type: core.LinearKernel}
		p.Probability = true
	}},
	{name: "debdesc_bin-1500", data: "debdesc_bin", rows: 1500},
}

// sparseRow returns row i of ds as a sparse row (the nonzeros of a dense
// row).
func sparseRow(ds *data.Dataset, i int) ([]int32, []float32) {
	if !ds.IsDense() {
		return ds.SparseRow(i)
	}
	var idx []int32
	var val []float32
	for j, v := range ds.DenseRow(i) {
		if v != 0 {
			idx = append(idx, int32(j))
			val = append(val, v)
		}
	}
	return idx, val
}

// denseRow returns row i of ds as a dense row of nf features (features at
// or past nf dropped).
func denseRow(ds *data.Dataset, i, nf int) []float32 {
	return denseRowTo(make([]float32, nf), ds, i)
}

// denseRowTo is denseRow writing into x, whose length is the width.
func denseRowTo(x []float32, ds *data.Dataset, i int) []float32 {
	clear(x)
	if ds.IsDense() {
		copy(x, ds.DenseRow(i))
		return x
	}
	idx, val := ds.SparseRow(i)
	for k, j := range idx {
		if int(j) < len(x) {
			x[j] = val[k]
		}
	}
	return x
}

// accuracy returns the percentage of rows of ds that predict gets right.
func accuracy(pred []float64, ds *data.Dataset) float64 {
	return 100 * core.ScorePredictions(pred, ds.Labels(), false).Accuracy()
}

// mustMarshal is Marshal that fails the test on error.
func mustMarshal(t testing.TB, m Model) []byte {
	t.Helper()
	b, err := Marshal(m)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	return b
}

// floatFileSize returns the length of the float model m's file.
func floatFileSize(t testing.TB, m any) int {
	t.Helper()
	var b []byte
	var err error
	switch m := m.(type) {
	case *linear.LinearModel:
		b, err = modelfile.Marshal(m)
	case *core.KernelModel:
		b, err = modelfile.MarshalKernel(m)
	default:
		panic(fmt.Sprintf("floatFileSize(%T)", m))
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// errorStats tracks measured errors against their bounds.
type errorStats struct {
	maxErr, maxBound, maxRatio float64
	values                     int
}

// add checks |got − want| ≤ bound for each decision value and records it.
func (s *errorStats) add(t *testing.T, what string, got, want, bound []float64) {
	t.Helper()
	for k := range want {
		e := math.Abs(got[k] - want[k])
		if !(e <= bound[k]) {
			t.Fatalf("%s: decision value %d: |%v − %v| = %g exceeds the bound %g", what, k, got[k], want[k], e, bound[k])
		}
		s.values++
		s.maxErr = max(s.maxErr, e)
		s.maxBound = max(s.maxBound, bound[k])
		if bound[k] > 0 {
			s.maxRatio = max(s.maxRatio, e/bound[k])
		}
	}
}
