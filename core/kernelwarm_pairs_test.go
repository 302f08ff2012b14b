package core

import (
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// TestWarmUntouchedPairsCostNothing: a warm retrain after rows of one
// class were added pays nothing for the pairs of the other classes, whose
// rows, α and gradient are as the last run left them: no iteration and
// no kernel evaluation (it used to compute one column of the pair to see
// that no variable violates the optimality conditions). Pairs of the class
// that grew still pay for the new rows.
func TestWarmUntouchedPairsCostNothing(t *testing.T) {
	const perClass, added = 150, 10
	r := solve.NewRNG(3)
	ds := data.NewDense(3*perClass+added, 2)
	row := func(c int) {
		x := []float32{float32(c) + float32(smoFloat(&r)*1.5), float32(smoFloat(&r))}
		if err := ds.AppendDense(float64(c), x); err != nil {
			t.Fatal(err)
		}
	}
	for k := range 3 * perClass {
		row(k % 3)
	}
	p := DefaultKernelParams()
	p.C, p.Kernel.Gamma = 10, 2
	tr, err := NewKernelTrainer(p, 3*perClass+added, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, dual, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range added {
		row(0)
	}
	m, _, err := tr.Train(ds, (&Dual{Kernel: dual}).Extended(ds.Len()).Kernel)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Result.Subproblems {
		grew := s.Pos == 0 || s.Neg == 0
		t.Logf("pair %d-%d: %d iterations, %d kernel evaluations", s.Pos, s.Neg, s.Iterations, s.KernelEvals)
		switch {
		case !grew && (s.Iterations != 0 || s.KernelEvals != 0):
			t.Errorf("pair %d-%d had no new rows: %d iterations, %d kernel evaluations, want 0", s.Pos, s.Neg, s.Iterations, s.KernelEvals)
		case grew && s.KernelEvals == 0:
			t.Errorf("pair %d-%d grew by %d rows and computed no kernel value", s.Pos, s.Neg, added)
		}
	}
}
