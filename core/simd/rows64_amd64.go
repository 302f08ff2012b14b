package simd

// dotRows64x4AVX2 and axpyRows64AVX2 run DotRows64x4 and AxpyRows64 over
// m > 0 rows of n > 0 entries: row k at X + rows[k]·n, or with rows nil
// at X + k·n.
//
//go:noescape
func dotRows64x4AVX2(dst *float64, X *float32, n int, rows *int32, m int, w *float64)

//go:noescape
func axpyRows64AVX2(dst *float64, X *float32, n int, rows *int32, m int, a *float64)

// rowsPtr returns &rows[0], or nil for nil rows.
func rowsPtr(rows []int32) *int32 {
	if rows == nil {
		return nil
	}
	return &rows[0]
}

func dotRows64x4(dst []float64, X []float32, n int, rows []int32, w []float64) {
	if (level == AVX2 || level == AVX512) && len(dst) > 0 && n > 0 {
		dotRows64x4AVX2(&dst[0], &X[0], n, rowsPtr(rows), len(dst), &w[0])
		return
	}
	dotRows64x4From(dst, X, n, rows, w, 0)
}

func axpyRows64(dst []float64, X []float32, n int, rows []int32, a []float64) {
	if (level == AVX2 || level == AVX512) && len(a) > 0 && n > 0 {
		axpyRows64AVX2(&dst[0], &X[0], n, rowsPtr(rows), len(a), &a[0])
		return
	}
	axpyRows64From(dst, X, n, rows, a, 0)
}
