package simd

// PairDots64 sets dst[r·nw + k] to the float64 dot product of row r of x
// (x[r·nf:][:nf]) with column k of the feature-major matrix w
// (w[j·nw + k]), for r < rows and k < nw, in one fixed order on every
// path: the features two at a time, each pair's products rounded to
// float64 and added, (x_j·w_jk + x_j+1·w_j+1,k), the pair sums added to a
// running sum that starts at 0, in order of j, and an odd last feature's
// product added last; no product is fused into a sum. That order is its
// rounding contract: a row's values are the same bit for bit whether it is
// predicted alone (rows = 1) or in a batch, on every path and architecture
// (linear models' DecisionDense and their batches share it). The AVX-512
// path takes four rows and eight columns a step (float32 values widened
// exactly; a single row, or a batch's last one to three, sixteen columns
// a step), the portable one a row at a time.
//
// It panics if dst, x or w is too short.
func PairDots64(dst []float64, x []float32, rows, nf int, w []float32, nw int) {
	if rows <= 0 || nw <= 0 {
		return
	}
	switch {
	case nf < 0:
		panic("simd: PairDots64: negative size")
	case len(dst) < rows*nw:
		panic("simd: PairDots64: dst shorter than rows·nw")
	case len(x) < rows*nf:
		panic("simd: PairDots64: x shorter than rows·nf")
	case len(w) < nf*nw:
		panic("simd: PairDots64: w shorter than nf·nw")
	}
	pairDots64(dst, x, rows, nf, w, nw)
}

// pairDots64Portable is PairDots64 a row at a time. The explicit float64
// conversions keep every product and sum rounded on its own (the Go
// specification's rule), so that a compiler fusing a·b + c (arm64, or
// amd64 at GOAMD64=v3) keeps the contract.
func pairDots64Portable(dst []float64, x []float32, rows, nf int, w []float32, nw int) {
	for r := range rows {
		d := dst[r*nw:][:nw]
		clear(d)
		xr := x[r*nf:][:nf]
		j := 0
		for ; j+1 < nf; j += 2 {
			v0, v1 := float64(xr[j]), float64(xr[j+1])
			w0 := w[j*nw:][:len(d)]
			w1 := w[(j+1)*nw:][:len(d)]
			for k := range d {
				d[k] += float64(float64(v0*float64(w0[k])) + float64(v1*float64(w1[k])))
			}
		}
		if j < nf {
			v := float64(xr[j])
			wj := w[j*nw:][:len(d)]
			for k := range d {
				d[k] += float64(v * float64(wj[k]))
			}
		}
	}
}
