package linear

import (
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// primalRows is what the primal objectives share: the rows with the bias
// pseudo-feature appended (w[n] its weight when bias >= 0), each row's
// cost, margin and margin step, and a count of the rows read (DCD's unit).
type primalRows struct {
	ds    *data.Dataset
	n     int     // features of ds
	bias  float64 // < 0: no bias pseudo-feature
	reads int64
	wt    []float64 // instance weights (nil: all 1), multiplying each row's C
	// sign is y_i of a classification, whose margins are z_i = y_i wᵀx_i;
	// nil for a regression, whose margins are z_i = wᵀx_i − y_i.
	sign []int8
	c    []float64 // C_i of every row (the class's C times the row's weight)
	z    []float64 // margins at w
	u    []float64 // their step along the last line search's direction
	// The L2 losses' rows with a loss (z_i < 1, |z_i| > p) at the last
	// grad: I[:nI], then the others, last first; dots (t, a trainer's
	// buffer, while a warm CG runs): the last Hv's nt rows' x_iᵀs (stepDots).
	I       []int32
	nI, nt  int
	t, dots []float64
	// split's: halves or not, the cores lent, the second half's two
	// vectors (room for dim each), pass, and signal that another core ran it.
	halves bool
	share  *solve.Lender
	part   []float64
	half   rowPass
	done   chan struct{}
	// lineSearch's loss; given: the start was (forgetStart).
	obj   rowLoss
	given bool
	// known, when not nil, is a previous run whose decision function kf's
	// loss, ∇f, ∇f(0), diagonal and margins the first start and grad take
	// as given for rows 0..known.Rows−1, alpha their dual variables
	// (logistic regression's Hessian weights); grad clears it.
	known *LinearGradient
	kf    int
	alpha []float64
}

// gradStart sets g and D to what grad adds the rows' terms to (the known
// rows' ∇f and diagonal less I, else w and 0), clears the known rows and
// returns the first row to read.
func (r *primalRows) gradStart(w, g, D []float64) int {
	k := r.known
	r.known, r.alpha = nil, nil
	if k == nil {
		copy(g, w)
		clear(D)
		return 0
	}
	copyWidened(g, k.G[r.kf], k.Features, r.bias)
	copyWidened(D, k.H[r.kf], k.Features, r.bias)
	return k.Rows
}

// rowLoss is an objective's loss at margins z + ηu over rows lo..hi−1,
// and what its gradient pass sets first over positions lo..hi−1 (weights).
type rowLoss interface {
	lossRange(eta float64, lo, hi int) float64
	weights(lo, hi int)
}

func (r *primalRows) weights(int, int) {} // the L2 losses set theirs with I

// Run and Done lend r's second half to another core (solve.Lender).
func (r *primalRows) Run()                { r.run(&r.half) }
func (r *primalRows) Done() chan struct{} { return r.done }

// setRows sets the rows, the per-row buffers (room for ds.Len() each) and
// C_i: Cp or Cn by the row's sign (Cp without signs) times its weight.
func (r *primalRows) setRows(ds *data.Dataset, bias float64, sign []int8, Cp, Cn float64, c, z, u []float64) {
	l := ds.Len()
	r.ds, r.n, r.bias, r.reads = ds, ds.NumFeatures(), bias, 0
	r.known, r.alpha, r.given, r.dots = nil, nil, false, nil
	r.wt = solve.RowWeights(ds)
	r.c, r.z, r.u = c[:l], z[:l], u[:l]
	r.halves = r.part != nil && ds.Nonzeros() >= splitNonzeros // part: a trainer's worker
	r.sign = sign[:min(len(sign), l)]                          // nil stays nil
	C := [2]float64{Cn, Cp}
	for i := range r.c {
		k := 1
		if sign != nil {
			k = int(sign[i]+1) >> 1
		}
		r.c[i] = r.weigh(C[k], i)
	}
}

// weigh returns c times row i's instance weight.
func (r *primalRows) weigh(c float64, i int) float64 {
	if r.wt != nil {
		return c * r.wt[i]
	}
	return c
}

// dim returns the number of primal variables: features plus the bias.
func (r *primalRows) dim() int {
	if r.bias >= 0 {
		return r.n + 1
	}
	return r.n
}

// dot returns wᵀx_i including the bias pseudo-feature: dense rows of 32
// features or more in simd.DotWiden's 32 lanes (AVX-512: 10× the plain
// loop on Fashion-MNIST), narrower ones in data.DotDense's four (shuttle
// -s 0: 20% less CPU than 32 lanes).
func (r *primalRows) dot(i int, w []float64) float64 {
	var s float64
	if !r.ds.IsDense() {
		s = r.ds.Dot(i, w[:r.n])
	} else if x := r.ds.DenseRow(i); len(x) >= 32 {
		s = simd.DotWiden(x, w[:len(x)])
	} else {
		s = data.DotDense(x, w)
	}
	if r.bias >= 0 {
		s += w[r.n] * r.bias
	}
	return s
}

// Passes over an eighth of the rows or more of data of splitNonzeros nonzeros
// or more run in two fixed halves, the second summed apart and added last on
// any number of cores. Below, passes are short (digits: 50 µs; rows added warm).
const splitNonzeros = 1 << 18

const (
	passHv   = iota // rows' part of ∇²f·s, into out
	passGrad        // rows' part of ∇f and ∇²f's diagonal, into out and D
	passLoss        // the loss at margins z + ηu, into sum
	passStep        // passLoss after setting the margins' step u along s
	passDots        // the margins' step u of rows only
)

// rowPass is a pass over positions lo..hi−1 of rows (all rows: nil).
type rowPass struct {
	kind      int
	s, out, D []float64
	rows      []int32
	a, b      []float64
	x         float64 // passHv, passGrad: a_i's (b_i's) factor; passLoss: η
	sum       float64 // passLoss's result
	lo, hi    int
}

// run runs the pass.
func (r *primalRows) run(p *rowPass) {
	switch p.kind {
	case passHv:
		r.hvRange(p.s, p.out, p.rows, p.a, p.x, p.lo, p.hi)
	case passGrad:
		r.obj.weights(p.lo, p.hi)
		r.addRowsSquares(p.out, p.D, p.rows, p.lo, p.hi, p.a, p.b, p.x)
	case passDots:
		r.stepRange(p.s, p.rows, p.lo, p.hi)
	case passStep:
		r.stepRange(p.s, nil, p.lo, p.hi)
		fallthrough
	default:
		p.sum = r.obj.lossRange(p.x, p.lo, p.hi)
	}
}

// split runs p over positions lo..hi−1 and returns its sum; in halves as
// splitNonzeros says, the second (lent to an idle core) adding to r.part's
// zeroed vectors, which are added to out and D last.
func (r *primalRows) split(p rowPass, lo, hi int) float64 {
	p.lo, p.hi = lo, hi
	if p.kind != passLoss { // the passes that read rows
		r.reads += int64(hi - lo)
	}
	if !r.halves || 8*(hi-lo) < len(r.z) {
		r.run(&p)
		return p.sum
	}
	r.half, p.hi = p, lo+(hi-lo)/2
	r.half.lo, r.half.out, r.half.D = p.hi, r.part[:len(p.out)], r.part[len(r.part)/2:][:len(p.D)]
	clear(r.half.out)
	clear(r.half.D)
	lent := r.share.Lend(r)
	r.run(&p)
	if lent {
		r.share.Wait(r)
	} else {
		r.run(&r.half)
	}
	axpy(p.out, 1, r.half.out)
	axpy(p.D, 1, r.half.D)
	return p.sum + r.half.sum
}

// hv writes Hs = s + Σ_k a_i (x_iᵀs) x_i, i = rows[k] (nil: every row),
// a_i = scale·a[i]: every objective's Hessian-vector product.
func (r *primalRows) hv(s, Hs []float64, rows []int32, a []float64, scale float64) {
	m := len(rows)
	if rows == nil {
		m = len(a)
	}
	copy(Hs, s)
	r.nt = m
	r.split(rowPass{kind: passHv, s: s, out: Hs, rows: rows, a: a, x: scale}, 0, m)
}

// Hv is the L2 losses' ∇²f·s = s + 2 Σ_{i∈I} C_i (x_iᵀs) x_i.
func (r *primalRows) Hv(s, Hs []float64) { r.hv(s, Hs, r.I[:r.nI], r.c, 2) }

// hvRange adds hv's rows at positions lo..hi−1 to Hs, one fetch a row for
// its dot and update, many rows a simd call (a row's loops and calls cost
// as much as its arithmetic: debdesc_bin's 6 nonzeros, shuttle's 9
// features, digits' 64).
func (r *primalRows) hvRange(s, Hs []float64, rows []int32, a []float64, scale float64, lo, hi int) {
	n, bias, ds := r.n, r.bias, r.ds
	if !ds.IsDense() {
		start, index, value := ds.SparseMatrix()
		simd.HvSparseRows(Hs, s, start, index, value, n, rows, lo, hi, a, scale, bias, r.dots)
		return
	}
	if n < 32 {
		simd.HvRows64x4(Hs, s, ds.DenseMatrix(), n, rows, lo, hi, a, scale, bias)
	} else {
		simd.HvWidenRows(Hs, s, ds.DenseMatrix(), n, rows, lo, hi, a, scale, bias)
	}
}

// addRow does dst += a·x_i including the bias pseudo-feature.
func (r *primalRows) addRow(dst []float64, a float64, i int) {
	switch {
	case !r.ds.IsDense():
		r.ds.AddScaledTo(dst[:r.n], a, i)
	case r.n >= 32: // as dot reads the row
		simd.AxpyWiden(dst[:r.n], a, r.ds.DenseRow(i))
	default:
		data.AxpyDense(dst, a, r.ds.DenseRow(i))
	}
	if r.bias >= 0 {
		dst[r.n] += a * r.bias
	}
}

// addRowSquares does dst += a·x_i and D_j += b·x_ij² (the bias
// pseudo-feature included) with one fetch of the row: a gradient and the
// Hessian's diagonal in one pass.
func (r *primalRows) addRowSquares(dst []float64, a float64, D []float64, b float64, i int) {
	if r.ds.IsDense() {
		x := r.ds.DenseRow(i)
		if len(x) >= 32 { // as addRow
			simd.AxpySquaresWiden(dst, D, a, b, x)
		} else {
			data.AxpyDense(dst, a, x)
			for j, v := range x {
				D[j] += b * float64(v) * float64(v)
			}
		}
	} else {
		idx, val := r.ds.SparseRow(i)
		val = val[:len(idx)]
		for k, j := range idx {
			v := float64(val[k])
			dst[j] += a * v
			D[j] += b * v * v
		}
	}
	if r.bias >= 0 {
		dst[r.n] += a * r.bias
		D[r.n] += b * r.bias * r.bias
	}
}

// addRowsSquares does addRowSquares(g, a[i], D, scale·b[i], i) for rows
// i = rows[k] (nil: k), k = lo..hi−1, in order; sparse and narrow dense
// rows many a simd call (a row a call: debdesc_bin 8% of -s 0, shuttle 31%).
func (r *primalRows) addRowsSquares(g, D []float64, rows []int32, lo, hi int, a, b []float64, scale float64) {
	n := r.n
	if !r.ds.IsDense() {
		start, index, value := r.ds.SparseMatrix()
		simd.AxpySquaresSparseRows(g, D, start, index, value, n, rows, lo, hi, a, b, scale, r.bias)
		return
	}
	if n < 32 {
		simd.AxpySquaresRows(g, D, r.ds.DenseMatrix(), n, rows, lo, hi, a, b, scale)
	}
	for k := lo; k < hi; k++ {
		if i := at(rows, k); n >= 32 {
			r.addRowSquares(g, a[i], D, scale*b[i], i)
		} else if r.bias >= 0 { // the pseudo-feature, as addRowSquares adds it
			g[n] += a[i] * r.bias
			D[n] += scale * b[i] * r.bias * r.bias
		}
	}
}

// lineSearch is every objective's line search (newton.go): f(w + ηs) is
// ½‖w + ηs‖² plus the loss at margins z + ηu, O(l) a trial but the first,
// which reads the rows for u (stepRange).
func (r *primalRows) lineSearch(w, s []float64, fw, gs float64) (float64, float64) {
	wTw, wTs, sTs := dot64(w, w), dot64(w, s), dot64(s, s)
	eta, kind := 1.0, r.stepOthers(s) // the first trial's pass sets u, or stepOthers did
	for range maxLineSearch {
		loss := r.split(rowPass{kind: kind, s: s, x: eta}, 0, len(r.z))
		kind = passLoss
		fnew := loss + 0.5*wTw + eta*wTs + 0.5*eta*eta*sTs
		if fnew-fw <= armijoEta*eta*gs {
			axpy(w, eta, s)
			axpy(r.z, eta, r.u)
			return eta, fnew
		}
		eta *= 0.5
	}
	return 0, fw
}

// stepDots: CG's s is Σ α_k d_k, so a row of its products has u_i =
// Σ α_k x_iᵀd_k from the kernels' dots (t), and the line search reads only
// the others (stepOthers); warm runs only, the rounding not a dot's with s.
// Sparse rows of ≤ 16 nonzeros on average only (the kernels' one call): on
// digits' 33 a warm -s 2 stream cost 1.04× the CPU. Cold: no dots (2%, perf).
func (r *primalRows) stepDots(alpha float64, first bool) {
	if first && !r.ds.IsDense() && r.ds.Nonzeros() <= 16*len(r.z) {
		clear(r.u)
		r.dots = r.t
	} else if r.dots != nil {
		axpy(r.u[:r.nt], alpha, r.dots[:r.nt])
	}
}

// stepOthers puts stepDots's sums in row order (I's; logistic regression's
// Hv reads every row), signed, reads the rows outside I for theirs and
// returns passLoss; passStep (u unset) when no CG summed them.
func (r *primalRows) stepOthers(s []float64) int {
	if r.dots == nil {
		return passStep
	}
	r.dots = nil
	for k := r.nt - 1; k >= 0; k-- { // I[k] ≥ k: a position is read before its row's entry is written
		if i := at(r.I, k); r.sign != nil {
			r.u[i] = r.u[k] * float64(r.sign[i])
		} else {
			r.u[i] = r.u[k]
		}
	}
	r.split(rowPass{kind: passDots, s: s, rows: r.I}, r.nt, len(r.z))
	return passLoss
}

// at returns rows[k], or k for rows nil.
func at(rows []int32, k int) int {
	if rows != nil {
		return int(rows[k])
	}
	return k
}

// stepRange sets u_i = ±x_iᵀs for rows i = rows[k] (nil: k; sparse data
// only), k = lo..hi−1, many rows a simd call (a row a call: debdesc_bin -s 2 11% of the run;
// digits 14%).
func (r *primalRows) stepRange(s []float64, rows []int32, lo, hi int) {
	n, bias := r.n, r.bias
	switch {
	case !r.ds.IsDense():
		start, index, value := r.ds.SparseMatrix()
		simd.DotSparseRows(r.u, s, start, index, value, n, rows, lo, hi, bias)
		bias = -1 // added
	case n < 32: // as dot sums
		simd.DotRows64x4(r.u[lo:hi], r.ds.DenseMatrix()[lo*n:], n, nil, s)
	default:
		simd.DotWidenRows(r.u, s, r.ds.DenseMatrix(), n, lo, hi)
	}
	for k := lo; k < hi; k++ {
		i := at(rows, k)
		if bias >= 0 { // as dot adds it
			r.u[i] += s[n] * bias
		}
		if r.sign != nil { // ×±1, exact: a branch on the sign was a coin toss a row
			r.u[i] *= float64(r.sign[i])
		}
	}
}

// forgetStart reports whether a start from known rows was set
// (startAt), and clears it.
func (r *primalRows) forgetStart() bool {
	given := r.given
	r.known, r.alpha, r.given = nil, nil, false
	return given
}

// dualDone is false: no dual test (but l2svcFun's and l2svrFun's).
func (r *primalRows) dualDone([]float64) bool { return false }

// gradStep is false: grad reads the rows (but l2svcFun's).
func (r *primalRows) gradStep(_, _, _ []float64, _ float64) bool { return false }
