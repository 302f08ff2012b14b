package solve

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// maxTotalCost bounds Σ_i C_i, the costs of the rows (C, class weight and
// instance weight multiplied): 2⁶⁰⁰, about 10¹⁸⁰, past any cost that trains
// a useful model, and far enough below float64's 2¹⁰²⁴ that the objectives
// and their gradients (sums of C_i times losses and products of float32
// features, each at most 2²⁵⁶) stay finite. A weight of 1.797e308 made the
// objective and the stopping tests NaN: the primal solvers stopped at once
// calling a garbage model converged, and a caller saw no error.
const maxTotalCost = 0x1p600

// CheckCosts refuses rows whose costs the solvers cannot use: an instance
// weight that makes some C_i = c·w_i underflow to 0 (a solver's bound
// must be positive) or the sum Σ_i C_i pass maxTotalCost, for the cost c
// (1 where the weight alone bounds α: one-class, ν-SVC) and the class
// weights. Errors wrap ErrParams and data.ErrBadWeight.
func CheckCosts(ds *data.Dataset, c float64, weights []model.ClassWeight) error {
	cMin, cMax := c, c // over the classes
	for _, cw := range weights {
		cMin, cMax = min(cMin, c*cw.Weight), max(cMax, c*cw.Weight)
	}
	wt := RowWeights(ds)
	if wt == nil {
		if total := cMax * float64(ds.Len()); !(total <= maxTotalCost) {
			return fmt.Errorf("%w: %w: %d rows of cost %v add up to %v, more than %v", model.ErrParams, data.ErrBadWeight, ds.Len(), cMax, total, float64(maxTotalCost))
		}
		return nil
	}
	var total float64
	for i, w := range wt[:ds.Len()] {
		if !(cMin*w > 0) {
			return fmt.Errorf("%w: %w: row %d: weight %v times C %v is 0 in float64", model.ErrParams, data.ErrBadWeight, i+1, w, cMin)
		}
		total += cMax * w
	}
	if !(total <= maxTotalCost) {
		return fmt.Errorf("%w: %w: the rows' costs (C times weights) add up to %v, more than %v", model.ErrParams, data.ErrBadWeight, total, float64(maxTotalCost))
	}
	return nil
}

// Instance weights (data.Dataset.SetWeight) multiply each row's cost in
// every trainer: C_i = C · (class weight) · w_i (dcd_svc.go, dcd_svr.go,
// primal_*.go, kerneltrain.go).

// RowWeights returns ds's weights, or nil when every row weighs 1: what
// the solvers take (nil keeps their unweighted arithmetic, so a data set
// of weights 1 trains bit for bit as one without weights).
func RowWeights(ds *data.Dataset) []float64 {
	w := ds.Weights()
	for _, v := range w {
		if v != 1 {
			return w
		}
	}
	return nil
}

// WeightSum returns Σ_i wt[i] over the l rows, or l when wt is nil: the
// number of rows the Weighted rows stand for (a row of weight 2 counts as
// the row given twice).
func WeightSum(wt []float64, l int) float64 {
	if wt == nil {
		return float64(l)
	}
	var sum float64
	for _, v := range wt[:l] {
		sum += v
	}
	return sum
}

// Weighted returns c times w[t], or c when w is nil (no instance weights).
func Weighted(c float64, w []float64, t int) float64 {
	if w != nil {
		return c * w[t]
	}
	return c
}
