//go:build !amd64 && !arm64

package simd

// Other architectures run the portable code.
const (
	hasAVX2   = false
	hasAVX512 = false
	hasVNNI   = false
	hasNEON   = false
)
