//go:build !amd64.v3

package simd

// log1pAVX512 sets dst[i] = math.Log1p(x[i]) for the first n elements, n
// a positive multiple of 8, where x[i] is in [log1pLanesMin,
// log1pLanesMax); other lanes get garbage for log1pFrom to overwrite.
//
//go:noescape
func log1pAVX512(dst, x *float64, n int)

func log1p(dst, x []float64) {
	from := 0
	if n8 := len(x) &^ 7; level == AVX512 && n8 > 0 {
		log1pAVX512(&dst[0], &x[0], n8)
		from = n8
	}
	log1pFrom(dst, x, from)
}
