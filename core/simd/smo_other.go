//go:build !amd64

package simd

import "math"

func gradStepMaxUp(G []float64, qi, qj []float32, di, dj float64, ny []float64, sets []uint8, mask uint8) (float64, int) {
	return gradStepMaxUpPortable(G, qi, qj, di, dj, ny, sets, mask, 0, math.Inf(-1), -1)
}
