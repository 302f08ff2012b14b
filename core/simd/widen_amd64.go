package simd

// dotWidenAVX512 returns DotWiden over n > 0 elements, its tail and lane
// sum included (in Go they cost digits -s 0 a sixth of its CPU).
//
//go:noescape
func dotWidenAVX512(x *float32, w *float64, n int) float64

// axpyWidenAVX512 runs AxpyWiden over the first n elements, n a positive
// multiple of 32.
//
//go:noescape
func axpyWidenAVX512(dst *float64, a float64, x *float32, n int)

func dotWiden(x []float32, w []float64) float64 {
	if level == AVX512 && len(x) > 0 {
		return dotWidenAVX512(&x[0], &w[0], len(x))
	}
	return dotWidenPortable(x, w)
}

func axpyWiden(dst []float64, a float64, x []float32) {
	from := 0
	if n32 := len(x) &^ 31; level == AVX512 && n32 > 0 {
		axpyWidenAVX512(&dst[0], a, &x[0], n32)
		from = n32
	}
	axpyWidenFrom(dst, a, x, from)
}

// axpySquaresWidenAVX512 runs AxpySquaresWiden over the first n elements,
// n a positive multiple of 16.
//
//go:noescape
func axpySquaresWidenAVX512(dst, sq *float64, a, b float64, x *float32, n int)

func axpySquaresWiden(dst, sq []float64, a, b float64, x []float32) {
	from := 0
	if n16 := len(x) &^ 15; level == AVX512 && n16 > 0 {
		axpySquaresWidenAVX512(&dst[0], &sq[0], a, b, &x[0], n16)
		from = n16
	}
	axpySquaresWidenFrom(dst, sq, a, b, x, from)
}
