package core

import (
	"slices"
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

// TestWarmSettledPairs streams digits (6 of 600 rows out and in a
// retrain, then a retrain with nothing changed) through two trainers with
// kept columns, one of which solves every subproblem (solveSettled), for
// C-SVC and one-class: the subproblems warmSettled finds optimal at their
// warm start must come out as the solver leaves them after no iteration,
// α, ρ, coefficients, objective, gap and counts bit for bit. The shortcut
// must have served every subproblem of the unchanged retrain and, for
// C-SVC, some pairs of each retrain with rows changed (after the first,
// whose duals share one gradient, cut twice: it rebuilds G from α).
func TestWarmSettledPairs(t *testing.T) {
	full, err := data.ReadFile("testdata/digits.train", data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	const store, batch = 600, 6
	for _, svm := range []SVMType{CSVC, OneClass} {
		t.Run(svm.String(), func(t *testing.T) {
			p := DefaultKernelParams()
			p.SVMType, p.KeepMB = svm, 16
			solving, settling, ds, add, d0, d1 := keptPair(t, full, p, p, store+batch, store)
			solving.solveSettled = true
			oldest := []int{0, 1, 2, 3, 4, 5}
			for b := range 4 {
				before := settling.settled.Load()
				if b < 3 {
					slideBoth(t, ds, d0, d1, oldest, add, batch)
				}
				m0, m1, n0, n1 := retrainBoth(t, b, solving, settling, ds, d0, d1)
				if !slices.Equal(m0.Rho, m1.Rho) || !slices.Equal(m0.Coef, m1.Coef) {
					t.Fatalf("retrain %d: ρ or coefficients differ when settled subproblems skip the solver", b)
				}
				for k, s0 := range m0.Result.Subproblems {
					// Kernel evaluations depend on which pairs ran first on
					// two workers (they share the kept columns): not compared.
					s1 := m1.Result.Subproblems[k]
					s0.KernelEvals, s1.KernelEvals = 0, 0
					if s0 != s1 {
						t.Fatalf("retrain %d, subproblem %d-%d: solved %+v, settled %+v", b, s0.Pos, s0.Neg, s0, s1)
					}
				}
				n := settling.settled.Load() - before
				t.Logf("retrain %d: %d of %d subproblems settled at their warm start", b, n, len(m1.Result.Subproblems))
				switch {
				case svm == CSVC && b > 0 && b < 3 && n == 0:
					t.Errorf("retrain %d: no pair settled at its warm start", b)
				case b == 3 && n != int64(len(m1.Result.Subproblems)):
					t.Errorf("retrain %d with no row changed: %d of %d subproblems settled, want all", b, n, len(m1.Result.Subproblems))
				}
				if solving.settled.Load() != 0 {
					t.Fatal("solveSettled did not stop the shortcut")
				}
				d0, d1 = n0, n1
			}
		})
	}
}
