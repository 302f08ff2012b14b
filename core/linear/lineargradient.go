package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Warm starts that carry the primal Newton method's state.
//
// A warm Newton run starts from f, ∇f, ∇f(0), ∇²f's diagonal and the
// margins at the previous w, a pass over every row (a quarter of a warm
// run), and its first line search needs the margins again. Over the
// previous run's rows they are known, so a LinearDual carries them and the
// next run reads only the rows added since at its start, and none for
// their margins (debdesc_bin: one row dot in two of a warm run's line
// search), when all but the features matches (newton.minimize).

// LinearGradient is the state of each decision function's primal Newton
// run (newton.go; -s 2, -s 1's primal twin, -s 0) at the w it returned,
// over rows 0..Rows−1. Rows appended since (α padded with zeros) or deleted
// through LinearDual.DeleteRows keep it usable; changed labels, weights or
// α do not (Check), and Train reads the rows. Changed features are outside
// the warm start's contract (TrainFrom): the run takes the kept margins
// as given, so its model is not the changed rows' optimum (core's scaled
// trainers start cold when the scaling changes). Train fills it for a
// trainer that keeps it (LinearTrainer.KeepGradient).
type LinearGradient struct {
	// Rows is the number of rows of the run.
	Rows int
	// Check is a 64-bit hash (hashLabels, hashLinearAlpha) of the labels
	// and instance weights of rows 0..Rows−1 and of Alpha[k][:Rows] for
	// every k. Their features are not hashed (hashLabels says why).
	Check uint64
	// Bias is the run's bias value (Params.Bias).
	Bias float64
	// Features is the number of features of the run's data set: a later
	// data set may have more (a feature no row had has weight 0 and adds
	// nothing to ∇f over these rows).
	Features int
	// Box holds each decision function's costs (C of its positive rows,
	// C of its negative rows) before instance weights.
	Box [][2]float64
	// W holds each decision function's weights, Features of them, then
	// the bias weight when Bias ≥ 0, in float64 (the model keeps float32).
	W [][]float64
	// G holds ∇f(W) over rows 0..Rows−1, laid out as W.
	G [][]float64
	// G0 holds ∇f(0) = −2 Σ C_i y_i x_i over rows 0..Rows−1 (−½ Σ for
	// logistic regression).
	G0 [][]float64
	// H holds ∇²f(W)'s diagonal less the identity,
	// 2 Σ_{y_i Wᵀx_i < 1} C_i x_ij², over rows 0..Rows−1 (for logistic
	// regression Σ C_i σ(z_i)(1 − σ(z_i)) x_ij²).
	H [][]float64
	// Loss holds Σ C_i max(0, 1 − y_i Wᵀx_i)² over rows 0..Rows−1 (for
	// logistic regression Σ C_i log(1 + exp(−y_i Wᵀx_i))).
	Loss []float64
	// Z holds each decision function's margins y_i Wᵀx_i of rows
	// 0..Rows−1.
	Z [][]float64

	// logistic marks a state of logistic regression's objective (-s 0):
	// its sums are of that loss (G0 = −½ Σ C_i y_i x_i, H the weights
	// C_i σ(z_i)(1 − σ(z_i))), not the squared hinge's.
	logistic bool
	// rows holds rows 0..Rows−1, set by Train: what lets the gradient
	// outlive removed rows (LinearDual.DeleteRows takes their terms out,
	// gradientrows.go); nil drops it when rows go.
	rows *keptRows
}

// keepsGradient reports whether a run in t fills LinearDual.Gradient: a
// trainer that keeps it, for the formulations whose every decision
// function the Newton method solves with its own test (-s 2; -s 1 as a primal twin).
func (t *LinearTrainer) keepsGradient() bool {
	p := &t.params
	return t.keepGradient && !t.cPath &&
		(p.Solver == L2LossSVCPrimal || (p.Solver == L2LossSVCDual && p.PrimalTwin) || p.Solver == L2Logistic)
}

