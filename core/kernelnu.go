package core

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// The trainer's side of ν-SVC and ν-SVR (the solver's is smo_nu.go): the
// feasibility of ν, the cold start and the warm start's repair of the two
// sums the ν problem fixes.

// nuFeasible reports svm-train's "specified nu is infeasible": ν-SVC's pair
// (i, j) needs νl/2 ≤ min(n_i, n_j) with l = n_i + n_j, each class's α
// summing to νl/2 in the box [0, 1] (Chang & Lin 2001, Section 2). start
// holds the classes' row offsets (n_c = start[c+1] − start[c]). The error
// wraps ErrParams and names the first infeasible pair and the largest ν it
// allows.
func nuFeasible(nu float64, labels []int32, start []int) error {
	nr := len(labels)
	for i := range nr {
		ni := start[i+1] - start[i]
		for j := i + 1; j < nr; j++ {
			nj := start[j+1] - start[j]
			if nu*float64(ni+nj)/2 > float64(min(ni, nj)) {
				return fmt.Errorf("%w: specified nu is infeasible: nu = %v for classes %d (%d rows) and %d (%d rows), "+
					"which allow nu <= %.6g", ErrParams, nu, labels[i], ni, labels[j], nj, 2*float64(min(ni, nj))/float64(ni+nj))
			}
		}
	}
	return nil
}

// nuStart sets the cold start of one side of the ν problem: α in row order
// filled to C until the side sums to sum (Chang & Lin 2001, Section 4), the
// rest 0; with sum > C·len(alpha) (an infeasible ν, which only the internal
// cross-validation folds meet, as in LIBSVM) every α is C.
func nuStart(alpha []float64, C, sum float64) {
	for r := range alpha {
		alpha[r] = min(C, sum)
		sum -= alpha[r]
	}
}

// repairNuSums moves a warm start in the box onto the ν problem's two
// equalities: the first n entries (y = +1) and the rest (y = −1) each
// summing to sum, by repairEquality on each side alone (lower free
// variables proportionally, then bounded ones, or raise free ones, then
// zeros in row order). A side whose box cannot hold sum ends at C
// everywhere, as nuStart does.
func repairNuSums(alpha []float64, y []int8, n int, C, sum float64) {
	repairEquality(alpha[:n], y[:n], C, C, nil, sum)
	repairEquality(alpha[n:], y[n:], C, C, nil, -sum)
}

// nuFeasibleOn is nuFeasible for the classes of ds (groupClasses' order).
func nuFeasibleOn(ds *data.Dataset, nu float64) error {
	labels, err := groupClasses(ds)
	if err != nil {
		return err
	}
	start := make([]int, len(labels)+1)
	for _, v := range ds.Labels() {
		for c, lab := range labels {
			if float64(lab) == v {
				start[c+1]++
				break
			}
		}
	}
	for c := range labels {
		start[c+1] += start[c]
	}
	return nuFeasible(nu, labels, start)
}
