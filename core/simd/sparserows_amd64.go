package simd

import "math"

// hvSparseRowsAVX512 runs HvSparseRows over positions lo..hi−1 while each
// row has at most 16 nonzeros and lies in range (i below nRows, its
// entries below nIndex, its indices below n), and returns the position
// it stopped at (hi when all were run); the caller runs the row there.
// hasBias is 1 when bias ≥ 0; dots nil or room for hi.
//
//go:noescape
func hvSparseRowsAVX512(Hs, s *float64, start *int, index *int32, value *float32, n int, rows *int32, lo, hi int, a *float64, nRows, nIndex int, scale, bias, sb float64, hasBias int, dots *float64) int

func hvSparseRows(Hs, s []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, a []float64, scale, bias, sb float64, dots []float64) {
	if level != AVX512 || len(start) < 2 || len(index) == 0 || n == 0 || n > math.MaxInt32 || len(a) == 0 {
		hvSparseRowsFrom(Hs, s, start, index, value, n, rows, lo, hi, a, scale, bias, sb, dots)
		return
	}
	var dp *float64
	if dots != nil {
		dp = &dots[0]
	}
	hasBias := 0
	if bias >= 0 {
		hasBias = 1
	}
	for lo < hi {
		lo = hvSparseRowsAVX512(&Hs[0], &s[0], &start[0], &index[0], &value[0], n, rowsPtr(rows), lo, hi, &a[0],
			min(len(start)-1, len(a)), len(index), scale, bias, sb, hasBias, dp)
		if lo < hi { // a long row (or one out of range, which panics here)
			hvSparseRowsFrom(Hs, s, start, index, value, n, rows, lo, lo+1, a, scale, bias, sb, dots)
			lo++
		}
	}
}

// dotSparseRowsAVX512 runs DotSparseRows over positions lo..hi−1 as
// hvSparseRowsAVX512 runs its rows, and returns the position it stopped at.
//
//go:noescape
func dotSparseRowsAVX512(dst, s *float64, start *int, index *int32, value *float32, n int, lo, hi int, sb float64, hasBias int, nRows, nIndex int, rows *int32) int

func dotSparseRows(dst, s []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, bias, sb float64) {
	if level != AVX512 || len(start) < 2 || len(index) == 0 || n == 0 || n > math.MaxInt32 || len(dst) == 0 {
		dotSparseRowsFrom(dst, s, start, index, value, n, rows, lo, hi, bias, sb)
		return
	}
	hasBias := 0
	if bias >= 0 {
		hasBias = 1
	}
	for lo < hi {
		lo = dotSparseRowsAVX512(&dst[0], &s[0], &start[0], &index[0], &value[0], n, lo, hi, sb, hasBias,
			min(len(start)-1, len(dst)), len(index), rowsPtr(rows))
		if lo < hi { // a long row (or one out of range, which panics here)
			dotSparseRowsFrom(dst, s, start, index, value, n, rows, lo, lo+1, bias, sb)
			lo++
		}
	}
}

// axpySquaresSparseRowsAVX512 runs AxpySquaresSparseRows over positions
// lo..hi−1 as hvSparseRowsAVX512 runs its rows, and returns the position
// it stopped at.
//
//go:noescape
func axpySquaresSparseRowsAVX512(grad, diag *float64, start *int, index *int32, value *float32, n int, rows *int32, lo, hi int, a *float64, nRows, nIndex int, b *float64, bias float64, hasBias int, bScale float64) int

func axpySquaresSparseRows(g, D []float64, start []int, index []int32, value []float32, n int, rows []int32, lo, hi int, a, b []float64, bScale, bias float64) {
	if level != AVX512 || len(start) < 2 || len(index) == 0 || n == 0 || n > math.MaxInt32 || len(a) == 0 {
		axpySquaresSparseRowsFrom(g, D, start, index, value, n, rows, lo, hi, a, b, bScale, bias)
		return
	}
	hasBias := 0
	if bias >= 0 {
		hasBias = 1
	}
	for lo < hi {
		lo = axpySquaresSparseRowsAVX512(&g[0], &D[0], &start[0], &index[0], &value[0], n, rowsPtr(rows), lo, hi, &a[0],
			min(len(start)-1, len(a)), len(index), &b[0], bias, hasBias, bScale)
		if lo < hi { // a long row (or one out of range, which panics here)
			axpySquaresSparseRowsFrom(g, D, start, index, value, n, rows, lo, lo+1, a, b, bScale, bias)
			lo++
		}
	}
}
