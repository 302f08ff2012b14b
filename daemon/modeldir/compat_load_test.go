package modeldir

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// loadCompat reads a fixture through the loader every path uses.
func loadCompat(t *testing.T, path string) any {
	t.Helper()
	m, err := modelfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// compatPredict computes the outputs TestCompatFixtures compares through
// the one model interface, core.Model, and checks that its description
// agrees with the kind's own methods.
func compatPredict(t *testing.T, a any, ds *data.Dataset) ([]compatRow, core.Task) {
	m := a.(core.Model)
	info := m.Info()
	var rows []compatRow
	for i := range min(compatRows, ds.Len()) {
		x := denseRow(ds, i, info.NumFeatures)
		idx, val := rowOf(ds, i)
		dec := m.DecisionDense(make([]float64, 64), x)
		if len(dec) != info.NumDecisionValues {
			t.Fatalf("%d decision values, Info says %d", len(dec), info.NumDecisionValues)
		}
		r := compatRow{
			Row:            i,
			DecisionDense:  bitsOf(dec),
			DecisionSparse: bitsOf(m.DecisionSparse(make([]float64, 64), idx, val)),
			LabelDense:     math.Float64bits(m.PredictDense(x)),
			LabelSparse:    math.Float64bits(m.PredictSparse(idx, val)),
		}
		if got := m.LabelOf(dec); !samePrediction(info.Task, got, math.Float64frombits(r.LabelDense)) {
			t.Errorf("row %d: LabelOf gives %v, PredictDense %v", i, got, m.PredictDense(x))
		}
		if info.Probability {
			r.Probability = bitsOf(m.(core.ProbabilityModel).ProbabilityDense(make([]float64, 64), x))
		}
		rows = append(rows, r)
	}
	batch := m.PredictBatch(make([]float64, ds.Len()), ds)
	for i, r := range rows {
		if !samePrediction(info.Task, batch[i], math.Float64frombits(r.LabelSparse)) {
			t.Errorf("row %d: PredictBatch gives %v, PredictSparse %v", i, batch[i], math.Float64frombits(r.LabelSparse))
		}
	}
	if q, ok := m.(quantize.Model); ok && q.Bits() != info.Bits {
		t.Errorf("Info.Bits %d, Bits() %d", info.Bits, q.Bits())
	}
	return rows, info.Task
}

// regressionPredictTol bounds, relative to max(1, |v|), how far a
// regression model's predictions (PredictDense, PredictSparse, the batch
// calls: the blocked float32 path of issue 12) may lie from its float64
// decision values. Issue 12 states the blocked path's error as
// 1e-6·(Σ|coef·K| + |ρ|); the fixtures' values differ by at most 3e-8
// relative.
const regressionPredictTol = 1e-6

// samePrediction reports whether a and b are the same prediction: equal
// bit for bit for a class label or a one-class ±1 (what the blocked path
// must never change), within regressionPredictTol for a regression value.
func samePrediction(task core.Task, a, b float64) bool {
	if task != core.TaskRegression {
		return math.Float64bits(a) == math.Float64bits(b)
	}
	return math.Abs(a-b) <= regressionPredictTol*max(1, math.Abs(a), math.Abs(b))
}
