package simd

import (
	"math"
	"unsafe"
)

// gatherMarked32AVX512 runs GatherMarked32 over the first n elements, n a
// positive multiple of 16, for a src of srcLen < 2³¹ elements: bit 0 of
// the result says a value copied had the bits marker, bit 1 that an
// index was outside [0, srcLen) (the copy stops at its block of 16).
// With y not nil (n labels) it runs GatherMarkedSigned32, flipping the
// sign where y[k] ≠ yi.
//
//go:noescape
func gatherMarked32AVX512(dst, src *float32, idx *int32, y *int8, n, srcLen int, marker uint32, yi int32) int

// gatherMarked32AVX2 is gatherMarked32AVX512 eight at a time (VPGATHERDD
// of AVX2), n a positive multiple of 8.
//
//go:noescape
func gatherMarked32AVX2(dst, src *float32, idx *int32, y *int8, n, srcLen int, marker uint32, yi int32) int

func gatherMarked32(dst, src []float32, idx []int32, y []int8, yi int8, marker uint32) bool {
	var n int
	switch level {
	case AVX512:
		n = len(idx) &^ 15
	case AVX2:
		n = len(idx) &^ 7
	}
	if n == 0 || len(src) == 0 || len(src) > math.MaxInt32 {
		return gatherMarked32Portable(dst, src, idx, y, yi, marker, 0)
	}
	var yp *int8
	if y != nil {
		yp = unsafe.SliceData(y)
	}
	var flags int
	if level == AVX512 {
		flags = gatherMarked32AVX512(&dst[0], &src[0], &idx[0], yp, n, len(src), marker, int32(yi))
	} else {
		flags = gatherMarked32AVX2(&dst[0], &src[0], &idx[0], yp, n, len(src), marker, int32(yi))
	}
	if flags&2 != 0 {
		panic("simd: GatherMarked32: index outside src")
	}
	tail := gatherMarked32Portable(dst, src, idx, y, yi, marker, n)
	return flags&1 != 0 || tail
}
