package core

import (
	"math"
	"os"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// readTestSet reads a data set of core/testdata.
func readTestSet(t *testing.T, name string, classes bool) *data.Dataset {
	t.Helper()
	ds, err := data.ReadFile("testdata/"+name, data.ReadOptions{ClassLabels: classes})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestFitScaleMatchesSVMScale checks FitScale against the range svm-scale
// 3.24 wrote for digits.train (package scale's fixture): the same minima
// and maxima (digits' values are multiples of 1/16, exact in float32).
func TestFitScaleMatchesSVMScale(t *testing.T) {
	ds := readTestSet(t, "digits.train", true)
	r, err := rowscale.FitScale(ds, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	w := writerFunc(func(p []byte) (int, error) { buf = append(buf, p...); return len(p), nil })
	if _, err := r.WriteTo(w); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("scale/testdata/digits.range")
	if err != nil {
		t.Fatal(err)
	}
	if string(buf) != string(want) {
		t.Errorf("range file:\n%s\nsvm-scale's:\n%s", buf, want)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// checkScaledModel checks that m (scaled) predicts the raw rows of raw as
// ref (m without scaling) predicts the scaled rows of scaled: every
// single-row and batch method, dense and sparse, with decision values
// within tol·(1+|dec|); and that the single-row methods allocate nothing.
func checkScaledModel(t *testing.T, m, ref Model, raw, scaled *data.Dataset, tol float64) {
	t.Helper()
	info := m.Info()
	nf := info.NumFeatures
	nDec := info.NumDecisionValues
	dec := make([]float64, nDec)
	want := make([]float64, nDec)
	dense := make([]float32, nf)
	sdense := make([]float32, nf)
	rows := raw.Len()
	labelsDiffer := 0
	maxErr := 0.0
	for i := range rows {
		rowDense(raw, i, dense)
		rowDense(scaled, i, sdense)
		ref.DecisionDense(want, sdense)
		m.DecisionDense(dec, dense)
		for k := range dec {
			if e := math.Abs(dec[k]-want[k]) / (1 + math.Abs(want[k])); e > maxErr {
				maxErr = e
			}
		}
		idx, val := sparseOf(dense)
		ds := m.DecisionSparse(make([]float64, nDec), idx, val)
		for k := range ds {
			if math.Abs(ds[k]-dec[k]) > tol*(1+math.Abs(dec[k])) {
				t.Fatalf("row %d: sparse decision %v, dense %v", i, ds, dec)
			}
		}
		p := m.PredictDense(dense)
		if ps := m.PredictSparse(idx, val); ps != p && info.Task != TaskRegression {
			t.Fatalf("row %d: PredictSparse %v, PredictDense %v", i, ps, p)
		}
		if r := ref.PredictDense(sdense); r != p {
			if info.Task == TaskRegression {
				if math.Abs(r-p) > tol*(1+math.Abs(r)) {
					t.Fatalf("row %d: predicts %v, reference %v", i, p, r)
				}
			} else {
				labelsDiffer++
			}
		}
	}
	if maxErr > tol {
		t.Errorf("decision values differ from the reference's by up to %.3g (relative), want ≤ %.3g", maxErr, tol)
	}
	if labelsDiffer > 0 {
		t.Errorf("%d of %d labels differ from the reference's", labelsDiffer, rows)
	}
	// Batches: over the raw data set as given, and as a dense matrix.
	batch := m.PredictBatch(make([]float64, rows), raw)
	matrix := make([]float32, rows*nf)
	for i := range rows {
		rowDense(raw, i, matrix[i*nf:i*nf+nf])
	}
	mb := m.PredictDenseBatch(make([]float64, rows), matrix)
	for i := range rows {
		rowDense(raw, i, dense)
		p := m.PredictDense(dense)
		if math.Abs(batch[i]-p) > tol*(1+math.Abs(p)) || math.Abs(mb[i]-p) > tol*(1+math.Abs(p)) {
			t.Fatalf("row %d: PredictBatch %v, PredictDenseBatch %v, PredictDense %v", i, batch[i], mb[i], p)
		}
	}
	rowDense(raw, 0, dense)
	idx, val := sparseOf(dense)
	for name, f := range map[string]func(){
		"PredictDense":      func() { m.PredictDense(dense) },
		"PredictSparse":     func() { m.PredictSparse(idx, val) },
		"DecisionDense":     func() { m.DecisionDense(dec, dense) },
		"DecisionSparse":    func() { m.DecisionSparse(dec, idx, val) },
		"PredictDenseBatch": func() { m.PredictDenseBatch(mb, matrix) },
		"PredictBatch":      func() { m.PredictBatch(batch, raw) },
	} {
		if a := testing.AllocsPerRun(20, f); a != 0 && !raceEnabled { // the race detector drops pooled buffers
			t.Errorf("%s allocates %v times a call", name, a)
		}
	}
}

func rowDense(ds *data.Dataset, i int, dst []float32) {
	clear(dst)
	if ds.IsDense() {
		copy(dst, ds.DenseRow(i))
		return
	}
	idx, val := ds.SparseRow(i)
	for k, j := range idx {
		if int(j) < len(dst) {
			dst[j] = val[k]
		}
	}
}

func sparseOf(x []float32) ([]int32, []float32) {
	var idx []int32
	var val []float32
	for j, v := range x {
		if v != 0 {
			idx, val = append(idx, int32(j)), append(val, v)
		}
	}
	return idx, val
}

// scaledSets fits the scaling of train onto [lower, upper] and returns it
// with the scaled rows of train and of test.
func scaledSets(t *testing.T, train, test *data.Dataset, lower, upper float64) (*scale.Ranges, *data.Dataset, *data.Dataset) {
	t.Helper()
	r, strain, err := ScaleTrainingRows(train, ScaleParams{Enabled: true, Lower: lower, Upper: upper})
	if err != nil {
		t.Fatal(err)
	}
	stest, err := rowscale.ScaleDataset(test, r)
	if err != nil {
		t.Fatal(err)
	}
	return r, strain, stest
}

// TestScaledLinearModel checks a linear model with its scaling folded into
// its weights: the same labels and, to float32 rounding of the folded
// weights, the same decision values as the unscaled model on scaled rows;
// sparse rows included (their absent features map to the offsets).
func TestScaledLinearModel(t *testing.T) {
	for _, c := range []struct {
		name         string
		file         string
		classes      bool
		solver       linear.LinearSolver
		lower, upper float64
		bias         float64
	}{
		{"digits multi-class", "digits", true, linear.L2LossSVCDual, -1, 1, 1},
		{"digits no bias, [0,1]", "digits", true, linear.L2LossSVCDual, 0, 1, -1},
		{"diabetes SVR", "diabetes", false, linear.L2LossSVRDual, -1, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			train := readTestSet(t, c.file+".train", c.classes)
			test := readTestSet(t, c.file+".test", c.classes)
			r, strain, stest := scaledSets(t, train, test, c.lower, c.upper)
			p := linear.DefaultLinearParams()
			p.Solver, p.Bias = c.solver, c.bias
			if c.solver.IsRegression() {
				p.C, p.P = 10, 0.1
			}
			ref, _, err := linear.TrainLinear(strain, p)
			if err != nil {
				t.Fatal(err)
			}
			m := *ref
			if err := m.SetScale(r); err != nil {
				t.Fatal(err)
			}
			checkScaledModel(t, &m, ref, test, stest, 2e-5)
		})
	}
}

// TestScaledKernelModel checks a kernel model that scales each row before
// its kernel: the same labels and decision values as the unscaled model on
// scaled rows, for dense and sparse rows and every batch path.
func TestScaledKernelModel(t *testing.T) {
	train := readTestSet(t, "digits.train", true)
	test := readTestSet(t, "digits.test", true)
	r, strain, stest := scaledSets(t, train, test, -1, 1)
	p := DefaultKernelParams()
	p.Kernel.Gamma = 1.0 / 64
	ref, err := TrainKernelModel(strain, p)
	if err != nil {
		t.Fatal(err)
	}
	m := *ref
	if err := m.SetScale(r); err != nil {
		t.Fatal(err)
	}
	checkScaledModel(t, &m, ref, test, stest, 1e-5)
	// The same rows stored sparse (PredictBatch's sparse path).
	checkScaledModel(t, &m, ref, toSparse(t, test), stest, 1e-5)
	// The CSR batch of the C ABI and the parallel batch.
	rows := test.Len()
	indptr := make([]int64, 1, rows+1)
	var indices []int32
	var values []float32
	row := make([]float32, test.NumFeatures())
	for i := range rows {
		rowDense(test, i, row)
		idx, val := sparseOf(row)
		indices, values = append(indices, idx...), append(values, val...)
		indptr = append(indptr, int64(len(indices)))
	}
	csr := m.PredictCSRBatch(make([]float64, rows), indptr, indices, values)
	par := m.PredictBatchParallel(make([]float64, rows), test, 2)
	srow := make([]float32, stest.NumFeatures())
	for i := range rows {
		rowDense(stest, i, srow)
		if want := ref.PredictDense(srow); csr[i] != want || par[i] != want {
			t.Fatalf("row %d: CSR %v, parallel %v, reference %v", i, csr[i], par[i], want)
		}
	}
}

// toSparse returns ds stored sparse.
func toSparse(t *testing.T, ds *data.Dataset) *data.Dataset {
	t.Helper()
	out := data.NewSparse(ds.Len(), ds.Len()*ds.NumFeatures(), ds.NumFeatures())
	row := make([]float32, ds.NumFeatures())
	for i := range ds.Len() {
		rowDense(ds, i, row)
		idx, val := sparseOf(row)
		if err := out.AppendSparse(ds.Label(i), idx, val); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
