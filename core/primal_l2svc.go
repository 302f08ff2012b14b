package core

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// The primal of L2-regularized L2-loss SVC, the objective TRON minimizes
// for -s 2 (and for -s 1's warm start, its primal twin).
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
// The dual (dcd_svc.go) is tied to it by α_i = 2C_i max(0, 1 − z_i) at the
// optimum (the L2-loss dual's D_ii = 1/(2C_i)), which is how a primal
// solve hands a dual warm start back.

// l2svcFun is the objective over one binary subproblem. The trainer owns
// its buffers (z and I: one entry a row).
type l2svcFun struct {
	primalRows
	y  []int8     // ±1
	C  [2]float64 // C_i for y = −1 (0) and y = +1 (1)
	c  []float64  // C_i of every row, set once: the passes read it, not y and the weights
	z  []float64  // y_i wᵀx_i at the last fun call
	I  []int32    // rows with z_i < 1 at the last grad call: I[:nI]
	nI int
	// dualEps, when positive, is the dual's stopping tolerance (-s 1):
	// dualDone tests max PG − min PG ≤ dualEps at the α w determines.
	dualEps float64
	// known, when not nil, is what the first funAtZeroGrad and grad take
	// as given for the first known.rows rows instead of reading them (a
	// previous run's LinearGradient at this w); alpha holds those rows'
	// α_i = 2C_i max(0, 1 − z_i), which give their margins where the loss
	// is not 0. grad clears it: every later call reads every row.
	known *knownRows
	alpha []float64
	given bool // the start's values were given (forgetStart)
}

// knownRows is a previous run's f, ∇f and ∇f(0) over its rows at its
// final w, the current start.
type knownRows struct {
	rows  int
	n     int       // features of g and g0 (then the bias's entry, if any)
	loss  float64   // Σ C_i max(0, 1 − z_i)² over the rows
	g, g0 []float64 // ∇f(w), ∇f(0) over the rows
}

// startKnown makes the next funAtZeroGrad and grad take rows 0..k.rows−1
// as k gives them, with α (their α_i) for their margins.
func (f *l2svcFun) startKnown(k *knownRows, alpha []float64) {
	f.known, f.alpha, f.given = k, alpha, true
}

func (f *l2svcFun) forgetStart() bool {
	given := f.given
	f.known, f.alpha, f.given = nil, nil, false
	return given
}

func (f *l2svcFun) cost(i int) float64 { return f.c[i] }

// init sets the subproblem: rows of ds, targets y, costs Cp and Cn. c, z
// and I must have room for ds.Len() entries.
func (f *l2svcFun) init(ds *data.Dataset, y []int8, Cp, Cn, bias float64, c, z []float64, I []int32) {
	f.setRows(ds, bias)
	l := ds.Len()
	f.y, f.C, f.c, f.z, f.I, f.nI = y[:l], [2]float64{Cn, Cp}, c[:l], z[:l], I[:l], 0
	for i, v := range f.y {
		f.c[i] = f.weigh(f.C[int(v+1)>>1], i)
	}
	f.dualEps = 0
	f.known, f.alpha, f.given = nil, nil, false
}

func (f *l2svcFun) fun(w []float64) float64 {
	v := 0.5 * dot64(w, w)
	for i := range f.z {
		z := float64(f.y[i]) * f.dot(i, w)
		f.z[i] = z
		if z < 1 {
			d := 1 - z
			v += f.cost(i) * d * d
		}
	}
	f.reads += int64(len(f.z))
	return v
}

func (f *l2svcFun) grad(w, g []float64) {
	if f.known != nil {
		f.gradKnown(g)
		return
	}
	copy(g, w)
	f.nI = 0
	for i, z := range f.z {
		if z < 1 {
			f.I[f.nI] = int32(i)
			f.nI++
			f.addRow(g, 2*f.cost(i)*float64(f.y[i])*(z-1), i)
		}
	}
	f.reads += int64(f.nI)
}

