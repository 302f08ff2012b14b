package quantize

import (
	"math"
	"slices"
	"sync"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// Blocked exact kernel prediction, for batches of rows on CPUs with a fast
// int16 product (simd.FastInt8: AVX-512 VNNI). A block of rows is encoded
// as the exact column sums encode a row (scanDense, inputCode: codes |xq_j|
// ≤ Q = 2²⁴ with the row's scale t), vectorized (simd.MaxAbsProd,
// simd.RoundLimbs) and four rows' serial float64 sums at a time
// (scanDense4), and the sums
//
//	S_ri = Σ_j xq_rj·q_ij
//
// are one exact integer matrix product (simd.GemmS16Limbs) of the rows'
// codes, split into two 16-bit limbs xq = hi·2^s + lo, and the support
// vectors' codes, packed once as int16 when the model is made. The int32
// sums of each limb are widened into int64 every chunk of feature pairs,
// before they can overflow (simd.S16Chunk): for 8-bit codes s = 16 and a
// chunk of 255 pairs, for 16-bit codes s = 12 and 7 pairs. S_ri is then
// the int64 sum the column sums compute, bit for bit. No float copy of the
// support vectors is kept, except by RBF classifiers of fewer than 256
// features, whose rows first take the float model's product on the
// decoded support vectors (kernelfloat.go) and only the rows it leaves in
// doubt are encoded.
//
// From S_ri the dot products c0 + t·S_ri are those of the column sums, bit
// for bit; the kernel values and decision values are then taken in float32
// (simd.ExpRBF, core.KernelDecisions32: the exact path's float64 exp and
// serial sums cost more than the product on small models, 20× float32's
// batch time on breast_cancer), with a bound E_p on each decision value's
// distance from the exact one (fastLabel). A label depends only on the
// signs of the decision values, so where every |dec_p| > E_p the label is
// the exact path's; a row with a decision value within its bound of 0 is
// recomputed by the exact path (kernelValues, label). Every label is then
// that of the column sums (and of C generated from the model, core/cgen),
// alone or in a batch. ε-SVR values take the exact path (the value is the
// output), but for RBF models under preMinFeatures features, whose batch
// values are the float32 prefilter's (kernelfloat.go). The bound, with
// u = 2⁻²⁴ and M_c the largest |K| of the row over class c's support
// vectors (or any bound on it: for RBF first 1,
// then, for the rows that 1 leaves in doubt, e^x of the largest exponent
// x, so that a clear row pays no math.Exp):
//
//	E_p = Σ_{c ∈ pair p} A_pc·(M_c·(ρK + (⌈n_c/16⌉ + 12)·u) + αK)
//
// where A_pc = Σ_{s∈c} |coef_ps|, ρK and αK the kernel's relative and
// absolute error (RBF: the exp's simd.ExpMaxRelError + u, and u/e from
// rounding its argument, whose exponential times |argument| is at most
// 1/e; others: u, rounding the float64 value), and ⌈n_c/16⌉ + 8 the depth
// of simd.Dot's AVX-512 sums over n_c terms (16 lanes, then a tree) plus
// rounding the coefficients to float32, the float64 assembly and the exact
// path's own float64 error.
//
// Sparse-layout models take the blocked path when dense enough for core to
// store them dense (data.PreferDense), packed with their uncentred codes
// q_ij = z_j + r_ij (the zero point z_j for entries not stored); then
// Σ_j xq_rj·r_ij = S_ri − Σ_j xq_rj·z_j, the second sum one int64 a row.
//
// Memory: the packed codes take PaddedCols(l)·Round2(nf) codes, as many
// as the codes themselves, of their width; a batch keeps 8·PaddedCols(l) +
// 4·Round2(nf) bytes a row of its block (at most 64 rows) per goroutine.

// preMinFeatures is the least number of features at which the one-limb
// prefilter (blockPredictPre) was measured to pay (int8 batch time
// against float32's, one core, load 15–20): Fashion-MNIST 10k (784
// features) 1.14 → 0.95–1.04 with 13% of the rows doubtful; digits (64)
// 1.3 → 2.2 and breast_cancer (30) 1.5 → 2.1, where the product is a
// small part of a row's time and the second weighted sum of W_p and the
// doubtful rows' second product are not. A variable so that the tests
// can run the prefilter on the small test models too.
var preMinFeatures = 256

// qblockScratchBytes bounds a block's int64 sums.
const qblockScratchBytes = 2 << 20

// kernelBlocks is what newKernel prepares for blocked prediction.
type kernelBlocks struct {
	nf, k2, l, lp int
	rows          int       // rows a block takes, a multiple of 8
	iota          []int     // 0, 1, …, rows − 1: every row of a block
	panels        []int16   // 16-bit codes q_ij, simd.PackS16 layout
	panels8       []int8    // 8-bit codes, simd.PackS8Pairs layout
	zp            []int32   // sparse layout: z_j; nil for dense
	shift, chunk  int       // limb split and int32 chunk (simd.GemmS16Limbs)
	pool          sync.Pool // *qblockScratch
	// fastLabel's: coefficients as float32, class ranges (C-SVC: start;
	// one-class: all), A_pc by coefficient row and class, per class the
	// bound's depth term, the kernel's ρK and αK, zeros for ExpRBF.
	coef32 []float32
	ranges []int
	absA   []float64
	depth  []float64
	pairs  []pairBound // per decision value p: its classes and A_pc
	// The one-limb prefilter (pre, see blockPredictPre): per feature a
	// centre μ_j of the codes (their median), the largest R1_i = Σ_j
	// |q_ij − μ_j| over the support vectors, |c_i|·R1_i/R1max as float32,
	// zero ρ, and the factor covering W_p's float32 rounding.
	pre        bool
	mu         []int16
	r1max      float64
	absCoef    []float32
	zeroRho    []float64
	wSlack     float64
	relK, absK float64
	zeros      []float32
	// The float32 prefilter of few-feature RBF classifiers (kernelfloat.go),
	// or nil.
	fl *floatPre
}

// pairBound is what E_p takes from the model for decision value p: the
// classes ci, cj of its pair and A_pc of each (aj = 0 for one-class).
type pairBound struct {
	ci, cj int
	ai, aj float64
}

type qblockScratch struct {
	hi, lo []int16 // rows × k2 limbs of the input codes
	c      []int64 // rows × lp sums
	in     []rowInput
	zsum   []int64   // Σ_j xq_j·z_j (sparse layout)
	kv     []float32 // fastLabel's kernel values
	mc     []float64 // M_c
	mcArg  []float64 // RBF: the largest exponent of class c, M_c = e^mcArg
	del    []float64 // per class c: M_c·(ρK + depth_c) + αK
	w      []float64 // prefilter: W_p = Σ |c_pi|·K̂_i
	c32    []int32   // prefilter: rows × lp one-limb sums
	lo2    []int16   // prefilter: the doubtful rows' low limbs
	doubt  []int     // prefilter: the rows its bound leaves in doubt
	corr   []int64   // prefilter: Σ_j lo_j·μ_j of each row
	fx     []float32 // float prefilter: rows × nf staged rows
	fk     []float32 // float prefilter: rows × lp kernel values
	fxx    []float64 // float prefilter: ‖x‖² of each row
	fpart  []float32 // float prefilter, 3+ classes: rows × partW·classes class sums
	lab    []float64 // float prefilter: the doubtful rows' labels
	dec    []float64
	votes  []float64
	part   []float32
	sure   []bool // per decision value: farther than its bound from 0
	vsure  []int  // per class: votes of the sure decision values
	vopen  []int  // per class: decision values not sure
}

// newKernelBlocks packs m's codes, or returns nil when the blocked path
// does not apply (no fast int16 product; a sparse layout too sparse to
// pack dense).
func newKernelBlocks(m *Kernel) *kernelBlocks {
	if !simd.FastInt8() || m.l == 0 || m.nf == 0 {
		return nil
	}
	if !m.dense && !data.PreferDense(m.l, m.nf, len(m.colRow)) {
		return nil
	}
	nf, l := m.nf, m.l
	b := &kernelBlocks{nf: nf, k2: simd.Round2(nf), l: l, lp: simd.PaddedCols(l)}
	b.rows = min(64, max(8, qblockScratchBytes/(8*b.lp)&^7))
	b.iota = make([]int, b.rows)
	for r := range b.iota {
		b.iota[r] = r
	}
	// Limbs: |xq| ≤ 2²⁴ gives |hi| ≤ 2^(24−s) + 1 and |lo| ≤ 2^(s−1).
	maxB := int64(1) << (m.bits - 1)
	b.shift = 16
	if m.bits == 16 {
		b.shift = 12 // balances the limbs: 16 would let one pair overflow
	}
	// The prefilter's high limb (s = 10: |hi| ≤ 2^14 + 1) meets the 8-bit
	// codes in int32 sums over every feature pair of the row.
	b.pre = m.bits == 8 && m.dense && m.kernel.Type == core.RBFKernel && !m.svmType.IsRegression() &&
		nf >= preMinFeatures && b.k2/2 <= simd.S16Chunk(1<<14+1, maxB)
	if b.pre {
		b.shift = 10
	}
	b.chunk = simd.S16Chunk(max(int64(1)<<(b.shift-1), int64(1)<<(24-b.shift)+1), maxB)
	// The codes column-major (sparse layouts made dense), packed: 8-bit
	// codes as int8 (simd.GemmS8Limbs widens them as it loads them).
	codes := m.col16
	if !m.dense {
		codes = make([]int16, nf*l)
		b.zp = make([]int32, nf)
		for j := range nf {
			z, _ := zeroPoint(m.fa[j], m.fo[j], m.bits) // checked when made or read
			b.zp[j] = z
			col := codes[j*l : j*l+l]
			for i := range col {
				col[i] = int16(z)
			}
			for p := m.colStart[j]; p < m.colStart[j+1]; p++ {
				col[m.colRow[p]] = int16(z + m.sparseCode(p))
			}
		}
	}
	if m.bits == 8 {
		col8 := m.col8
		if col8 == nil {
			col8 = make([]int8, len(codes))
			for i, q := range codes {
				col8[i] = int8(q)
			}
		}
		b.panels8 = make([]int8, simd.PackedLenS16(l, nf))
		simd.PackS8Pairs(b.panels8, col8, l, nf, 1, l)
	} else {
		b.panels = make([]int16, simd.PackedLenS16(l, nf))
		simd.PackS16(b.panels, codes, l, nf, 1, l)
	}
	b.initBound(m)
	if b.pre {
		b.mu = make([]int16, b.k2)
		col := make([]int8, l)
		for j := range nf {
			copy(col, m.col8[j*l:][:l])
			slices.Sort(col)
			b.mu[j] = int16(col[l/2])
		}
		r1 := make([]float64, l)
		for j := range nf {
			for i, q := range m.col8[j*l:][:l] {
				r1[i] += math.Abs(float64(int16(q) - b.mu[j]))
			}
		}
		b.r1max = slices.Max(r1)
		b.absCoef = make([]float32, len(b.coef32))
		for k, c := range b.coef32 {
			// Rounded up (W_p bounds Σ_i |c_i|·(R1_i/R1max)·K̂_i), zeros kept
			// (not the subnormal above them, which would slow every sum).
			if w := math.Abs(float64(c)) * (r1[k%l] / max(b.r1max, 1)); w > 0 {
				b.absCoef[k] = math.Nextafter32(float32(w), float32(math.Inf(1)))
			}
		}
		b.zeroRho = make([]float64, len(m.rho))
		// W_p: float32 sums of at most l products of float32 coefficients
		// (each within u of c), as the depth term counts them, doubled.
		b.wSlack = 1 + 2*float64((l+15)/16+14)*0x1p-24
	}
	if b.fl = newFloatPre(m, b); b.fl != nil {
		b.wSlack = 1 // its A_p are exact sums, rounded up
	}
	nr := len(m.labels)
	b.pool.New = func() any {
		var pre qblockScratch
		if b.pre {
			pre = qblockScratch{
				w: make([]float64, m.NumDecisionValues()), c32: make([]int32, b.rows*b.lp), corr: make([]int64, b.rows),
				lo2: make([]int16, b.rows*b.k2), doubt: make([]int, b.rows),
			}
		}
		if b.fl != nil {
			pre = qblockScratch{
				fx: make([]float32, b.rows*nf), fk: make([]float32, b.rows*b.lp),
				fxx: make([]float64, b.rows), lab: make([]float64, b.rows), doubt: make([]int, b.rows),
				fpart: make([]float32, b.rows*b.fl.partW*(len(b.ranges)-1)),
			}
		}
		return &qblockScratch{
			w: pre.w, c32: pre.c32, lo2: pre.lo2, doubt: pre.doubt, corr: pre.corr,
			fx: pre.fx, fk: pre.fk, fxx: pre.fxx, lab: pre.lab, fpart: pre.fpart,
			hi: make([]int16, b.rows*b.k2), lo: make([]int16, b.rows*b.k2),
			c:  make([]int64, b.rows*b.lp),
			in: make([]rowInput, b.rows), zsum: make([]int64, b.rows),
			kv: make([]float32, b.lp), mc: make([]float64, len(b.ranges)-1),
			mcArg: make([]float64, len(b.ranges)-1), del: make([]float64, len(b.ranges)-1),
			dec: make([]float64, m.NumDecisionValues()), votes: make([]float64, nr),
			part: make([]float32, nr*max(nr-1, 0)),
			sure: make([]bool, m.NumDecisionValues()), vsure: make([]int, nr), vopen: make([]int, nr),
		}
	}
	return b
}

// initBound prepares fastLabel's bound (see the top of the file).
func (b *kernelBlocks) initBound(m *Kernel) {
	const u = 0x1p-24
	l := m.l
	b.coef32 = make([]float32, len(m.coef))
	for i, c := range m.coef {
		b.coef32[i] = float32(c)
	}
	b.ranges = m.start
	if b.ranges == nil {
		b.ranges = []int{0, l}
	}
	nc, rows := len(b.ranges)-1, len(m.coef)/l
	b.absA = make([]float64, rows*nc)
	b.depth = make([]float64, nc)
	for c := range nc {
		from, to := b.ranges[c], b.ranges[c+1]
		b.depth[c] = float64((to-from+15)/16+12) * u
		for k := range rows {
			for _, v := range m.coef[k*l+from : k*l+to] {
				b.absA[k*nc+c] += math.Abs(v)
			}
		}
	}
	// Decision value p = (i, j) in LIBSVM's order: row j−1 of the
	// coefficients on class i, row i on class j; one-class: class 0 alone.
	if nc == 1 {
		b.pairs = []pairBound{{ai: b.absA[0]}}
	}
	for i := range nc {
		for j := i + 1; j < nc; j++ {
			b.pairs = append(b.pairs, pairBound{ci: i, cj: j, ai: b.absA[(j-1)*nc+i], aj: b.absA[i*nc+j]})
		}
	}
	b.relK, b.absK = u, 0
	if m.kernel.Type == core.RBFKernel {
		b.relK, b.absK = simd.ExpMaxRelError+u, u/math.E
		b.zeros = make([]float32, b.lp)
	}
}

// limbs returns row r's limbs, cleared (code 0 everywhere).
func (b *kernelBlocks) limbs(s *qblockScratch, r int) (hi, lo []int16) {
	hi, lo = s.hi[r*b.k2:][:b.k2], s.lo[r*b.k2:][:b.k2]
	clear(hi)
	clear(lo)
	return hi, lo
}

// put stores the input code xq of feature j in the limbs: lo the low s
// bits, sign-extended, hi the rest.
func (b *kernelBlocks) put(s *qblockScratch, r int, hi, lo []int16, j int, xq int32) {
	sh := 32 - b.shift
	l := xq << sh >> sh
	hi[j], lo[j] = int16((xq-l)>>b.shift), int16(l)
	if b.zp != nil {
		s.zsum[r] += int64(xq) * int64(b.zp[j])
	}
}

// encodeDense encodes the dense row x (any width) as row r of the block,
// with the codes sumsDense would use.
func (m *Kernel) encodeDense(b *kernelBlocks, s *qblockScratch, r int, x []float32) {
	m.encodeScanned(b, s, r, x, m.scanDense(x))
}

// encodeDenseRows encodes the n dense rows row(0), …, row(n−1), all of one
// width, as the rows of the block: scanned four at a time (scanDense4),
// then encoded as encodeDense encodes them.
func (m *Kernel) encodeDenseRows(b *kernelBlocks, s *qblockScratch, n int, row func(r int) []float32) {
	r := 0
	for ; r+4 <= n; r += 4 {
		x := [4][]float32{row(r), row(r + 1), row(r + 2), row(r + 3)}
		var in [4]rowInput
		m.scanDense4(&in, &x)
		for k := range x {
			m.encodeScanned(b, s, r+k, x[k], in[k])
		}
	}
	for ; r < n; r++ {
		m.encodeDense(b, s, r, row(r))
	}
}

// encodeScanned encodes the dense row x, scanned into in, as row r of the
// block: every feature at once (simd.RoundLimbs, inputCode's rounding; a
// zero feature gets code 0, as sumsDense's skipping it).
func (m *Kernel) encodeScanned(b *kernelBlocks, s *qblockScratch, r int, x []float32, in rowInput) {
	hi, lo := s.hi[r*b.k2:][:b.k2], s.lo[r*b.k2:][:b.k2]
	s.in[r] = in
	n := 0
	if in.t != 0 {
		n = in.n
		simd.RoundLimbs(hi, lo, x[:n], m.fa, in.inv, b.shift)
	}
	clear(hi[n:])
	clear(lo[n:])
	s.zsum[r] = 0
	if b.zp != nil {
		var z int64
		for j, zp := range b.zp[:n] {
			z += (int64(hi[j])<<b.shift + int64(lo[j])) * int64(zp)
		}
		s.zsum[r] = z
	}
}

// encodeSparse is encodeDense for a sparse row (sumsSparse's codes).
func (m *Kernel) encodeSparse(b *kernelBlocks, s *qblockScratch, r int, index []int32, value []float32) {
	hi, lo := b.limbs(s, r)
	s.zsum[r] = 0
	in := m.scanSparse(index, value)
	s.in[r] = in
	if in.t == 0 {
		return
	}
	value = value[:len(index)]
	for p, j := range index {
		if uint(j) < uint(b.nf) && value[p] != 0 {
			b.put(s, r, hi, lo, int(j), m.inputCode(value[p], int(j), &in))
		}
	}
}

// blockSums computes the exact sums of the n encoded rows of s: row r's
// Σ_j xq_j·q_ij (sparse layout: ·r_ij) in s.c[r·lp:][:l].
func (b *kernelBlocks) blockSums(s *qblockScratch, n int) {
	n4 := (n + 3) &^ 3 // the rows past n, cleared, keep the kernel on 4 rows
	for r := n; r < n4; r++ {
		b.limbs(s, r)
	}
	c := s.c[:n4*b.lp]
	if b.panels8 != nil {
		simd.GemmS8Limbs(c, b.lp, s.hi, s.lo, b.k2, n4, b.panels8, b.l, b.nf, b.shift, b.chunk)
	} else {
		simd.GemmS16Limbs(c, b.lp, s.hi, s.lo, b.k2, n4, b.panels, b.l, b.nf, b.shift, b.chunk)
	}
	if b.zp == nil {
		return
	}
	for r := range n {
		z := s.zsum[r]
		row := c[r*b.lp:][:b.l]
		for i := range row {
			row[i] -= z
		}
	}
}

// blockPredict predicts the n encoded rows of s into dst, and returns how
// many rows took the exact path for a decision value near 0.
func (m *Kernel) blockPredict(b *kernelBlocks, s *qblockScratch, dst []float64, n int) (refined int) {
	if b.pre {
		return m.blockPredictPre(b, s, dst, n)
	}
	b.blockSums(s, n)
	return m.labelRows(b, s, dst, b.iota[:n])
}

// labelRows labels the listed rows of s, whose exact sums s.c holds, into
// dst: fastLabel's label, or the exact path's (ε-SVR: always), and returns
// how many rows took the exact path for a decision value near 0.
func (m *Kernel) labelRows(b *kernelBlocks, s *qblockScratch, dst []float64, rows []int) (refined int) {
	var ks *kernelScratch
	for _, r := range rows {
		acc := s.c[r*b.lp:][:b.l]
		if !m.svmType.IsRegression() {
			var ok bool
			if dst[r], ok = m.fastLabel(b, s, acc, &s.in[r], 0); ok {
				continue
			}
			refined++
		}
		if ks == nil {
			ks = m.getScratch()
		}
		m.kernelValues(ks.kv, acc, &s.in[r])
		dst[r] = m.label(ks)
	}
	if ks != nil {
		m.pool.Put(ks)
	}
	return refined
}

// bound returns E_p for decision value p of the row fastLabel last
// computed in s (clear sets the per-class terms it reads), widened for
// kernel values that are a prefilter's by g·(w_p·wSlack + E_p) (g = 0:
// exact sums; w: W_p, see blockPredictPre, or the float prefilter's A_p).
func (b *kernelBlocks) bound(s *qblockScratch, p int, g float64, w []float64) float64 {
	pr := &b.pairs[p]
	e := pr.ai*s.del[pr.ci] + pr.aj*s.del[pr.cj]
	if g > 0 {
		e += g * (w[p]*b.wSlack + e)
	}
	return e
}

// fastLabel returns the label of the row whose exact sums are acc, from
// float32 kernel and decision values, and true; or false when a decision
// value is within its bound E_p of 0 (or not a number), for the exact path
// to decide.
//
// g > 0 (the prefilter, blockPredictPre) states that acc holds sums
// whose kernel values are within a factor e^(±γη) of the exact ones,
// g = e^(γη) − 1: the bound then also covers that.
func (m *Kernel) fastLabel(b *kernelBlocks, s *qblockScratch, acc []int64, in *rowInput, g float64) (float64, bool) {
	k := m.kernel
	kv := s.kv[:b.l]
	acc = acc[:len(kv)]
	nc := len(b.ranges) - 1
	for c := range nc {
		from, to := b.ranges[c], b.ranges[c+1]
		a := acc[from:to]
		kc := kv[from:to][:len(a)]
		if k.Type == core.RBFKernel {
			// The exponent as Kernel.FromDot computes it.
			// M_c ≤ 1 bounds an RBF value: e^mx only for rows that 1 leaves
			// in doubt (below), not a math.Exp per class and row.
			s.mcArg[c] = simd.RBFArgsS64(kc, a, m.ss[from:to], in.xx, in.c0, in.t, k.Gamma)
			s.mc[c] = 1
			continue
		}
		mx := 0.0
		for i, v := range a {
			kk := k.FromDot(0, 0, in.c0+in.t*float64(v))
			kc[i] = float32(kk)
			mx = max(mx, math.Abs(kk))
		}
		s.mc[c] = mx
	}
	if k.Type == core.RBFKernel {
		simd.ExpRBF(kv, kv, b.zeros, 1, 0)
	}
	core.KernelDecisions32(m.svmType, s.dec, kv, b.coef32, m.rho, m.start, s.part)
	if g > 0 {
		core.KernelDecisions32(m.svmType, s.w, kv, b.absCoef, b.zeroRho, m.start, s.part)
	}
	if !b.clear(s, g, s.w) {
		if k.Type != core.RBFKernel {
			return 0, false
		}
		for c, mx := range s.mcArg[:nc] {
			s.mc[c] = math.Exp(mx)
		}
		if !b.clear(s, g, s.w) {
			return 0, false
		}
	}
	return core.KernelPrediction(m.svmType, m.labels, s.dec, s.votes), true
}

// clear reports whether the label of the decision values fastLabel
// computed in s is the exact ones': every decision value is farther than
// its bound (bound(s, p, g, w)) from 0 (and a number), or, for C-SVC of
// three classes or more, the vote's winner wins whichever way the others
// fall (votesSure).
func (b *kernelBlocks) clear(s *qblockScratch, g float64, w []float64) bool {
	for c, mc := range s.mc {
		s.del[c] = mc*(b.relK+b.depth[c]) + b.absK
	}
	all := true
	for p := range s.dec {
		s.sure[p] = math.Abs(s.dec[p]) > b.bound(s, p, g, w)
		all = all && s.sure[p]
	}
	return all || len(b.ranges) > 3 && b.votesSure(s) // C-SVC of 3+ classes
}

// votesSure reports whether one class wins LIBSVM's one-vs-one vote
// (core.KernelPrediction: the most votes, the first class on a tie)
// however the decision values that are not sure fall: its votes from the
// sure ones alone beat every other class's sure votes plus all the pairs
// still open to it (or tie them, for a class after it). That class is
// then the vote's winner for the exact decision values and for s.dec.
// On digits' test rows it settles all 9 of 360 the float32 prefilter
// (kernelfloat.go) left in doubt, all 14 of the one-limb prefilter and the
// 2 the exact sums' float32 values did: pairs of two losing classes near 0.
func (b *kernelBlocks) votesSure(s *qblockScratch) bool {
	vs, vo := s.vsure, s.vopen
	clear(vs)
	clear(vo)
	for p, pr := range b.pairs {
		switch {
		case !s.sure[p]:
			vo[pr.ci]++
			vo[pr.cj]++
		case s.dec[p] > 0:
			vs[pr.ci]++
		default:
			vs[pr.cj]++
		}
	}
	win := 0
	for c, v := range vs {
		if v > vs[win] {
			win = c
		}
	}
	for c := range vs {
		if c < win && vs[c]+vo[c] >= vs[win] || c > win && vs[c]+vo[c] > vs[win] {
			return false
		}
	}
	return true
}

// blockPredictPre is blockPredict for models with the prefilter (8-bit
// codes, dense layout, RBF C-SVC or one-class, 256 to 1022 features):
// the high limbs alone (s = 10: xq = hi·2^10 + lo, |lo| ≤ 2^9) meet the
// codes in one product at twice the float32 product's multiply-adds an
// instruction (simd.GemmS8x16), and a row whose labels the sums 2^10·S_hi
// settle takes them. With the row's exact Σ_j lo_j·μ_j added (μ_j the
// median code of feature j), those sums are off the exact S by
// |Σ_j lo_j·(q_ij − μ_j)| ≤ 2^9·R1_i, R1_i = Σ_j |q_ij − μ_j|, so support
// vector i's RBF distance by at most η_i = 2^10·t·R1_i and its kernel
// value K̃_i from them is within a factor e^(±γη_i) of the exact one:
// |K_i − K̃_i| ≤ g_i·K̃_i ≤ (R1_i/R1max)·g·K̃_i, g = e^(γη_max) − 1 (e^x − 1
// is convex), and a decision value moves by at most
// g·Σ_i |c_i|·(R1_i/R1max)·K̃_i ≤ g·(W_p·wSlack + E_p), W_p the float32 sum
// of those weights times K̂_i (fastLabel's bound, widened). The other rows
// (those a decision value within that of 0 leaves in doubt) add their low
// limbs' product, which makes their sums exact, and go on as blockPredict's.
func (m *Kernel) blockPredictPre(b *kernelBlocks, s *qblockScratch, dst []float64, n int) int {
	k2, lp, l := b.k2, b.lp, b.l
	b.preSums(s, n)
	nd := 0
	for r := range n {
		var ok bool
		if dst[r], ok = m.fastLabel(b, s, s.c[r*lp:][:l], &s.in[r], m.preSlack(b, &s.in[r])); ok {
			continue
		}
		s.doubt[nd] = r
		copy(s.lo2[nd*k2:][:k2], s.lo[r*k2:][:k2])
		nd++
	}
	if nd == 0 {
		return 0
	}
	nd8 := (nd + 7) &^ 7
	clear(s.lo2[nd*k2 : nd8*k2])
	simd.GemmS8x16(s.c32, lp, s.lo2, k2, nd8, b.panels8, l, b.nf)
	for d, r := range s.doubt[:nd] {
		acc, lo := s.c[r*lp:][:l], s.c32[d*lp:][:l]
		corr := s.corr[r]
		for i, v := range lo {
			acc[i] += int64(v) - corr
		}
	}
	return m.labelRows(b, s, dst, s.doubt[:nd])
}

// preSums sets the n encoded rows' sums in s.c to the prefilter's
// 2^10·S_hi + Σ_j lo_j·μ_j, off the exact sums by Σ_j lo_j·(q_ij − μ_j).
func (b *kernelBlocks) preSums(s *qblockScratch, n int) {
	n8 := (n + 7) &^ 7 // the rows past n, cleared, keep the kernel on 8 rows
	for r := n; r < n8; r++ {
		b.limbs(s, r)
	}
	simd.GemmS8x16(s.c32, b.lp, s.hi, b.k2, n8, b.panels8, b.l, b.nf)
	for r := range n {
		var corr int64
		for j, lo := range s.lo[r*b.k2:][:b.k2] {
			corr += int64(lo) * int64(b.mu[j])
		}
		s.corr[r] = corr
		simd.WidenShift(s.c[r*b.lp:][:b.l], s.c32[r*b.lp:][:b.l], b.shift, corr)
	}
}

// preSlack returns g = e^(γη) − 1 for the row in (blockPredictPre), each
// factor rounded up.
func (m *Kernel) preSlack(b *kernelBlocks, in *rowInput) float64 {
	eta := float64(int64(1)<<b.shift) * in.t * b.r1max * (1 + 0x1p-20)
	return math.Expm1(m.kernel.Gamma*eta) * (1 + 0x1p-20)
}

// blockPredictRows predicts rows [from, to) of ds into dst[from:to].
func (m *Kernel) blockPredictRows(b *kernelBlocks, dst []float64, ds *data.Dataset, from, to int) {
	s := b.pool.Get().(*qblockScratch)
	for r0 := from; r0 < to; r0 += b.rows {
		n := min(b.rows, to-r0)
		if b.fl != nil {
			a, up := b.floatStage(s, ds, r0, n)
			m.floatPredict(b, s, dst[r0:r0+n], a, n, up, func(i, r int) {
				if ds.IsDense() {
					m.encodeDense(b, s, i, ds.DenseRow(r0+r))
				} else {
					idx, val := ds.SparseRow(r0 + r)
					m.encodeSparse(b, s, i, idx, val)
				}
			})
			continue
		}
		if ds.IsDense() {
			m.encodeDenseRows(b, s, n, func(r int) []float32 { return ds.DenseRow(r0 + r) })
		} else {
			for r := range n {
				idx, val := ds.SparseRow(r0 + r)
				m.encodeSparse(b, s, r, idx, val)
			}
		}
		m.blockPredict(b, s, dst[r0:r0+n], n)
	}
	b.pool.Put(s)
}

// blockPredictMatrix predicts the rows of the row-major matrix x.
func (m *Kernel) blockPredictMatrix(b *kernelBlocks, dst []float64, x []float32) {
	s := b.pool.Get().(*qblockScratch)
	for r0 := 0; r0 < len(dst); r0 += b.rows {
		n := min(b.rows, len(dst)-r0)
		if b.fl != nil {
			a := x[r0*m.nf : (r0+n)*m.nf]
			up := 0.0
			for r := range n {
				xx, xu := floatNorm(a[r*m.nf:][:m.nf])
				s.fxx[r], up = xx, max(up, xu)
			}
			m.floatPredict(b, s, dst[r0:r0+n], a, n, up, func(i, r int) { m.encodeDense(b, s, i, a[r*m.nf:][:m.nf]) })
			continue
		}
		m.encodeDenseRows(b, s, n, func(r int) []float32 { return x[(r0+r)*m.nf:][:m.nf] })
		m.blockPredict(b, s, dst[r0:r0+n], n)
	}
	b.pool.Put(s)
}

// BatchPays reports whether m's batch predictions are expected to take no
// more time than its float32 model's on this CPU, and why not when they
// are not: the reason svmgo quantize gives when its own timing of both
// models' batches finds m's slower. The figures are BenchmarkKernelBatch's
// and examples/bench/quanttime's CPU times (one core, alternated runs).
//
// Why most dense forms cannot pay: a label must be the exact sums' (the
// single row's, the generated C's), whose input codes take 24 bits, two
// 16-bit limbs. VNNI's VPDPWSSD makes twice the products an instruction
// of the float32 FMA (predicttime -peak: 2.0×), so two limbs only match
// it, and the exact path adds what the float model does not pay: the
// row's encoding and the int64 sums' conversion. Only the one-limb
// prefilter (8-bit codes, RBF, 256 features or more; blockPredictPre)
// makes half the instructions, and only where the product is most of a
// row's time.
func (m *Kernel) BatchPays() (bool, string) {
	switch {
	case !m.dense && !data.PreferDense(m.l, m.nf, len(m.colRow)):
		return true, "sparse support vectors: the exact sparse column sums, 0.2× the float model's time on debdesc_bin (9,132 features)"
	case m.blk == nil:
		return false, "this CPU has no fast int16 product (AVX-512 VNNI): batches take the exact column sums, several times the float model's time"
	case m.blk.fl != nil:
		return true, "the float32 prefilter (an RBF model below 256 features: the float model's product on the decoded support vectors, class sums as one product a class for 3+ classes; the rows it leaves in doubt take the exact sums, ε-SVR values are its own): 0.61–0.91× the float model's CPU time on heart_scale, breast_cancer, digits and shuttle, int8 and int16 alike, and a tie (0.90–1.03×) on diabetes' ε-SVR, whose rows are exp and the product in both"
	case m.svmType.IsRegression():
		return false, "ε-SVR batch values of models of 256 features or more take the exact float64 path (kernel values by math.Exp, serial sums): several times the float model's time (diabetes' 10-feature model took 21× on it)"
	case m.bits == 16:
		return false, "16-bit codes: the exact sums need the input in two 12-bit limbs and int32 sums widened every 7 feature pairs, and one limb would overflow int32, so the product makes fewer products an instruction than float32's FMAs: 2.0–2.2× the float model's CPU time on Fashion-MNIST 10k (784 features, 2026-11-28); and the float32 prefilter, whose bound grows with the features (the product's rounding over 784 terms), left 29% of its rows in doubt even with kernel-weighted coefficient sums, 2.7×"
	case m.blk.pre:
		return true, "the one-limb prefilter (8-bit codes, twice the float32 product's multiply-adds an instruction; rows it leaves in doubt take the exact sums): 0.93–0.98× the float model's CPU time on Fashion-MNIST 10k (784 features)"
	case m.kernel.Type != core.RBFKernel:
		return false, "the exact sums' two 16-bit limbs make as many VNNI instructions as float32's FMAs, and the row's encoding and the int64 sums' conversion come on top; the one-limb prefilter is for RBF models"
	}
	return false, "an RBF model without the one-limb prefilter (a sparse layout, or too many features for its int32 sums): the exact sums' two 16-bit limbs make as many VNNI instructions as float32's FMAs, and the row's encoding and the int64 sums' conversion come on top"
}
