package simd

// HvSparseRows adds rows' part of a Hessian-vector product to Hs, over a
// sparse matrix in CSR form (row i: index[start[i]:start[i+1]] with value
// alike, indices distinct and below n): for k = lo, …, hi−1 in order,
// i = rows[k] (rows nil: k), c_k = scale·a[i]·(x_iᵀs + s[n]·bias), then
// Hs += c_k·x_i, the pseudo-feature n of value bias included when
// bias ≥ 0 (else s[n] is not read and Hs[n] not written). x_iᵀs sums
// term q of the row in lane q mod 4 but the last (len mod 4) terms in
// lane 0, lanes summed (s0 + s1) + (s2 + s3), every product rounded
// before its sum (never fused), so every path returns the same bits. For
// the primal Newton method's passes over short sparse rows, where a
// row's loops cost as much as its arithmetic (debdesc_bin: 6 nonzeros a
// row). dots, when not nil, receives x_iᵀs + s[n]·bias at position k (a
// warm step's margins from its products, newton.go). It panics if a row,
// an index or a[i] lies out of range, or s, Hs or dots is shorter than n
// (n + 1 when bias ≥ 0) or hi.
func HvSparseRows(Hs, s []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias float64, dots []float64) {
	m := n
	if bias >= 0 {
		m = n + 1
	}
	if n < 0 || len(s) < m || len(Hs) < m || len(value) < len(index) || (rows != nil && len(rows) < hi) || (dots != nil && len(dots) < hi) {
		panic("simd: HvSparseRows: a vector is shorter than n or hi")
	}
	sb := 0.0
	if bias >= 0 {
		sb = float64(s[n] * bias) // rounded: never fused into the sum below
	}
	hvSparseRows(Hs, s, start, index, value, n, rows, lo, hi, a, scale, bias, sb, dots)
}

// hvSparseRowsFrom is HvSparseRows's reference over positions lo..hi−1.
func hvSparseRowsFrom(Hs, s []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias, sb float64, dots []float64) {
	for k := lo; k < hi; k++ {
		i := k
		if rows != nil {
			i = int(rows[k])
		}
		idx := index[start[i]:start[i+1]]
		val := value[start[i]:start[i+1]]
		val = val[:len(idx)]
		sum := sparseDot(idx, val, s[:n])
		c := float64(scale*a[i]) * (sum + sb)
		for q, j := range idx {
			Hs[:n][j] += float64(c * float64(val[q]))
		}
		if bias >= 0 {
			Hs[n] += float64(c * bias)
		}
		if dots != nil {
			dots[k] = sum + sb
		}
	}
}

// DotSparseRows sets dst[i] = x_iᵀs for k = lo, …, hi−1, i = rows[k]
// (rows nil: k), x_i row i of a
// sparse matrix in CSR form (as HvSparseRows's), plus s[n]·bias when
// bias ≥ 0, the row summed in HvSparseRows's order (data.DotSparse's),
// every product rounded before its sum, so every path returns the same
// bits: the primal Newton method's step along a direction, a row at a
// time cost as much as its arithmetic on short rows. It panics if a row or
// an index lies out of range, or s is shorter than n (n + 1 when
// bias ≥ 0), or dst than hi.
func DotSparseRows(dst, s []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, bias float64) {
	m := n
	if bias >= 0 {
		m = n + 1
	}
	if n < 0 || len(s) < m || (rows == nil && len(dst) < hi) || (rows != nil && len(rows) < hi) || len(value) < len(index) {
		panic("simd: DotSparseRows: a vector is shorter than n or hi")
	}
	sb := 0.0
	if bias >= 0 {
		sb = float64(s[n] * bias)
	}
	dotSparseRows(dst, s, start, index, value, n, rows, lo, hi, bias, sb)
}

// dotSparseRowsFrom is DotSparseRows's reference over rows lo..hi−1.
func dotSparseRowsFrom(dst, s []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, bias, sb float64) {
	for k := lo; k < hi; k++ {
		i := k
		if rows != nil {
			i = int(rows[k])
		}
		x := sparseDot(index[start[i]:start[i+1]], value[start[i]:start[i+1]], s[:n])
		if bias >= 0 {
			x += sb
		}
		dst[i] = x
	}
}

// sparseDot returns Σ val[q]·w[idx[q]] in lanes q mod 4 but the last
// len mod 4 terms in lane 0, (s0 + s1) + (s2 + s3), each product rounded.
func sparseDot(idx []int32, val []float32, w []float64) float64 {
	val = val[:len(idx)]
	var s0, s1, s2, s3 float64
	q := 0
	for ; q+4 <= len(idx); q += 4 {
		s0 += float64(float64(val[q]) * w[idx[q]])
		s1 += float64(float64(val[q+1]) * w[idx[q+1]])
		s2 += float64(float64(val[q+2]) * w[idx[q+2]])
		s3 += float64(float64(val[q+3]) * w[idx[q+3]])
	}
	for ; q < len(idx); q++ {
		s0 += float64(float64(val[q]) * w[idx[q]])
	}
	return (s0 + s1) + (s2 + s3)
}

// AxpySquaresSparseRows does g += a[i]·x_i and D_j += (bScale·b[i])·x_ij²
// for k = lo, …, hi−1 in order, i = rows[k] (rows nil: k), x_i row i of a
// sparse matrix in CSR form (as HvSparseRows's) with the pseudo-feature n
// of value bias when bias ≥ 0, each product rounded before its sum
// (((bScale·b)·x)·x, never fused), so every path returns the same bits: a
// gradient and the Hessian's diagonal over many short rows a call. It
// panics if a row, an index, a[i] or b[i] lies out of range, or g or D is
// shorter than n (n + 1 when bias ≥ 0).
func AxpySquaresSparseRows(g, D []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, a, b []float64, bScale, bias float64) {
	m := n
	if bias >= 0 {
		m = n + 1
	}
	if n < 0 || len(g) < m || len(D) < m || len(b) < len(a) || len(value) < len(index) || (rows != nil && len(rows) < hi) {
		panic("simd: AxpySquaresSparseRows: a vector is shorter than n, a or hi")
	}
	axpySquaresSparseRows(g, D, start, index, value, n, rows, lo, hi, a, b[:len(a)], bScale, bias)
}

// axpySquaresSparseRowsFrom is AxpySquaresSparseRows's reference over
// positions lo..hi−1.
func axpySquaresSparseRowsFrom(g, D []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, a, b []float64, bScale, bias float64) {
	for k := lo; k < hi; k++ {
		i := k
		if rows != nil {
			i = int(rows[k])
		}
		idx := index[start[i]:start[i+1]]
		val := value[start[i]:start[i+1]]
		val = val[:len(idx)]
		bi := float64(bScale * b[i])
		for q, j := range idx {
			v := float64(val[q])
			g[:n][j] += float64(a[i] * v)
			D[:n][j] += float64(float64(bi*v) * v)
		}
		if bias >= 0 {
			g[n] += float64(a[i] * bias)
			D[n] += float64(float64(bi*bias) * bias)
		}
	}
}
