//go:build !amd64 || amd64.v3

package simd

// With fused multiply-adds allowed (GOAMD64=v3 and up, arm64) math.Log1p's
// roundings are the compiler's choice, which no assembly can promise to
// repeat: math.Log1p itself.
func log1p(dst, x []float64) { log1pFrom(dst, x, 0) }
