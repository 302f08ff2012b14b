package simd

// PanelWidth is the number of columns of B (rows of Bᵀ) in one packed
// panel; Gemm writes C in whole panels, so C's rows are PaddedCols(n)
// wide.
const PanelWidth = 32

// ExpMaxRelError bounds the relative error of the exp behind ExpRBF and
// Tanh, |exp(x) − eˣ| / eˣ, for results ≥ 2⁻¹²⁶ on every path: the tests
// hold every path to it against math.Exp over the whole range (measured: 8.2e-8, 1.4 units of 2⁻²⁴).
const ExpMaxRelError = 1.5e-7

// TanhMaxRelError bounds |Tanh(x) − tanh x| / |tanh x| on every path
// (measured: 1.7e-7).
const TanhMaxRelError = 3e-7

// Dot returns Σ x[i]·y[i] in float32 (see the package comment for its
// accuracy). It panics if the lengths differ.
func Dot(x, y []float32) float32 {
	if len(x) != len(y) {
		panic("simd: Dot: lengths differ")
	}
	return dot(x, y)
}

// PaddedCols returns n rounded up to a whole number of panels.
func PaddedCols(n int) int { return (n + PanelWidth - 1) / PanelWidth * PanelWidth }

// PackedLen returns the length of the packed form of n rows of k values:
// PaddedCols(n)·k.
func PackedLen(n, k int) int { return PaddedCols(n) * k }

// Pack writes the n × k matrix B, B[j][q] = b[j·rowStride + q·colStride],
// to dst[:PackedLen(n, k)] as Gemm reads it: panels of PanelWidth rows of
// B, each stored column by column (PanelWidth consecutive values per q),
// the last panel padded with zeros. Strides let a row-major matrix
// (rowStride k, colStride 1) and a column-major one (1, n) pack alike. It
// panics if dst is too short or b does not hold the matrix.
func Pack(dst, b []float32, n, k, rowStride, colStride int) {
	dst = dst[:PackedLen(n, k)]
	if n > 0 && k > 0 && (n-1)*rowStride+(k-1)*colStride >= len(b) {
		panic("simd: Pack: b too short for the matrix")
	}
	for p := 0; p*PanelWidth < PaddedCols(n); p++ {
		panel := dst[p*k*PanelWidth:][:k*PanelWidth]
		for q := range k {
			col := panel[q*PanelWidth:][:PanelWidth]
			for t := range col {
				j := p*PanelWidth + t
				if j < n {
					col[t] = b[j*rowStride+q*colStride]
				} else {
					col[t] = 0
				}
			}
		}
	}
}

// gemmBlockBytes is the size of the block of packed panels Gemm sweeps all
// rows of A over before moving on: small enough to stay in the L2 cache
// (1 MiB a core on Zen 4/5, 512 KiB on many Arm cores) next to the rows of A.
const gemmBlockBytes = 384 << 10

// Gemm computes C = A·Bᵀ for the m × k matrix A (row i at a[i·lda:],
// k values) and the n × k matrix B packed by Pack into bp: it sets
//
//	c[i·ldc + j] = Σ_q a[i·lda + q]·B[j][q]   for i < m, j < PaddedCols(n),
//
// the padding columns n ≤ j < PaddedCols(n) getting 0. Four rows of A at a
// time are multiplied with whole panels of B, held in registers (the
// micro-kernel); the panels are taken in blocks that stay in cache while
// every row of A passes over them. It panics if a buffer is too short, or
// if m > 1 and ldc < PaddedCols(n) (rows of C would overlap).
func Gemm(c []float32, ldc int, a []float32, lda, m int, bp []float32, n, k int) {
	if m <= 0 || n <= 0 {
		return
	}
	nc := PaddedCols(n)
	switch {
	case k < 0 || lda < 0 || ldc < 0:
		panic("simd: Gemm: negative size")
	case m > 1 && ldc < nc:
		panic("simd: Gemm: ldc smaller than PaddedCols(n)")
	case len(c) < (m-1)*ldc+nc:
		panic("simd: Gemm: c too short")
	case len(a) < (m-1)*lda+k:
		panic("simd: Gemm: a too short")
	case len(bp) < PackedLen(n, k):
		panic("simd: Gemm: bp shorter than PackedLen(n, k)")
	}
	panels := nc / PanelWidth
	block := max(1, gemmBlockBytes/(4*PanelWidth*max(k, 1)))
	for p0 := 0; p0 < panels; p0 += block {
		np := min(block, panels-p0)
		// The block after this one, or the first block for the last one
		// (a batch calls Gemm again on the same panels for its next rows):
		// gemmPanels asks for it while this one runs.
		next := p0 + block
		if next >= panels {
			next = 0
		}
		nextLen := min(block, panels-next) * k * PanelWidth
		if next == p0 {
			nextLen = 0 // one block: it stays in cache
		}
		gemmPanels(c[p0*PanelWidth:], ldc, a, lda, m, bp[p0*k*PanelWidth:][:np*k*PanelWidth], np, k, bp[next*k*PanelWidth:][:nextLen])
	}
}

// ExpRBF sets dst[i] = exp(min(0, scale·dot[i] + base[i] + offset)) for
// i < len(dot): the RBF kernel exp(−γ·max(0, ‖u‖² + ‖v_i‖² − 2u·v_i)) with
// scale = 2γ, base[i] = −γ‖v_i‖² and offset = −γ‖u‖², the clamp keeping
// K ≤ 1 when rounding makes the distance negative. ExpMaxRelError applies
// to the clamped argument. dst may be dot. It panics if dst or base is
// shorter than dot.
func ExpRBF(dst, dot, base []float32, scale, offset float32) {
	if len(dst) < len(dot) || len(base) < len(dot) {
		panic("simd: ExpRBF: dst or base shorter than dot")
	}
	expRBF(dst, dot, base, scale, offset, true)
}

// Tanh sets dst[i] = tanh x[i] for i < len(x) (TanhMaxRelError; ±1 for
// large |x|, NaN for NaN). dst may be x. It panics if dst is shorter
// than x.
func Tanh(dst, x []float32) {
	if len(dst) < len(x) {
		panic("simd: Tanh: dst shorter than x")
	}
	// e^(−2|x|) vectorized a chunk at a time into buf, then tanh |x| =
	// (1 − e)/(1 + e), or the Taylor polynomial near 0.
	var buf [256]float32
	for len(x) > 0 {
		n := min(len(x), len(buf))
		tanhArg(buf[:n], x[:n])
		expRBF(buf[:n], buf[:n], nil, 0, 0, false)
		tanhFinish(dst[:n], x[:n], buf[:n])
		x, dst = x[n:], dst[n:]
	}
}

// FastInt8 reports whether GemmS16Limbs runs on wide integer multiply-add
// instructions (AVX-512 VNNI) on this machine; without them it is the
// portable loop, slower than a float32 Gemm of the same size, and callers
// with a float path should prefer that.
func FastInt8() bool { return vnni }
