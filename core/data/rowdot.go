package data

// The loops of Dataset.Dot and AddScaledTo, which the linear solvers spend
// their time in (every coordinate step reads a row this way). Each sum
// keeps four independent accumulators: a single running sum makes the loop
// wait out the floating-point add latency (about 4 cycles) on every element,
// which is what bounds LIBLINEAR's sparse dot product. The summation order is
// fixed, so results are deterministic.

// dotDense returns Σ x[j]·w[j] over j < min(len(x), len(w)).
func dotDense(x []float32, w []float64) float64 {
	n := min(len(x), len(w))
	x, w = x[:n], w[:n] // equal lengths let the compiler drop bounds checks
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= n; j += 4 {
		s0 += float64(x[j]) * w[j]
		s1 += float64(x[j+1]) * w[j+1]
		s2 += float64(x[j+2]) * w[j+2]
		s3 += float64(x[j+3]) * w[j+3]
	}
	for ; j < n; j++ {
		s0 += float64(x[j]) * w[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotSparse returns Σ val[k]·w[idx[k]], skipping indices at or past len(w).
func dotSparse(idx []int32, val []float32, w []float64) float64 {
	val = val[:len(idx)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		j0, j1, j2, j3 := uint(idx[k]), uint(idx[k+1]), uint(idx[k+2]), uint(idx[k+3])
		if j3 < uint(len(w)) { // indices increase, so j0..j2 are in range too
			s0 += float64(val[k]) * w[j0]
			s1 += float64(val[k+1]) * w[j1]
			s2 += float64(val[k+2]) * w[j2]
			s3 += float64(val[k+3]) * w[j3]
			continue
		}
		for q := k; q < k+4; q++ {
			if j := uint(idx[q]); j < uint(len(w)) {
				s0 += float64(val[q]) * w[j]
			}
		}
	}
	for ; k < len(idx); k++ {
		if j := uint(idx[k]); j < uint(len(w)) {
			s0 += float64(val[k]) * w[j]
		}
	}
	return (s0 + s1) + (s2 + s3)
}

// DotSparse returns Σ val[k]·w[idx[k]] over the indices within w: Dot of
// a sparse row (SparseRow), for a loop over rows that fetches them itself.
func DotSparse(idx []int32, val []float32, w []float64) float64 { return dotSparse(idx, val, w) }

// axpyDense adds a·x to dst over j < min(len(x), len(dst)). Four elements
// a step: each element's sum is its own, so the unrolling changes no bit of
// the result, only the loop overhead (a quarter of the counter updates and
// branches), which is most of the cost on the short rows of few-feature
// data.
func axpyDense(dst []float64, a float64, x []float32) {
	n := min(len(x), len(dst))
	x, dst = x[:n], dst[:n]
	j := 0
	for ; j+4 <= n; j += 4 {
		d, v := dst[j:j+4:j+4], x[j:j+4:j+4] // one bounds check for four
		d[0] += a * float64(v[0])
		d[1] += a * float64(v[1])
		d[2] += a * float64(v[2])
		d[3] += a * float64(v[3])
	}
	for ; j < n; j++ {
		dst[j] += a * float64(x[j])
	}
}

// axpySparse adds a·val[k] to dst[idx[k]], skipping indices past len(dst).
func axpySparse(dst []float64, a float64, idx []int32, val []float32) {
	val = val[:len(idx)]
	for k, j := range idx {
		if uint(j) < uint(len(dst)) {
			dst[j] += a * float64(val[k])
		}
	}
}

// DotDense returns xᵀw over min(len(x), len(w)): Dot's dense rows, four
// lanes in a sparse row's order.
func DotDense(x []float32, w []float64) float64 { return dotDense(x, w) }

// AxpyDense does dst += a·x over min(len(x), len(dst)): AddScaledTo's
// dense rows.
func AxpyDense(dst []float64, a float64, x []float32) { axpyDense(dst, a, x) }
