package feasible

import (
	"cmp"
	"math"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// BoxOf returns the upper bound of a variable with label y.
func BoxOf(y int8, Cp, Cn float64) float64 {
	if y > 0 {
		return Cp
	}
	return Cn
}

// Clip returns v clipped to [0, c]; NaN becomes 0.
func Clip(v, c float64) float64 {
	if !(v > 0) {
		return 0
	}
	return min(v, c)
}

// RepairEquality moves a point of the box 0 ≤ α_t ≤ C_t (C_t = Cp or Cn
// times wt[t], wt nil for weights 1) onto the
// hyperplane yᵀα = delta, for a warm start whose rows changed (dropped rows
// take their α with them; for one-class νl changes with l). With
// d = yᵀα − delta, it first lowers α on the side whose lowering reduces
// |d| (y = +1 when d > 0, y = −1 when d < 0), which keeps the support
// vector set from growing; whatever that cannot absorb (one-class, where
// every y is +1 and νl may have grown) it raises on the other side. It
// changes as few α as it can, since the solver pays a kernel column for
// each α that differs from the one its stored gradient was computed at:
// lowering takes free variables (0 < α_t < C_t) largest first, each down
// to 0 or by what is left of d, then variables at the upper bound in row
// order; raising takes free variables with the most room first, each up
// to its bound, then variables at zero in row order (as the one-class cold
// start fills them). Scaling every free α of a side instead changed them
// all, and a warm start after removed rows then rebuilt its whole gradient
// (a Fashion-MNIST pair: as many kernel evaluations as a cold run). The
// result is in the box; yᵀα = delta holds up to rounding.
//
// A residual at rounding level (|d| ≤ tol = 1e-12 Σα) is left alone: every
// SMO step leaves one as large, and moving every free α for it would cost
// a warm start with a stored gradient a kernel column per free α. The
// same tolerance ends the repair: it stops once what is left of d is at
// rounding level, and a variable it would leave within tol of a bound goes
// to that bound. Without it the rounding of Σyα (d = 100 + 8.5e-13 after
// removing a bounded row of ε-SVR at C = 100) moved the next bounded α to
// C − 8.5e-13: a free variable in name, which ρ then took alone instead
// of the midpoint the bounded variables allow, 0.136 away from the cold
// solve's on diabetes (TestWarmRepairKeepsBounds).
func RepairEquality(alpha []float64, y []int8, Cp, Cn float64, wt []float64, delta float64) {
	var s, sum float64
	y = y[:len(alpha)] // equal lengths: no bounds checks
	for t, a := range alpha {
		// s += y_t α_t, the sign by branch: this pass is what a warm
		// pair whose α needs no repair pays.
		if y[t] > 0 {
			s += a
		} else if y[t] < 0 {
			s -= a
		}
		sum += a
	}
	d := s - delta
	tol := 1e-12 * sum
	if math.Abs(d) <= tol {
		return
	}
	side := int8(1)
	if d < 0 {
		side, d = -1, -d
	}
	d = lowerSide(alpha, y, side, BoxOf(side, Cp, Cn), wt, d, tol)
	if d > tol {
		raiseSide(alpha, y, -side, BoxOf(-side, Cp, Cn), wt, d, tol)
	}
}

// byDecreasing returns the positions t with y_t = side that ok accepts,
// ordered by key(t) decreasing, ties in row order.
func byDecreasing(alpha []float64, y []int8, side int8, ok func(t int) bool, key func(t int) float64) []int {
	var ts []int
	for t := range alpha {
		if y[t] == side && ok(t) {
			ts = append(ts, t)
		}
	}
	slices.SortStableFunc(ts, func(a, b int) int { return cmp.Compare(key(b), key(a)) })
	return ts
}

// lowerSide reduces Σ α_t over y_t = side by up to d and returns what it
// could not remove, stopping once that is at most tol; an α it would leave
// within tol of 0 goes to 0. The side's bound is C·wt[t] (C when wt is
// nil).
func lowerSide(alpha []float64, y []int8, side int8, C float64, wt []float64, d, tol float64) float64 {
	free := func(t int) bool { return alpha[t] > 0 && alpha[t] < solve.Weighted(C, wt, t) }
	lower := func(t int) {
		if alpha[t]-d <= tol {
			d -= alpha[t]
			alpha[t] = 0
		} else {
			alpha[t] -= d
			d = 0
		}
	}
	for _, t := range byDecreasing(alpha, y, side, free, func(t int) float64 { return alpha[t] }) {
		if d <= tol {
			return 0
		}
		lower(t)
	}
	for t, a := range alpha {
		if d <= tol {
			return 0
		}
		if y[t] == side && a > 0 {
			lower(t)
		}
	}
	return max(d, 0)
}

// raiseSide increases Σ α_t over y_t = side by up to d, within the box
// (bound C·wt[t], C when wt is nil), stopping once what is left is at
// most tol; an α it would leave within tol of its bound goes to the bound.
func raiseSide(alpha []float64, y []int8, side int8, C0 float64, wt []float64, d, tol float64) {
	room := func(t int) float64 { return solve.Weighted(C0, wt, t) - alpha[t] }
	free := func(t int) bool { return alpha[t] > 0 && room(t) > 0 }
	raise := func(t int) {
		if r := room(t); r-d <= tol {
			alpha[t] = solve.Weighted(C0, wt, t)
			d -= r
		} else {
			alpha[t] += d
			d = 0
		}
	}
	for _, t := range byDecreasing(alpha, y, side, free, room) {
		if d <= tol {
			return
		}
		raise(t)
	}
	for t, a := range alpha {
		if d <= tol {
			break
		}
		if y[t] == side && a == 0 {
			raise(t)
		}
	}
}
