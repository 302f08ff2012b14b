package simd

import "math"

// gatherMarked32AVX512 runs GatherMarked32 over the first n elements, n a
// positive multiple of 16, for a src of srcLen < 2³¹ elements: bit 0 of
// the result says a value copied had the bits marker, bit 1 that an
// index was outside [0, srcLen) (the copy stops at its block of 16).
//
//go:noescape
func gatherMarked32AVX512(dst, src *float32, idx *int32, n, srcLen int, marker uint32) int

func gatherMarked32(dst, src []float32, idx []int32, marker uint32) bool {
	n16 := len(idx) &^ 15
	if level != AVX512 || n16 == 0 || len(src) == 0 || len(src) > math.MaxInt32 {
		return gatherMarked32Portable(dst, src, idx, marker, 0)
	}
	flags := gatherMarked32AVX512(&dst[0], &src[0], &idx[0], n16, len(src), marker)
	if flags&2 != 0 {
		panic("simd: GatherMarked32: index outside src")
	}
	tail := gatherMarked32Portable(dst, src, idx, marker, n16)
	return flags&1 != 0 || tail
}
