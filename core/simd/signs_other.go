//go:build !amd64

package simd

func flipSigns32(v []float32, y []int8, yi int8) { flipSigns32Portable(v, y, yi, 0) }
