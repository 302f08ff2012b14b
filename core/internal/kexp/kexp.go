package kexp

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/simd"
)

// exp(x) for the RBF kernel columns of the SMO trainer, in batches.
//
// math.Exp is a function call of about 9 ns on amd64; on few-feature data
// (shuttle: 9 features) it was half the time of a kernel column. Here the
// argument is reduced as x = (32k + j)·ln2/32 + r with |r| ≤ ln2/64 and
//
//	exp(x) = 2^k · 2^(j/32) · p(r),  p(r) = Σ_{n≤6} rⁿ/n!
//
// (Tang's table method: P. T. P. Tang, "Table-driven implementation of the
// exponential function in IEEE floating-point arithmetic", ACM TOMS 15(2),
// 1989). The Taylor remainder r⁷/7! < 2e-18 is far below a float64 ulp, so
// the result is within a few float64 ulps of exp(x); rounded to float32, as
// the kernel cache stores it, it is float32(math.Exp(x)) except when
// exp(x) lies within those few ulps of a float32 rounding boundary (about
// one value in 10⁷, off by one float32 ulp). exp(0) = 1 exactly, so
// K(x, x) = 1 as with math.Exp.
//
// The loop has no calls and no data-dependent branches in its common path,
// so the processor overlaps successive evaluations. simd.ExpTo32 is the
// same function, vectorized; ExpBatch32 uses it where it rounds as ExpFast
// does (TrainVectorExact).

const (
	expInvLn2x32 = 32 / math.Ln2
	// ln2/32 split so that k·expLn2Hi is exact for |k| < 2^20.
	expLn2Hi = 0.021660849390173098072 // ln2/32 rounded to 32 significant bits
	expLn2Lo = math.Ln2/32 - expLn2Hi
	// expShift rounds to an integer by addition: 1.5·2^52.
	expShift = 0x1.8p52
	// Below expMinFast the result is subnormal or zero; math.Exp handles
	// it (a kernel value under 1e-307 is 0 as a float32 anyway).
	expMinFast = -708.0
)

// ExpBatch32 sets dst[t] = float32(exp(x[t])) for every t < len(x), for
// x[t] ≤ 0 (the RBF kernel's arguments; larger x are computed correctly
// too, up to 700). NaN gives NaN. It allocates nothing; it panics if dst
// is shorter than x.
func ExpBatch32(dst []float32, x []float64) {
	if TrainVectorExact {
		// The same function, eight at a time on AVX-512 (simd.ExpTo32;
		// TestExpFast holds the two bit for bit).
		simd.ExpTo32(dst, x)
		return
	}
	dst = dst[:len(x)] // equal lengths let the compiler drop bounds checks
	for t, v := range x {
		if !(v >= expMinFast && v <= 700) {
			dst[t] = float32(math.Exp(v))
			continue
		}
		// ExpFast, written out: the compiler does not inline it, and the
		// call was a third of the time.
		kd := v*expInvLn2x32 + expShift
		k := int64(math.Float64bits(kd))
		kd -= expShift
		r := (v - kd*expLn2Hi) - kd*expLn2Lo
		p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
		scale := math.Float64frombits(uint64(int64(int32(k)>>5)+1023) << 52)
		dst[t] = float32(simd.Exp2Frac(k) * p * scale)
	}
}

// ExpFast returns exp(v) within a few float64 ulps (file comment).
func ExpFast(v float64) float64 {
	if !(v >= expMinFast && v <= 700) {
		return math.Exp(v) // subnormal, zero, overflow or NaN
	}
	kd := v*expInvLn2x32 + expShift
	k := int64(math.Float64bits(kd)) // low bits hold round(v·32/ln2)
	kd -= expShift
	r := (v - kd*expLn2Hi) - kd*expLn2Lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
	scale := math.Float64frombits(uint64(int64(int32(k)>>5)+1023) << 52)
	return simd.Exp2Frac(k) * p * scale
}
