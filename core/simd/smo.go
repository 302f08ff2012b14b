package simd

import "math"

// GradStepMaxUp is SMO's gradient update fused with the scan for the next
// working-set index (Fan, Chen and Lin 2005, WSS 2's i; core/smo.go):
//
//	G[t] += qi[t]·di + qj[t]·dj                        for t < len(G),
//	m = max { ny[t]·G[t] : sets[t]&mask ≠ 0 },  i = the last t attaining m,
//
// with the new G, each product and sum rounded once in float64 in that
// order (never fused into an FMA, as LIBSVM's scalar loop compiles on
// x86-64), so G is bit-identical to the scalar loop's and i is the scalar
// loop's `v >= m` choice: ties go to the last index, NaN is never chosen.
// It returns m = −Inf and i = −1 when no t has sets[t]&mask ≠ 0. It
// allocates nothing; it panics if qi, qj, ny or sets is shorter than G.
func GradStepMaxUp(G []float64, qi, qj []float32, di, dj float64, ny []float64, sets []uint8, mask uint8) (m float64, i int) {
	n := len(G)
	if len(qi) < n || len(qj) < n || len(ny) < n || len(sets) < n {
		panic("simd: GradStepMaxUp: a slice is shorter than G")
	}
	return gradStepMaxUp(G, qi[:n], qj[:n], di, dj, ny[:n], sets[:n], mask)
}

// gradStepMaxUpPortable is GradStepMaxUp's reference from position from
// on, continuing a scan that found m at i before from. The explicit
// float64 conversions forbid the compiler to fuse a product and a sum
// (the Go spec's rule), which it would otherwise do on arm64 and on amd64
// built with GOAMD64=v3.
func gradStepMaxUpPortable(G []float64, qi, qj []float32, di, dj float64, ny []float64, sets []uint8, mask uint8, from int, m float64, i int) (float64, int) {
	qi, qj, ny, sets = qi[:len(G)], qj[:len(G)], ny[:len(G)], sets[:len(G)]
	for t := from; t < len(G); t++ {
		g := G[t] + (float64(float64(qi[t])*di) + float64(float64(qj[t])*dj))
		G[t] = g
		if v := float64(ny[t] * g); v >= m && sets[t]&mask != 0 {
			m, i = v, t
		}
	}
	return m, i
}

// reduceMaxLast combines per-lane (maximum, last index) pairs into the
// scalar scan's result: the largest value, and on equal values (== in
// IEEE terms, so −0 and +0 tie) the larger index.
func reduceMaxLast(vals []float64, idx []int64) (m float64, i int) {
	m, i = math.Inf(-1), -1
	for l, v := range vals {
		if v > m || (v == m && int(idx[l]) > i) {
			m, i = v, int(idx[l])
		}
	}
	return m, i
}

// SelectJ is the scan for WSS 2's j (Fan, Chen and Lin 2005, Algorithm
// 2; core/smo.go selectPair) given m and its i: over t with
// sets[t]&mask ≠ 0 (I_low), with v_t = ny[t]·G[t] and b_t = m − v_t,
//
//	M = min v_t,
//	a_t = (QDi + QD[t]) + c2·ny[t]·qi[t], replaced by tau when a_t ≤ 0,
//	j = the last t with b_t > 0 minimising −b_t·b_t / a_t (−1 if none),
//
// each operation rounded once in float64 in that order, as the scalar
// loop does (c2 = 2·y_i, so c2·ny[t]·qi[t] is exact). j is bit-for-bit
// the scalar loop's choice, ties to the last index, NaN never chosen. M
// is NaN when some v_t is NaN (Go's min); a zero M may carry either sign
// (m − M compares the same). It allocates nothing; it panics if ny, QD,
// qi or sets is shorter than G.
func SelectJ(G, ny, QD []float64, qi []float32, sets []uint8, mask uint8, m, QDi, c2, tau float64) (M float64, j int) {
	M, _, j = SelectJBest(G, ny, QD, qi, sets, mask, m, QDi, c2, tau)
	return M, j
}

