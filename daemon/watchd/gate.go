package watchd

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// heldBack returns how many of a batch's n rows the gate holds back from
// training: max(1, ⌊n·GateHoldBack⌋), keeping at least one row to train on,
// so 0 for a batch of one row.
func heldBack(n int) int {
	return min(n-1, max(1, int(float64(n)*GateHoldBack)))
}

// gate reports whether r's model may be published: its score on ds's rows
// from `from` on — the newest batch's held-back rows, which it was not
// trained on — must reach GateMinAccuracy. The score is the accuracy for
// classification, the squared correlation for regression, and for a
// one-class SVM the fraction of the rows predicted +1 (inliers). The model
// scored is the one that would be published: the quantized model when
// there is one.
func (d *Daemon) gate(r *run, ds *data.Dataset, from int, name string) bool {
	n := ds.Len()
	held := n - from
	pred := make([]float64, 0, held)
	truth := ds.Labels()[from:]
	m := r.model()
	for i := from; i < n; i++ {
		idx, val := ds.SparseRow(i)
		pred = append(pred, m.PredictSparse(idx, val))
	}
	var score float64
	switch task := m.Info().Task; task {
	case core.TaskOneClass:
		inliers := 0
		for _, p := range pred {
			if p == 1 {
				inliers++
			}
		}
		score = float64(inliers) / float64(held)
	default:
		s := core.ScorePredictions(pred, truth, task == core.TaskRegression)
		score = s.Accuracy()
		if s.Regression {
			score = s.SquaredCorrelation
		}
	}
	if score >= d.cfg.GateMinAccuracy {
		d.log.Info("gate passed", "batch", name, "rows", held, "score", score, "min", d.cfg.GateMinAccuracy,
			"quantized_bits", r.bits())
		return true
	}
	d.metrics.gateRefused.Inc()
	d.log.Warn("gate refused the model: not published", "batch", name, "rows", held,
		"score", score, "min", d.cfg.GateMinAccuracy, "quantized_bits", r.bits())
	return false
}
