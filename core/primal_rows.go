package core

import (
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// primalRows is how the primal objectives read the data: rows with the bias
// pseudo-feature appended (w[n] is its weight when bias >= 0), counting
// the rows read so that a solve's work compares with DCD's coordinate
// updates (one row read each).
type primalRows struct {
	ds    *data.Dataset
	n     int     // features of ds
	bias  float64 // < 0: no bias pseudo-feature
	reads int64
	wt    []float64 // instance weights (nil: all 1), multiplying each row's C
}

func (r *primalRows) setRows(ds *data.Dataset, bias float64) {
	r.ds, r.n, r.bias, r.reads = ds, ds.NumFeatures(), bias, 0
	r.wt = rowWeights(ds)
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

// dot returns wᵀx_i including the bias pseudo-feature. Dense rows go
// through simd.DotWiden (AVX-512: about 10× the plain loop on a
// Fashion-MNIST row), whose fixed lane order keeps every path's bits equal.
func (r *primalRows) dot(i int, w []float64) float64 {
	var s float64
	if r.ds.IsDense() {
		s = simd.DotWiden(r.ds.DenseRow(i), w[:r.n])
	} else {
		s = r.ds.Dot(i, w[:r.n])
	}
	if r.bias >= 0 {
		s += w[r.n] * r.bias
	}
	return s
}

// addRow does dst += a·x_i including the bias pseudo-feature (dense rows
// by simd.AxpyWiden).
func (r *primalRows) addRow(dst []float64, a float64, i int) {
	if r.ds.IsDense() {
		simd.AxpyWiden(dst[:r.n], a, r.ds.DenseRow(i))
	} else {
		r.ds.AddScaledTo(dst[:r.n], a, i)
	}
	if r.bias >= 0 {
		dst[r.n] += a * r.bias
	}
}

// addSquares does dst_j += a·x_ij² including the bias pseudo-feature.
func (r *primalRows) addSquares(dst []float64, a float64, i int) {
	if r.ds.IsDense() {
		x := r.ds.DenseRow(i)
		d := dst[:len(x)]
		for j, v := range x {
			d[j] += a * float64(v) * float64(v)
		}
	} else {
		idx, val := r.ds.SparseRow(i)
		val = val[:len(idx)]
		for k, j := range idx {
			dst[j] += a * float64(val[k]) * float64(val[k])
		}
	}
	if r.bias >= 0 {
		dst[r.n] += a * r.bias * r.bias
	}
}

// addRowSquares does addRow(dst, a, i) and addSquares(M, b, i) with one
// fetch of the row, the same values in the same order.
func (r *primalRows) addRowSquares(dst []float64, a float64, M []float64, b float64, i int) {
	if r.ds.IsDense() {
		x := r.ds.DenseRow(i)
		simd.AxpyWiden(dst[:r.n], a, x)
		m := M[:len(x)]
		for j, v := range x {
			m[j] += b * float64(v) * float64(v)
		}
	} else {
		idx, val := r.ds.SparseRow(i)
		val = val[:len(idx)]
		for k, j := range idx {
			v := float64(val[k])
			dst[j] += a * v
			M[j] += b * v * v
		}
	}
	if r.bias >= 0 {
		dst[r.n] += a * r.bias
		M[r.n] += b * r.bias * r.bias
	}
}

func (r *primalRows) rowReads() int64 { return r.reads }

// forgetStart is false: values are read from the rows, unless an
// objective overrides it (l2svcFun).
func (r *primalRows) forgetStart() bool { return false }
