package simd

// arm64: Advanced SIMD (NEON) is part of the base architecture; the float32
// matrix product has a NEON micro-kernel (gemm_arm64.s), the rest runs the
// portable code.
const (
	hasAVX2   = false
	hasAVX512 = false
	hasVNNI   = false
	hasNEON   = true
)
