package simd

// maxAbsProdAVX512 is MaxAbsProd over the first n elements, n > 0.
//
//go:noescape
func maxAbsProdAVX512(x, a *float32, n int) float64

// roundLimbsAVX512 is RoundLimbs over the first n elements, n > 0.
//
//go:noescape
func roundLimbsAVX512(hi, lo *int16, x, a *float32, n int, inv float64, shift int)

func maxAbsProd(x, a []float32) float64 {
	if level != AVX512 || len(x) == 0 {
		return maxAbsProdFrom(x, a, 0, 0, false)
	}
	return maxAbsProdAVX512(&x[0], &a[0], len(x))
}

func roundLimbs(hi, lo []int16, x, a []float32, inv float64, shift int) {
	if level != AVX512 || len(x) == 0 {
		roundLimbsFrom(hi, lo, x, a, inv, shift, 0)
		return
	}
	roundLimbsAVX512(&hi[0], &lo[0], &x[0], &a[0], len(x), inv, shift)
}

// widenShiftAVX512 is WidenShift over the first n elements, n a positive
// multiple of 16.
//
//go:noescape
func widenShiftAVX512(dst *int64, src *int32, n, shift int, add int64)

func widenShift(dst []int64, src []int32, shift int, add int64) {
	from := 0
	if n16 := len(src) &^ 15; level == AVX512 && n16 > 0 {
		widenShiftAVX512(&dst[0], &src[0], n16, shift, add)
		from = n16
	}
	widenShiftFrom(dst, src, shift, add, from)
}
