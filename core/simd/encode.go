package simd

import "math"

// The input side of the exact integer products (package quantize): a
// quantized kernel model scales a row's features by its per-feature steps
// a_j, takes one scale for the whole row from the largest |x_j·a_j|, and
// rounds each scaled value to an integer code split into two 16-bit limbs
// (GemmS16Limbs' A). Every path computes the same bits: each product
// float64(x_j)·float64(a_j) is exact, the multiplication by the row's
// scale is rounded once, and the rounding to an integer is math.Round's
// (halves away from zero).

// MaxAbsProd returns max_{i<len(x)} |float64(x[i])·float64(a[i])| (0 for
// an empty x), or NaN when a product is NaN (an infinite x[i] against a
// zero a[i], or a NaN x[i]). It panics if a is shorter than x.
func MaxAbsProd(x, a []float32) float64 {
	if len(a) < len(x) {
		panic("simd: MaxAbsProd: a is shorter than x")
	}
	return maxAbsProd(x, a[:len(x)])
}

// maxAbsProdFrom continues MaxAbsProd from element from with the maximum
// mx so far and whether a NaN was seen. The else branch tests for NaN only
// where the comparison failed, without math.Max's per-call tests.
func maxAbsProdFrom(x, a []float32, from int, mx float64, nan bool) float64 {
	a = a[:len(x)]
	for i := from; i < len(x); i++ {
		if v := math.Abs(float64(x[i]) * float64(a[i])); v > mx {
			mx = v
		} else if v != v {
			nan = true
		}
	}
	if nan {
		return math.NaN()
	}
	return mx
}

// RoundLimbs sets, for i < len(x), the integer code
//
//	q = math.Round(float64(x[i])·float64(a[i])·inv)
//
// (the product of x and a exact, the multiplication by inv rounded once)
// as two limbs q = hi[i]·2^shift + lo[i], lo[i] the low shift bits of q
// sign-extended, both truncated to int16 as Go's conversion does. The
// caller keeps |q| below 2^31 and shift such that both limbs fit 16 bits
// (for |q| ≤ 2^25: shift from 10 to 16), so that the limbs are q's; x
// must be finite. It panics if a, hi or lo is shorter than x or shift is
// outside [1, 31].
func RoundLimbs(hi, lo []int16, x, a []float32, inv float64, shift int) {
	if len(a) < len(x) || len(hi) < len(x) || len(lo) < len(x) {
		panic("simd: RoundLimbs: a, hi or lo is shorter than x")
	}
	if shift < 1 || shift > 31 {
		panic("simd: RoundLimbs: shift outside [1, 31]")
	}
	roundLimbs(hi[:len(x)], lo[:len(x)], x, a[:len(x)], inv, shift)
}

// roundLimbsFrom is RoundLimbs' reference from element from on.
func roundLimbsFrom(hi, lo []int16, x, a []float32, inv float64, shift, from int) {
	a, hi, lo = a[:len(x)], hi[:len(x)], lo[:len(x)]
	sh := uint(32 - shift)
	for i := from; i < len(x); i++ {
		q := int32(math.Round(float64(x[i]) * float64(a[i]) * inv))
		l := q << sh >> sh
		hi[i], lo[i] = int16((q-l)>>uint(shift)), int16(l)
	}
}

// WidenShift sets dst[i] = int64(src[i])<<shift + add for i < len(src):
// int32 sums of one limb (GemmS8x16) as int64 sums of its weight. It
// panics if dst is shorter than src or shift is outside [0, 31].
func WidenShift(dst []int64, src []int32, shift int, add int64) {
	if len(dst) < len(src) {
		panic("simd: WidenShift: dst is shorter than src")
	}
	if shift < 0 || shift > 31 {
		panic("simd: WidenShift: shift outside [0, 31]")
	}
	widenShift(dst[:len(src)], src, shift, add)
}

// widenShiftFrom is WidenShift's reference from element from on.
func widenShiftFrom(dst []int64, src []int32, shift int, add int64, from int) {
	dst = dst[:len(src)]
	for i := from; i < len(src); i++ {
		dst[i] = int64(src[i])<<shift + add
	}
}
