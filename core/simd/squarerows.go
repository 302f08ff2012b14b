package simd

// AxpySquaresRows does g_j += a[i]·x_ij and D_j += ((bScale·b[i])·x_ij)·x_ij
// for j < n, for k = lo, …, hi−1 in order, i = rows[k] (rows nil: k), x_i
// row i of X, a row-major matrix of n-wide float32 rows, each product
// rounded before its sum (never fused), so every path returns the same
// bits: a gradient and the Hessian's diagonal over narrow dense rows
// (shuttle's 9 features), where a call a row costs as much as its
// arithmetic. It panics if rows reach past X, a or b, or g or D is
// shorter than n.
func AxpySquaresRows(g, D []float64, X []float32, n int, rows []int32, lo, hi int, a, b []float64, bScale float64) {
	if len(g) < n || len(D) < n || lo < 0 || lo > hi || (rows != nil && len(rows) < hi) {
		panic("simd: AxpySquaresRows: a vector is shorter than n or hi")
	}
	last := hi - 1
	if rows != nil {
		last = -1
		for _, i := range rows[lo:hi] {
			if i < 0 {
				panic("simd: AxpySquaresRows: negative row")
			}
			last = max(last, int(i))
		}
	}
	if n < 0 || (last+1)*n > len(X) || last >= len(a) || last >= len(b) {
		panic("simd: AxpySquaresRows: a row past X, a or b")
	}
	axpySquaresRows(g[:n], D[:n], X, n, rows, lo, hi, a, b, bScale)
}

// axpySquaresRowsFrom is AxpySquaresRows's reference.
func axpySquaresRowsFrom(g, D []float64, X []float32, n int, rows []int32, lo, hi int, a, b []float64, bScale float64) {
	for k := lo; k < hi; k++ {
		i := k
		if rows != nil {
			i = int(rows[k])
		}
		bi := float64(bScale * b[i])
		for j, v := range X[i*n : (i+1)*n : (i+1)*n] {
			x := float64(v)
			g[j] += float64(a[i] * x)
			D[j] += float64(float64(bi*x) * x)
		}
	}
}
