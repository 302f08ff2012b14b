package simd

import "math"

// GatherMarked32 sets dst[k] = src[idx[k]] for k < len(idx), copying the
// bits, and reports whether any value it copied has the bits marker (a
// NaN payload a caller uses for "not set": kept kernel columns, whose
// missing entries it then finds in dst). It panics if dst is shorter than
// idx or an index is outside src; dst's contents are then unspecified.
//
// An entry of src another goroutine stores with atomic 32-bit stores
// while this reads is read whole, old or new (aligned 32-bit loads).
func GatherMarked32(dst, src []float32, idx []int32, marker uint32) bool {
	if len(dst) < len(idx) {
		panic("simd: GatherMarked32: dst is shorter than idx")
	}
	return gatherMarked32(dst[:len(idx)], src, idx, marker)
}

// gatherMarked32Portable is GatherMarked32 in Go, from position from on.
func gatherMarked32Portable(dst, src []float32, idx []int32, marker uint32, from int) bool {
	dst = dst[:len(idx)] // equal lengths: no bounds checks on dst
	marked := false
	for k := from; k < len(idx); k++ {
		v := src[idx[k]]
		dst[k] = v
		if math.Float32bits(v) == marker {
			marked = true
		}
	}
	return marked
}
