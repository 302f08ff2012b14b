package simd

// axpySquaresRowsAVX2 runs AxpySquaresRows over positions lo..hi−1 (n > 0,
// hi > lo, every row checked).
//
//go:noescape
func axpySquaresRowsAVX2(grad, diag *float64, X *float32, n int, rows *int32, lo, hi int, a, b *float64, bScale float64)

func axpySquaresRows(g, D []float64, X []float32, n int, rows []int32, lo, hi int, a, b []float64, bScale float64) {
	if (level != AVX2 && level != AVX512) || n == 0 || hi <= lo {
		axpySquaresRowsFrom(g, D, X, n, rows, lo, hi, a, b, bScale)
		return
	}
	axpySquaresRowsAVX2(&g[0], &D[0], &X[0], n, rowsPtr(rows), lo, hi, &a[0], &b[0], bScale)
}
