package core

import (
	"math"
	"sync"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// Blocked kernel prediction. A kernel model's decision values for a block
// of rows X (R rows × n features) against its l support vectors SV are
//
//	T = X·SVᵀ (R × l dot products),  K = f(T) elementwise,
//	dec = per class pair, sums of coefficient-weighted K over two classes,
//
// so the dot products, the bulk of the work (2·R·l·n FLOPs), are one
// matrix product: simd.Gemm, a register-blocked, cache-blocked float32
// micro-kernel over the support vectors packed once into simd's panel
// layout, by the first prediction (kernelPre.blocks; not by Init, so a
// model that is only trained and written never holds the copy). The kernel function is applied
// with the vectorized exp (RBF, simd.ExpRBF with −γ‖sv‖² precomputed) and
// tanh (sigmoid), and each class pair's coefficient sums are dot products
// over its two classes' support vectors (classSum: simd.Dot where it is
// vectorized, float64 sums on the portable path). A row at a time, except
// in a C-SVC batch block on the wide dot (blockBatch), which takes both a
// class at a time over the block's rows, so that the class's coefficients
// and each row's piece of K stay in the L1 cache: on Fashion-MNIST 10k
// the whole-row passes read 3 MB of K twice a block and 200 KB of
// coefficients a row from beyond the L2 cache (predicttime, 1 core,
// alternated, load 14–22: with the kernel function taken a class at a
// time too, a batch took 0.80–0.92 of the CPU time of the sums alone a
// class at a time after an exp pass over whole rows). This is how
// the fast engines (ThunderSVM, oneDAL) evaluate kernels; a row at a time,
// by contrast, streams every support vector from memory for every row.
//
// Accuracy: dot products and sums are float32 (with float32 rounding of
// the summands' order); the row-at-a-time path accumulates in float64. The
// decision values differ by at most blockDecisionTol's bound
// (kernelblock_test.go checks it on every kernel and layout and on the
// test rows of ../shared/data's models). For a model whose coefficients
// are of order 1 that is far below the margin, and its labels are those of
// the float64 path on every test set of ../shared/data. Not where they are
// large: a ν-SVC model's coefficients are α/r, up to 6·10⁵ on shuttle at
// ν = 10⁻⁴, on kernel values near 1, so float32 sums of order 10⁶ decide
// the signs of values of order 10⁻² (7 of 14,500 test labels differed).
// A label depends only on the signs of the decision values, so a
// classifying model whose bound at kernel values ≤ 1 exceeds a thousandth
// of the margin (blockRefineAbove) recomputes in float64, as the
// row-at-a-time path does, each decision value within the bound of 0,
// from its two classes' kernel values (refineTies): its labels are then
// the float64 ones. On shuttle's test set that recomputes 0.061% of the
// kernel values at C = 100 and 1.8% for that ν-SVC model (batch CPU time
// +9% and +13%); models under the threshold (digits, Fashion-MNIST 10k)
// predict as before.
//
// Memory: packing adds the panels, PaddedCols(l)·NumFeatures float32
// (about as much as dense support vectors take themselves), −γ‖sv‖² (4
// bytes a support vector) and the coefficients as float32 (half of Coef).
// A batch keeps one block's kernel values, at most blockScratchBytes, per
// goroutine. Models whose panels would take much more memory than their
// sparse support vectors (wide, sparse data) are not packed and predict a
// row at a time, gathering each support vector's nonzeros.

// blockDecisionTol is the stated accuracy of the blocked path (float32 dot
// products, exp and sums): a decision value differs from the float64
// row-at-a-time one by at most blockDecisionTol·(Σ_s |coef_s·K_s| + |ρ|),
// the sum over the support vectors the value adds up, plus, for RBF, the
// cancellation in ‖x‖² + ‖sv‖² − 2x·sv (kernelBlocks.rbfSlack). Measured,
// not proven: the tests' largest error is 0.43 of it (sigmoid, random
// rows), 0.5 of it on ../shared/data's models. refineTies recomputes what
// it leaves in doubt, so a tighter statement costs fewer recomputations.
const blockDecisionTol = 2.5e-7

// blockRefineAbove is the largest error at kernel values ≤ 1,
// blockDecisionTol·max_p (Σ|coef| + |ρ|) over the decision values, that a
// classifying model's blocked path may have without refineTies: a
// thousandth of the margin (decision value 1 at a free support vector, for
// ν-SVC too after its scaling by 1/r). The models of ../shared/data and
// the benchmarks stay under it (heart_scale 2.9·10⁻⁵, digits 3.6·10⁻⁵,
// Fashion-MNIST 10k at C = 10 5.3·10⁻⁴) and predict as before; shuttle at
// C = 100 (8·10⁻³) and its ν-SVC model at ν = 10⁻⁴ (0.53) refine.
const blockRefineAbove = 1e-3

// blockScratchBytes bounds a batch block's kernel values (rows × padded
// support vectors, float32): with up to maxBlockRows rows a block, the
// packed panels are read from memory once per block. A large model's
// panels do not fit the L2 cache (Fashion-MNIST 10k: 17 MB), and the
// matrix product waits on memory in proportion: simd.Gemm of 64 rows ×
// 5556 × 784 reached 59–66% of one core's FMA peak, of 128 rows 58–76%
// (CPU time, load 10–13; 256 rows did no better in whole predicts). The
// cost: 3.1 MB of kernel values a goroutine for that model at 140 rows.
const blockScratchBytes = 4 << 20

// maxBlockRows is the most rows a block takes: ten passes of Gemm's
// 14-row kernel (56 and 84 rows measured alike on Fashion-MNIST 10k,
// alternated at load ~15).
const maxBlockRows = 140

// packSlack is how much memory the panels may always take; beyond it they
// may take at most packRatio times the support vectors' own storage.
const (
	packSlack = 4 << 20
	packRatio = 2
)

// kernelBlocks is what the first prediction prepares for blocked prediction.
type kernelBlocks struct {
	nf, l, lp int       // features, support vectors, support vectors padded to whole panels
	rows      int       // rows a batch block takes
	panels    []float32 // the support vectors in simd.Pack's layout, lp × nf
	base      []float32 // RBF: −γ‖sv_i‖²
	coef      []float32 // Coef as float32, same layout
	gamma     float32
	coef0     float32
	// absCoef holds, per decision value of a classifying model that
	// refines its near ties (blockRefineAbove; nil otherwise), Σ|coef_s|
	// over the support vectors it sums, and absRho |ρ|: with the largest
	// |K_s| of a row, absCoef bounds Σ|coef_s·K_s| (refineTies). tieW is
	// absCoef + absRho, the bound's weight where |K_s| ≤ 1 (RBF, sigmoid).
	absCoef, absRho, tieW []float64
	// rbfSlack·(‖x‖² + maxSq) is RBF's relative error of K from the
	// float32 ‖x‖² + ‖sv‖² − 2x·sv: γ·2⁻²⁴·√(nf+1) times the largest norms.
	rbfSlack, maxSq float64

	rowPool   sync.Pool // *blockScratch for one row
	batchPool sync.Pool // *blockScratch for `rows` rows
}

// blockScratch is one goroutine's work space.
type blockScratch struct {
	kv    []float32 // rows × lp kernel values
	kv64  []float64 // l kernel values of a row recomputed in float64 (refineTies)
	done  []bool    // C-SVC: classes whose kv64 entries refineTies has computed
	tieW  []float64 // refineTies' bound weight per decision value
	x     []float32 // rows × nf: rows gathered from sparse or odd-width input
	xx    []float64 // rows: ‖x‖²
	dec   []float64 // decision values
	votes []float64 // C-SVC votes
	part  []float32 // C-SVC: per class c and coefficient row k, Σ coef·K over class c
	// parts holds part for each row of a batch block (classSums32), for
	// C-SVC models on the wide dot (nil otherwise, and for one row).
	parts []float32
}

// newKernelBlocks packs m's support vectors, or returns nil when the panels
// would take too much memory (see above). m.pre.sqnorm must be set for RBF.
func newKernelBlocks(m *KernelModel, pre *kernelPre) *kernelBlocks {
	nf, l := m.NumFeatures, m.SV.Len()
	if l == 0 {
		// Nothing to pack, and the staged rows (up to maxBlockRows × nf
		// float32) would be bounded by no panel: a model of 2³¹−1
		// features and no support vectors took 512 GiB here.
		return nil
	}
	lp := simd.PaddedCols(l)
	packed := lp * nf * 4
	own := m.SV.Nonzeros() * 8
	if m.SV.IsDense() {
		own = l * m.SV.NumFeatures() * 4
	}
	if packed > packSlack && packed > packRatio*own {
		return nil
	}
	b := &kernelBlocks{nf: nf, l: l, lp: lp, panels: make([]float32, lp*nf)}
	b.rows = min(maxBlockRows, max(4, blockScratchBytes/(4*max(lp, 1))&^3))
	at := func(j, q int) int {
		return (j/simd.PanelWidth)*nf*simd.PanelWidth + q*simd.PanelWidth + j%simd.PanelWidth
	}
	for j := range l {
		if m.SV.IsDense() {
			for q, v := range m.SV.DenseRow(j) {
				b.panels[at(j, q)] = v
			}
		} else {
			idx, val := m.SV.SparseRow(j)
			for p, q := range idx {
				b.panels[at(j, int(q))] = val[p]
			}
		}
	}
	k := m.Kernel
	b.gamma, b.coef0 = float32(k.Gamma), float32(k.Coef0)
	if k.Type == RBFKernel {
		b.base = make([]float32, lp)
		for j := range l {
			b.base[j] = float32(-k.Gamma * pre.sqnorm[j])
		}
	}
	b.coef = make([]float32, len(m.Coef))
	for i, c := range m.Coef {
		b.coef[i] = float32(c)
	}
	nDec, nr := m.NumDecisionValues(), len(m.Labels)
	if !m.SVMType.IsRegression() {
		// KernelDecisions over |coef| with every K = 1 and ρ = 0.
		ones, abs := make([]float64, l), make([]float64, len(m.Coef))
		for i := range ones {
			ones[i] = 1
		}
		for i, c := range m.Coef {
			abs[i] = math.Abs(c)
		}
		b.absCoef = make([]float64, nDec)
		KernelDecisions(m.SVMType, b.absCoef, ones, abs, make([]float64, len(m.Rho)), pre.start)
		b.absRho, b.tieW = make([]float64, nDec), make([]float64, nDec)
		var w float64
		for p, r := range m.Rho[:nDec] {
			b.absRho[p] = math.Abs(r)
			b.tieW[p] = b.absCoef[p] + b.absRho[p]
			w = max(w, b.tieW[p])
		}
		if blockDecisionTol*w <= blockRefineAbove {
			b.absCoef, b.absRho, b.tieW = nil, nil, nil
		}
	}
	if k.Type == RBFKernel {
		b.rbfSlack = k.Gamma * 0x1p-24 * math.Sqrt(float64(nf)+1)
		for _, v := range pre.sqnorm {
			b.maxSq = max(b.maxSq, v)
		}
	}
	// A batch block's class sums, row by row: classSums32 takes them a
	// class at a time over the block's rows.
	parts := func(rows int) []float32 {
		w := nr * max(nr-1, 0)
		if !wideDot || !m.SVMType.IsSVC() || rows < 2 || w == 0 || rows*w > maxBlockParts {
			return nil
		}
		return make([]float32, rows*w)
	}
	newScratch := func(rows int) func() any {
		return func() any {
			return &blockScratch{
				kv:    make([]float32, rows*lp),
				kv64:  make([]float64, l),
				done:  make([]bool, nr),
				tieW:  make([]float64, nDec),
				x:     make([]float32, rows*nf),
				xx:    make([]float64, rows),
				dec:   make([]float64, nDec),
				votes: make([]float64, nr),
				part:  make([]float32, nr*max(nr-1, 0)),
				parts: parts(rows),
			}
		}
	}
	b.rowPool.New = newScratch(1)
	b.batchPool.New = newScratch(b.rows)
	return b
}

// stageDense puts a dense row of any width into row r of s.x (cut or
// zero-padded to nf features) and sets s.xx[r] = ‖x‖² over the whole row.
func (b *kernelBlocks) stageDense(s *blockScratch, r int, x []float32) {
	dst := s.x[r*b.nf:][:b.nf]
	n := copy(dst, x)
	clear(dst[n:])
	s.xx[r] = dotDense32(x, x)
}

// stageSparse scatters a sparse row into row r of s.x (features at or past
// nf dropped, as they meet no support vector) and sets s.xx[r] = ‖x‖².
func (b *kernelBlocks) stageSparse(s *blockScratch, r int, index []int32, value []float32) {
	dst := s.x[r*b.nf:][:b.nf]
	clear(dst)
	for p, j := range index {
		if uint(j) < uint(len(dst)) {
			dst[j] = value[p]
		}
	}
	s.xx[r] = sqSparse32(value)
}

// kernelRows computes s.kv's first n rows, K(x_r, sv_j), from the n rows of
// a (lda apart) whose squared norms are in s.xx.
func (m *KernelModel) kernelRows(b *kernelBlocks, s *blockScratch, a []float32, lda, n int) {
	simd.Gemm(s.kv, b.lp, a, lda, n, b.panels, b.l, b.nf)
	for r := range n {
		m.kernelValues(b, s.kv[r*b.lp:][:b.l], 0, s.xx[r])
	}
}

// kernelValues applies the kernel function to kv, the dot products of a
// row whose squared norm is xx with support vectors from, from+1, ...: an
// element at a time, so that a row's values are the same bits taken whole
// or in pieces.
func (m *KernelModel) kernelValues(b *kernelBlocks, kv []float32, from int, xx float64) {
	k := m.Kernel
	switch k.Type {
	case RBFKernel:
		simd.ExpRBF(kv, kv, b.base[from:from+len(kv)], 2*b.gamma, float32(-k.Gamma*xx))
	case PolyKernel:
		for j, t := range kv {
			kv[j] = float32(powi(k.Gamma*float64(t)+k.Coef0, k.Degree))
		}
	case SigmoidKernel:
		for j, t := range kv {
			kv[j] = b.gamma*t + b.coef0
		}
		simd.Tanh(kv, kv)
	}
}

// blockBatch predicts into dst the n rows of a (nf features each) whose
// squared norms are in s.xx. A C-SVC model on the wide dot (s.parts) takes
// the kernel function and the class sums a class at a time over the
// rows (classSums32): each row's piece of kernel values is then summed
// while it is in the L1 cache, where the whole rows (3 MB a block for
// Fashion-MNIST 10k) would come back from beyond the L2 cache.
func (m *KernelModel) blockBatch(b *kernelBlocks, s *blockScratch, dst []float64, a []float32, n int) {
	if s.parts == nil || n < 2 {
		m.kernelRows(b, s, a, b.nf, n)
		m.blockLabels(b, s, dst, a, n)
		return
	}
	simd.Gemm(s.kv, b.lp, a, b.nf, n, b.panels, b.l, b.nf)
	start := m.pre.start
	classSums32(s.parts, s.kv, b.lp, n, b.coef, b.l, start, func(kv []float32, from, r int) {
		m.kernelValues(b, kv, from, s.xx[r])
	})
	nr := len(start) - 1
	w := nr * (nr - 1)
	for r := range n {
		svcDecisions(s.dec, s.parts[r*w:][:w], m.Rho, nr)
		dst[r] = m.decidedLabel(b, s, s.kv[r*b.lp:][:b.l], a[r*b.nf:][:b.nf], s.xx[r])
	}
}

// blockDecisions writes the decision values of one row's kernel values kv
// (len l) to dec (KernelDecisions32).
func (m *KernelModel) blockDecisions(b *kernelBlocks, s *blockScratch, dec []float64, kv []float32) {
	KernelDecisions32(m.SVMType, dec, kv, b.coef, m.Rho, m.pre.start, s.part)
}

// KernelDecisions32 is KernelDecisions for float32 kernel values and
// coefficients, the blocked predictors' form: each class's coefficient-
// weighted sums are dot products (classSum), one per class and
// coefficient row, kept in part (len(start)−1)·(len(start)−2) entries for
// C-SVC, nil otherwise), and a pair's decision value adds its two classes'
// sums in float64:
//
//	dec[p] = Σ_{s ∈ class i} coef[j−1][s]·kv[s] + Σ_{s ∈ class j} coef[i][s]·kv[s] − rho[p].
//
// Float and quantized kernel models share it. It allocates nothing; it
// panics if a slice is too short.
func KernelDecisions32(t SVMType, dec []float64, kv, coef []float32, rho []float64, start []int, part []float32) {
	l := len(kv)
	if !t.IsSVC() {
		dec[0] = float64(classSum(kv, coef[:l])) - rho[0]
		return
	}
	nr := len(start) - 1
	for c := range nr {
		sc, ec := start[c], start[c+1]
		if wideDot {
			// classSum's simd.Dot for every row at once, the same bits.
			simd.DotStrided(part[c*(nr-1):(c+1)*(nr-1)], kv[sc:ec], coef[sc:], l)
			continue
		}
		for k := range nr - 1 {
			part[c*(nr-1)+k] = classSum(kv[sc:ec], coef[k*l+sc:k*l+ec])
		}
	}
	svcDecisions(dec, part, rho, nr)
}

// svcDecisions sets a C-SVC row's decision values from its class sums
// part (KernelDecisions32).
func svcDecisions(dec []float64, part []float32, rho []float64, nr int) {
	p := 0
	for i := range nr {
		for j := i + 1; j < nr; j++ {
			dec[p] = float64(part[i*(nr-1)+j-1]) + float64(part[j*(nr-1)+i]) - rho[p]
			p++
		}
	}
}

// maxBlockParts bounds a batch block's class sums (blockScratch.parts,
// float32): 10 classes take 90 a row, 100 classes 9,900.
const maxBlockParts = 1 << 18

// classSums32 sets parts[r·w:(r+1)·w] (w = nr·(nr−1), nr = len(start)−1)
// to row r's class sums as KernelDecisions32 keeps them in part, bit for
// bit (simd.DotStrided is simd.Dot's sum), for the n rows of kv (ldk
// apart, l values each), a class at a time over all rows: the class's
// nr−1 rows of coefficients then stay in the L1 cache while the rows pass
// (Fashion-MNIST 10k: 20 KB), where a row at a time reads all of coef
// (200 KB a row, from beyond the L2 cache: more bytes a block than the
// panels of its matrix product). Before a row's piece of kv (support
// vectors from, from+1, ...) is summed, values (unless nil) is called on
// it. Only on the wide dot (wideDot).
func classSums32(parts, kv []float32, ldk, n int, coef []float32, l int, start []int, values func(kv []float32, from, r int)) {
	nr := len(start) - 1
	w := nr * (nr - 1)
	for c := range nr {
		sc, ec := start[c], start[c+1]
		for r := range n {
			piece := kv[r*ldk+sc : r*ldk+ec]
			if values != nil {
				values(piece, sc, r)
			}
			simd.DotStrided(parts[r*w+c*(nr-1):][:nr-1], piece, coef[sc:], l)
		}
	}
}

// wideDot is whether simd.Dot sums in SIMD lanes (AVX2, AVX-512: 32 or 64
// partial sums, each of n/32 or n/64 terms). Elsewhere (the portable loop
// of arm, arm64 and the rest) it keeps four float32 partial sums of n/4
// terms, whose rounding on a long sum that cancels exceeds
// blockDecisionTol: shuttle's model at the default C, two classes of
// 3,049 and 2,961 support vectors at kernel values near 1, adds terms of
// 5,859 in all to decision values of 10⁻⁶–10⁻³, and the four partial sums
// missed them by up to 6·10⁻⁷ of that (3·10⁻³): 11 of 14,500 armv7 labels
// differed from svm-predict's, refineTies not being asked.
var wideDot = simd.CurrentLevel() == simd.AVX2 || simd.CurrentLevel() == simd.AVX512

// classSum returns Σ kv[s]·coef[s], a class's part of a decision value:
// simd.Dot where it is wide, and otherwise the products summed in float64
// (simd.Dot64x4) and rounded once, which keeps the sum within 2⁻²⁴ of its
// magnitude plus float64 rounding, far inside blockDecisionTol, at about
// the cost of the float32 loop on a scalar FPU.
func classSum(kv, coef []float32) float32 {
	if wideDot {
		return simd.Dot(kv, coef)
	}
	return float32(simd.Dot64x4(kv, coef))
}

// stageRow puts one row (dense x, or sparse index/value when sparse) where
// kernelRows reads it, sets s.xx[0], and returns the dense row of nf
// features it staged (x itself when it has nf features).
func (b *kernelBlocks) stageRow(s *blockScratch, x []float32, index []int32, value []float32, sparse bool) []float32 {
	switch {
	case sparse:
		b.stageSparse(s, 0, index, value)
		return s.x[:b.nf]
	case len(x) != b.nf:
		b.stageDense(s, 0, x)
		return s.x[:b.nf]
	}
	s.xx[0] = dotDense32(x, x)
	return x
}

// blockRow computes the blocked decision values of one row (dense x, or
// sparse index/value when sparse) into s.dec and returns them.
func (m *KernelModel) blockRow(b *kernelBlocks, s *blockScratch, x []float32, index []int32, value []float32, sparse bool) []float64 {
	a := b.stageRow(s, x, index, value, sparse)
	m.kernelRows(b, s, a, b.nf, 1)
	m.blockDecisions(b, s, s.dec, s.kv[:b.l])
	return s.dec
}

// blockPredict is PredictDense/PredictSparse (and predictDenseAnyWidth) on
// the blocked path.
func (m *KernelModel) blockPredict(b *kernelBlocks, x []float32, index []int32, value []float32, sparse bool) float64 {
	s := b.rowPool.Get().(*blockScratch)
	a := b.stageRow(s, x, index, value, sparse)
	m.kernelRows(b, s, a, b.nf, 1)
	v := m.blockLabel(b, s, s.kv[:b.l], a, s.xx[0])
	b.rowPool.Put(s)
	return v
}

// blockLabels predicts the n rows whose kernel values are in s.kv, computed
// from the rows of a (nf features each) with their squared norms in s.xx.
func (m *KernelModel) blockLabels(b *kernelBlocks, s *blockScratch, dst []float64, a []float32, n int) {
	for r := range n {
		dst[r] = m.blockLabel(b, s, s.kv[r*b.lp:][:b.l], a[r*b.nf:][:b.nf], s.xx[r])
	}
}

// blockLabel predicts one row from its blocked kernel values kv, after
// refineTies; x is the row (nf features), xx its squared norm.
func (m *KernelModel) blockLabel(b *kernelBlocks, s *blockScratch, kv, x []float32, xx float64) float64 {
	m.blockDecisions(b, s, s.dec, kv)
	return m.decidedLabel(b, s, kv, x, xx)
}

// decidedLabel is blockLabel once s.dec holds the row's blocked decision
// values.
func (m *KernelModel) decidedLabel(b *kernelBlocks, s *blockScratch, kv, x []float32, xx float64) float64 {
	if b.absCoef != nil {
		m.refineTies(b, s, kv, x, xx)
	}
	return m.label(s.dec, s.votes)
}

// refineTies recomputes in float64, as the row-at-a-time path does (the
// same kernel values and sums, bit for bit), each decision value of a
// classifying model whose blocked value may have the wrong sign: |dec_p|
// within the stated error bound (blockDecisionTol), with Σ_s |coef_s·K_s|
// bounded by absCoef_p·max_s |K_s| (max_s |K_s| ≤ 1 for RBF and sigmoid).
// Only the kernel values of the pair's two classes are recomputed, each
// class's once a row. kv are the row's blocked kernel values, x the row
// (nf features), xx its squared norm.
func (m *KernelModel) refineTies(b *kernelBlocks, s *blockScratch, kv, x []float32, xx float64) {
	tol := blockDecisionTol + b.rbfSlack*(xx+b.maxSq)
	w := s.tieW[:len(s.dec)]
	switch m.Kernel.Type {
	case RBFKernel, SigmoidKernel:
		copy(w, b.tieW)
	default:
		var mx float32
		for _, v := range kv {
			mx = max(mx, v, -v)
		}
		for p := range w {
			w[p] = b.absCoef[p]*float64(mx) + b.absRho[p]
		}
	}
	tie := false
	for p, d := range s.dec {
		if math.Abs(d) <= tol*w[p] {
			tie = true
			break
		}
	}
	if !tie {
		return
	}
	pre, l := m.pre, b.l
	if !m.SVMType.IsSVC() {
		m.kernelDenseRange(s.kv64, x, xx, pre, 0, l)
		KernelDecisions(m.SVMType, s.dec, s.kv64[:l], m.Coef, m.Rho, pre.start)
		return
	}
	start, done := pre.start, s.done
	clear(done)
	nr := len(start) - 1
	p := 0
	for i := range nr {
		for j := i + 1; j < nr; j++ {
			if math.Abs(s.dec[p]) > tol*w[p] {
				p++
				continue
			}
			for _, c := range [2]int{i, j} {
				if !done[c] {
					m.kernelDenseRange(s.kv64, x, xx, pre, start[c], start[c+1])
					done[c] = true
				}
			}
			s.dec[p] = pairDecision(s.kv64[:l], m.Coef, m.Rho, start, i, j, p)
			p++
		}
	}
}

// blockPredictRows predicts rows [from, to) of ds into dst[from:to], a
// block of b.rows rows at a time.
func (m *KernelModel) blockPredictRows(b *kernelBlocks, dst []float64, ds *data.Dataset, from, to int) {
	s := b.batchPool.Get().(*blockScratch)
	direct := ds.IsDense() && ds.NumFeatures() == b.nf
	for r0 := from; r0 < to; r0 += b.rows {
		n := min(b.rows, to-r0)
		a := s.x
		if direct {
			a = ds.DenseMatrix()[r0*b.nf : (r0+n)*b.nf]
			for r := range n {
				x := a[r*b.nf:][:b.nf]
				s.xx[r] = dotDense32(x, x)
			}
		} else {
			for r := range n {
				if ds.IsDense() {
					b.stageDense(s, r, ds.DenseRow(r0+r))
				} else {
					idx, val := ds.SparseRow(r0 + r)
					b.stageSparse(s, r, idx, val)
				}
			}
		}
		m.blockBatch(b, s, dst[r0:r0+n], a, n)
	}
	b.batchPool.Put(s)
}

// blockPredictMatrix predicts the rows of the row-major matrix x (nf
// features a row) into dst.
func (m *KernelModel) blockPredictMatrix(b *kernelBlocks, dst []float64, x []float32) {
	s := b.batchPool.Get().(*blockScratch)
	for r0 := 0; r0 < len(dst); r0 += b.rows {
		n := min(b.rows, len(dst)-r0)
		a := x[r0*b.nf : (r0+n)*b.nf]
		for r := range n {
			row := a[r*b.nf:][:b.nf]
			s.xx[r] = dotDense32(row, row)
		}
		m.blockBatch(b, s, dst[r0:r0+n], a, n)
	}
	b.batchPool.Put(s)
}

// PredictCSRBatch writes the predictions of len(dst) sparse rows given in
// CSR form to dst and returns it: row r holds the 0-based, strictly
// increasing indices indices[indptr[r]:indptr[r+1]] with their values,
// read as PredictSparse reads a row. A packed model predicts them a block
// at a time, scattered into dense rows (the C ABI's CSR batch calls). It
// allocates nothing once warm. It panics if indptr has fewer than
// len(dst)+1 entries or does not bound rows of indices and values, or if
// Init was not called.
func (m *KernelModel) PredictCSRBatch(dst []float64, indptr []int64, indices []int32, values []float32) []float64 {
	pre := m.prepared()
	rows := len(dst)
	if len(indptr) < rows+1 {
		panic("core: KernelModel.PredictCSRBatch: indptr shorter than len(dst)+1")
	}
	if sc := pre.scaled; sc != nil {
		return sc.PredictCSRBatch(dst, indptr, indices, values)
	}
	row := func(r int) ([]int32, []float32) {
		s, e := indptr[r], indptr[r+1]
		return indices[s:e], values[s:e]
	}
	b := pre.blocks(m)
	if b == nil {
		for r := range dst {
			dst[r] = m.PredictSparse(row(r))
		}
		return dst
	}
	s := b.batchPool.Get().(*blockScratch)
	for r0 := 0; r0 < rows; r0 += b.rows {
		n := min(b.rows, rows-r0)
		for r := range n {
			idx, val := row(r0 + r)
			b.stageSparse(s, r, idx, val)
		}
		m.blockBatch(b, s, dst[r0:r0+n], s.x, n)
	}
	b.batchPool.Put(s)
	return dst
}
