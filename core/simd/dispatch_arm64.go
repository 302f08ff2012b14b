package simd

import "math"

// gemm4NEON computes four rows of C (rows of A and C lda and ldc elements
// apart) against panels consecutive packed panels (gemm_arm64.s).
//
//go:noescape
func gemm4NEON(c *float32, ldc int, a *float32, lda int, bp *float32, panels, k int)

func dot(x, y []float32) float32 { return dotPortable(x, y) }

func gemmPanels(c []float32, ldc int, a []float32, lda, m int, bp []float32, panels, k int, _ []float32) {
	if level != NEON || k == 0 {
		gemmPortable(c, ldc, a, lda, m, bp, panels, k)
		return
	}
	i := 0
	for ; i+4 <= m; i += 4 {
		gemm4NEON(&c[i*ldc], ldc, &a[i*lda], lda, &bp[0], panels, k)
	}
	// The last rows one at a time, the kernel's four rows all the same row.
	for ; i < m; i++ {
		gemm4NEON(&c[i*ldc], 0, &a[i*lda], 0, &bp[0], panels, k)
	}
}

func expRBF(dst, x, base []float32, scale, offset float32, rbf bool) {
	if rbf {
		expRBFPortable(dst, x, base, scale, offset)
	} else {
		expPortable(dst, x)
	}
}

func gemmLimbsPanels[T int8 | int16](c []int64, ldc int, hi, lo []int16, lda, m int, bp []T, panels, k2, shift, _ int) {
	gemmLimbsPortable(c, ldc, hi, lo, lda, m, bp, panels, k2, shift)
}

func rbfArgsS64(dst []float32, s []int64, ss []float64, xx, c0, t, gamma float64) float64 {
	return rbfArgsS64Portable(dst, s, ss, xx, c0, t, gamma, math.Inf(-1), 0)
}

func pairDots64(dst []float64, x []float32, rows, nf int, w []float32, nw int) {
	pairDots64Portable(dst, x, rows, nf, w, nw)
}

func gemmS8x16Panels(c []int32, ldc int, a []int16, lda, m int, bp []int8, panels, k2 int) {
	gemmS8x16Portable(c, ldc, a, lda, m, bp, panels, k2)
}

func dotStrided(dst, x, y []float32, ldy int) { dotStridedEach(dst, x, y, ldy, 0) }

func dot64x4Lanes(_, _ []float32, _ *[4]float64) int { return 0 }
