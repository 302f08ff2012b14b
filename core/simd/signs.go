package simd

import "math"

// FlipSigns32 flips the sign bit of v[k] where y[k] ≠ yi (labels ±1:
// K_it into Q_it = y_i y_t K_it), and of every v[k] when y is nil; NaN
// payloads and zeros keep their other bits. A kernel column's sign pass
// entry by entry was ~8% of a shuttle warm retrain's instructions. It
// panics if y is not nil and shorter than v.
func FlipSigns32(v []float32, y []int8, yi int8) {
	if y != nil {
		if len(y) < len(v) {
			panic("simd: FlipSigns32: y is shorter than v")
		}
		y = y[:len(v)]
	}
	flipSigns32(v, y, yi)
}

// flipSigns32Portable is FlipSigns32 in Go, from position from on.
func flipSigns32Portable(v []float32, y []int8, yi int8, from int) {
	if y == nil {
		for k := from; k < len(v); k++ {
			v[k] = math.Float32frombits(math.Float32bits(v[k]) ^ (1 << 31))
		}
		return
	}
	y = y[:len(v)]
	for k := from; k < len(v); k++ {
		// y_k ^ y_i is 0 for equal labels, 0xFE for ±1 and ∓1.
		v[k] = math.Float32frombits(math.Float32bits(v[k]) ^ uint32(uint8(y[k]^yi))<<24&(1<<31))
	}
}
