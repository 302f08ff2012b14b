package simd

import "math"

// Exp64 sets dst[i] = math.Exp(x[i]) for i < len(x), bit for bit: the
// logistic loss's e^{−|z|} over a block of rows. On amd64 with AVX-512
// (whose CPUs have FMA, so math.Exp takes its fused path, exp_amd64.s:
// Shibata's reduction x = k·ln2 + r in two FMA steps, r/16, a degree-8
// Taylor polynomial by FMAs, four squarings as (y + 2)·y, then 2^k) the
// same operations run eight lanes at a time for x in [exp64LanesMin,
// exp64LanesMax], where exp_amd64.s takes no branch; every other x (and
// every other path) is math.Exp's own. It panics if dst is shorter than x.
func Exp64(dst, x []float64) {
	if len(dst) < len(x) {
		panic("simd: Exp64: dst is shorter than x")
	}
	exp64(dst[:len(x)], x)
}

// exp64LanesMin and exp64LanesMax bound the x the vector path computes:
// there 2^k is a normal number and the result neither overflows nor
// underflows (k = round(x·log2(e)) within [−1021, 1023]).
const (
	exp64LanesMin = -708
	exp64LanesMax = 709
)

// exp64From sets dst[i] = math.Exp(x[i]) for i >= from, and below from
// where x[i] is outside the vector path's range.
func exp64From(dst, x []float64, from int) {
	dst = dst[:len(x)]
	for i, v := range x[:from] {
		if !(v >= exp64LanesMin && v <= exp64LanesMax) { // NaN too
			dst[i] = math.Exp(v)
		}
	}
	for i := from; i < len(x); i++ {
		dst[i] = math.Exp(x[i])
	}
}
