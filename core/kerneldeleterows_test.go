package core

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestKernelDualDeleteRows removes rows from a trained dual and its data
// set and checks the values kept, the dropped gradient, and that the warm
// run from it reaches the cold run's objective on the remaining rows.
func TestKernelDualDeleteRows(t *testing.T) {
	ds, err := ReadFile("testdata/heart_scale", ReadOptions{})
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
		t.Fatal("the trained dual carries no gradient; the test would not see it dropped")
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
	if dual.Gradient != nil {
		t.Error("Gradient kept after removing rows")
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
}

func TestKernelDualDeleteRowsRefuses(t *testing.T) {
	g := &KernelGradient{Rows: 3}
	d := &KernelDual{Alpha: [][]float64{{1, 2, 3}, {4, 5, 6}}, Gradient: g}
	for _, rows := range [][]int{{3}, {-1}, {1, 1}} {
		if err := d.DeleteRows(rows); !errors.Is(err, ErrRowPosition) {
			t.Errorf("DeleteRows(%v): %v, want ErrRowPosition", rows, err)
		}
	}
	if d.Gradient != g || len(d.Alpha[0]) != 3 {
		t.Error("a refused call changed the dual")
	}
	bad := &KernelDual{Alpha: [][]float64{{1, 2}, {3}}}
	if err := bad.DeleteRows([]int{0}); !errors.Is(err, ErrRowPosition) {
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
