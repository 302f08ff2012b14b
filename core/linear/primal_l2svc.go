package linear

import (
	"math"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// The primal of L2-regularized L2-loss SVC, the objective the Newton
// method (newton.go) minimizes for -s 2 (and for -s 1's warm start, its
// primal twin).
//
// Problem: min_w f(w) = ½‖w‖² + Σ_i C_i max(0, 1 − y_i wᵀx_i)²,
// y_i = ±1, C_i the cost of row i's class times its instance weight; no
// constraints.
// With z_i = y_i wᵀx_i and I = {i : z_i < 1}:
//
//	∇f(w)  = w + 2 Σ_{i∈I} C_i y_i (z_i − 1) x_i
//	∇²f(w) = I + 2 Σ_{i∈I} C_i x_i x_iᵀ  (a generalized Hessian: the loss
//	         has no second derivative at z_i = 1)
//
// C.-J. Lin, R. C. Weng, S. S. Keerthi, "Trust Region Newton Method for
// Large-Scale Logistic Regression", JMLR 9 (2008), Section 5 (L2-loss
// SVM); K.-M. Chin et al. / Mangasarian (2002) for the generalized Hessian.
//
// The dual (dcd_svc.go, D_ii = 1/(2C_i)) is tied to it by
// α_i = 2C_i max(0, 1 − z_i) at the optimum: a primal run's dual warm start.

// l2svcFun is the objective over one binary subproblem. The trainer owns
// its buffers (one entry a row).
type l2svcFun struct {
	primalRows
	// dualEps, when positive, is the dual's stopping tolerance (-s 1):
	// dualDone tests max PG − min PG ≤ dualEps at the α w determines.
	dualEps float64
}

// init sets the subproblem: rows of ds, targets y, costs Cp and Cn. c, z,
// u and I must have room for ds.Len() entries.
func (f *l2svcFun) init(ds *data.Dataset, y []int8, Cp, Cn, bias float64, c, z, u []float64, I []int32) {
	f.setRows(ds, bias, y, Cp, Cn, c, z, u)
	f.I, f.nI = I[:ds.Len()], 0
	f.dualEps = 0
	f.obj = f
}

func (f *l2svcFun) start(w, g0 []float64) float64 {
	if g0 == nil { // w = 0: every margin is 0, every row has loss C_i
		f.known, f.alpha, f.given = nil, nil, false // nothing to save
		clear(f.z)
		var v float64
		for _, c := range f.c {
			v += c
		}
		return v
	}
	clear(g0)
	v := 0.5 * dot64(w, w)
	first := 0
	if k := f.known; k != nil {
		// Rows 0..k.Rows−1: their loss, ∇f(0) and margins as given.
		copyWidened(g0, k.G0[f.kf], k.Features, f.bias)
		v += k.Loss[f.kf]
		copy(f.z, k.Z[f.kf])
		first = k.Rows
	}
	for i := first; i < len(f.z); i++ {
		yi, c := float64(f.sign[i]), f.c[i]
		f.z[i] = yi * f.dot(i, w)
		d := max(1-f.z[i], 0) // a row past the margin adds +0: v's bits unchanged
		v += c * d * d
		f.addRow(g0, -2*c*yi, i) // at w = 0 every z_i is 0 < 1
	}
	f.reads += int64(len(f.z) - first)
	return v
}

// grad is ∇f and the Hessian's diagonal, reading each row of I once; after
// a start from known rows, ∇f over them as given and only the rows added
// since read.
func (f *l2svcFun) grad(w, g, D []float64) {
	first := f.gradStart(w, g, D)
	I, n := f.I, f.setI()
	k, _ := slices.BinarySearch(I[:n], int32(first))
	for _, i := range I[k:n] { // u, free until the next line search, holds ∇f's factors
		f.u[i] = 2 * f.c[i] * float64(f.sign[i]) * (f.z[i] - 1)
	}
	f.split(rowPass{kind: passGrad, out: g, D: D, rows: I, a: f.u, b: f.c, x: 2}, k, n)
	for j := range D {
		D[j]++
	}
}

// setI sets I[:nI] to the rows whose margin is below 1 and the others
// after them, last first (primalRows.I), in a scan without a branch
// (whether z_i < 1 is a coin toss on most data; perf on debdesc_bin's
// warm retrains: grad's own share 6.4% → 3.5%), and returns nI.
func (f *l2svcFun) setI() int {
	I, n := f.I[:len(f.z)], 0
	for i, z := range f.z {
		I[n], I[len(I)-1-i+n] = int32(i), int32(i) // one slot only for the last row
		if z < 1 {
			n++
		}
	}
	f.nI = n
	return n
}

// gradStep: while no margin crosses 1, ∇f is affine along s with slope
// ∇²f·s = −g − r, so ∇f(w + ηs) = (1 − η)g − ηr and D stays; the rows
// that crossed then add or take out their terms, the only rows read.
func (f *l2svcFun) gradStep(g, D, r []float64, eta float64) bool {
	for j, v := range r {
		g[j] = (1-eta)*g[j] - eta*v
	}
	for _, i := range f.I[:f.nI] { // the rows of I marked by their cost's sign
		f.c[i] = -f.c[i]
	}
	for i, z := range f.z {
		if c := 2 * f.c[i]; (c < 0) != (z < 1) { // rare: the scan's only branch
			f.addRowSquares(g, c*float64(f.sign[i])*(z-1), D, c, i) // c < 0: out of I
			f.reads++
		}
	}
	for _, i := range f.I[:f.nI] {
		f.c[i] = -f.c[i]
	}
	f.setI()
	return true
}

func (f *l2svcFun) lossRange(eta float64, lo, hi int) float64 {
	var v float64
	for i := lo; i < hi; i++ { // no branch: a row past the margin adds +0, v's bits unchanged
		d := max(1-(f.z[i]+eta*f.u[i]), 0)
		v += f.c[i] * d * d
	}
	return v
}

// dualDone tests the L2-loss SVC dual's stopping rule (dcd_svc.go) in one
// pass at α_i = 2C_i max(0, 1 − z_i), w_α = w − ∇f(w): G_i is −y_i gᵀx_i
// where z_i < 1 (α_i > 0: PG_i = G_i), else z_i − 1 − y_i gᵀx_i (PG_i = min(G_i, 0)).
func (f *l2svcFun) dualDone(g []float64) bool {
	if f.dualEps <= 0 {
		return false
	}
	PGmax, PGmin := math.Inf(-1), math.Inf(1)
	for i, z := range f.z {
		gx := float64(f.sign[i]) * f.dot(i, g)
		PG := -gx
		if z >= 1 {
			PG = min(z-1-gx, 0)
		}
		PGmax, PGmin = max(PGmax, PG), min(PGmin, PG)
	}
	f.reads += int64(len(f.z))
	return PGmax-PGmin <= f.dualEps
}

// dual writes α_i = 2C_i max(0, 1 − z_i) at the current margins and adds
// the dual objective's terms α_i²/(4C_i) − α_i to d.
func (f *l2svcFun) dual(alpha []float64, d *dualSums) {
	n := 0
	for i, z := range f.z {
		a := 2 * f.c[i] * max(0, 1-z)
		alpha[i] = a
		d.terms += a*a/(4*f.c[i]) - a
		if a != 0 { // no branch (countNonzero)
			n++
		}
	}
	d.nonzero += n
}
