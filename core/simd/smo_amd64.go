package simd

import "math"

// gradStepMaxUpAVX512 runs GradStepMaxUp on the first n elements, n a
// multiple of 8, eight float64 lanes at a time, and writes each lane's
// maximum (float64 bits) to out[0:8] and its last index attaining it to
// out[8:16] (−Inf and −1 for a lane that saw no set element).
//
//go:noescape
func gradStepMaxUpAVX512(G *float64, qi, qj *float32, di, dj float64, ny *float64, sets *uint8, mask uint64, n int, out *[16]int64)

func gradStepMaxUp(G []float64, qi, qj []float32, di, dj float64, ny []float64, sets []uint8, mask uint8) (float64, int) {
	m, i, from := math.Inf(-1), -1, 0
	if n8 := len(G) &^ 7; level == AVX512 && n8 > 0 {
		var out [16]int64
		gradStepMaxUpAVX512(&G[0], &qi[0], &qj[0], di, dj, &ny[0], &sets[0], uint64(mask), n8, &out)
		var vals [8]float64
		for l := range vals {
			vals[l] = math.Float64frombits(uint64(out[l]))
		}
		m, i = reduceMaxLast(vals[:], out[8:])
		from = n8
	}
	return gradStepMaxUpPortable(G, qi, qj, di, dj, ny, sets, mask, from, m, i)
}