// SelectJBest is SelectJ that also returns the objective −b_j·b_j/a_j of
// the j it chose (+Inf when j = −1), so that scans of consecutive parts of
// the variables combine into the scan of the whole: part by part, a later
// part's j wins when its objective is ≤ the earlier best (the last-index
// rule), and M is the min of the parts' M.
func SelectJBest(G, ny, QD []float64, qi []float32, sets []uint8, mask uint8, m, QDi, c2, tau float64) (M, best float64, j int) {
	n := len(G)
	if len(ny) < n || len(QD) < n || len(qi) < n || len(sets) < n {
		panic("simd: SelectJ: a slice is shorter than G")
	}
	return selectJ(G, ny[:n], QD[:n], qi[:n], sets[:n], mask, m, QDi, c2, tau)
}

// selectJPortable is SelectJ's reference from position from on,
// continuing a scan whose running M, best objective and j are given. The
// explicit float64 conversions forbid fused multiply-adds.
func selectJPortable(G, ny, QD []float64, qi []float32, sets []uint8, mask uint8, m, QDi, c2, tau float64, from int, M, best float64, j int) (float64, float64, int) {
	ny, QD, qi, sets = ny[:len(G)], QD[:len(G)], qi[:len(G)], sets[:len(G)]
	for t := from; t < len(G); t++ {
		if sets[t]&mask == 0 {
			continue
		}
		v := float64(ny[t] * G[t])
		M = min(M, v)
		b := m - v
		if b <= 0 {
			continue
		}
		a := float64(QDi+QD[t]) + float64(float64(c2*ny[t])*float64(qi[t]))
		if a <= 0 {
			a = tau
		}
		if obj := float64(-b*b) / a; obj <= best {
			best, j = obj, t
		}
	}
	return M, best, j
}

// reduceMinLast combines per-lane (minimum, last index) pairs into the
// scalar scan's result: the smallest value, and on equal values the
// larger index.
func reduceMinLast(vals []float64, idx []int64, best float64, j int) (float64, int) {
	for l, v := range vals {
		if v < best || (v == best && int(idx[l]) > j) {
			best, j = v, int(idx[l])
		}
	}
	return best, j
}

// RBFArgs sets a[t] = g·d_t for t < len(rows), the arguments of exp in a
// training column of the RBF kernel exp(−γ‖x − y_t‖²) with g = −γ, where
// y_t = data[rows[t]·n : rows[t]·n+n], n = len(x), and
//
//	d_t = (sqi + sq[rows[t]]) − 2·((s0 + s1) + (s2 + s3)),  0 where < 0,
//
// s_r summing x[k]·y_t[k] in float64 over k ≡ r (mod 4) below n&^3 in
// increasing k, and s0 the rest too: core's dot32 order, so each a[t] is
// bit-for-bit the scalar one (products and sums rounded once, never
// fused). The fast paths keep s0..s3 as the four lanes of one register,
// four features a step (AVX-512: eight, and four rows side by side). It
// allocates nothing; it panics if a is shorter than rows or a row is out
// of range.
func RBFArgs(a, x []float64, data []float32, rows []int32, sq []float64, sqi, g float64) {
	if len(a) < len(rows) {
		panic("simd: RBFArgs: a is shorter than rows")
	}
	// Rows below lim lie inside sq and data (row j needs data[j·n : j·n+n]);
	// a negative int32 is huge as a uint32.
	lim := len(sq)
	if n := len(x); n > 0 {
		lim = min(lim, len(data)/n)
	}
	var top uint32
	for _, j := range rows {
		top = max(top, uint32(j))
	}
	if len(rows) > 0 && int64(top) >= int64(lim) {
		panic("simd: RBFArgs: row index out of range")
	}
	rbfArgs(a[:len(rows)], x, data, rows, sq, sqi, g)
}

// rbfArgsPortable is RBFArgs's reference.
func rbfArgsPortable(a, x []float64, data []float32, rows []int32, sq []float64, sqi, g float64) {
	n := len(x)
	for t, jr := range rows {
		j := int(jr)
		y := data[j*n : j*n+n : j*n+n]
		var s0, s1, s2, s3 float64
		k := 0
		for ; k+4 <= n; k += 4 {
			s0 += float64(x[k] * float64(y[k]))
			s1 += float64(x[k+1] * float64(y[k+1]))
			s2 += float64(x[k+2] * float64(y[k+2]))
			s3 += float64(x[k+3] * float64(y[k+3]))
		}
		for ; k < n; k++ {
			s0 += float64(x[k] * float64(y[k]))
		}
		d := float64(sqi+sq[j]) - float64(2*((s0+s1)+(s2+s3)))
		if d < 0 {
			d = 0
		}
		a[t] = g * d
	}
}

