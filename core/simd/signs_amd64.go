package simd

import "unsafe"

// flipSigns32AVX2 runs FlipSigns32 over the first n values, n a positive
// multiple of 8 (y nil: every one).
//
//go:noescape
func flipSigns32AVX2(v *float32, y *int8, n int, yi int32)

func flipSigns32(v []float32, y []int8, yi int8) {
	n := len(v) &^ 7
	if level != AVX2 && level != AVX512 || n == 0 {
		flipSigns32Portable(v, y, yi, 0)
		return
	}
	var yp *int8
	if y != nil {
		yp = unsafe.SliceData(y)
	}
	flipSigns32AVX2(&v[0], yp, n, int32(yi))
	flipSigns32Portable(v, y, yi, n)
}
