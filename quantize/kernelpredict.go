package quantize

import (
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// The kernel predictors. For an input row x the dot products with every
// decoded support vector are
//
//	x·sv'_i = Σ_j x_j·(o_j + a_j·q_ij) = c0 + Σ_j x̃_j·q_ij,
//	c0 = Σ_j x_j·o_j,  x̃_j = x_j·a_j,
//
// (in the sparse layout q_ij − z_j replaces q_ij and c0 vanishes, since
// o_j = −a_j·z_j). The row is quantized once, x̃_j ≈ t·xq_j with one scale
// t = max_j |x̃_j| / Q and 32-bit codes (Q = 2^24, less for rows so long
// that the sums could overflow), and the sums Σ_j xq_j·q_ij are exact
// int64 sums, accumulated a column at a time for every support vector at
// once: for each nonzero x_j, acc_i += xq_j·q_ij over i, four columns per
// sweep. Zero features of the row cost nothing, and the inner loop is an
// integer multiply-add over contiguous codes, which the compiler keeps in
// registers (see the package documentation for the measurements). Then
// x·sv'_i ≈ c0 + t·acc_i, and the kernel, decision values, votes and
// probabilities are core's.

// inputBlock is the number of quantized input features gathered before
// they are accumulated: the gather buffers live in the scratch, whatever
// the row's length.
const inputBlock = 512

// maxInputScale is Q, the number of input quantization steps on each side
// of zero: 2^24, so that the input's rounding (t/2 a feature) is far below
// the support vectors' (a_j/2) while codes fit an int32.
const maxInputScale = 1 << 24

// kernelScratch is what one prediction needs beyond the model: the exact
// sums, the kernel values, the decision values, votes and probability
// scratch, and the gathered input. Taken from the model's pool.
type kernelScratch struct {
	acc []int64
	kv  []float64
	f   []float64 // decision values, votes, probability scratch
	idx [inputBlock]int32
	xq  [inputBlock]int32
	bnd []float64 // ErrorBound's per-support-vector sums, made on first use
}

func (m *Kernel) newScratch() *kernelScratch {
	return &kernelScratch{
		acc: make([]int64, m.l),
		kv:  make([]float64, m.l),
		f:   make([]float64, m.scratch),
	}
}

func (m *Kernel) getScratch() *kernelScratch { return m.pool.Get().(*kernelScratch) }

// rowInput is what the dot products need of one input row.
type rowInput struct {
	xx  float64 // Σ x_j² over every feature of the row, past NumFeatures too
	c0  float64 // dense layout: Σ_{j<nf} x_j·o_j
	t   float64 // input scale: x_j·a_j ≈ t·xq_j
	inv float64 // Q / max|x̃_j|, the multiplier that makes xq_j
	n   int     // number of features below NumFeatures in the row
}

// setScale sets t and inv from mx = max_{j<nf} |x_j·a_j|, for n features.
// Q is lowered for rows so long that Σ|xq_j|·|q_ij| ≤ n·Q·maxCode could
// pass 2^62.
func (m *Kernel) setScale(r *rowInput, mx float64) {
	r.t, r.inv = 0, 0
	if !(mx > 0) || math.IsInf(mx, 0) { // zero row, or non-finite input: nothing to quantize
		return
	}
	q := int64(maxInputScale)
	if lim := (1 << 62) / (m.maxCode * int64(max(r.n, 1))); lim < q {
		q = max(lim, 1)
	}
	r.t = mx / float64(q)
	r.inv = float64(q) / mx
}

// scanDense fills r for the dense row x, which may be narrower or wider
// than the model.
func (m *Kernel) scanDense(x []float32) (r rowInput) {
	r.n = min(len(x), m.nf)
	xs := x[:r.n]
	if m.dense {
		fo := m.fo[:len(xs)]
		for j, v := range xs {
			f := float64(v)
			r.xx += float64(f * f)
			r.c0 += float64(f * fo[j])
		}
	} else {
		for _, v := range xs {
			f := float64(v)
			r.xx += float64(f * f)
		}
	}
	for _, v := range x[r.n:] {
		f := float64(v)
		r.xx += float64(f * f)
	}
	m.setScale(&r, simd.MaxAbsProd(xs, m.fa))
	return r
}

// scanDense4 is scanDense for four rows of one width, bit for bit: their
// eight sums advance together, each in feature order, so that the four
// rows' chains of dependent additions overlap (one row's ‖x‖² and c0 are
// two serial chains, the longest part of a small model's encoding).
func (m *Kernel) scanDense4(r *[4]rowInput, x *[4][]float32) {
	n := min(len(x[0]), m.nf)
	x0, x1, x2, x3 := x[0][:n], x[1][:n], x[2][:n], x[3][:n]
	var q0, q1, q2, q3, c0, c1, c2, c3 float64
	if m.dense {
		fo := m.fo[:n]
		for j, o := range fo {
			f0, f1, f2, f3 := float64(x0[j]), float64(x1[j]), float64(x2[j]), float64(x3[j])
			q0 += float64(f0 * f0)
			q1 += float64(f1 * f1)
			q2 += float64(f2 * f2)
			q3 += float64(f3 * f3)
			c0 += float64(f0 * o)
			c1 += float64(f1 * o)
			c2 += float64(f2 * o)
			c3 += float64(f3 * o)
		}
	} else {
		for j, v := range x0 {
			f0, f1, f2, f3 := float64(v), float64(x1[j]), float64(x2[j]), float64(x3[j])
			q0 += float64(f0 * f0)
			q1 += float64(f1 * f1)
			q2 += float64(f2 * f2)
			q3 += float64(f3 * f3)
		}
	}
	q := [4]float64{q0, q1, q2, q3}
	c := [4]float64{c0, c1, c2, c3}
	for k, row := range x {
		for _, v := range row[n:] {
			f := float64(v)
			q[k] += float64(f * f)
		}
		r[k] = rowInput{xx: q[k], c0: c[k], n: n}
		m.setScale(&r[k], simd.MaxAbsProd(row[:n], m.fa))
	}
}

// scanSparse fills r for a sparse row.
func (m *Kernel) scanSparse(index []int32, value []float32) (r rowInput) {
	var mx float64
	value = value[:len(index)]
	for p, j := range index {
		f := float64(value[p])
		r.xx += f * f
		if uint(j) < uint(m.nf) {
			r.n++
			mx = max(mx, math.Abs(f*float64(m.fa[j])))
			if m.dense {
				r.c0 += f * m.fo[j]
			}
		}
	}
	m.setScale(&r, mx)
	return r
}

// inputCode returns xq_j for the input value v of feature j.
func (m *Kernel) inputCode(v float32, j int, r *rowInput) int32 {
	return int32(math.Round(float64(v) * float64(m.fa[j]) * r.inv))
}

// sumsDense sets s.acc[i] = Σ_j xq_j·q_ij for the dense row x.
func (m *Kernel) sumsDense(s *kernelScratch, x []float32, r *rowInput) {
	clear(s.acc)
	if r.t == 0 {
		return
	}
	n := 0
	for j, v := range x[:r.n] {
		if v == 0 {
			continue
		}
		q := m.inputCode(v, j, r)
		if q == 0 {
			continue
		}
		s.idx[n], s.xq[n] = int32(j), q
		if n++; n == inputBlock {
			m.accumulate(s.acc, s.idx[:n], s.xq[:n])
			n = 0
		}
	}
	m.accumulate(s.acc, s.idx[:n], s.xq[:n])
}

// sumsSparse is sumsDense for a sparse row.
func (m *Kernel) sumsSparse(s *kernelScratch, index []int32, value []float32, r *rowInput) {
	clear(s.acc)
	if r.t == 0 {
		return
	}
	n := 0
	value = value[:len(index)]
	for p, j := range index {
		if uint(j) >= uint(m.nf) || value[p] == 0 {
			continue
		}
		q := m.inputCode(value[p], int(j), r)
		if q == 0 {
			continue
		}
		s.idx[n], s.xq[n] = j, q
		if n++; n == inputBlock {
			m.accumulate(s.acc, s.idx[:n], s.xq[:n])
			n = 0
		}
	}
	m.accumulate(s.acc, s.idx[:n], s.xq[:n])
}

// accumulate adds xq_k times column idx[k] to acc for every k.
func (m *Kernel) accumulate(acc []int64, idx, xq []int32) {
	switch {
	case m.col8 != nil:
		axpyColumns(acc, m.col8, idx, xq)
	case m.col16 != nil:
		axpyColumns(acc, m.col16, idx, xq)
	case m.colR8 != nil:
		scatterColumns(acc, m.colStart, m.colRow, m.colR8, idx, xq)
	case m.colR16 != nil:
		scatterColumns(acc, m.colStart, m.colRow, m.colR16, idx, xq)
	}
}

// axpyColumns adds xq[k] times column idx[k] of the column-major codes
// (len(acc) codes a column) to acc, four columns per sweep: a sweep's
// loads and stores of acc are shared by four columns, and four is the most
// the registers hold (eight ran slower).
func axpyColumns[T int8 | int16](acc []int64, cols []T, idx, xq []int32) {
	l := len(acc)
	xq = xq[:len(idx)]
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		v0, v1, v2, v3 := int64(xq[k]), int64(xq[k+1]), int64(xq[k+2]), int64(xq[k+3])
		// Each column resliced to len(acc): no bounds checks in the loop.
		c0 := cols[int(idx[k])*l:][:l]
		c1 := cols[int(idx[k+1])*l:][:l]
		c2 := cols[int(idx[k+2])*l:][:l]
		c3 := cols[int(idx[k+3])*l:][:l]
		for i := range acc {
			acc[i] += v0*int64(c0[i]) + v1*int64(c1[i]) + v2*int64(c2[i]) + v3*int64(c3[i])
		}
	}
	for ; k < len(idx); k++ {
		v := int64(xq[k])
		c := cols[int(idx[k])*l:][:l]
		for i := range acc {
			acc[i] += v * int64(c[i])
		}
	}
}

