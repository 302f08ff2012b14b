package watchd

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
)

// TestScaleRetrain: with --scale in the training options the daemon fits
// the ranges on the rows it trains on at every retrain, publishes them in
// the model (which then predicts raw rows), starts warm exactly when the
// ranges are those of the run before (scale_kept) and then reaches the
// cold solve's optimum on the same scaled rows.
func TestScaleRetrain(t *testing.T) {
	const options = "-t 2 --scale"
	all := lines(t, digitsTrain)
	test := readTest(t, digitsTest)
	cfg := kernelConfig(t.TempDir(), options, 2000, 64)
	cfg.ColdEvery = 1
	s := newSync(t, cfg)
	// The batches: 300 rows, then 60 rows inside their ranges (the
	// ranges hold: a warm retrain), then 300 rows that widen them (a
	// refit, cold), then 60 inside again.
	first, err := rowscale.FitScale(readText(t, strings.Join(all[:300], "")), -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var inside, outside []string
	for _, line := range all[300:] {
		ds := readText(t, line)
		r, err := rowscale.FitScale(ds, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		in := true
		for j := range r.NumFeatures() {
			in = in && r.Min[j] >= first.Min[j] && r.Max[j] <= first.Max[j]
		}
		if in && len(inside) < 120 {
			inside = append(inside, line)
		} else if !in && len(outside) < 300 {
			outside = append(outside, line)
		}
	}
	if len(inside) < 120 {
		t.Fatalf("only %d rows inside the first ranges", len(inside))
	}
	batches := [][]string{all[:300], inside[:60], outside, inside[60:]}
	var held []string
	var prev *core.KernelModel
	for i, b := range batches {
		s.ingest(t, fmt.Sprintf("b%02d.txt", i), strings.Join(b, ""))
		held = append(held, b...)
		got := publishedKernel(t, cfg.Root, uint64(i+1))
		rows := readText(t, strings.Join(held, ""))
		want, err := rowscale.FitScale(rows, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		want = want.Widen(64)
		if got.Scale == nil || !core.SameScale(got.Scale, want) {
			t.Fatalf("batch %d: published ranges are not those of the %d rows held", i, len(held))
		}
		r := s.records(t, "retrained")[i]
		kept := prev != nil && core.SameScale(prev.Scale, got.Scale)
		if kept != (i == 1 || i == 3) {
			t.Errorf("batch %d: ranges kept %v, want %v", i, kept, i == 1 || i == 3)
		}
		if r["scale_kept"] != kept || r["warm"] != (i > 0) {
			t.Errorf("batch %d: logged warm %v scale_kept %v, want %v %v", i, r["warm"], r["scale_kept"], i > 0, kept)
		}
		// The model takes raw rows: it predicts the test rows as the same
		// model without its scaling predicts them scaled.
		scaled, err := rowscale.ScaleDataset(test, got.Scale)
		if err != nil {
			t.Fatal(err)
		}
		plain := *got
		if err := plain.SetScale(nil); err != nil {
			t.Fatal(err)
		}
		p := got.PredictBatch(make([]float64, test.Len()), test)
		q := plain.PredictBatch(make([]float64, test.Len()), scaled)
		if !slices.Equal(p, q) {
			t.Errorf("batch %d: raw-row predictions differ from the unscaled model's on scaled rows", i)
		}
		prev = got
	}
	// Whether warm or refitted cold, every retrain reaches the cold
	// solve's optimum on the same rows.
	// The warm retrains (ranges kept) did less work than the cold solve.
	for i, r := range s.records(t, "cold solve for comparison") {
		wo, co := r["warm_objective"].(float64), r["cold_objective"].(float64)
		if math.Abs(wo-co) > objectiveTol*math.Abs(co) {
			t.Errorf("batch %d: objective %.10g, the cold solve's %.10g", i, wo, co)
		}
		w, cold, ratio := ratioOf(r)
		t.Logf("batch %d: kernel evaluations %v, cold %v, ratio %.3f", i, w, cold, ratio)
		if (i == 1 || i == 3) && ratio >= 0.9 {
			t.Errorf("batch %d: a warm retrain under kept ranges did %.3f of the cold work", i, ratio)
		}
		if (i == 0 || i == 2) && ratio != 1 {
			t.Errorf("batch %d: a retrain with new ranges did %.3f of the cold work, want 1 (cold)", i, ratio)
		}
	}
}
