//go:build !amd64

package simd

func hvWidenRows(Hs, s []float64, X []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias, sb float64) {
	hvWidenRowsFrom(Hs, s, X, n, rows, lo, hi, a, scale, bias, sb)
}

func dotWidenRows(dst, s []float64, X []float32, n, lo, hi int) {
	dotWidenRowsFrom(dst, s, X, n, lo, hi)
}