// scatterColumns adds xq[k] times sparse column idx[k] to acc.
func scatterColumns[T int16 | int32](acc []int64, start []int, row []int32, r []T, idx, xq []int32) {
	xq = xq[:len(idx)]
	for k, j := range idx {
		v := int64(xq[k])
		s, e := start[j], start[j+1]
		rows := row[s:e]
		vals := r[s:e][:len(rows)]
		for p, i := range rows {
			acc[i] += v * int64(vals[p])
		}
	}
}

// kernelValues sets kv[i] = K(x, sv'_i) from the exact sums acc[i], as
// core computes a kernel from dot products (Kernel.FromDot).
func (m *Kernel) kernelValues(kv []float64, acc []int64, r *rowInput) {
	k := m.kernel
	kv = kv[:m.l]
	acc = acc[:len(kv)]
	if m.ss != nil {
		ss := m.ss[:len(kv)]
		for i := range kv {
			kv[i] = k.FromDot(r.xx, ss[i], r.c0+r.t*float64(acc[i]))
		}
		return
	}
	for i := range kv {
		kv[i] = k.FromDot(0, 0, r.c0+r.t*float64(acc[i]))
	}
}

// kernelDense fills s.kv for the dense row x (any width).
func (m *Kernel) kernelDense(s *kernelScratch, x []float32) {
	r := m.scanDense(x)
	m.sumsDense(s, x, &r)
	m.kernelValues(s.kv, s.acc, &r)
}

