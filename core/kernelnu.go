package core

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// The trainer's side of ν-SVC and ν-SVR (the solver's is smo_nu.go): the
// feasibility of ν, the cold start and the warm start's repair of the two
// sums the ν problem fixes.
//
// Instance weights w_t enter as the weight of a row's slack in the primal:
// ν-SVC minimises ½‖w‖² − νρ + (1/L) Σ w_t ξ_t with L = Σ w_t (L = l rows
// when unweighted), so its dual in the scaled form of Chang & Lin (2001)
// has the box 0 ≤ α_t ≤ w_t and each class's α summing to νL/2; ν-SVR's
// C(νε + (1/L) Σ w_t (ξ_t + ξ*_t)) gives 0 ≤ α_t, α*_t ≤ C w_t and
// Σα = Σα* = CνL/2. A row of weight k is then the row given k times: the
// copies' α add up to the weighted row's, in the same box and sums, with
// the same Q column (as in the instance-weight branch of LIBSVM, where
// C_t = w_t for ν-SVC and C w_t for ν-SVR).

// nuFeasible reports svm-train's "specified nu is infeasible": ν-SVC's pair
// (i, j) needs νL/2 ≤ min(L_i, L_j) with L = L_i + L_j, each class's α
// summing to νL/2 in the box [0, w_t] (Chang & Lin 2001, Section 2); L_c
// is the number of rows of class c, or the sum of their weights. size
// holds L_c for each class of labels; byWeight says whether they are
// weight sums (for the message). The error wraps ErrParams and names the
// first infeasible pair and the largest ν it allows.
func nuFeasible(nu float64, labels []int32, size []float64, byWeight bool) error {
	nr := len(labels)
	for i := range nr {
		ni := size[i]
		for j := i + 1; j < nr; j++ {
			nj := size[j]
			if nu*(ni+nj)/2 > min(ni, nj) {
				what := "rows"
				if byWeight {
					what = "rows by weight"
				}
				return fmt.Errorf("%w: specified nu is infeasible: nu = %v for classes %d (%v %s) and %d (%v %s), "+
					"which allow nu <= %.6g", ErrParams, nu, labels[i], ni, what, labels[j], nj, what, 2*min(ni, nj)/(ni+nj))
			}
		}
	}
	return nil
}

// classSizes returns, for each class of labels, its number of rows
// (start holds the classes' row offsets, n_c = start[c+1] − start[c]), or
// with instance weights wt (nil: all 1) the sum of its rows' weights;
// cls holds the class index of each row.
func classSizes(labels []int32, start []int, cls []int32, wt []float64) []float64 {
	size := make([]float64, len(labels))
	if wt == nil {
		for c := range labels {
			size[c] = float64(start[c+1] - start[c])
		}
		return size
	}
	for r, c := range cls {
		size[c] += wt[r]
	}
	return size
}

// nuStart sets the cold start of one side of the ν problem: α in row order
// filled to its bound C_t = C·wt[t] (C when wt is nil) until the side sums
// to sum (Chang & Lin 2001, Section 4), the rest 0; with sum > Σ C_t (an
// infeasible ν, which only the internal cross-validation folds meet, as in
// LIBSVM) every α is at its bound. A row of weight k starts where its k
// copies, in a row, would together.
func nuStart(alpha []float64, C float64, wt []float64, sum float64) {
	for r := range alpha {
		alpha[r] = min(solve.Weighted(C, wt, r), sum)
		sum -= alpha[r]
	}
}

// repairNuSums moves a warm start in the box 0 ≤ α_t ≤ C·wt[t] (C when wt
// is nil) onto the ν problem's two equalities: the first n entries
// (y = +1) and the rest (y = −1) each summing to sum, by repairEquality on
// each side alone (lower free variables proportionally, then bounded ones,
// or raise free ones, then zeros in row order). A side whose box cannot
// hold sum ends at its bounds everywhere, as nuStart does.
func repairNuSums(alpha []float64, y []int8, n int, C float64, wt []float64, sum float64) {
	var wp, wn []float64
	if wt != nil {
		wp, wn = wt[:n], wt[n:len(alpha)]
	}
	repairEquality(alpha[:n], y[:n], C, C, wp, sum)
	repairEquality(alpha[n:], y[n:], C, C, wn, -sum)
}

// nuFeasibleOn is nuFeasible for the classes of ds (groupClasses' order),
// counting rows by their instance weights.
func nuFeasibleOn(ds *data.Dataset, nu float64) error {
	labels, err := solve.GroupClasses(ds)
	if err != nil {
		return err
	}
	size := make([]float64, len(labels))
	wt := solve.RowWeights(ds)
	for r, v := range ds.Labels() {
		for c, lab := range labels {
			if float64(lab) == v {
				size[c] += solve.Weighted(1, wt, r)
				break
			}
		}
	}
	return nuFeasible(nu, labels, size, wt != nil)
}
