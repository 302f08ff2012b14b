package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// The primal of L2-regularized L2-loss ε-SVR, the objective the Newton
// method (newton.go) minimizes for -s 11 (and for -s 12's warm start, its primal twin).
//
// Problem: min_w f(w) = ½‖w‖² + Σ_i C_i max(0, |wᵀx_i − y_i| − p)², C_i = C
// times row i's instance weight; no constraints. With z_i = wᵀx_i − y_i and
// I = {i : |z_i| > p}:
//
//	∇f(w)  = w + 2 Σ_{i∈I} C_i (z_i − p·sign(z_i)) x_i
//	∇²f(w) = I + 2 Σ_{i∈I} C_i x_i x_iᵀ  (generalized Hessian)
//
// C.-H. Ho and C.-J. Lin, "Large-scale Linear Support Vector Regression",
// JMLR 13 (2012), Section 3 (a Newton method for the L2-loss SVR primal).
//
// The dual (dcd_svr.go, λ_i = 1/(2C_i)) is tied to it by
// β_i = −2C_i·sign(z_i)·max(0, |z_i| − p) at the optimum.

// l2svrFun is the objective over one regression problem. The trainer owns
// its buffers (one entry a row).
type l2svrFun struct {
	primalRows
	y []float64 // targets
	p float64
	// dualTol > 0: dualDone tests the dual's bound (-s 12, eps times its
	// scale), ‖∇ᴾf(β)‖₁ ≤ dualTol at the β w determines.
	dualTol float64
}

// init sets the problem: rows and targets of ds, cost C, width p. c, z, u
// and I must have room for ds.Len() entries.
func (f *l2svrFun) init(ds *data.Dataset, C, p, bias float64, c, z, u []float64, I []int32) {
	f.setRows(ds, bias, nil, C, C, c, z, u)
	f.y, f.p, f.I, f.nI = ds.Labels(), p, I[:ds.Len()], 0
	f.dualTol = 0
	f.obj = f
}

// excess returns z − p·sign(z) when |z| > p, else 0.
func (f *l2svrFun) excess(z float64) float64 {
	switch {
	case z > f.p:
		return z - f.p
	case z < -f.p:
		return z + f.p
	}
	return 0
}

func (f *l2svrFun) start(w, g0 []float64) float64 {
	if g0 == nil { // w = 0: the margins are −y_i
		var v float64
		for i, y := range f.y {
			f.z[i] = -y
			d := f.excess(-y)
			v += f.c[i] * d * d
		}
		return v
	}
	clear(g0)
	v := 0.5 * dot64(w, w)
	for i := range f.z {
		z := f.dot(i, w) - f.y[i]
		f.z[i] = z
		d := f.excess(z)
		v += f.c[i] * d * d
		if d0 := f.excess(-f.y[i]); d0 != 0 { // z_i = −y_i at w = 0
			f.addRow(g0, 2*f.c[i]*d0, i)
		}
	}
	f.reads += int64(len(f.z))
	return v
}

// grad is ∇f and the Hessian's diagonal, reading each row of I once.
func (f *l2svrFun) grad(w, g, D []float64) {
	copy(g, w)
	for j := range D {
		D[j] = 1
	}
	n := 0
	for i, z := range f.z { // u, free until the next line search, holds ∇f's factors
		d := f.excess(z)
		f.I[n], f.I[len(f.z)-1-i+n], f.u[i] = int32(i), int32(i), 2*f.c[i]*d // I as l2svcFun.setI
		if d != 0 {
			n++
		}
	}
	f.nI = n
	f.split(rowPass{kind: passGrad, out: g, D: D, rows: f.I, a: f.u, b: f.c, x: 2}, 0, f.nI)
}

func (f *l2svrFun) lossRange(eta float64, lo, hi int) float64 {
	var v float64
	for i := lo; i < hi; i++ {
		d := f.excess(f.z[i] + eta*f.u[i])
		v += f.c[i] * d * d
	}
	return v
}

// dualDone tests the L2-loss SVR dual's stopping rule (dcd_svr.go) in one
// pass at β_i = −2C_i·excess(z_i), w_β = w − ∇f(w): G_i (λ_i = 1/(2C_i))
// is z_i − excess(z_i) − gᵀx_i, the violations dcdSVR.gradNorm1's.
func (f *l2svrFun) dualDone(g []float64) bool {
	if f.dualTol <= 0 {
		return false
	}
	var sum float64
	for i, z := range f.z {
		d := f.excess(z)
		G := z - d - f.dot(i, g)
		Gp, Gn := G+f.p, G-f.p
		var v float64
		switch {
		case d == 0: // β_i = 0
			v = max(0, -Gp, Gn)
		case d < 0: // β_i > 0
			v = math.Abs(Gp)
		default:
			v = math.Abs(Gn)
		}
		sum += f.weigh(v, i) // weighted as dcdSVR.gradNorm1
	}
	f.reads += int64(len(f.z))
	return sum <= f.dualTol
}

// dual writes β_i = −2C_i·excess(z_i) at the current margins.
func (f *l2svrFun) dual(beta []float64, d *dualSums) {
	n := 0
	for i, z := range f.z {
		b := -2 * f.c[i] * f.excess(z)
		beta[i] = b
		d.terms += b*b/(4*f.c[i]) - f.y[i]*b + f.p*math.Abs(b)
		if b != 0 { // no branch (countNonzero)
			n++
		}
	}
	d.nonzero += n
}
