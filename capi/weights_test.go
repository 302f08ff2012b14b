package main

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestTrainerWeightsMatchDuplicatedRows: rows given weight 2 through
// svmgo_trainer_set_weights train as the rows added twice, for a linear
// and kernel trainers (C-SVC, ν-SVC, ν-SVR); a refit after a weight
// changes starts warm and reaches the cold fit's objective.
func TestTrainerWeightsMatchDuplicatedRows(t *testing.T) {
	ds, err := data.ReadFile("../core/testdata/heart_scale", data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, nf := ds.Len(), ds.NumFeatures()
	x := make([]float32, 0, l*nf)
	for i := range l {
		x = append(x, ds.DenseRow(i)...)
	}
	var dupX []float32
	var dupY, w []float64
	for i := range l {
		w = append(w, 1)
		dupX, dupY = append(dupX, ds.DenseRow(i)...), append(dupY, ds.Label(i))
		if i%4 == 0 {
			w[i] = 2
			dupX, dupY = append(dupX, ds.DenseRow(i)...), append(dupY, ds.Label(i))
		}
	}
	for _, opts := range []string{"-s 3 -e 0.00001", "-t 2 -c 4 -e 0.00001", "-s 1 -t 2 -n 0.4 -e 0.0000001", "-s 4 -t 2 -n 0.4 -c 2 -e 0.0000001"} {
		hw, err := newTrainer(opts, uint64(l), uint64(nf), 0)
		if err != nil {
			t.Fatal(err)
		}
		hd, err := newTrainer(opts, uint64(len(dupY)), uint64(nf), 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := addDense(hw, ds.Labels(), x, l, nf); err != nil {
			t.Fatal(err)
		}
		if err := setWeights(hw, 0, w); err != nil {
			t.Fatal(err)
		}
		if err := addDense(hd, dupY, dupX, len(dupY), nf); err != nil {
			t.Fatal(err)
		}
		mw, err := fit(hw)
		if err != nil {
			t.Fatal(err)
		}
		md, err := fit(hd)
		if err != nil {
			t.Fatal(err)
		}
		ow, od := objective(mw), objective(md)
		if math.Abs(ow-od) > 1e-6*math.Abs(od) {
			t.Errorf("%s: objective weighted %.10g, duplicated %.10g", opts, ow, od)
		}
		// Change weights and refit warm: the cold fit of a fresh trainer
		// on the same rows and weights gives the same objective.
		if err := setWeights(hw, 5, []float64{0.5, 3}); err != nil {
			t.Fatal(err)
		}
		warm, err := fit(hw)
		if err != nil {
			t.Fatal(err)
		}
		hc, _ := newTrainer(opts, uint64(l), uint64(nf), 0)
		_ = addDense(hc, ds.Labels(), x, l, nf)
		w[5], w[6] = 0.5, 3
		_ = setWeights(hc, 0, w)
		cold, err := fit(hc)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := objective(warm), objective(cold); math.Abs(a-b) > 1e-5*math.Abs(b) || a == ow {
			t.Errorf("%s: warm refit objective %.10g, cold %.10g (before the change %.10g)", opts, a, b, ow)
		}
		w[5], w[6] = 1, 1
	}
}

func objective(m core.Model) float64 {
	switch m := m.(type) {
	case *linear.LinearModel:
		return m.Result.DualObjective
	case *core.KernelModel:
		return m.Result.Objective
	}
	return math.NaN()
}

func TestTrainerSetWeightsErrors(t *testing.T) {
	h, err := newTrainer("-s 1", 4, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := addDense(h, []float64{1, -1}, []float32{1, 0, 0, 1}, 2, 2); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		first uint64
		w     []float64
		code  int
	}{
		{0, []float64{1, math.NaN()}, statusNotFinite},
		{0, []float64{math.Inf(1)}, statusNotFinite},
		{0, []float64{2, 0}, statusInvalidArgument},
		{1, []float64{-1}, statusInvalidArgument},
		{1, []float64{1, 1}, statusInvalidArgument},
		{3, nil, statusInvalidArgument},
	} {
		if err := setWeights(h, c.first, c.w); statusOf(err) != c.code {
			t.Errorf("setWeights(%d, %v) = %v, want status %d", c.first, c.w, err, c.code)
		}
	}
	if h.ds.Weights() != nil {
		t.Errorf("a refused call set weights: %v", h.ds.Weights())
	}
	if err := setWeights(h, 2, nil); err != nil {
		t.Errorf("an empty range at the end: %v", err)
	}
}
