package simd

// dotWidenAVX512 runs DotWiden's lanes over the first n elements, n a
// positive multiple of 32, and writes them to out.
//
//go:noescape
func dotWidenAVX512(x *float32, w *float64, n int, out *[32]float64)

// axpyWidenAVX512 runs AxpyWiden over the first n elements, n a positive
// multiple of 32.
//
//go:noescape
func axpyWidenAVX512(dst *float64, a float64, x *float32, n int)

func dotWiden(x []float32, w []float64) float64 {
	var s [32]float64
	from := 0
	if n32 := len(x) &^ 31; level == AVX512 && n32 > 0 {
		dotWidenAVX512(&x[0], &w[0], n32, &s)
		from = n32
	}
	return dotWidenFrom(x, w, from, &s)
}

func axpyWiden(dst []float64, a float64, x []float32) {
	from := 0
	if n32 := len(x) &^ 31; level == AVX512 && n32 > 0 {
		axpyWidenAVX512(&dst[0], a, &x[0], n32)
		from = n32
	}
	axpyWidenFrom(dst, a, x, from)
}
