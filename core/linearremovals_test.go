package core

import (
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestAfterRemovalsLinear: the daemon's removals (Dual.AfterRemovals,
// positions of each deletion in the rows of its moment) keep a linear
// run's primal Newton state, cut to the rows that stay, and leave the
// dual they start from as it was; the next run on the rows that stay and
// rows added reads fewer rows than one from the same α and w without the
// state, and reaches its objective.
func TestAfterRemovalsLinear(t *testing.T) {
	all := readTestdata(t, "debdesc_bin.train")
	const window = 2000
	lo, _, err := ParseLinearOptions(strings.Fields("-s 1"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(TrainParams{Family: LinearFamily, Linear: lo.Incremental()}, window, all.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	ds := data.NewSparse(window, all.Nonzeros(), all.NumFeatures())
	appendRows(t, ds, all, 0, window)
	_, dual, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := dual.Linear.Gradient
	removed := [][]int{{1, 2, 700}, {0, 5}}
	warm := dual.AfterRemovals(removed)
	if dual.Rows() != window || dual.Linear.Gradient != g {
		t.Fatalf("AfterRemovals changed the dual it started from (%d rows)", dual.Rows())
	}
	if warm.Linear.Gradient == nil || warm.Linear.Gradient.Rows != window-5 || warm.Rows() != window-5 {
		t.Fatalf("after 5 removals: gradient %v, %d rows", warm.Linear.Gradient != nil, warm.Rows())
	}
	for _, rows := range removed {
		if err := ds.DeleteRows(rows); err != nil {
			t.Fatal(err)
		}
	}
	appendRows(t, ds, all, window, window+5)
	reads := func(warm *Dual) (int64, float64) {
		m, _, err := tr.Train(ds, warm.Extended(ds.Len()))
		if err != nil {
			t.Fatal(err)
		}
		r := m.(*linear.LinearModel).Result
		if !r.Converged {
			t.Fatal("the warm run did not converge")
		}
		return r.Updates, r.PrimalObjective
	}
	kept, objKept := reads(warm)
	none, objNone := reads(warm.WithoutGradient())
	t.Logf("rows read with the state %d, without %d; objectives %.10g, %.10g", kept, none, objKept, objNone)
	if kept+window > none+5 {
		t.Errorf("rows read with the state %d, without %d: want about %d fewer", kept, none, window)
	}
	if d := (objKept - objNone) / objNone; d > 1e-4 || d < -1e-4 {
		t.Errorf("objective with the state %.10g, without %.10g", objKept, objNone)
	}
}
