package simd

// Exact int16 products for quantized models (package quantize): a row of
// A holds integers too wide for 16 bits (up to 2²⁵, the exact input codes
// of a quantized kernel model), split into two 16-bit limbs
//
//	a = hi·2^shift + lo,
//
// and B holds int16 codes. Each limb meets B in int32 sums (AVX-512 VNNI:
// VPDPWSSD multiplies and adds 32 word pairs an instruction), and every
// chunk of column pairs the int32 sums are widened into C's int64 sums
// before they can overflow: C is the exact integer product, equal to an
// int64 reference whatever the order of the additions.

// Round2 returns k rounded up to an even number: the int16 products take
// two values of a row at a time.
func Round2(k int) int { return (k + 1) &^ 1 }

// PackedLenS16 returns the length of the int16 packed form of n rows of k
// values: PaddedCols(n)·Round2(k).
func PackedLenS16(n, k int) int { return PaddedCols(n) * Round2(k) }

// PackS16 writes the n × k int16 matrix B, B[j][q] = b[j·rowStride +
// q·colStride], to dst[:PackedLenS16(n, k)] as GemmS16Limbs reads it:
// panels of PanelWidth rows of B; in a panel, for each pair of columns q,
// the two values of row 0, then of row 1, …; zeros pad the last panel and
// the last pair. It panics if dst is too short or b does not hold the
// matrix.
func PackS16(dst, b []int16, n, k, rowStride, colStride int) {
	packPairs(dst, b, n, k, rowStride, colStride, "PackS16")
}

// PackS8Pairs is PackS16 for int8 codes, as GemmS8Limbs reads them (half
// the memory): dst[:PackedLenS16(n, k)].
func PackS8Pairs(dst, b []int8, n, k, rowStride, colStride int) {
	packPairs(dst, b, n, k, rowStride, colStride, "PackS8Pairs")
}

func packPairs[T int8 | int16](dst, b []T, n, k, rowStride, colStride int, name string) {
	k2 := Round2(k)
	dst = dst[:PackedLenS16(n, k)]
	if n > 0 && k > 0 && (n-1)*rowStride+(k-1)*colStride >= len(b) {
		panic("simd: " + name + ": b too short for the matrix")
	}
	for p := 0; p*PanelWidth < PaddedCols(n); p++ {
		panel := dst[p*k2*PanelWidth:][:k2*PanelWidth]
		for g := range k2 / 2 {
			grp := panel[g*2*PanelWidth:][:2*PanelWidth]
			for t := range PanelWidth {
				j := p*PanelWidth + t
				for o := range 2 {
					q := 2*g + o
					var v T
					if j < n && q < k {
						v = b[j*rowStride+q*colStride]
					}
					grp[2*t+o] = v
				}
			}
		}
	}
}

// S16Chunk returns the number of column pairs GemmS16Limbs may add in
// int32 before widening, when every limb value has |a| ≤ maxA and every
// code |B| ≤ maxB: a pair adds at most 2·maxA·maxB to a sum, which then
// stays within an int32. It returns 0 (no chunk is safe: the caller must
// narrow its limbs) when one pair could overflow.
func S16Chunk(maxA, maxB int64) int {
	if maxA <= 0 || maxB <= 0 {
		return 1 << 30
	}
	return int(min((1<<31-1)/(2*maxA*maxB), 1<<30))
}

// GemmS16Limbs sets C to the exact product of A = hi·2^shift + lo (m rows,
// row i of each limb at [i·lda:], read through Round2(k) values) and the
// n × k int16 matrix B packed by PackS16:
//
//	c[i·ldc + j] = Σ_{q<k} (hi[i·lda+q]·2^shift + lo[i·lda+q])·B[j][q]
//
// for i < m, j < PaddedCols(n) (padding columns get 0). The values of a row
// past k meet B's zero padding, so they may be anything. chunk is the
// number of column pairs summed in int32 before they are widened into C:
// it must be at most S16Chunk of bounds on the limbs and codes, which makes
// the result exact (else sums may wrap). It panics if a buffer is too
// short, if m > 1 and ldc < PaddedCols(n), if hi and lo differ in length,
// if chunk < 1 or shift is outside [0, 32].
func GemmS16Limbs(c []int64, ldc int, hi, lo []int16, lda, m int, bp []int16, n, k, shift, chunk int) {
	if checkLimbs(c, ldc, hi, lo, lda, m, len(bp), n, k, shift, chunk, "GemmS16Limbs") {
		gemmLimbs(c, ldc, hi, lo, lda, m, bp, n, k, shift, chunk)
	}
}