// kernelSparse fills s.kv for a sparse row.
func (m *Kernel) kernelSparse(s *kernelScratch, index []int32, value []float32) {
	r := m.scanSparse(index, value)
	m.sumsSparse(s, index, value, &r)
	m.kernelValues(s.kv, s.acc, &r)
}

// decisions turns the kernel values kv into the decision values dec with
// the decoded coefficients, by core.KernelModel's rule (core.KernelDecisions).
func (m *Kernel) decisions(dec, kv []float64) {
	core.KernelDecisions(m.svmType, dec, kv[:m.l], m.coef, m.rho, m.start)
}

// DecisionDense writes the decision values of the dense row x (len(x) ==
// NumFeatures) to dst[:NumDecisionValues()] and returns that slice, in
// core.KernelModel's order. It allocates nothing once warm. It panics if
// len(x) != NumFeatures or dst is too short. Non-finite inputs give
// unspecified values, never a panic.
func (m *Kernel) DecisionDense(dst []float64, x []float32) []float64 {
	if s := m.sc; s != nil {
		return s.DecisionDense(dst, x)
	}
	if len(x) != m.nf {
		panic(fmt.Sprintf("quantize: Kernel.DecisionDense: row has %d features, model %d", len(x), m.nf))
	}
	dst = dst[:m.NumDecisionValues()]
	s := m.getScratch()
	m.kernelDense(s, x)
	m.decisions(dst, s.kv)
	m.pool.Put(s)
	return dst
}

