package simd

import "math"

// The assembly kernels (*_amd64.s). Pointers are to the first element;
// the Go callers have checked every length.

//go:noescape
func dotAVX512(x, y *float32, n int) float32

//go:noescape
func dotAVX2(x, y *float32, n int) float32

// gemm4AVX512 and gemm4AVX2 compute four rows of C (rows of A and C
// lda and ldc elements apart) against panels consecutive packed panels.
//
//go:noescape
func gemm4AVX512(c *float32, ldc int, a *float32, lda int, bp *float32, panels, k int)

//go:noescape
func gemm8AVX512(c *float32, ldc int, a *float32, lda int, bp *float32, panels, k int, pf *float32, pfStride int)

// gemm14AVX512 is gemm8AVX512 on fourteen rows (gemm14_amd64.s).
//
//go:noescape
func gemm14AVX512(c *float32, ldc int, a *float32, lda int, bp *float32, panels, k int, pf *float32, pfStride int)

//go:noescape
func gemm4AVX2(c *float32, ldc int, a *float32, lda int, bp *float32, panels, k int)

// expAVX512 and expAVX2 set dst[i] = exp(x[i]), or with rbf != 0
// exp(min(0, scale·x[i] + base[i] + offset)). expAVX2 takes n a multiple
// of 8.
//
//go:noescape
func expAVX512(dst, x, base *float32, n int, scale, offset float32, rbf int)

//go:noescape
func expAVX2(dst, x, base *float32, n int, scale, offset float32, rbf int)

//go:noescape
func gemm4S16VNNI(c *int64, ldc int, hi, lo *int16, lda int, bp *int16, panels, k2, chunk, shift int)

//go:noescape
func gemm8S8x16VNNI(c *int32, ldc int, a *int16, lda int, bp *int8, panels, k2 int)

//go:noescape
func gemm4S8VNNI(c *int64, ldc int, hi, lo *int16, lda int, bp *int8, panels, k2, chunk, shift int)

func dot(x, y []float32) float32 {
	n := len(x)
	switch {
	case n == 0:
		return 0
	case level == AVX512:
		return dotAVX512(&x[0], &y[0], n)
	case level == AVX2:
		n8 := n &^ 7
		var s float32
		if n8 > 0 {
			s = dotAVX2(&x[0], &y[0], n8)
		}
		for i := n8; i < n; i++ {
			s += x[i] * y[i]
		}
		return s
	}
	return dotPortable(x, y)
}

// gemmPanels computes rows [0, m) of C against the panels of bp, asking
// the L2 cache for next (the panels Gemm takes after these) on the way, a
// share of it in each pass of fourteen or eight rows (gemm14AVX512,
// gemm8AVX512): the first pass over a block then finds it in cache
// instead of waiting on memory.
//
// Rows that do not fill a last pass are taken by a pass that overlaps the
// one before it (rows m−14 to m, or m−4 to m): an element of C is the same
// chain of FMAs in every kernel, so the rows computed twice are written
// twice with the same bits, which costs less than a narrower kernel (a
// single row costs a whole 4-row pass).
func gemmPanels(c []float32, ldc int, a []float32, lda, m int, bp []float32, panels, k int, next []float32) {
	if level == Portable || k == 0 {
		gemmPortable(c, ldc, a, lda, m, bp, panels, k)
		return
	}
	kernel := gemm4AVX2
	if level == AVX512 {
		kernel = gemm4AVX512
	}
	i := 0
	if level == AVX512 && m >= 8 {
		wide, rows := gemm8AVX512, 8
		if m >= 14 {
			wide, rows = gemm14AVX512, 14
		}
		steps := panels * k // prefetches of one pass
		passes := m / rows
		tail := m%rows >= 8 // one more wide pass, overlapping
		if tail {
			passes++
		}
		// Bytes between prefetches: next spread over the passes, at
		// least a quarter line so that no line is asked for more than
		// four times, at most a line (too few passes to cover next ask
		// for its first part).
		stride := 0
		if len(next) > 0 {
			stride = min(64, max(16, ((4*len(next)+passes*steps-1)/(passes*steps)+15)&^15))
		}
		for g := range passes {
			// Prefetches never fault: the last pass that asks for next
			// may run up to one pass's prefetches past its end. The
			// passes after it ask for bp's first line again and again.
			pf, ps := &bp[0], 0
			if off := g * steps * stride / 4; off < len(next) {
				pf, ps = &next[off], stride
			}
			i = min(g*rows, m-rows)
			wide(&c[i*ldc], ldc, &a[i*lda], lda, &bp[0], panels, k, pf, ps)
		}
		i = m / rows * rows
		if tail {
			i = m
		}
	}
	for ; i+4 <= m; i += 4 {
		kernel(&c[i*ldc], ldc, &a[i*lda], lda, &bp[0], panels, k)
	}
	if i < m && m >= 4 {
		i = m - 4 // the last rows in a pass overlapping the one before
		kernel(&c[i*ldc], ldc, &a[i*lda], lda, &bp[0], panels, k)
		i = m
	}
	// Fewer than four rows, one at a time: strides 0 make the kernel's
	// four rows the same row, computed (and stored) four times over.
	for ; i < m; i++ {
		kernel(&c[i*ldc], 0, &a[i*lda], 0, &bp[0], panels, k)
	}
}

