package simd

import "math"

// hvSparseRowsAVX512 runs HvSparseRows over positions lo..hi−1 while each
// row has at most 16 nonzeros and lies in range (i below nRows, its
// entries below nIndex, its indices below n), and returns the position
// it stopped at (hi when all were run); the caller runs the row there.
// hasBias is 1 when bias ≥ 0.
//
//go:noescape
func hvSparseRowsAVX512(Hs, s *float64, start *int, index *int32, value *float32, n int, rows *int32, lo, hi int, a *float64, nRows, nIndex int, scale, bias, sb float64, hasBias int) int

func hvSparseRows(Hs, s []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias, sb float64) {
	if level != AVX512 || len(start) < 2 || len(index) == 0 || n == 0 || n > math.MaxInt32 || len(a) == 0 {
		hvSparseRowsFrom(Hs, s, start, index, value, n, rows, lo, hi, a, scale, bias, sb)
		return
	}
	hasBias := 0
	if bias >= 0 {
		hasBias = 1
	}
	for lo < hi {
		lo = hvSparseRowsAVX512(&Hs[0], &s[0], &start[0], &index[0], &value[0], n, rowsPtr(rows), lo, hi, &a[0],
			min(len(start)-1, len(a)), len(index), scale, bias, sb, hasBias)
		if lo < hi { // a long row (or one out of range, which panics here)
			hvSparseRowsFrom(Hs, s, start, index, value, n, rows, lo, lo+1, a, scale, bias, sb)
			lo++
		}
	}
}