// usableGradient returns warm's gradient when it was computed on ds's
// first Rows rows (n features) at warm's α, same bias and classes, in this
// run's order of decision functions (inClassOrder); else nil. hMid is
// hashTrainRows's first.
func (t *LinearTrainer) usableGradient(warm *LinearDual, labels []int32, box [][2]float64, n int, hMid [4]uint64, l int) *LinearGradient {
	if warm == nil || warm.Gradient == nil {
		return nil
	}
	g := warm.Gradient
	nrW := len(box)
	if g.Rows <= 0 || g.Rows > l || g.Bias != t.params.Bias || g.Features < 0 || g.Features > n ||
		g.logistic != (t.params.Solver == L2Logistic) ||
		len(warm.Alpha) != nrW || len(g.Box) != nrW || len(g.W) != nrW || len(g.G) != nrW ||
		len(g.G0) != nrW || len(g.H) != nrW || len(g.Loss) != nrW || len(g.Z) != nrW || len(warm.Labels) != nrW {
		return nil
	}
	dim := g.Features
	if g.Bias >= 0 {
		dim++
	}
	for k := range nrW {
		if len(g.W[k]) != dim || len(g.G[k]) != dim || len(g.G0[k]) != dim || len(g.H[k]) != dim ||
			len(g.Z[k]) != g.Rows || len(warm.Alpha[k]) < g.Rows {
			return nil
		}
	}
	if hashLinearAlpha(hMid, warm.Alpha, g.Rows) != g.Check {
		return nil
	}
	return g.inClassOrder(warm.Labels, labels, box)
}

// copyWidened copies v, a vector over n features and then the bias
// weight when bias ≥ 0, into dst, a vector over more features laid out
// the same way: the features added are 0.
func copyWidened(dst, v []float64, n int, bias float64) {
	copy(dst, v[:n])
	clear(dst[n:])
	if bias >= 0 {
		dst[len(dst)-1] = v[n]
	}
}

// newLinearGradient returns an empty gradient for nrW decision functions
// over l rows of n features.
func newLinearGradient(nrW, l, n int, bias float64) *LinearGradient {
	return &LinearGradient{Rows: l, Bias: bias, Features: n, Box: make([][2]float64, nrW), W: make([][]float64, nrW),
		G: make([][]float64, nrW), G0: make([][]float64, nrW), H: make([][]float64, nrW), Loss: make([]float64, nrW),
		Z: make([][]float64, nrW)}
}

// hashTrainRows returns hashLabelsAt over ds's rows for a run that keeps or
// uses a gradient (keepsGradient; mid: the rows of warm's gradient, if any).
func (t *LinearTrainer) hashTrainRows(ds *data.Dataset, warm *LinearDual) (hMid, hAll [4]uint64) {
	mid := 0
	if warm != nil && warm.Gradient != nil {
		mid = warm.Gradient.Rows
	}
	return hashLabelsAt(ds.Labels(), ds.Weights(), nil, mid)
}

// hashLabelsAt returns the lanes of a hash of the labels and instance
// weights (nil: all 1) of the rows at positions at (nil: every row, in
// order), over the first mid (clamped) and over all, four independent
// lanes of solve.HashWord that the processor overlaps. Features are not
// hashed: that cost as much as the pass the gradient spares (they are the
// caller's to keep: LinearGradient).
func hashLabelsAt(labels, weights []float64, at []int32, mid int) (hMid, hAll [4]uint64) {
	h := [4]uint64{solve.HashSeed, solve.HashSeed ^ 1, solve.HashSeed ^ 2, solve.HashSeed ^ 3}
	l := len(labels)
	if at != nil {
		l = len(at)
	}
	mid = max(0, min(mid, l))
	for i := range l {
		if i == mid {
			hMid = h
		}
		r := i
		if at != nil {
			r = int(at[i])
		}
		v := math.Float64bits(labels[r])
		if weights != nil && weights[r] != 1 {
			v ^= math.Float64bits(weights[r]) * solve.HashPrime // weight 1 hashes as none
		}
		h[i&3] = solve.HashWord(h[i&3], v)
	}
	if mid == l {
		hMid = h
	}
	return hMid, h
}

// hashLinearAlpha folds the first n entries of each vector into the lanes
// h, four at a time as hashLabels does, and returns the lanes folded into
// one word.
func hashLinearAlpha(h [4]uint64, alpha [][]float64, n int) uint64 {
	for _, a := range alpha {
		a = a[:n]
		k := 0
		for ; k+4 <= n; k += 4 {
			h[0], h[1] = solve.HashWord(h[0], math.Float64bits(a[k])), solve.HashWord(h[1], math.Float64bits(a[k+1]))
			h[2], h[3] = solve.HashWord(h[2], math.Float64bits(a[k+2])), solve.HashWord(h[3], math.Float64bits(a[k+3]))
		}
		for ; k < n; k++ {
			h[k&3] = solve.HashWord(h[k&3], math.Float64bits(a[k]))
		}
		h[0] = solve.HashWord(h[0], ^uint64(0)) // vector separator
	}
	return solve.HashWord(solve.HashWord(solve.HashWord(h[0], h[1]), h[2]), h[3])
}
