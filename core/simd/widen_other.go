//go:build !amd64

package simd

func dotWiden(x []float32, w []float64) float64 { return dotWidenPortable(x, w) }

func axpyWiden(dst []float64, a float64, x []float32) { axpyWidenFrom(dst, a, x, 0) }

func axpySquaresWiden(dst, sq []float64, a, b float64, x []float32) {
	axpySquaresWidenFrom(dst, sq, a, b, x, 0)
}
