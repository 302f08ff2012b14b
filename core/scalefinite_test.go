package core

import (
	"math"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
)

// TestScaleDropsUnscalableFeatures (issue 22, fault 8): a feature whose
// range over the training rows is one float32 denormal wide scaled by a
// factor of 10⁴⁵, past float32: models trained with --scale on it
// predicted every row as non-finite. FitScale drops it (as a constant
// feature), so the models predict finite values, as without the feature.
func TestScaleDropsUnscalableFeatures(t *testing.T) {
	ds := data.NewDense(4, 2)
	tiny := float32(math.SmallestNonzeroFloat32)
	for i, row := range [][]float32{{0, 1}, {tiny, 2}, {0, -1}, {tiny, -2}} {
		if err := ds.AppendDense(float64(1-2*(i/2)), row); err != nil {
			t.Fatal(err)
		}
	}
	r, err := rowscale.FitScale(ds, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Dropped(0) || r.Dropped(1) {
		t.Fatalf("ranges %v..%v: want feature 1 dropped, feature 2 kept", r.Min, r.Max)
	}
	for _, options := range []string{"-s 2 --scale", "-t 2 --scale"} {
		o, _, err := parseTrainParams(strings.Fields(options), 0)
		if err != nil {
			t.Fatal(err)
		}
		m, err := TrainModel(ds, o)
		if err != nil {
			t.Fatal(err)
		}
		dec := make([]float64, 1)
		for _, x := range [][]float32{{1, 0.5}, {0, 1.5}, {tiny, -3}} {
			m.DecisionDense(dec, x)
			if math.IsNaN(dec[0]) || math.IsInf(dec[0], 0) {
				t.Errorf("%s: row %v: decision value %v", options, x, dec[0])
			}
			if got, want := m.PredictDense(x), float64(1); (x[1] > 0) != (got == want) {
				t.Errorf("%s: row %v: label %v", options, x, got)
			}
		}
	}
}
