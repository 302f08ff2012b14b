package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestNuInfeasibleWeighted: ν-SVC's feasibility counts rows by their
// instance weights (νL/2 ≤ min(L_i, L_j) with L_c the class's weight sum),
// as the same rows duplicated do: a ν infeasible by row counts trains when
// the weights make it feasible, and one the weights make infeasible fails
// with ErrParams, as on the duplicated rows, in training and in cross
// validation.
func TestNuInfeasibleWeighted(t *testing.T) {
	// Classes of 10, 3 and 2 rows; class 3's rows weigh 5 (and are given 5
	// times in dup): weights 10, 3 and 10. Pair (1, 3) allows ν ≤ 4/12 by
	// count, 1 by weight; pairs (1, 2) and (2, 3) allow ν ≤ 6/13 both ways.
	ws, dup := data.NewDense(15, 1), data.NewDense(23, 1)
	for i := range 15 {
		label, times := 1.0, 1
		switch {
		case i >= 13:
			label, times = 3, 5
		case i >= 10:
			label = 2
		}
		x := []float32{float32(i)}
		if err := ws.AppendDense(label, x); err != nil {
			t.Fatal(err)
		}
		if err := ws.SetWeight(i, float64(times)); err != nil {
			t.Fatal(err)
		}
		for range times {
			if err := dup.AppendDense(label, x); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := DefaultKernelParams()
	p.SVMType = NuSVC
	for _, c := range []struct {
		nu       float64
		feasible bool
		msg      string
	}{
		{0.34, true, ""}, // infeasible for the unweighted rows (TestNuInfeasible)
		{6.0 / 13, true, ""},
		{0.47, false, "classes 1 (10 rows by weight) and 2 (3 rows by weight)"},
		{0.9, false, "classes 1 (10 rows by weight) and 2 (3 rows by weight)"},
	} {
		p.Nu = c.nu
		mw, _, errW := TrainKernel(ws, p)
		md, _, errD := TrainKernel(dup, p)
		if c.feasible {
			if errW != nil || errD != nil {
				t.Errorf("ν = %v: weighted %v, duplicated %v; want both feasible", c.nu, errW, errD)
				continue
			}
			if d := relDiff(mw.Result.Objective, md.Result.Objective); d > weightObjRelTol {
				t.Errorf("ν = %v: objective weighted %.12g, duplicated %.12g", c.nu, mw.Result.Objective, md.Result.Objective)
			}
		} else {
			if !errors.Is(errW, ErrParams) || !errors.Is(errD, ErrParams) ||
				!strings.Contains(errW.Error(), "specified nu is infeasible") || !strings.Contains(errW.Error(), c.msg) {
				t.Errorf("ν = %v: weighted %v, duplicated %v; want ErrParams \"specified nu is infeasible\" naming %s", c.nu, errW, errD, c.msg)
			}
		}
		_, errW = CrossValidateKernel(ws, p, 3)
		if c.feasible != (errW == nil) || !c.feasible && !errors.Is(errW, ErrParams) {
			t.Errorf("ν = %v: cross validation %v, want feasible %v", c.nu, errW, c.feasible)
		}
	}
	// Unweighted, ν = 0.34 stays infeasible (pair (1, 3): 2 rows).
	p.Nu = 0.34
	for i := 13; i < 15; i++ {
		if err := ws.SetWeight(i, 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := TrainKernel(ws, p); !errors.Is(err, ErrParams) {
		t.Errorf("unweighted ν = 0.34: %v, want ErrParams", err)
	}
}
