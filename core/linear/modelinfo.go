package linear

import (
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core/model"
)

// Summary returns r in FitSummary's terms.
func (r *TrainResult) Summary() model.FitSummary {
	return model.FitSummary{Iterations: r.Iterations, Work: r.Updates, WorkUnit: model.WorkRowsRead,
		HessianProducts: r.HessianProducts, Objective: r.PrimalObjective, NumSV: r.NumSV, Converged: r.Converged}
}

// Info describes the linear model (Model).
func (m *LinearModel) Info() model.ModelInfo {
	task := model.TaskClassification
	if m.IsRegression() {
		task = model.TaskRegression
	}
	return model.ModelInfo{
		Kind: model.KindLinear, Task: task, NumFeatures: m.NumFeatures,
		Labels: m.Labels, NumDecisionValues: m.NrW(), Probability: m.HasProbability(),
		Created: m.Created, Scale: m.Scale, Trained: true, Summary: m.Result.Summary(),
	}
}

// LabelOf turns decision values into the prediction, by LinearPrediction.
func (m *LinearModel) LabelOf(dec []float64) float64 {
	return LinearPrediction(dec, m.Labels, m.IsRegression())
}

// Formulation names what the linear model solves: its solver, as
// LIBLINEAR's -s names it.
func (m *LinearModel) Formulation() string { return m.Solver.String() }

// WithCreated returns the linear model with its creation time set to t:
// a shallow copy sharing m's slices, read only.
func (m *LinearModel) WithCreated(t int64) model.Model {
	c := *m
	c.Created = t
	return &c
}

// checkFinite refuses a non-finite bias or weight: the file format can
// carry them, no training produces them, and every prediction from them
// would be refused as non-finite (issue 10, fault 2).
func (m *LinearModel) checkFinite() error {
	if math.IsNaN(m.Bias) || math.IsInf(m.Bias, 0) {
		return fmt.Errorf("core: linear model: bias %v is not finite", m.Bias)
	}
	for i, w := range m.W {
		if f := float64(w); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("core: linear model: weight %d is %v", i, f)
		}
	}
	return nil
}

// LinearPrediction turns the decision values of a linear model into its
// prediction, as LinearModel's predictors do: for regression the value
// dec[0]; for one decision function (two classes) labels[0] when
// dec[0] > 0, else labels[1]; otherwise the label of the largest decision
// value, the first in labels order on a tie (LIBLINEAR's rule). It
// allocates nothing; it panics if dec is empty or labels is shorter than
// the rule needs.
func LinearPrediction(dec []float64, labels []int32, regression bool) float64 {
	switch {
	case regression:
		return dec[0]
	case len(dec) == 1:
		if dec[0] > 0 {
			return float64(labels[0])
		}
		return float64(labels[1])
	}
	best := 0
	for k, v := range dec {
		if v > dec[best] {
			best = k
		}
	}
	return float64(labels[best])
}

// A linear model can give probabilities (Model, ProbabilityModel).
var _ model.ProbabilityModel = (*LinearModel)(nil)
