package core

import "github.com/libsvmgo/libsvmgo/core/data"

// Instance weights (data.Dataset.SetWeight) multiply each row's cost in
// every trainer: C_i = C · (class weight) · w_i (dcd_svc.go, dcd_svr.go,
// primal_*.go, kerneltrain.go).

// rowWeights returns ds's weights, or nil when every row weighs 1: what
// the solvers take (nil keeps their unweighted arithmetic, so a data set
// of weights 1 trains bit for bit as one without weights).
func rowWeights(ds *data.Dataset) []float64 {
	w := ds.Weights()
	for _, v := range w {
		if v != 1 {
			return w
		}
	}
	return nil
}

// weightSum returns Σ_i wt[i] over the l rows, or l when wt is nil: the
// number of rows the weighted rows stand for (a row of weight 2 counts as
// the row given twice).
func weightSum(wt []float64, l int) float64 {
	if wt == nil {
		return float64(l)
	}
	var sum float64
	for _, v := range wt[:l] {
		sum += v
	}
	return sum
}
