package linear

import (
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// primalRows is what the primal objectives share: the rows with the bias
// pseudo-feature appended (w[n] is its weight when bias >= 0), each row's
// cost, margin and margin step, and a count of the rows read so that a
// solve's work compares with DCD's coordinate updates (one row read each).
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
}

// setRows sets the rows and the per-row buffers (room for ds.Len() each).
func (r *primalRows) setRows(ds *data.Dataset, bias float64, sign []int8, c, z, u []float64) {
	l := ds.Len()
	r.ds, r.n, r.bias, r.reads = ds, ds.NumFeatures(), bias, 0
	r.wt = solve.RowWeights(ds)
	r.c, r.z, r.u = c[:l], z[:l], u[:l]
	r.sign = nil
	if sign != nil {
		r.sign = sign[:l]
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

// dot returns wᵀx_i including the bias pseudo-feature. Dense rows go
// through simd.DotWiden (AVX-512: about 10× the plain loop on a
// Fashion-MNIST row), whose fixed lane order keeps every path's bits equal;
// rows narrower than its 32 lanes by four lanes in a sparse row's order
// (data.Dataset.Dot: the same bits on a row without zeros), where
// DotWiden would clear and sum 32 lanes (shuttle -s 0: 20% less CPU).
func (r *primalRows) dot(i int, w []float64) float64 {
	var s float64
	switch {
	case r.ds.IsDense() && r.n < 32:
		x := r.ds.DenseRow(i)
		w := w[:len(x)]
		var s0, s1, s2, s3 float64
		j := 0
		for ; j+4 <= len(x); j += 4 {
			s0 += float64(x[j]) * w[j]
			s1 += float64(x[j+1]) * w[j+1]
			s2 += float64(x[j+2]) * w[j+2]
			s3 += float64(x[j+3]) * w[j+3]
		}
		for ; j < len(x); j++ {
			s0 += float64(x[j]) * w[j]
		}
		s = (s0 + s1) + (s2 + s3)
	case r.ds.IsDense():
		s = simd.DotWiden(r.ds.DenseRow(i), w[:r.n])
	default:
		s = r.ds.Dot(i, w[:r.n])
	}
	if r.bias >= 0 {
		s += w[r.n] * r.bias
	}
	return s
}

// hv writes Hs = s + Σ_k a_i (x_iᵀs) x_i, i = rows[k] (every row when rows
// is nil) and a_i = scale·a[i]: the Hessian-vector product of every
// objective, each row fetched once for its dot product and its update,
// by loops inlined per layout (sparse debdesc_bin: a third less time
// than a call per row for each). The sums are dot's and addRow's, bit for
// bit.
func (r *primalRows) hv(s, Hs []float64, rows []int32, a []float64, scale float64) {
	copy(Hs, s)
	m := len(rows)
	if rows == nil {
		m = len(a)
	}
	n, bias, ds := r.n, r.bias, r.ds
	s, Hs = s[:r.dim()], Hs[:r.dim()]
	sb := 0.0
	if bias >= 0 {
		sb = s[n] * bias
	}
	switch {
	case ds.IsDense() && n < 32:
		for k := range m {
			i := k
			if rows != nil {
				i = int(rows[k])
			}
			x := ds.DenseRow(i)
			v := s[:len(x)]
			var s0, s1, s2, s3 float64
			j := 0
			for ; j+4 <= len(x); j += 4 {
				s0 += float64(x[j]) * v[j]
				s1 += float64(x[j+1]) * v[j+1]
				s2 += float64(x[j+2]) * v[j+2]
				s3 += float64(x[j+3]) * v[j+3]
			}
			for ; j < len(x); j++ {
				s0 += float64(x[j]) * v[j]
			}
			c := scale * a[i] * ((s0 + s1) + (s2 + s3) + sb)
			d := Hs[:len(x)]
			for j, xj := range x {
				d[j] += c * float64(xj)
			}
			if bias >= 0 {
				Hs[n] += c * bias
			}
		}
	case ds.IsDense():
		for k := range m {
			i := k
			if rows != nil {
				i = int(rows[k])
			}
			x := ds.DenseRow(i)
			c := scale * a[i] * (simd.DotWiden(x, s[:n]) + sb)
			simd.AxpyWiden(Hs[:n], c, x)
			if bias >= 0 {
				Hs[n] += c * bias
			}
		}
	default:
		for k := range m {
			i := k
			if rows != nil {
				i = int(rows[k])
			}
			idx, val := ds.SparseRow(i)
			val = val[:len(idx)]
			var s0, s1, s2, s3 float64
			q := 0
			for ; q+4 <= len(idx); q += 4 {
				s0 += float64(val[q]) * s[idx[q]]
				s1 += float64(val[q+1]) * s[idx[q+1]]
				s2 += float64(val[q+2]) * s[idx[q+2]]
				s3 += float64(val[q+3]) * s[idx[q+3]]
			}
			for ; q < len(idx); q++ {
				s0 += float64(val[q]) * s[idx[q]]
			}
			c := scale * a[i] * ((s0 + s1) + (s2 + s3) + sb)
			for q, j := range idx {
				Hs[j] += c * float64(val[q])
			}
			if bias >= 0 {
				Hs[n] += c * bias
			}
		}
	}
	r.reads += int64(m)
}

// addRow does dst += a·x_i including the bias pseudo-feature (dense rows
// by simd.AxpyWiden).
func (r *primalRows) addRow(dst []float64, a float64, i int) {
	switch {
	case r.ds.IsDense() && r.n < 32: // as dot
		x := r.ds.DenseRow(i)
		d := dst[:len(x)]
		for j, v := range x {
			d[j] += a * float64(v)
		}
	case r.ds.IsDense():
		simd.AxpyWiden(dst[:r.n], a, r.ds.DenseRow(i))
	default:
		r.ds.AddScaledTo(dst[:r.n], a, i)
	}
	if r.bias >= 0 {
		dst[r.n] += a * r.bias
	}
}

// addRowSquares does dst += a·x_i and D_j += b·x_ij² (the bias
// pseudo-feature included) with one fetch of the row: a gradient and the
// Hessian's diagonal in one pass.
func (r *primalRows) addRowSquares(dst []float64, a float64, D []float64, b float64, i int) {
	switch {
	case r.ds.IsDense() && r.n < 32: // as dot
		x := r.ds.DenseRow(i)
		d, m := dst[:len(x)], D[:len(x)]
		for j, v := range x {
			d[j] += a * float64(v)
			m[j] += b * float64(v) * float64(v)
		}
	case r.ds.IsDense():
		x := r.ds.DenseRow(i)
		simd.AxpyWiden(dst[:r.n], a, x)
		m := D[:len(x)]
		for j, v := range x {
			m[j] += b * float64(v) * float64(v)
		}
	default:
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

// search is the line search of every objective (newton.go): it sets u to
// the margins' step along s (one pass over the rows; rows below exact
// also get their margin z_i recomputed from w, which the same fetch of
// the row gives), then tries η = 1, ½, … until
// f(w + ηs) − fw ≤ 0.01·η·gs, with f(w + ηs) = ½‖w + ηs‖² + loss(η) and
// loss(η) the loss at margins z + ηu, O(l) a trial. On success it moves w
// and z by η and returns η and f(w + ηs); else it returns 0 and fw.
func (r *primalRows) search(w, s []float64, fw, gs float64, exact int, loss func(eta float64) float64) (float64, float64) {
	for i := range r.u {
		x := r.dot(i, s)
		if r.sign != nil && r.sign[i] < 0 {
			x = -x
		}
		r.u[i] = x
		if i < exact { // a classification's given margins (l2svcFun.known)
			r.z[i] = float64(r.sign[i]) * r.dot(i, w)
		}
	}
	r.reads += int64(len(r.u))
	wTw, wTs, sTs := dot64(w, w), dot64(w, s), dot64(s, s)
	eta := 1.0
	for range maxLineSearch {
		fnew := loss(eta) + 0.5*wTw + eta*wTs + 0.5*eta*eta*sTs
		if fnew-fw <= armijoEta*eta*gs {
			axpy(w, eta, s)
			axpy(r.z, eta, r.u)
			return eta, fnew
		}
		eta *= 0.5
	}
	return 0, fw
}

// forgetStart is false: values are read from the rows, unless an
// objective overrides it (l2svcFun).
func (r *primalRows) forgetStart() bool { return false }