func (f *l2svcFun) funAtZeroGrad(w, g0 []float64) float64 {
	clear(g0)
	v := 0.5 * dot64(w, w)
	first := 0
	if k := f.known; k != nil {
		// Rows 0..k.rows−1: their loss and ∇f(0) as given, and their
		// margins z_i = 1 − α_i/(2C_i) where α_i > 0; elsewhere z_i ≥ 1,
		// recorded as 1 (no loss, out of I) until the next fun.
		copyWidened(g0, k.g0, k.n, f.bias)
		v += k.loss
		for i, a := range f.alpha[:k.rows] {
			f.z[i] = 1
			if a > 0 {
				f.z[i] = 1 - a/(2*f.cost(i))
			}
		}
		first = k.rows
	}
	for i := first; i < len(f.z); i++ {
		yi, c := float64(f.y[i]), f.cost(i)
		z := yi * f.dot(i, w)
		f.z[i] = z
		if z < 1 {
			v += c * (1 - z) * (1 - z)
		}
		f.addRow(g0, -2*c*yi, i) // at w = 0 every z_i is 0 < 1
	}
	f.reads += int64(len(f.z) - first)
	return v
}

// gradKnown is grad after a funAtZeroGrad from known rows: ∇f over them
// as given, the rows added since read.
func (f *l2svcFun) gradKnown(g []float64) {
	k := f.known
	f.known, f.alpha = nil, nil
	copyWidened(g, k.g, k.n, f.bias)
	f.nI = 0
	for i, z := range f.z {
		if z < 1 {
			f.I[f.nI] = int32(i)
			f.nI++
			if i >= k.rows {
				f.addRow(g, 2*f.cost(i)*float64(f.y[i])*(z-1), i)
				f.reads++
			}
		}
	}
}

func (f *l2svcFun) Hv(s, Hs []float64) {
	copy(Hs, s)
	for _, i := range f.I[:f.nI] {
		c := 2 * f.cost(int(i))
		f.addRow(Hs, c*f.dot(int(i), s), int(i))
	}
	f.reads += int64(f.nI)
}

// gradDiag is grad and diagH reading each row of I once.
func (f *l2svcFun) gradDiag(w, g, M []float64) {
	copy(g, w)
	for j := range M {
		M[j] = 1
	}
	f.nI = 0
	for i, z := range f.z {
		if z < 1 {
			f.I[f.nI] = int32(i)
			f.nI++
			c := 2 * f.cost(i)
			f.addRowSquares(g, c*float64(f.y[i])*(z-1), M, c, i)
		}
	}
	f.reads += int64(f.nI)
}

func (f *l2svcFun) diagH(M []float64) {
	for j := range M {
		M[j] = 1
	}
	for _, i := range f.I[:f.nI] {
		f.addSquares(M, 2*f.cost(int(i)), int(i))
	}
	f.reads += int64(f.nI)
}

// dualDone tests the L2-loss SVC dual's stopping rule (dcd_svc.go) at
// α_i = 2C_i max(0, 1 − z_i), whose w_α = Σ y_i α_i x_i is w − ∇f(w). With
// D_ii = 1/(2C_i) the dual gradient G_i = y_i w_αᵀx_i − 1 + D_ii α_i is
// −y_i gᵀx_i where z_i < 1 (α_i > 0: PG_i = G_i), and
// z_i − 1 − y_i gᵀx_i elsewhere (α_i = 0: PG_i = min(G_i, 0)). One pass.
func (f *l2svcFun) dualDone(g []float64) bool {
	if f.dualEps <= 0 {
		return false
	}
	PGmax, PGmin := math.Inf(-1), math.Inf(1)
	for i, z := range f.z {
		gx := float64(f.y[i]) * f.dot(i, g)
		PG := -gx
		if z >= 1 {
			PG = min(z-1-gx, 0)
		}
		PGmax, PGmin = max(PGmax, PG), min(PGmin, PG)
	}
	f.reads += int64(len(f.z))
	return PGmax-PGmin <= f.dualEps
}

// dual writes α_i = 2C_i max(0, 1 − z_i) at the w of the last fun call.
func (f *l2svcFun) dual(alpha []float64) {
	for i, z := range f.z {
		alpha[i] = 2 * f.cost(i) * max(0, 1-z)
	}
}
