package simd

// HvWidenRows is HvRows64x4 for wider rows (n ≥ 32, say): for k = lo, …,
// hi−1 in order, i = rows[k] (rows nil: k), x_i row i of X (n float32
// entries, then a pseudo-feature of value bias when bias ≥ 0), c_k =
// scale·a[i]·(x_iᵀs + s[n]·bias) with x_iᵀs summed as DotWiden sums it,
// then Hs += c_k·x_i as AxpyWiden adds it, every product rounded before
// its sum, so every path returns the same bits. One call a range of rows
// (the primal Newton method's Hessian-vector pass over dense rows, where
// a call a row cost digits' 64 features a third of the pass). It panics
// if rows reach past X or a, or s or Hs is shorter than n (n + 1 when
// bias ≥ 0).
func HvWidenRows(Hs, s []float64, X []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias float64) {
	m := n
	if bias >= 0 {
		m = n + 1
	}
	if len(s) < m || len(Hs) < m || lo > hi || (rows != nil && len(rows) < hi) {
		panic("simd: HvWidenRows: a vector is shorter than n or hi")
	}
	// Every row read, once: the last bounds X and a.
	last := hi - 1
	if rows != nil {
		last = -1
		for _, i := range rows[lo:hi] {
			if i < 0 {
				panic("simd: HvWidenRows: negative row")
			}
			last = max(last, int(i))
		}
	}
	if n < 0 || lo < 0 || (last+1)*n > len(X) || last >= len(a) {
		panic("simd: HvWidenRows: a row past X or a")
	}
	sb := 0.0
	if bias >= 0 {
		sb = float64(s[n] * bias) // rounded: never fused into the sum below
	}
	hvWidenRows(Hs, s, X, n, rows, lo, hi, a, scale, bias, sb)
}

// hvWidenRowsFrom is HvWidenRows's reference over positions lo..hi−1.
func hvWidenRowsFrom(Hs, s []float64, X []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias, sb float64) {
	for k := lo; k < hi; k++ {
		i := k
		if rows != nil {
			i = int(rows[k])
		}
		x := X[i*n : (i+1)*n : (i+1)*n]
		c := float64(scale*a[i]) * (dotWidenPortable(x, s[:n]) + sb)
		axpyWidenFrom(Hs[:n], c, x, 0)
		if bias >= 0 {
			Hs[n] += float64(c * bias)
		}
	}
}

// DotWidenRows sets dst[i] = DotWiden(x_i, s) for rows i = lo, …, hi−1 of
// X, a row-major matrix of n-wide float32 rows, bit for bit, one call a
// range (the primal Newton method's step over dense rows). It panics if
// the rows reach past X, or s is shorter than n, or dst than hi.
func DotWidenRows(dst, s []float64, X []float32, n, lo, hi int) {
	if lo > hi || len(dst) < hi || lo < 0 {
		panic("simd: DotWidenRows: dst is shorter than hi")
	}
	checkRows("DotWidenRows", X, n, nil, hi, len(s))
	dotWidenRows(dst, s[:n], X, n, lo, hi)
}

// dotWidenRowsFrom is DotWidenRows's reference.
func dotWidenRowsFrom(dst, s []float64, X []float32, n, lo, hi int) {
	for i := lo; i < hi; i++ {
		dst[i] = dotWidenPortable(X[i*n:(i+1)*n:(i+1)*n], s)
	}
}