func expRBF(dst, x, base []float32, scale, offset float32, rbf bool) {
	n := len(x)
	if n == 0 {
		return
	}
	flag := 0
	var pb *float32
	if rbf {
		flag = 1
		pb = &base[0]
	}
	switch level {
	case AVX512:
		expAVX512(&dst[0], &x[0], pb, n, scale, offset, flag)
		return
	case AVX2:
		n8 := n &^ 7
		if n8 > 0 {
			expAVX2(&dst[0], &x[0], pb, n8, scale, offset, flag)
		}
		if n8 == n {
			return
		}
		// The tail through an 8-wide buffer.
		var xb, bb, db [8]float32
		copy(xb[:], x[n8:])
		if rbf {
			copy(bb[:], base[n8:n])
		}
		expAVX2(&db[0], &xb[0], &bb[0], 8, scale, offset, flag)
		copy(dst[n8:n], db[:])
		return
	}
	if rbf {
		expRBFPortable(dst, x, base, scale, offset)
	} else {
		expPortable(dst, x)
	}
}

func gemmLimbsPanels[T int8 | int16](c []int64, ldc int, hi, lo []int16, lda, m int, bp []T, panels, k2, shift, chunk int) {
	i := 0
	if vnni {
		for ; i+4 <= m; i += 4 {
			switch b := any(bp).(type) {
			case []int16:
				gemm4S16VNNI(&c[i*ldc], ldc, &hi[i*lda], &lo[i*lda], lda, &b[0], panels, k2, chunk, shift)
			case []int8:
				gemm4S8VNNI(&c[i*ldc], ldc, &hi[i*lda], &lo[i*lda], lda, &b[0], panels, k2, chunk, shift)
			}
		}
	}
	if i < m {
		gemmLimbsPortable(c[i*ldc:], ldc, hi[i*lda:], lo[i*lda:], lda, m-i, bp, panels, k2, shift)
	}
}

// rbfArgsS64AVX512 runs RBFArgsS64 over the first n elements, n a positive
// multiple of 8, and returns their largest exponent (−Inf at the start).
//
//go:noescape
func rbfArgsS64AVX512(dst *float32, s *int64, ss *float64, n int, xx, c0, t, gamma float64) float64

func rbfArgsS64(dst []float32, s []int64, ss []float64, xx, c0, t, gamma float64) float64 {
	mx, from := math.Inf(-1), 0
	if n8 := len(s) &^ 7; level == AVX512 && n8 > 0 {
		mx = rbfArgsS64AVX512(&dst[0], &s[0], &ss[0], n8, xx, c0, t, gamma)
		from = n8
	}
	return rbfArgsS64Portable(dst, s, ss, xx, c0, t, gamma, mx, from)
}

// pairDots4AVX512 runs PairDots64 on four rows (x and d ldx and ldd
// elements apart; 0 repeats one row).
//
//go:noescape
func pairDots4AVX512(d *float64, ldd int, x *float32, ldx int, w *float32, nf, nw int)

func pairDots64(dst []float64, x []float32, rows, nf int, w []float32, nw int) {
	if level != AVX512 || nf == 0 {
		pairDots64Portable(dst, x, rows, nf, w, nw)
		return
	}
	r := 0
	for ; r+4 <= rows; r += 4 {
		pairDots4AVX512(&dst[r*nw], nw, &x[r*nf], nf, &w[0], nf, nw)
	}
	for ; r < rows; r++ { // a single row, and a batch's last one to three
		pairDots1AVX512(&dst[r*nw], &x[r*nf], &w[0], nf, nw)
	}
}

// pairDots1AVX512 runs PairDots64 on one row (pairdots64_amd64.s).
//
//go:noescape
func pairDots1AVX512(d *float64, x *float32, w *float32, nf, nw int)

func gemmS8x16Panels(c []int32, ldc int, a []int16, lda, m int, bp []int8, panels, k2 int) {
	i := 0
	if vnni {
		for ; i+8 <= m; i += 8 {
			gemm8S8x16VNNI(&c[i*ldc], ldc, &a[i*lda], lda, &bp[0], panels, k2)
		}
	}
	if i < m {
		gemmS8x16Portable(c[i*ldc:], ldc, a[i*lda:], lda, m-i, bp, panels, k2)
	}
}

// dot3AVX512 is dotAVX512 on three rows of y, ldy elements apart
// (dot3_amd64.s).
//
//go:noescape
func dot3AVX512(dst *float32, x, y *float32, ldy, n int)

func dotStrided(dst, x, y []float32, ldy int) {
	r := 0
	if level == AVX512 && len(x) > 0 {
		for ; r+3 <= len(dst); r += 3 {
			dot3AVX512(&dst[r], &x[0], &y[r*ldy], ldy, len(x))
		}
	}
	dotStridedEach(dst, x, y, ldy, r)
}

// dot64x4AVX2 runs Dot64x4's accumulators over the first n terms, n a
// positive multiple of 4, into s (dot64_amd64.s).
//
//go:noescape
func dot64x4AVX2(x, y *float32, n int, s *[4]float64)

// dot64x4Lanes sets s to Dot64x4's four accumulators over x's whole groups
// of four terms and returns how many terms that took: 0 where the loop in
// Go takes them all (the portable path, and short vectors whose call
// would cost more than it saves).
func dot64x4Lanes(x, y []float32, s *[4]float64) int {
	n := len(x) &^ 3
	if level == Portable || n < 16 {
		return 0
	}
	dot64x4AVX2(&x[0], &y[0], n, s)
	return n
}
