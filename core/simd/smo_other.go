//go:build !amd64

package simd

import "math"

func gradStepMaxUp(G []float64, qi, qj []float32, di, dj float64, ny []float64, sets []uint8, mask uint8) (float64, int) {
	return gradStepMaxUpPortable(G, qi, qj, di, dj, ny, sets, mask, 0, math.Inf(-1), -1)
}

func selectJ(G, ny, QD []float64, qi []float32, sets []uint8, mask uint8, m, QDi, c2, tau float64) (float64, float64, int) {
	return selectJPortable(G, ny, QD, qi, sets, mask, m, QDi, c2, tau, 0, math.Inf(1), math.Inf(1), -1)
}

func rbfArgs(a, x []float64, data []float32, rows []int32, sq []float64, sqi, g float64) {
	rbfArgsPortable(a, x, data, rows, sq, sqi, g)
}

func expTo32(dst []float32, x []float64) { expTo32Portable(dst, x) }

func addScaled32(dst []float64, c float64, q []float32) { addScaled32Portable(dst, c, q) }
