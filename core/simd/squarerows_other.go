//go:build !amd64

package simd

func axpySquaresRows(g, D []float64, X []float32, n int, rows []int32, lo, hi int, a, b []float64, bScale float64) {
	axpySquaresRowsFrom(g, D, X, n, rows, lo, hi, a, b, bScale)
}