// GemmS8Limbs is GemmS16Limbs for int8 codes of B packed by PackS8Pairs
// (widened to int16 as they are loaded).
func GemmS8Limbs(c []int64, ldc int, hi, lo []int16, lda, m int, bp []int8, n, k, shift, chunk int) {
	if checkLimbs(c, ldc, hi, lo, lda, m, len(bp), n, k, shift, chunk, "GemmS8Limbs") {
		gemmLimbs(c, ldc, hi, lo, lda, m, bp, n, k, shift, chunk)
	}
}

// checkLimbs panics on GemmS16Limbs' misuse and reports whether there is
// a product to compute (it clears C's rows when k is 0).
func checkLimbs(c []int64, ldc int, hi, lo []int16, lda, m, lenBP, n, k, shift, chunk int, name string) bool {
	if len(hi) != len(lo) {
		panic("simd: " + name + ": hi and lo lengths differ")
	}
	if m <= 0 || n <= 0 {
		return false
	}
	nc := PaddedCols(n)
	switch {
	case k < 0 || lda < 0 || ldc < 0:
		panic("simd: " + name + ": negative size")
	case chunk < 1 || shift < 0 || shift > 32:
		panic("simd: " + name + ": chunk below 1 or shift outside [0, 32]")
	case m > 1 && ldc < nc:
		panic("simd: " + name + ": ldc smaller than PaddedCols(n)")
	case len(c) < (m-1)*ldc+nc:
		panic("simd: " + name + ": c too short")
	case len(hi) < (m-1)*lda+Round2(k):
		panic("simd: " + name + ": hi shorter than (m−1)·lda + Round2(k)")
	case lenBP < PackedLenS16(n, k):
		panic("simd: " + name + ": bp shorter than PackedLenS16(n, k)")
	}
	if k == 0 {
		for i := range m {
			clear(c[i*ldc:][:nc])
		}
		return false
	}
	return true
}

// gemmLimbs runs the product in blocks of panels that stay in cache.
func gemmLimbs[T int8 | int16](c []int64, ldc int, hi, lo []int16, lda, m int, bp []T, n, k, shift, chunk int) {
	k2 := Round2(k)
	panels := PaddedCols(n) / PanelWidth
	block := max(1, gemmBlockBytes/(2*PanelWidth*k2))
	for p0 := 0; p0 < panels; p0 += block {
		np := min(block, panels-p0)
		gemmLimbsPanels(c[p0*PanelWidth:], ldc, hi, lo, lda, m, bp[p0*k2*PanelWidth:], np, k2/2, shift, chunk)
	}
}

// gemmLimbsPortable sets rows [0, m) of C to (hi·2^shift + lo)·Bᵀ in
// int64: the reference the assembly is held to.
func gemmLimbsPortable[T int8 | int16](c []int64, ldc int, hi, lo []int16, lda, m int, bp []T, panels, k2, shift int) {
	var acc [PanelWidth]int64
	for i := range m {
		h, l := hi[i*lda:][:2*k2], lo[i*lda:][:2*k2]
		for p := range panels {
			panel := bp[p*2*k2*PanelWidth:][:2*k2*PanelWidth]
			acc = [PanelWidth]int64{}
			for q := range 2 * k2 {
				if h[q] == 0 && l[q] == 0 {
					continue
				}
				v := int64(h[q])<<shift + int64(l[q])
				b := panel[(q>>1)*2*PanelWidth:][:2*PanelWidth]
				for j := range acc {
					acc[j] += v * int64(b[j*2+(q&1)])
				}
			}
			copy(c[i*ldc+p*PanelWidth:][:PanelWidth], acc[:])
		}
	}
}

