package core

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestKernelDualDeleteRows removes rows from a trained dual and its data
// set and checks the values kept, the kept gradient, and that the warm
// run from it reaches the cold run's objective on the remaining rows with
// fewer kernel evaluations (TestRemovedGradient checks the gradient's
// values).
func TestKernelDualDeleteRows(t *testing.T) {
	ds, err := data.ReadFile("testdata/heart_scale", data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultKernelParams()
	p.C = 10
	tr, err := NewKernelTrainer(p, ds.Len(), ds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	_, dual, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dual.Gradient == nil {
		t.Fatal("the trained dual carries no gradient")
	}
	n := ds.Len()
	before := slices.Clone(dual.Alpha[0])
	del := []int{n - 1, 3, 100, 0, 57}
	if err := ds.DeleteRows(del); err != nil {
		t.Fatal(err)
	}
	if err := dual.DeleteRows(del); err != nil {
		t.Fatal(err)
	}
	if dual.Gradient == nil || dual.Gradient.Rows != n-len(del) {
		t.Error("Gradient dropped after removing rows")
	}
	var want []float64
	for r, a := range before {
		if !slices.Contains(del, r) {
			want = append(want, a)
		}
	}
	if !slices.Equal(dual.Alpha[0], want) {
		t.Fatalf("kept α differ from the original rows' (len %d, want %d)", len(dual.Alpha[0]), len(want))
	}

	mWarm, _, err := tr.Train(ds, dual)
	if err != nil {
		t.Fatal(err)
	}
	mCold, _, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, c := mWarm.Result.Objective, mCold.Result.Objective
	if math.Abs(w-c) > 1e-4*math.Abs(c) {
		t.Errorf("warm objective %.10g, cold %.10g: beyond 1e-4 relative", w, c)
	}
	if mWarm.Result.Iterations >= mCold.Result.Iterations {
		t.Errorf("warm run took %d iterations, cold %d: the warm start was not used", mWarm.Result.Iterations, mCold.Result.Iterations)
	}
	if mWarm.Result.KernelEvals >= mCold.Result.KernelEvals {
		t.Errorf("warm run took %d kernel evaluations, cold %d: the gradient was rebuilt", mWarm.Result.KernelEvals, mCold.Result.KernelEvals)
	}
}

func TestKernelDualDeleteRowsRefuses(t *testing.T) {
	g := &KernelGradient{Rows: 3}
	d := &KernelDual{Alpha: [][]float64{{1, 2, 3}, {4, 5, 6}}, Gradient: g}
	for _, rows := range [][]int{{3}, {-1}, {1, 1}} {
		if err := d.DeleteRows(rows); !errors.Is(err, data.ErrRowPosition) {
			t.Errorf("DeleteRows(%v): %v, want ErrRowPosition", rows, err)
		}
	}
	if d.Gradient != g || len(d.Alpha[0]) != 3 {
		t.Error("a refused call changed the dual")
	}
	bad := &KernelDual{Alpha: [][]float64{{1, 2}, {3}}}
	if err := bad.DeleteRows([]int{0}); !errors.Is(err, data.ErrRowPosition) {
		t.Errorf("unequal vectors: %v, want ErrRowPosition", err)
	}
	// An empty call removes nothing and keeps the gradient usable.
	if err := d.DeleteRows(nil); err != nil || d.Gradient != g {
		t.Errorf("DeleteRows(nil): %v, gradient kept %v", err, d.Gradient == g)
	}
	if err := d.DeleteRows([]int{2, 0}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Alpha[0], []float64{2}) || !slices.Equal(d.Alpha[1], []float64{5}) || d.Gradient != nil {
		t.Errorf("after removing rows 2 and 0: %v, gradient %v", d.Alpha, d.Gradient)
	}
}

// TestLinearDualDeleteRowsRefuses: bad positions are errors and change
// nothing, as for the data set (data's TestDeleteRowsRefuses).
func TestLinearDualDeleteRowsRefuses(t *testing.T) {
	for _, del := range [][]int{{5}, {-1}, {0, 2, 0}, {4, 1, 4}} {
		dual := &linear.LinearDual{Alpha: [][]float64{{0, 1, 2, 3, 4}}}
		if err := dual.DeleteRows(del); !errors.Is(err, data.ErrRowPosition) {
			t.Errorf("LinearDual.DeleteRows(%v): %v, want ErrRowPosition", del, err)
		}
		if !slices.Equal(dual.Alpha[0], []float64{0, 1, 2, 3, 4}) {
			t.Errorf("LinearDual.DeleteRows(%v) changed the dual to %v", del, dual.Alpha[0])
		}
	}
	uneven := &linear.LinearDual{Alpha: [][]float64{{1, 2}, {1}}}
	if err := uneven.DeleteRows([]int{0}); !errors.Is(err, data.ErrRowPosition) {
		t.Errorf("uneven dual: %v, want ErrRowPosition", err)
	}
	if err := (&linear.LinearDual{}).DeleteRows([]int{0}); !errors.Is(err, data.ErrRowPosition) {
		t.Errorf("empty dual: %v, want ErrRowPosition", err)
	}
	if err := (&linear.LinearDual{}).DeleteRows(nil); err != nil {
		t.Errorf("nothing from an empty dual: %v", err)
	}
}

// TestLinearDualDeleteRows: every vector loses the same positions and keeps
// the order of the rest.
func TestLinearDualDeleteRows(t *testing.T) {
	dual := &linear.LinearDual{
		Labels: []int32{3, 5},
		Alpha:  [][]float64{{0, 1, 2, 3, 4, 5}, {10, 11, 12, 13, 14, 15}},
	}
	if err := dual.DeleteRows([]int{5, 0, 3}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dual.Alpha[0], []float64{1, 2, 4}) || !slices.Equal(dual.Alpha[1], []float64{11, 12, 14}) {
		t.Errorf("dual after deleting 5, 0, 3: %v", dual.Alpha)
	}
}

// TestLinearDualDeleteRowsAllocs: compaction is in place; only the sorted
// copy of the positions is allocated.
func TestLinearDualDeleteRowsAllocs(t *testing.T) {
	dual := &linear.LinearDual{Alpha: [][]float64{make([]float64, 30), make([]float64, 30)}}
	del := []int{7, 2}
	fn := func() {
		dual.DeleteRows(del)
		for k := range dual.Alpha {
			dual.Alpha[k] = dual.Alpha[k][:30]
		}
	}
	if got := testing.AllocsPerRun(100, fn); got > 1 {
		t.Errorf("dual: %v allocations a call, want at most 1", got)
	}
}
