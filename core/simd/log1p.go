package simd

import "math"

// Log1p sets dst[i] = math.Log1p(x[i]) for i < len(x), bit for bit: the
// logistic loss's log(1 + e^{−|z|}) over a block of rows. On amd64 builds
// for CPUs without guaranteed FMA (GOAMD64 below v3, where the compiler
// fuses nothing, so math.Log1p rounds every operation), an AVX-512 path
// runs math/log1p.go's algorithm (FreeBSD's s_log1p.c: 1 + x = 2^k·(1 + f),
// s = f/(2 + f), a degree-14 polynomial in s) eight lanes at a time with
// the same operations in the same order, for x in [2⁻²⁹, 1 − 2⁻⁴⁸), where
// log1p.go takes no branch but k ∈ {0, 1}; every other x (and every other
// build) is math.Log1p's own. It panics if dst is shorter than x.
func Log1p(dst, x []float64) {
	if len(dst) < len(x) {
		panic("simd: Log1p: dst is shorter than x")
	}
	log1p(dst[:len(x)], x)
}

// log1pLanesMin and log1pLanesMax bound the x the vector path computes:
// below 2⁻²⁹ log1p.go returns x or x − x²/2, and near 1 (1 + x within
// four units of 2) its reduced argument f is 0 or nearly, a branch of its
// own.
const (
	log1pLanesMin = 1.0 / (1 << 29)
	log1pLanesMax = 1 - 1.0/(1<<48)
)

// log1pFrom sets dst[i] = math.Log1p(x[i]) for i >= from, and below from
// where x[i] is outside the vector path's range.
func log1pFrom(dst, x []float64, from int) {
	dst = dst[:len(x)]
	for i, v := range x[:from] {
		if !(v >= log1pLanesMin && v < log1pLanesMax) { // NaN too
			dst[i] = math.Log1p(v)
		}
	}
	for i := from; i < len(x); i++ {
		dst[i] = math.Log1p(x[i])
	}
}
