package simd

import "math"

// gradStepMaxUpAVX512 runs GradStepMaxUp on the first n elements, n a
// multiple of 8, eight float64 lanes at a time, and writes each lane's
// maximum (float64 bits) to out[0:8] and its last index attaining it to
// out[8:16] (−Inf and −1 for a lane that saw no set element).
//
//go:noescape
func gradStepMaxUpAVX512(G *float64, qi, qj *float32, di, dj float64, ny *float64, sets *uint8, mask uint64, n int, out *[16]int64)

// gradStepMaxUpAVX2 is gradStepMaxUpAVX512 in four lanes (out[0:4] and
// out[8:12]), n a multiple of 4.
//
//go:noescape
func gradStepMaxUpAVX2(G *float64, qi, qj *float32, di, dj float64, ny *float64, sets *uint8, mask uint64, n int, out *[16]int64)

func gradStepMaxUp(G []float64, qi, qj []float32, di, dj float64, ny []float64, sets []uint8, mask uint8) (float64, int) {
	m, i, from := math.Inf(-1), -1, 0
	lanes := 0
	var out [16]int64
	switch n := len(G); {
	case level == AVX512 && n >= 8:
		lanes, from = 8, n&^7
		gradStepMaxUpAVX512(&G[0], &qi[0], &qj[0], di, dj, &ny[0], &sets[0], uint64(mask), from, &out)
	case level == AVX2 && n >= 4:
		lanes, from = 4, n&^3
		gradStepMaxUpAVX2(&G[0], &qi[0], &qj[0], di, dj, &ny[0], &sets[0], uint64(mask), from, &out)
	}
	if lanes > 0 {
		var vals [8]float64
		for l := range lanes {
			vals[l] = math.Float64frombits(uint64(out[l]))
		}
		m, i = reduceMaxLast(vals[:lanes], out[8:8+lanes])
	}
	return gradStepMaxUpPortable(G, qi, qj, di, dj, ny, sets, mask, from, m, i)
}

// selectJAVX512 runs SelectJ on the first n elements, n a multiple of 8,
// and writes per lane: the minimum of v (float64 bits, out[0:8]; VMINPD,
// which does not keep NaN), the best objective (out[8:16]) and its last
// index (out[16:24], −1 for none), and in out[24] a nonzero value when a
// v in I_low was NaN.
//
//go:noescape
func selectJAVX512(G, ny, QD *float64, qi *float32, sets *uint8, mask uint64, n int, m, QDi, c2, tau float64, out *[25]int64)

// selectJAVX2 is selectJAVX512 in four lanes (out[0:4], out[8:12],
// out[16:20] and out[24]), n a multiple of 4.
//
//go:noescape
func selectJAVX2(G, ny, QD *float64, qi *float32, sets *uint8, mask uint64, n int, m, QDi, c2, tau float64, out *[25]int64)

func selectJ(G, ny, QD []float64, qi []float32, sets []uint8, mask uint8, m, QDi, c2, tau float64) (float64, float64, int) {
	M, best, j, from := math.Inf(1), math.Inf(1), -1, 0
	lanes := 0
	var out [25]int64
	switch n := len(G); {
	case level == AVX512 && n >= 8:
		lanes, from = 8, n&^7
		selectJAVX512(&G[0], &ny[0], &QD[0], &qi[0], &sets[0], uint64(mask), from, m, QDi, c2, tau, &out)
	case level == AVX2 && n >= 4:
		lanes, from = 4, n&^3
		selectJAVX2(&G[0], &ny[0], &QD[0], &qi[0], &sets[0], uint64(mask), from, m, QDi, c2, tau, &out)
	}
	if lanes > 0 {
		var vals [8]float64
		for l := range lanes {
			M = min(M, math.Float64frombits(uint64(out[l])))
			vals[l] = math.Float64frombits(uint64(out[8+l]))
		}
		if out[24] != 0 {
			M = math.NaN()
		}
		best, j = reduceMinLast(vals[:lanes], out[16:16+lanes], best, j)
	}
	return selectJPortable(G, ny, QD, qi, sets, mask, m, QDi, c2, tau, from, M, best, j)
}

