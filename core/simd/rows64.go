package simd

// DotRows64x4 sets dst[k] = x_iᵀw for k < len(dst), i = rows[k] (rows nil:
// i = k), x_i row i of X, a row-major matrix of n-wide float32 rows, each
// in Dot64x4's order: term j in lane j mod 4 but the last n mod 4 terms
// in lane 0, lanes summed (s0 + s1) + (s2 + s3), every product rounded
// before its sum (never fused), so every path returns the same bits. For
// narrow rows (the primal Newton method's passes over a few features),
// where a call a row costs as much as its arithmetic. It panics if w is
// shorter than n or rows (or, rows nil, len(dst)) reach past X.
func DotRows64x4(dst []float64, X []float32, n int, rows []int32, w []float64) {
	checkRows("DotRows64x4", X, n, rows, len(dst), len(w))
	dotRows64x4(dst, X, n, rows, w[:n])
}

// AxpyRows64 does dst[j] += a[k]·x_i[j] for j < n, for k = 0, 1, … <
// len(a) in order, i = rows[k] (rows nil: i = k) as DotRows64x4's, each
// product rounded before its sum, so every path returns the same bits. It
// panics if dst is shorter than n or rows reach past X.
func AxpyRows64(dst []float64, X []float32, n int, rows []int32, a []float64) {
	checkRows("AxpyRows64", X, n, rows, len(a), len(dst))
	axpyRows64(dst[:n], X, n, rows, a)
}

// HvRows64x4 adds rows' part of a Hessian-vector product to Hs: for k =
// lo, …, hi−1 in order, i = rows[k] (rows nil: k), x_i row i of X (n
// float32 entries, then a pseudo-feature of value bias when bias ≥ 0),
// c_k = scale·a[i]·(x_iᵀs), then Hs += c_k·x_i, with x_iᵀs as
// DotRows64x4 takes it plus s[n]·bias, every operation rounded alone. It
// runs 64 rows a call of DotRows64x4 and AxpyRows64, for narrow rows
// (the primal Newton method's -s 0/-s 2 passes). It panics as they do.
func HvRows64x4(Hs, s []float64, X []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias float64) {
	sb := 0.0
	if bias >= 0 {
		sb = float64(s[n] * bias) // rounded: never fused into the sum below
	}
	var c [64]float64
	for b := lo; b < hi; b += len(c) {
		m := min(hi-b, len(c))
		at, Xb := rows, X[b*n:]
		if rows != nil {
			at, Xb = rows[b:b+m], X
		}
		DotRows64x4(c[:m], Xb, n, at, s)
		for k := range c[:m] {
			i := b + k
			if at != nil {
				i = int(at[k])
			}
			c[k] = scale * a[i] * (c[k] + sb)
			if bias >= 0 {
				Hs[n] += float64(c[k] * bias)
			}
		}
		AxpyRows64(Hs, Xb, n, at, c[:m])
	}
}

// checkRows panics unless m rows of n entries (rows[:m], or 0..m−1) lie
// in X and a vector of length v covers n.
func checkRows(name string, X []float32, n int, rows []int32, m, v int) {
	if n < 0 || v < n || (rows != nil && len(rows) < m) {
		panic("simd: " + name + ": a vector is shorter than n")
	}
	last := m - 1 // the last row read
	if rows != nil {
		last = -1
		for _, i := range rows[:m] {
			if i < 0 {
				panic("simd: " + name + ": negative row")
			}
			last = max(last, int(i))
		}
	}
	if m > 0 && (last+1)*n > len(X) {
		panic("simd: " + name + ": a row reaches past X")
	}
}

// rowAt returns row i = rows[k] (rows nil: k) of X.
func rowAt(X []float32, n int, rows []int32, k int) []float32 {
	i := k
	if rows != nil {
		i = int(rows[k])
	}
	return X[i*n : (i+1)*n : (i+1)*n]
}

// dotRows64x4From is DotRows64x4's reference from position from on.
func dotRows64x4From(dst []float64, X []float32, n int, rows []int32, w []float64, from int) {
	for k := from; k < len(dst); k++ {
		x := rowAt(X, n, rows, k)
		var s0, s1, s2, s3 float64
		j := 0
		for ; j+4 <= n; j += 4 {
			s0 += float64(float64(x[j]) * w[j])
			s1 += float64(float64(x[j+1]) * w[j+1])
			s2 += float64(float64(x[j+2]) * w[j+2])
			s3 += float64(float64(x[j+3]) * w[j+3])
		}
		for ; j < n; j++ {
			s0 += float64(float64(x[j]) * w[j])
		}
		dst[k] = (s0 + s1) + (s2 + s3)
	}
}

// axpyRows64From is AxpyRows64's reference from position from on.
func axpyRows64From(dst []float64, X []float32, n int, rows []int32, a []float64, from int) {
	for k := from; k < len(a); k++ {
		for j, v := range rowAt(X, n, rows, k) {
			dst[j] += float64(a[k] * float64(v))
		}
	}
}
