//go:build !amd64

package simd

func hvSparseRows(Hs, s []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias, sb float64, dots []float64) {
	hvSparseRowsFrom(Hs, s, start, index, value, n, rows, lo, hi, a, scale, bias, sb, dots)
}

func dotSparseRows(dst, s []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, bias, sb float64) {
	dotSparseRowsFrom(dst, s, start, index, value, n, rows, lo, hi, bias, sb)
}

func axpySquaresSparseRows(g, D []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, a, b []float64, bScale, bias float64) {
	axpySquaresSparseRowsFrom(g, D, start, index, value, n, rows, lo, hi, a, b, bScale, bias)
}
