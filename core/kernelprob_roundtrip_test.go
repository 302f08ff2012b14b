package core_test

import (
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// A model with probability estimates, written to a model file and read
// back, gives bit-identical probabilities.
func TestKernelProbabilityModelFileRoundTrip(t *testing.T) {
	ds, err := data.ReadFile(filepath.Join("testdata", "breast_cancer.train"), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	test, err := data.ReadFile(filepath.Join("testdata", "breast_cancer.test"), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := core.DefaultKernelParams()
	p.Probability = true
	m, _, err := core.TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.svmgo")
	if err := writeKernelModel(path, m); err != nil {
		t.Fatal(err)
	}
	back, err := readKernelModel(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b := make([]float64, 2), make([]float64, 2)
	for i := range test.Len() {
		if test.IsDense() {
			x := make([]float32, m.NumFeatures)
			copy(x, test.DenseRow(i))
			a, b = m.ProbabilityDense(a, x), back.ProbabilityDense(b, x)
		} else {
			idx, val := test.SparseRow(i)
			a, b = m.ProbabilitySparse(a, idx, val), back.ProbabilitySparse(b, idx, val)
		}
		if a[0] != b[0] || a[1] != b[1] {
			t.Fatalf("row %d: %v before the file, %v after", i, a, b)
		}
	}
}

func writeKernelModel(path string, m *core.KernelModel) error {
	b, err := modelfile.MarshalKernel(m)
	if err != nil {
		return err
	}
	return modelfile.WriteBytes(path, b)
}

func readKernelModel(path string) (*core.KernelModel, error) {
	b, err := modelfile.ReadBytes(path)
	if err != nil {
		return nil, err
	}
	return modelfile.UnmarshalKernel(b)
}
