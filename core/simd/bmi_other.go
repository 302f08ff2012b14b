//go:build !amd64

package simd

// HasAVX512BMI reports whether this machine runs AVX-512 with BMI1, BMI2
// and POPCNT: never outside amd64.
func HasAVX512BMI() bool { return false }
