package core

import (
	"math"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestNoDriftLinear (issue 21, item 3): a stream of 100 warm retrains, each
// after 1% of the rows left (the oldest) and 1% arrived, as the daemon and
// the C ABI trainer run them (core.Trainer, LIBLINEAR's incremental
// defaults, the dual state of each run the next one's start), ends at the
// model a cold solve of the same rows gives: the dual objective within
// relative 1e-6 of a cold solve at -e/100, the same support vectors but
// for rows at the edge of the margin, and the same test labels but for
// ties (decision values 0 to rounding). On 4,000 rows of debdesc_bin
// (a window sliding over 8,000), for -s 1 through its primal twin (the
// default) and by DCD, -s 2 and -s 0; the primal Newton state of -s 1,
// -s 2 and -s 0 outlives every removal (LinearDual.DeleteRows).
func TestNoDriftLinear(t *testing.T) {
	if raceEnabled {
		// One goroutine's arithmetic: nothing for the race detector, which
		// slows it 20-100 times. It runs in make test's -short pass (5 s):
		// it is issue 21's acceptance test for linear models.
		t.Skip("100 retrains under the race detector")
	}
	all, err := data.ReadFile("testdata/debdesc_bin.train", data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	test, err := data.ReadFile("testdata/debdesc_bin.test", data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const window, step, steps = 4000, 40, 100
	for _, tc := range []struct {
		options string
		keeps   bool // a run keeps its primal Newton state across removals
	}{{"-s 1 -e 0.001", true}, {"-s 1 -twin 0 -e 0.001", false}, {"-s 2 -e 0.0001", true}, {"-s 0 -e 0.0001", true}} {
		options := tc.options
		t.Run(options, func(t *testing.T) {
			lo, _, err := ParseLinearOptions(strings.Fields(options))
			if err != nil {
				t.Fatal(err)
			}
			o := TrainParams{Family: LinearFamily, Linear: lo.Incremental()}
			tr, err := NewTrainer(o, window, all.NumFeatures())
			if err != nil {
				t.Fatal(err)
			}
			ds := data.NewSparse(window, all.Nonzeros(), all.NumFeatures())
			appendRows(t, ds, all, 0, window)
			_, dual, err := tr.Train(ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			gone := make([]int, step)
			for k := range gone {
				gone[k] = k
			}
			var m Model
			for s := range steps {
				if err := ds.DeleteRows(gone); err != nil {
					t.Fatal(err)
				}
				if err := dual.DeleteRows(gone); err != nil {
					t.Fatal(err)
				}
				if tc.keeps && dual.Linear.Gradient == nil {
					t.Fatalf("retrain %d: the removal dropped the primal Newton state", s)
				}
				from := window + s*step
				appendRows(t, ds, all, from, from+step)
				if m, dual, err = tr.Train(ds, dual.Extended(ds.Len())); err != nil {
					t.Fatal(err)
				}
				if sum, _ := SummaryOf(m); !sum.Converged {
					t.Fatalf("retrain %d did not converge", s)
				}
			}
			warm := m.(*linear.LinearModel)

			p := o.Linear
			p.Eps /= 100
			cold, cdual, err := linear.TrainLinear(ds, p)
			if err != nil {
				t.Fatal(err)
			}
			wr, cr := warm.Result, cold.Result
			rel := math.Abs(wr.DualObjective-cr.DualObjective) / math.Abs(cr.DualObjective)
			t.Logf("dual objective warm %.10g cold(-e/100) %.10g relative %.2g; primal %.10g %.10g; SV %d %d",
				wr.DualObjective, cr.DualObjective, rel, wr.PrimalObjective, cr.PrimalObjective, wr.NumSV, cr.NumSV)
			if rel > 1e-6 {
				t.Errorf("dual objective %v, a cold solve at -e/100 %v: relative %g > 1e-6", wr.DualObjective, cr.DualObjective, rel)
			}
			// Support vectors: α > 0 in both, but for rows whose margin
			// y wᵀx is within edgeTol of 1 (the L2 loss's α = 2C(1 − y wᵀx)
			// crosses 0 there).
			const edgeTol = 1e-2
			wa, ca := dual.Linear.Alpha[0], cdual.Alpha[0]
			dec := make([]float64, 1)
			for i := range ds.Len() {
				if (wa[i] > 0) == (ca[i] > 0) {
					continue
				}
				idx, val := ds.SparseRow(i)
				margin := ds.Label(i) * cold.DecisionSparse(dec, idx, val)[0]
				if cold.Labels[0] != 1 {
					margin = -margin
				}
				if math.Abs(margin-1) > edgeTol {
					t.Errorf("row %d: α warm %v cold %v, margin %v", i, wa[i], ca[i], margin)
				}
			}
			// The test rows: the same labels, but for ties, rows whose
			// decision value is 0 to rounding (features the rows hardly
			// have: 3 of debdesc_bin's 12,733 test rows, at ±1e-8 and below,
			// where a cold solve at -e and one at -e/100 disagree too).
			const tieTol = 1e-6
			cdec := make([]float64, 1)
			for i := range test.Len() {
				idx, val := test.SparseRow(i)
				if warm.PredictSparse(idx, val) != cold.PredictSparse(idx, val) && math.Abs(cold.DecisionSparse(cdec, idx, val)[0]) > tieTol {
					t.Errorf("test row %d: warm and cold labels differ, decision values %v and %v", i,
						warm.DecisionSparse(dec, idx, val)[0], cdec[0])
				}
			}
			t.Logf("test accuracy warm %.6f cold %.6f", accuracyOn(warm, test), accuracyOn(cold, test))
		})
	}
}

// appendRows appends rows [from, to) of src to dst.
func appendRows(t *testing.T, dst, src *data.Dataset, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		idx, val := src.SparseRow(i)
		if err := dst.AppendSparse(src.Label(i), idx, val); err != nil {
			t.Fatal(err)
		}
	}
}

// accuracyOn returns the fraction of ds's rows m labels right.
func accuracyOn(m *linear.LinearModel, ds *data.Dataset) float64 {
	right := 0
	for i := range ds.Len() {
		idx, val := ds.SparseRow(i)
		if m.PredictSparse(idx, val) == ds.Label(i) {
			right++
		}
	}
	return float64(right) / float64(ds.Len())
}