// DecisionSparse writes the decision values of a sparse row (0-based
// indices, strictly increasing, and their values) to
// dst[:NumDecisionValues()] and returns that slice. It allocates nothing
// once warm. It panics if len(index) != len(value) or dst is too short.
func (m *Kernel) DecisionSparse(dst []float64, index []int32, value []float32) []float64 {
	if s := m.sc; s != nil {
		return s.DecisionSparse(dst, index, value)
	}
	if len(index) != len(value) {
		panic("quantize: Kernel.DecisionSparse: index and value lengths differ")
	}
	dst = dst[:m.NumDecisionValues()]
	s := m.getScratch()
	m.kernelSparse(s, index, value)
	m.decisions(dst, s.kv)
	m.pool.Put(s)
	return dst
}

// label decides from the kernel values in s, by core.KernelPrediction.
func (m *Kernel) label(s *kernelScratch) float64 {
	nDec := m.NumDecisionValues()
	dec, votes := s.f[:nDec], s.f[nDec:nDec+len(m.labels)]
	m.decisions(dec, s.kv)
	return core.KernelPrediction(m.svmType, m.labels, dec, votes)
}

// LabelOf turns decision values (as DecisionDense writes them) into the
// prediction, by core.KernelPrediction: LIBSVM's one-vs-one vote and tie
// rule for C-SVC, the sign for one-class, the value for ε-SVR. It
// allocates nothing once warm.
func (m *Kernel) LabelOf(dec []float64) float64 {
	s := m.getScratch()
	nDec := m.NumDecisionValues()
	v := core.KernelPrediction(m.svmType, m.labels, dec, s.f[nDec:nDec+len(m.labels)])
	m.pool.Put(s)
	return v
}

// PredictDense returns the predicted label (C-SVC), value (ε-SVR) or ±1
// (one-class) of the dense row x. It allocates nothing once warm. It
// panics if len(x) != NumFeatures.
//
// It takes the exact sums of DecisionDense, as the batch predictors do
// (kernelblock.go): a row gets the same label alone or in a batch.
func (m *Kernel) PredictDense(x []float32) float64 {
	if s := m.sc; s != nil {
		return s.PredictDense(x)
	}
	if len(x) != m.nf {
		panic(fmt.Sprintf("quantize: Kernel.PredictDense: row has %d features, model %d", len(x), m.nf))
	}
	return m.predictDense(x)
}

// predictDense predicts a dense row of any width.
func (m *Kernel) predictDense(x []float32) float64 {
	s := m.getScratch()
	m.kernelDense(s, x)
	v := m.label(s)
	m.pool.Put(s)
	return v
}

// PredictSparse returns the prediction of a sparse row, read as
// DecisionSparse reads it, by the path PredictDense takes. It allocates
// nothing once warm.
func (m *Kernel) PredictSparse(index []int32, value []float32) float64 {
	if s := m.sc; s != nil {
		return s.PredictSparse(index, value)
	}
	if len(index) != len(value) {
		panic("quantize: Kernel.PredictSparse: index and value lengths differ")
	}
	s := m.getScratch()
	m.kernelSparse(s, index, value)
	v := m.label(s)
	m.pool.Put(s)
	return v
}

// ProbabilityDense writes to dst[:NumClasses()] the class probabilities,
// in Labels order, of the dense row x under a C-SVC model with probability
// estimates, and returns that slice: core's Platt sigmoids and pairwise
// coupling (core.PairwiseProbabilities) of the quantized decision values.
// It allocates nothing once warm, whatever the number of classes. It
// panics, as for a caller bug, if the model is not a C-SVC model with
// probability estimates, if len(x) != NumFeatures or if dst is too short.
func (m *Kernel) ProbabilityDense(dst []float64, x []float32) []float64 {
	if s := m.sc; s != nil {
		return s.ProbabilityDense(dst, x)
	}
	m.probabilityShape("ProbabilityDense")
	if len(x) != m.nf {
		panic(fmt.Sprintf("quantize: Kernel.ProbabilityDense: row has %d features, model %d", len(x), m.nf))
	}
	s := m.getScratch()
	m.kernelDense(s, x)
	dst = m.probability(dst, s)
	m.pool.Put(s)
	return dst
}