// ExpTo32 sets dst[t] = float32(e_t) for t < len(x), where e_t is exp(x[t])
// by Tang's table method exactly as core's expFast computes it (core/
// kexp.go: x = (32k + j)·ln2/32 + r, e = 2^(j/32)·p(r)·2^k with the
// degree-6 Taylor polynomial p, each operation rounded once in float64,
// never fused) for −708 ≤ x[t] ≤ 700, and float32(math.Exp(x[t])) outside
// that range and for NaN. core holds the two bit for bit. It allocates
// nothing; it panics if dst is shorter than x.
func ExpTo32(dst []float32, x []float64) {
	if len(dst) < len(x) {
		panic("simd: ExpTo32: dst is shorter than x")
	}
	expTo32(dst[:len(x)], x)
}

// expTo32Table holds 2^(j/32), j = 0..31: the table of Tang's method
// (ExpTo32, and core's scalar expFast through Exp2Frac).
var expTo32Table = func() (t [32]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 32)
	}
	return t
}()

// Exp2Frac returns 2^((k mod 32)/32) (k's low five bits; k ≥ 0 or two's
// complement), the table value of Tang's exp method that ExpTo32 uses, for
// a scalar twin of it. It inlines into the caller's loop.
func Exp2Frac(k int64) float64 { return expTo32Table[k&31] }

// expTo32Const holds ExpTo32's constants, in the order the assembly reads
// them; the values are core/kexp.go's.
var expTo32Const = [...]float64{
	32 / math.Ln2,                           // 0: 32/ln2
	0x1.8p52,                                // 1: the rounding shift, 1.5·2^52
	0.021660849390173098072,                 // 2: ln2/32, high part (32 bits)
	math.Ln2/32 - 0.021660849390173098072,   // 3: ln2/32, low part
	1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, // 4–7: Taylor coefficients
	1.0 / 2, 1, // 8–9
	-708, 700, // 10–11: the fast range
}

// expTo32Portable is ExpTo32's reference.
func expTo32Portable(dst []float32, x []float64) {
	c := &expTo32Const
	dst = dst[:len(x)]
	for t, v := range x {
		if !(v >= c[10] && v <= c[11]) {
			dst[t] = float32(math.Exp(v))
			continue
		}
		kd := float64(v*c[0]) + c[1]
		k := int64(math.Float64bits(kd))
		kd -= c[1]
		r := (v - float64(kd*c[2])) - float64(kd*c[3])
		p := float64(r*c[4]) + c[5]
		p = float64(r*p) + c[6]
		p = float64(r*p) + c[7]
		p = float64(r*p) + c[8]
		p = float64(r*p) + c[9]
		p = float64(r*p) + c[9]
		scale := math.Float64frombits(uint64(int64(int32(k)>>5)+1023) << 52)
		dst[t] = float32(float64(expTo32Table[k&31]*p) * scale)
	}
}

// AddScaled32 sets dst[t] += c·q[t] for t < len(dst), the product and the
// sum each rounded once in float64 in that order (never fused): SMO's
// Gbar and gradient updates over a kernel column, bit for bit the scalar
// loop. It allocates nothing; it panics if q is shorter than dst.
func AddScaled32(dst []float64, c float64, q []float32) {
	if len(q) < len(dst) {
		panic("simd: AddScaled32: q is shorter than dst")
	}
	addScaled32(dst, c, q[:len(dst)])
}

// addScaled32Portable is AddScaled32's reference. The explicit float64
// conversion forbids the compiler to fuse the product into the sum.
func addScaled32Portable(dst []float64, c float64, q []float32) {
	q = q[:len(dst)]
	for t, v := range q {
		dst[t] += float64(c * float64(v))
	}
}
