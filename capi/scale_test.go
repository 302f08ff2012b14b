package main

import (
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// TestTrainerScale: the C ABI trainer's --scale (options parsed by
// options.ParseTrain) fits the ranges on the rows it holds, keeps them
// in the model, which predicts raw rows as core's model trained on the
// scaled rows predicts scaled ones, widens them with the model (features
// no row reached are dropped), and starts warm only while the ranges hold.
func TestTrainerScale(t *testing.T) {
	rows := []struct {
		y   float64
		idx []int32
		val []float32
	}{
		{1, []int32{0, 2}, []float32{4, 0.5}},
		{-1, []int32{1, 3}, []float32{10, -3}},
		{1, []int32{0, 3}, []float32{3, 2}},
		{-1, []int32{1, 2}, []float32{7, 1}},
		{1, []int32{0, 1}, []float32{5, 1}},
	}
	for _, opts := range []string{"-s 1 --scale", "-s 0 -t 2 -g 0.5 --scale --scale-lower 0"} {
		h, err := newTrainer(opts, 10, 6, 100)
		if err != nil {
			t.Fatal(err)
		}
		raw := data.NewSparse(10, 100, 0)
		indptr := []int64{0}
		var indices []int32
		var values []float32
		var labels []float64
		for _, r := range rows {
			indices = append(indices, r.idx...)
			values = append(values, r.val...)
			indptr = append(indptr, int64(len(indices)))
			labels = append(labels, r.y)
			if err := raw.AppendSparse(r.y, r.idx, r.val); err != nil {
				t.Fatal(err)
			}
		}
		if err := addCSR(h, labels, indptr, indices, values, len(rows)); err != nil {
			t.Fatal(err)
		}
		m, err := fit(h)
		if err != nil {
			t.Fatal(err)
		}
		if m.Info().NumFeatures != 6 {
			t.Fatalf("%s: model of %d features, want the trainer's 6", opts, m.Info().NumFeatures)
		}
		// The reference: core's model trained on the rows scaled by hand.
		o, _, err := options.ParseTrain(strings.Fields(opts), options.SyntaxAuto)
		if err != nil {
			t.Fatal(err)
		}
		r, scaled, err := core.ScaleTrainingRows(raw, o.Scale)
		if err != nil {
			t.Fatal(err)
		}
		if !o.IsKernel() {
			o.Linear.Params = o.Linear.Incremental()
		}
		o.Scale.Enabled = false
		ref, err := core.TrainModel(scaled, o.Params())
		if err != nil {
			t.Fatal(err)
		}
		dec := make([]float64, 1)
		want := make([]float64, 1)
		for i := range raw.Len() {
			idx, val := raw.SparseRow(i)
			m.DecisionSparse(dec, idx, val)
			ref.DecisionDense(want, scaled.DenseRow(i))
			if d := dec[0] - want[0]; d > 1e-5 || d < -1e-5 {
				t.Errorf("%s row %d: decision %v, core's on scaled rows %v", opts, i, dec[0], want[0])
			}
			// The widened features meet nothing: a value there is dropped.
			wide := m.DecisionSparse(make([]float64, 1), append(append([]int32(nil), idx...), 5), append(append([]float32(nil), val...), 100))
			if wide[0] != dec[0] {
				t.Errorf("%s row %d: feature 6 (never seen) changed the decision: %v vs %v", opts, i, wide[0], dec[0])
			}
		}
		if h.dual == nil || h.dual.Scale == nil || h.dual.Scale.Max[0] != r.Max[0] {
			t.Fatalf("%s: the dual does not record the ranges", opts)
		}
		// A row inside the ranges: the next fit starts warm from the same
		// ranges; a row beyond them refits the ranges and starts cold.
		for _, c := range []struct {
			val  float32
			warm bool
		}{{4.5, true}, {50, false}} {
			if err := addCSR(h, []float64{1}, []int64{0, 1}, []int32{0}, []float32{c.val}, 1); err != nil {
				t.Fatal(err)
			}
			before := h.dual.Scale
			if _, err := fit(h); err != nil {
				t.Fatal(err)
			}
			if same := h.dual.Scale.Max[0] == before.Max[0]; same != c.warm {
				t.Errorf("%s: after a row with feature 1 = %v the ranges changed: %v, want %v", opts, c.val, !same, !c.warm)
			}
		}
	}
}
