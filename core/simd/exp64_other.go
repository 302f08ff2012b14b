//go:build !amd64

package simd

func exp64(dst, x []float64) { exp64From(dst, x, 0) }