// ProbabilitySparse is ProbabilityDense for a sparse row, read as
// DecisionSparse reads it.
func (m *Kernel) ProbabilitySparse(dst []float64, index []int32, value []float32) []float64 {
	if s := m.sc; s != nil {
		return s.ProbabilitySparse(dst, index, value)
	}
	m.probabilityShape("ProbabilitySparse")
	if len(index) != len(value) {
		panic("quantize: Kernel.ProbabilitySparse: index and value lengths differ")
	}
	s := m.getScratch()
	m.kernelSparse(s, index, value)
	dst = m.probability(dst, s)
	m.pool.Put(s)
	return dst
}

func (m *Kernel) probability(dst []float64, s *kernelScratch) []float64 {
	nr, nDec := len(m.labels), m.NumDecisionValues()
	dst = dst[:nr]
	dec := s.f[:nDec]
	m.decisions(dec, s.kv)
	core.PairwiseProbabilities(dst, dec, m.probA, m.probB, s.f[nDec+nr:])
	return dst
}

func (m *Kernel) probabilityShape(fn string) {
	if !m.svmType.IsSVC() || len(m.probA) == 0 {
		panic("quantize: Kernel." + fn + ": the model has no class probability estimates (train C-SVC with Probability)")
	}
}

// PredictDenseBatch writes the predictions of the rows of the row-major
// matrix x (len(x) = rows × NumFeatures) to dst and returns dst[:rows]. It
// allocates nothing once warm. It panics on a size mismatch.
func (m *Kernel) PredictDenseBatch(dst []float64, x []float32) []float64 {
	if s := m.sc; s != nil {
		return s.PredictDenseBatch(dst, x)
	}
	n := m.nf
	dst = core.BatchRows(dst, x, n, "quantize: Kernel.PredictDenseBatch")
	if m.blk != nil {
		m.blockPredictMatrix(m.blk, dst, x)
		return dst
	}
	s := m.getScratch()
	for i := range dst {
		m.kernelDense(s, x[i*n:i*n+n])
		dst[i] = m.label(s)
	}
	m.pool.Put(s)
	return dst
}

// PredictBatch writes the prediction of every row of ds to dst[:ds.Len()]
// and returns that slice. Dense rows of another width than NumFeatures are
// read as core.KernelModel.PredictBatch reads them (missing features zero,
// extra ones only in RBF's ‖x‖²). It allocates nothing once warm. It
// panics if len(dst) < ds.Len().
func (m *Kernel) PredictBatch(dst []float64, ds *data.Dataset) []float64 {
	if s := m.sc; s != nil {
		return s.PredictBatch(dst, ds)
	}
	dst = dst[:ds.Len()]
	m.predictRows(dst, ds, 0, len(dst))
	return dst
}

// PredictBatchParallel is PredictBatch with the rows split among workers
// goroutines (0: GOMAXPROCS); the predictions are the same. It allocates
// the goroutines.
func (m *Kernel) PredictBatchParallel(dst []float64, ds *data.Dataset, workers int) []float64 {
	if s := m.sc; s != nil {
		dst = dst[:ds.Len()]
		core.ParallelChunks(len(dst), rowscale.ScalerBatchRows, workers, func(from, to int) { s.PredictRows(dst[from:to], ds, from) })
		return dst
	}
	dst = dst[:ds.Len()]
	const chunk = 64 // rows a worker takes at a time
	core.ParallelChunks(len(dst), chunk, workers, func(from, to int) { m.predictRows(dst, ds, from, to) })
	return dst
}

// predictRows predicts rows [from, to) of ds into dst[from:to].
func (m *Kernel) predictRows(dst []float64, ds *data.Dataset, from, to int) {
	if m.blk != nil {
		m.blockPredictRows(m.blk, dst, ds, from, to)
		return
	}
	s := m.getScratch()
	for i := from; i < to; i++ {
		if ds.IsDense() {
			m.kernelDense(s, ds.DenseRow(i))
		} else {
			idx, val := ds.SparseRow(i)
			m.kernelSparse(s, idx, val)
		}
		dst[i] = m.label(s)
	}
	m.pool.Put(s)
}
