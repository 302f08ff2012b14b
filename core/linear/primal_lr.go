package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// The primal of L2-regularized logistic regression, the objective the
// Newton method (newton.go) minimizes for -s 0.
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
// w = Σ y_i α_i x_i at the optimum: a run's dual variables for a later
// warm start.

// lrFun is the objective over one binary subproblem. D (one entry a row)
// holds e_i = exp(−|z_i|) at the last margins, from which grad takes σ(z_i)
// (shuttle: 13% less CPU), then the weights C_i σ(z_i)(1 − σ(z_i)) for Hv.
type lrFun struct {
	primalRows
	D []float64
}

// init sets the subproblem, as l2svcFun.init; c, z, u and D must have room
// for ds.Len() entries.
func (f *lrFun) init(ds *data.Dataset, y []int8, Cp, Cn, bias float64, c, z, u, D []float64) {
	f.setRows(ds, bias, y, Cp, Cn, c, z, u)
	f.D = D[:ds.Len()]
	f.obj = f
}

func (f *lrFun) start(w, g0 []float64) float64 {
	if g0 == nil { // w = 0: every margin is 0, every loss log 2
		clear(f.z)
		var v float64
		for i, c := range f.c {
			f.D[i] = 1
			v += c
		}
		return v * math.Ln2
	}
	clear(g0)
	v := 0.5 * dot64(w, w)
	first := 0
	if k := f.known; k != nil {
		// Rows 0..k.Rows−1: their loss, ∇f(0) and margins as given, and
		// from α_i = C_i σ(−z_i), σ(z_i) = 1 − α_i/C_i, e = exp(−|z_i|)
		// (the smaller of σ(z_i) and 1 − σ(z_i) over the larger: no
		// exponential a row).
		copyWidened(g0, k.G0[f.kf], k.Features, f.bias)
		v += k.Loss[f.kf]
		copy(f.z, k.Z[f.kf])
		for i, a := range f.alpha[:k.Rows] {
			t := min(max(a/f.c[i], 0), 1)
			f.D[i] = min(t, 1-t) / max(t, 1-t)
		}
		first = k.Rows
	}
	for i := first; i < len(f.z); i++ {
		yi := float64(f.sign[i])
		f.z[i] = yi * f.dot(i, w)
		f.addRow(g0, -0.5*f.c[i]*yi, i) // σ(0) − 1 = −½
	}
	f.reads += int64(len(f.z) - first)
	return sumLoss(v, f.z[first:], nil, 0, f.c[first:], f.D[first:])
}

// grad is ∇f and the Hessian's diagonal in one pass over the rows; after
// a start from known rows, ∇f and the diagonal over them as given, and
// only the rows added since read.
func (f *lrFun) grad(w, g, D []float64) {
	first := f.gradStart(w, g, D)
	for j := range D {
		D[j]++ // the identity first: a cold run's order of sums
	}
	f.weights(0, first) // the rows given: Hv's weights
	f.split(rowPass{kind: passGrad, out: g, D: D, a: f.u, b: f.D, x: 1}, first, len(f.z))
}

// weights sets rows lo..hi−1's ∇f factors in u (free until the next line search)
// and Hessian weights in D from e_i = exp(−|z_i|) there: σ(|z_i|) = 1/(1 + e_i).
func (f *lrFun) weights(lo, hi int) {
	for i := lo; i < hi; i++ {
		s := 1 / (1 + f.D[i])
		t := f.D[i] * s
		if f.z[i] < 0 {
			s, t = t, s
		}
		f.D[i], f.u[i] = f.c[i]*s*t, -f.c[i]*t*float64(f.sign[i])
	}
}

func (f *lrFun) lossRange(eta float64, lo, hi int) float64 {
	return sumLoss(0, f.z[lo:hi], f.u[lo:hi], eta, f.c[lo:hi], f.D[lo:hi]) // the accepted trial's e are grad's
}

// sumLoss returns v + Σ_i c_i log(1 + e^{−t_i}) in row order at margins
// t = z + ηu (u nil: z) and sets e_i = exp(−|t_i|), from which grad
// takes σ(t_i); exponentials and logarithms 64 rows at a time in one
// simd.Exp64 and one simd.Log1p call (math.Exp's and math.Log1p's bits,
// 8 lanes: shuttle -s 0 spent 14% of its CPU in log1p, then 15% in exp).
func sumLoss(v float64, z, u []float64, eta float64, c, e []float64) float64 {
	var t, lg [64]float64
	for b := 0; b < len(z); b += len(t) {
		n := min(len(z)-b, len(t))
		for k := range n {
			t[k] = z[b+k]
			if u != nil {
				t[k] += eta * u[b+k]
			}
			lg[k] = -math.Abs(t[k])
		}
		simd.Exp64(e[b:b+n], lg[:n])
		simd.Log1p(lg[:n], e[b:b+n])
		for k, l := range lg[:n] { // t < 0: log(1 + e^{−t}) = −t + log(1 + e^{t})
			v += c[b+k] * (l - min(t[k], 0))
		}
	}
	return v
}

func (f *lrFun) Hv(s, Hs []float64) { f.hv(s, Hs, nil, f.D, 1) }

// dual writes α_i = C_i σ(−z_i) at the margins and adds to d the dual's
// terms α log α + (C − α) log(C − α) − C log C (Yu, Huang & Lin 2011), each
// −(C_i log(1 + e^{−z_i}) + α_i z_i) here; the caller adds the loss from
// f(w), so a row costs no log (three made 13% of a warm -s 0 retrain).
func (f *lrFun) dual(alpha []float64, d *dualSums) {
	var az float64
	n := 0
	simd.Exp64(alpha, f.z) // math.Exp's bits, 8 rows at a time
	for i, z := range f.z {
		a := f.c[i] * (1 / (1 + alpha[i])) // σ(−z)
		alpha[i] = a
		az += a * z
		if a != 0 { // no branch (countNonzero)
			n++
		}
	}
	d.terms -= az
	d.nonzero += n
}
