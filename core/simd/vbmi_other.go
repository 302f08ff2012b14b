//go:build !amd64

package simd

// HasAVX512VBMI reports whether this machine runs AVX-512 VBMI and BMI2:
// never outside amd64.
func HasAVX512VBMI() bool { return false }
