package simd

// exp64AVX512 sets dst[i] = math.Exp(x[i]) for the first n elements, n a
// positive multiple of 8, where x[i] is in [exp64LanesMin,
// exp64LanesMax]; other lanes get garbage for exp64From to overwrite.
//
//go:noescape
func exp64AVX512(dst, x *float64, n int)

func exp64(dst, x []float64) {
	from := 0
	if n8 := len(x) &^ 7; level == AVX512 && n8 > 0 {
		exp64AVX512(&dst[0], &x[0], n8)
		from = n8
	}
	exp64From(dst, x, from)
}
