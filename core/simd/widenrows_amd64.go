package simd

// hvWidenRowsAVX512 runs HvWidenRows over positions lo..hi−1 (n > 0,
// hi > lo, every row checked); hasBias is 1 when bias ≥ 0.
//
//go:noescape
func hvWidenRowsAVX512(Hs, s *float64, X *float32, n int, rows *int32, lo, hi int, a *float64, scale, sb, bias float64, hasBias int)

func hvWidenRows(Hs, s []float64, X []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias, sb float64) {
	if level != AVX512 || n == 0 || hi <= lo {
		hvWidenRowsFrom(Hs, s, X, n, rows, lo, hi, a, scale, bias, sb)
		return
	}
	hasBias := 0
	if bias >= 0 {
		hasBias = 1
	}
	hvWidenRowsAVX512(&Hs[0], &s[0], &X[0], n, rowsPtr(rows), lo, hi, &a[0], scale, sb, bias, hasBias)
}

// dotWidenRowsAVX512 runs DotWidenRows over rows lo..hi−1 (n > 0, hi > lo).
//
//go:noescape
func dotWidenRowsAVX512(dst, s *float64, X *float32, n, lo, hi int)

func dotWidenRows(dst, s []float64, X []float32, n, lo, hi int) {
	if level != AVX512 || n == 0 || hi <= lo {
		dotWidenRowsFrom(dst, s, X, n, lo, hi)
		return
	}
	dotWidenRowsAVX512(&dst[0], &s[0], &X[0], n, lo, hi)
}
