package simd

// DotWiden returns Σ float64(x[i])·w[i] over i < len(x): a float32 row
// against float64 weights, as the primal Newton method's passes over dense
// rows need them. Term i goes to lane i mod 32; each product is rounded
// and then added (never fused into an FMA), and the 32 lanes are summed in
// a fixed tree (dotWidenReduce), so every path returns the same bits as
// the portable reference. It panics if w is shorter than x.
func DotWiden(x []float32, w []float64) float64 {
	if len(w) < len(x) {
		panic("simd: DotWiden: w is shorter than x")
	}
	return dotWiden(x, w[:len(x)])
}

// AxpyWiden does dst[i] += a·float64(x[i]) for i < len(x), the product
// rounded before the sum (never fused), so every path returns the same
// bits. It panics if dst is shorter than x.
func AxpyWiden(dst []float64, a float64, x []float32) {
	if len(dst) < len(x) {
		panic("simd: AxpyWiden: dst is shorter than x")
	}
	axpyWiden(dst[:len(x)], a, x)
}

// dotWidenPortable is DotWiden in Go. The explicit float64 conversion
// forbids the compiler to fuse the product and the sum.
func dotWidenPortable(x []float32, w []float64) float64 {
	var s [32]float64
	w = w[:len(x)]
	i := 0
	for ; i+32 <= len(x); i += 32 {
		xb, wb := x[i:i+32:i+32], w[i:i+32:i+32] // constant lengths: no bounds checks
		for l := range s {
			s[l] += float64(float64(xb[l]) * wb[l])
		}
	}
	for l := 0; i < len(x); i, l = i+1, l+1 {
		s[l] += float64(float64(x[i]) * w[i])
	}
	return dotWidenReduce(&s)
}

// dotWidenReduce sums the lanes as the assembly does: lanes j, j+8, j+16,
// j+24 pairwise, then halves of what is left, then the last two.
func dotWidenReduce(s *[32]float64) float64 {
	var v [8]float64
	for j := range v {
		v[j] = (s[j] + s[8+j]) + (s[16+j] + s[24+j])
	}
	u0, u1 := (v[0]+v[4])+(v[2]+v[6]), (v[1]+v[5])+(v[3]+v[7])
	return u0 + u1
}

// axpyWidenFrom is AxpyWiden's reference from position from on.
func axpyWidenFrom(dst []float64, a float64, x []float32, from int) {
	dst = dst[:len(x)]
	for i := from; i < len(x); i++ {
		dst[i] += float64(a * float64(x[i]))
	}
}

// AxpySquaresWiden does dst[i] += a·x[i] and sq[i] += b·x[i]·x[i] for
// i < len(x) in one pass over x (a gradient and a Hessian's diagonal),
// each product rounded before the next operation, (b·x[i])·x[i] in that
// order, so every path returns the same bits. It panics if dst or sq is
// shorter than x.
func AxpySquaresWiden(dst, sq []float64, a, b float64, x []float32) {
	if len(dst) < len(x) || len(sq) < len(x) {
		panic("simd: AxpySquaresWiden: dst or sq is shorter than x")
	}
	axpySquaresWiden(dst[:len(x)], sq[:len(x)], a, b, x)
}

// axpySquaresWidenFrom is AxpySquaresWiden's reference from position from on.
func axpySquaresWidenFrom(dst, sq []float64, a, b float64, x []float32, from int) {
	dst, sq = dst[:len(x)], sq[:len(x)]
	for i := from; i < len(x); i++ {
		v := float64(x[i])
		dst[i] += float64(a * v)
		sq[i] += float64(float64(b*v) * v)
	}
}
