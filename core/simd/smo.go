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
