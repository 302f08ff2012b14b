package core

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestKernelModelWithoutSupportVectorsPredictsWide: a model of 2³¹−1
// features and no support vectors predicts CSR batches, sparse rows and
// data sets by ρ alone; the blocked path, which staged rows of every
// feature, allocated 512 GiB for it and aborted (issue 22, fault 6).
func TestKernelModelWithoutSupportVectorsPredictsWide(t *testing.T) {
	m := &KernelModel{
		SVMType:     OneClass,
		Kernel:      Kernel{Type: RBFKernel, Gamma: 1},
		NumFeatures: math.MaxInt32,
		SV:          data.NewSparse(0, 0, math.MaxInt32),
		Rho:         []float64{0.5},
	}
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	dst := m.PredictCSRBatch(make([]float64, 2), []int64{0, 1, 2}, []int32{3, math.MaxInt32 - 1}, []float32{1, 2})
	ds := data.NewSparse(2, 2, math.MaxInt32)
	for _, j := range []int32{7, math.MaxInt32 - 1} {
		if err := ds.AppendSparse(0, []int32{j}, []float32{1}); err != nil {
			t.Fatal(err)
		}
	}
	batch := m.PredictBatch(make([]float64, 2), ds)
	// Decision value −ρ < 0: every row is an outlier.
	for _, got := range [][]float64{dst, batch, {m.PredictSparse([]int32{5}, []float32{1})}} {
		for _, v := range got {
			if v != -1 {
				t.Fatalf("predictions %v, want −1 (decision −ρ = −0.5)", got)
			}
		}
	}
}
