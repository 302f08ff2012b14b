package simd

import (
	"math"
	"sync/atomic"
	"unsafe"
)

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
	return gatherMarked32(dst[:len(idx)], src, idx, nil, 0, marker)
}

// GatherMarkedSigned32 is GatherMarked32 with labels: dst[k] is
// src[idx[k]] with its sign bit flipped where y[k] ≠ yi (labels ±1: the
// y_i y_t K_it of a kernel column into Q's), marker compared with the bits
// before the flip. The gather of a kept kernel column and the sign pass
// after it, one pass: that pass was ~8% of a shuttle warm retrain's
// instructions. It panics as GatherMarked32 does, and if y is shorter
// than idx.
func GatherMarkedSigned32(dst, src []float32, idx []int32, y []int8, yi int8, marker uint32) bool {
	if len(dst) < len(idx) || len(y) < len(idx) {
		panic("simd: GatherMarkedSigned32: dst or y is shorter than idx")
	}
	return gatherMarked32(dst[:len(idx)], src, idx, y[:len(idx)], yi, marker)
}

// gatherMarked32Portable is GatherMarked32 in Go, from position from on;
// with y (as long as idx) GatherMarkedSigned32.
func gatherMarked32Portable(dst, src []float32, idx []int32, y []int8, yi int8, marker uint32, from int) bool {
	dst = dst[:len(idx)] // equal lengths: no bounds checks on dst
	marked := false
	if y == nil {
		for k := from; k < len(idx); k++ {
			// An atomic load, as the contract promises and the race
			// detector checks (the assembly's loads are whole anyway).
			b := atomic.LoadUint32((*uint32)(unsafe.Pointer(&src[idx[k]])))
			dst[k] = math.Float32frombits(b)
			if b == marker {
				marked = true
			}
		}
		return marked
	}
	y = y[:len(idx)]
	for k := from; k < len(idx); k++ {
		b := atomic.LoadUint32((*uint32)(unsafe.Pointer(&src[idx[k]])))
		if b == marker {
			marked = true
		}
		// y_k ^ y_i is 0 for equal labels, 0xFE for ±1 and ∓1.
		dst[k] = math.Float32frombits(b ^ uint32(uint8(y[k]^yi))<<24&(1<<31))
	}
	return marked
}

// GatherInt32 sets dst[k] = src[idx[k]] for k < len(idx): the gather of
// GatherMarked32 on int32 values (a matrix's kept-column slots, one per
// variable, looked up by row: svcQ.init's loop was ~1% of a shuttle warm
// retrain's instructions). It panics as GatherMarked32 does.
func GatherInt32(dst, src []int32, idx []int32) {
	if len(dst) < len(idx) {
		panic("simd: GatherInt32: dst is shorter than idx")
	}
	if len(idx) == 0 {
		return
	}
	if len(src) == 0 {
		for _, i := range idx {
			_ = src[i] // panics
		}
		return
	}
	// The same bits through the float32 gather: it copies them whole.
	gatherMarked32(unsafe.Slice((*float32)(unsafe.Pointer(&dst[0])), len(idx)),
		unsafe.Slice((*float32)(unsafe.Pointer(&src[0])), len(src)), idx, nil, 0, 0)
}