// rbfArgsAVX2 runs RBFArgs on count rows (count > 0, n = len(x) > 0; the
// caller checked every row index).
//
//go:noescape
func rbfArgsAVX2(a, x *float64, data *float32, rows *int32, sq *float64, sqi, gam float64, n, count int)

// rbfArgs4AVX512 runs RBFArgs on count rows (count a multiple of 4,
// n = len(x) > 0; the caller checked every row index), four at a time.
//
//go:noescape
func rbfArgs4AVX512(a, x *float64, data *float32, rows *int32, sq *float64, sqi, gam float64, n, count int)

func rbfArgs(a, x []float64, data []float32, rows []int32, sq []float64, sqi, g float64) {
	if n4 := len(rows) &^ 3; level == AVX512 && n4 > 0 && len(x) > 0 {
		rbfArgs4AVX512(&a[0], &x[0], &data[0], &rows[0], &sq[0], sqi, g, len(x), n4)
		a, rows = a[n4:], rows[n4:]
	}
	if (level == AVX2 || level == AVX512) && len(rows) > 0 && len(x) > 0 {
		rbfArgsAVX2(&a[0], &x[0], &data[0], &rows[0], &sq[0], sqi, g, len(x), len(rows))
		return
	}
	rbfArgsPortable(a, x, data, rows, sq, sqi, g)
}

// expTo32AVX512 runs ExpTo32's fast formula on the first n elements, n a
// multiple of 8, whatever their range, and returns nonzero when some x was
// outside [−708, 700] or NaN (those elements then need math.Exp).
//
//go:noescape
func expTo32AVX512(dst *float32, x *float64, n int, c *[12]float64, table *[32]float64) int

// expTo32AVX2 is expTo32AVX512 in four lanes, n a multiple of 4.
//
//go:noescape
func expTo32AVX2(dst *float32, x *float64, n int, c *[12]float64, table *[32]float64) int

func expTo32(dst []float32, x []float64) {
	n8, outside := 0, 0
	switch {
	case level == AVX512 && len(x) >= 8:
		n8 = len(x) &^ 7
		outside = expTo32AVX512(&dst[0], &x[0], n8, &expTo32Const, &expTo32Table)
	case level == AVX2 && len(x) >= 4:
		n8 = len(x) &^ 3
		outside = expTo32AVX2(&dst[0], &x[0], n8, &expTo32Const, &expTo32Table)
	default:
		expTo32Portable(dst, x)
		return
	}
	if outside != 0 {
		for t, v := range x[:n8] {
			if !(v >= expTo32Const[10] && v <= expTo32Const[11]) {
				dst[t] = float32(math.Exp(v))
			}
		}
	}
	expTo32Portable(dst[n8:], x[n8:])
}

// addScaled32AVX512 runs AddScaled32 on the first n elements, n a multiple
// of 8.
//
//go:noescape
func addScaled32AVX512(dst *float64, c float64, q *float32, n int)

// addScaled32AVX2 is addScaled32AVX512 in four lanes, n a multiple of 4.
//
//go:noescape
func addScaled32AVX2(dst *float64, c float64, q *float32, n int)

func addScaled32(dst []float64, c float64, q []float32) {
	if n8 := len(dst) &^ 7; level == AVX512 && n8 > 0 {
		addScaled32AVX512(&dst[0], c, &q[0], n8)
		dst, q = dst[n8:], q[n8:]
	}
	if n4 := len(dst) &^ 3; level == AVX2 && n4 > 0 {
		addScaled32AVX2(&dst[0], c, &q[0], n4)
		dst, q = dst[n4:], q[n4:]
	}
	addScaled32Portable(dst, c, q)
}
