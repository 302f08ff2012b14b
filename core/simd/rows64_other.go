//go:build !amd64

package simd

func dotRows64x4(dst []float64, X []float32, n int, rows []int32, w []float64) {
	dotRows64x4From(dst, X, n, rows, w, 0)
}

func axpyRows64(dst []float64, X []float32, n int, rows []int32, a []float64) {
	axpyRows64From(dst, X, n, rows, a, 0)
}
