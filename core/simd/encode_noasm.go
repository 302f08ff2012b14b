//go:build !amd64

package simd

func maxAbsProd(x, a []float32) float64 { return maxAbsProdFrom(x, a, 0, 0, false) }

func roundLimbs(hi, lo []int16, x, a []float32, inv float64, shift int) {
	roundLimbsFrom(hi, lo, x, a, inv, shift, 0)
}

func widenShift(dst []int64, src []int32, shift int, add int64) {
	widenShiftFrom(dst, src, shift, add, 0)
}
