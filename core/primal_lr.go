package core

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// The primal of L2-regularized logistic regression, the objective TRON
// minimizes for -s 0.
//
// Problem: min_w f(w) = ½‖w‖² + Σ_i C_i log(1 + exp(−y_i wᵀx_i)), y_i = ±1,
// C_i the cost of row i's class times its instance weight; no constraints.
// With z_i = y_i wᵀx_i and σ(t) = 1/(1 + e^{−t}):
//
//	∇f(w)  = w + Σ_i C_i (σ(z_i) − 1) y_i x_i
//	∇²f(w) = I + Σ_i C_i σ(z_i)(1 − σ(z_i)) x_i x_iᵀ
//
// C.-J. Lin, R. C. Weng, S. S. Keerthi, "Trust Region Newton Method for
// Large-Scale Logistic Regression", JMLR 9 (2008), Sections 2–3.
//
// The dual (Yu, Huang & Lin 2011) is tied to it by α_i = C_i σ(−z_i),
// w = Σ y_i α_i x_i at the optimum: what a run hands back as its dual
// variables for a later warm start. Models hold decision values only:
// probabilities σ(wᵀx) wait for the model interface that can carry them.

// lrFun is the objective over one binary subproblem. D holds the Hessian's
// weights C_i σ(z_i)(1 − σ(z_i)) (the trainer's per-row buffer).
type lrFun struct {
	primalRows
	y []int8     // ±1
	C [2]float64 // C_i for y = −1 (0) and y = +1 (1)
	z []float64  // y_i wᵀx_i at the last fun call
	D []float64  // at the last grad call
}

func (f *lrFun) cost(i int) float64 { return f.weigh(f.C[int(f.y[i]+1)>>1], i) }

// init sets the subproblem, as l2svcFun.init; z and D must have room for
// ds.Len() entries.
func (f *lrFun) init(ds *data.Dataset, y []int8, Cp, Cn, bias float64, z, D []float64) {
	f.setRows(ds, bias)
	l := ds.Len()
	f.y, f.C, f.z, f.D = y[:l], [2]float64{Cn, Cp}, z[:l], D[:l]
}

// logisticLoss returns log(1 + e^{−z}) without overflow.
func logisticLoss(z float64) float64 {
	if z >= 0 {
		return math.Log1p(math.Exp(-z))
	}
	return -z + math.Log1p(math.Exp(z))
}

// sigma returns 1/(1 + e^{−t}).
func sigma(t float64) float64 { return 1 / (1 + math.Exp(-t)) }

func (f *lrFun) fun(w []float64) float64 {
	v := 0.5 * dot64(w, w)
	for i := range f.z {
		z := float64(f.y[i]) * f.dot(i, w)
		f.z[i] = z
		v += f.cost(i) * logisticLoss(z)
	}
	f.reads += int64(len(f.z))
	return v
}

func (f *lrFun) funAtZeroGrad(w, g0 []float64) float64 {
	clear(g0)
	v := 0.5 * dot64(w, w)
	for i := range f.z {
		yi, c := float64(f.y[i]), f.cost(i)
		z := yi * f.dot(i, w)
		f.z[i] = z
		v += c * logisticLoss(z)
		f.addRow(g0, -0.5*c*yi, i) // σ(0) − 1 = −½
	}
	f.reads += int64(len(f.z))
	return v
}

func (f *lrFun) grad(w, g []float64) {
	copy(g, w)
	for i, z := range f.z {
		s, c := sigma(z), f.cost(i)
		f.D[i] = c * s * (1 - s)
		f.addRow(g, c*(s-1)*float64(f.y[i]), i)
	}
	f.reads += int64(len(f.z))
}

func (f *lrFun) Hv(s, Hs []float64) {
	copy(Hs, s)
	for i, d := range f.D {
		f.addRow(Hs, d*f.dot(i, s), i)
	}
	f.reads += int64(len(f.D))
}

func (f *lrFun) gradDiag(w, g, M []float64) { f.grad(w, g); f.diagH(M) }

func (f *lrFun) diagH(M []float64) {
	for j := range M {
		M[j] = 1
	}
	for i, d := range f.D {
		f.addSquares(M, d, i)
	}
	f.reads += int64(len(f.D))
}

// dualDone is false: no dual logistic solver (-s 7) shares its test.
func (f *lrFun) dualDone([]float64) bool { return false }

// dual writes α_i = C_i σ(−z_i) at the w of the last fun call.
func (f *lrFun) dual(alpha []float64) {
	for i, z := range f.z {
		alpha[i] = f.cost(i) * sigma(-z)
	}
}