// RBFArgsS64 sets dst[i] = float32(−γ·max(0, xx + ss[i] − 2·(c0 + t·s[i])))
// for i < len(s), the exponent of an RBF kernel value from an exact
// integer sum s[i] (x·v_i = c0 + t·s[i]), each operation in float64 as
// written, left to right, without fused multiply-adds (as Go computes the
// expression on amd64), and returns the largest exponent before rounding
// (−Inf for an empty s). A NaN exponent is stored but not counted in the
// maximum. It panics if dst or ss is shorter than s.
func RBFArgsS64(dst []float32, s []int64, ss []float64, xx, c0, t, gamma float64) float64 {
	if len(dst) < len(s) || len(ss) < len(s) {
		panic("simd: RBFArgsS64: dst or ss shorter than s")
	}
	return rbfArgsS64(dst, s, ss, xx, c0, t, gamma)
}

// rbfArgsS64Portable is RBFArgsS64 from element from on, taking mx as the
// maximum so far.
func rbfArgsS64Portable(dst []float32, s []int64, ss []float64, xx, c0, t, gamma, mx float64, from int) float64 {
	ss = ss[:len(s)]
	dst = dst[:len(s)]
	for i := from; i < len(s); i++ {
		d := xx + ss[i] - 2*(c0+t*float64(s[i]))
		if d < 0 {
			d = 0
		}
		e := -gamma * d
		dst[i] = float32(e)
		if e > mx {
			mx = e
		}
	}
	return mx
}

// GemmS8x16 sets rows [0, m) of C to A·Bᵀ in int32 for one 16-bit limb A
// (row i at a[i·lda:], read through Round2(k) values) and the n × k int8
// codes B packed by PackS8Pairs:
//
//	c[i·ldc + j] = Σ_{q<k} a[i·lda+q]·B[j][q]   modulo 2³²,
//
// for j < PaddedCols(n) (padding columns get 0): GemmS8Limbs' product of
// one limb, without its int64 widening, so at twice the products an
// instruction of the float32 product on AVX-512 VNNI. The sums are exact
// when Round2(k)/2 is at most S16Chunk of bounds on |a| and |B|. It
// panics if a buffer is too short or if m > 1 and ldc < PaddedCols(n).
func GemmS8x16(c []int32, ldc int, a []int16, lda, m int, bp []int8, n, k int) {
	if m <= 0 || n <= 0 {
		return
	}
	nc := PaddedCols(n)
	switch {
	case k < 0 || lda < 0 || ldc < 0:
		panic("simd: GemmS8x16: negative size")
	case m > 1 && ldc < nc:
		panic("simd: GemmS8x16: ldc smaller than PaddedCols(n)")
	case len(c) < (m-1)*ldc+nc:
		panic("simd: GemmS8x16: c too short")
	case len(a) < (m-1)*lda+Round2(k):
		panic("simd: GemmS8x16: a shorter than (m−1)·lda + Round2(k)")
	case len(bp) < PackedLenS16(n, k):
		panic("simd: GemmS8x16: bp shorter than PackedLenS16(n, k)")
	}
	k2 := Round2(k)
	panels := nc / PanelWidth
	if k2 == 0 {
		for i := range m {
			clear(c[i*ldc:][:nc])
		}
		return
	}
	block := max(1, gemmBlockBytes/(PanelWidth*k2))
	for p0 := 0; p0 < panels; p0 += block {
		np := min(block, panels-p0)
		gemmS8x16Panels(c[p0*PanelWidth:], ldc, a, lda, m, bp[p0*k2*PanelWidth:], np, k2/2)
	}
}

// gemmS8x16Portable sets rows [0, m) of C over panels panels of k2 pairs:
// the reference the assembly is held to (int32 arithmetic wraps alike).
func gemmS8x16Portable(c []int32, ldc int, a []int16, lda, m int, bp []int8, panels, k2 int) {
	var acc [PanelWidth]int32
	for i := range m {
		row := a[i*lda:][:2*k2]
		for p := range panels {
			panel := bp[p*2*k2*PanelWidth:][:2*k2*PanelWidth]
			acc = [PanelWidth]int32{}
			for g := range k2 {
				a0, a1 := int32(row[2*g]), int32(row[2*g+1])
				if a0 == 0 && a1 == 0 {
					continue
				}
				b := panel[g*2*PanelWidth:][:2*PanelWidth]
				for j := range acc {
					acc[j] += a0*int32(b[2*j]) + a1*int32(b[2*j+1])
				}
			}
			copy(c[i*ldc+p*PanelWidth:][:PanelWidth], acc[:])
		}
	}
}
