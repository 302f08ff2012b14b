//go:build !amd64

package simd

func dotWiden(x []float32, w []float64) float64 {
	var s [32]float64
	return dotWidenFrom(x, w, 0, &s)
}

func axpyWiden(dst []float64, a float64, x []float32) { axpyWidenFrom(dst, a, x, 0) }
