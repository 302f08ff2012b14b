//go:build !amd64 && !arm64

package simd

func dot(x, y []float32) float32 { return dotPortable(x, y) }

func gemmPanels(c []float32, ldc int, a []float32, lda, m int, bp []float32, panels, k int) {
	gemmPortable(c, ldc, a, lda, m, bp, panels, k)
}

func expRBF(dst, x, base []float32, scale, offset float32, rbf bool) {
	if rbf {
		expRBFPortable(dst, x, base, scale, offset)
	} else {
		expPortable(dst, x)
	}
}

func gemmU16S8Panels(c []int32, ldc int, hi, lo []uint8, lda, m int, bp []int8, panels, k int) {
	gemmU16S8Portable(c, ldc, hi, lo, lda, m, bp, panels, k)
}
