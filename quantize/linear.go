package quantize

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// Linear is a linear SVM with quantized weights: feature j's weight in
// decision function k is s_k·q_jk, with one float32 scale s_k per decision
// function and int8 or int16 codes q_jk (the symmetric scheme of the
// package documentation); the bias row, when there is one, keeps its
// float32 weights. It predicts as the linear.LinearModel it was made from
// does, up to the error ErrorBoundDense and ErrorBoundSparse bound.
//
// A Linear is immutable; its methods are safe for concurrent use.
type Linear struct {
	bits   int
	solver linear.LinearSolver
	labels []int32
	nf     int
	nrW    int
	bias   float64 // < 0: no bias row
	scale  []float32
	// Codes, feature-major like core's W: q[j*nrW+k]. An 8-bit model keeps
	// them as int8 (read through table8); a 16-bit one as float32, exact
	// for every int16, because converting an int16 in the inner loop costs
	// more than a float32 load (see the package documentation).
	q8        []int8
	qf        []float32
	biasW     []float32 // nil without a bias row
	sourceCRC uint32
	created   int64
	pool      sync.Pool // *[]float64 of nrW entries, for nrW > maxStackDecisions
	// batchW: the codes as the dense batches read them, built at the
	// first (linearblock.go); nil before.
	batchW atomic.Pointer[batchWeights]
	// probA, probB: the float model's Platt sigmoids (an SVC trained with
	// -b 1), nil otherwise.
	probA, probB []float64
	sc           *rowscale.Scaled // the model's scaling (scaled.go), nil for none
}

// table8 maps an int8 code, as a byte, to its value as a float64: one load
// from a 2 KiB table that stays in L1 is faster than converting the integer
// (CVTSI2SD carries a false dependency on its destination register).
var table8 = func() (t [256]float64) {
	for i := range t {
		t[i] = float64(int8(uint8(i)))
	}
	return t
}()

// maxStackDecisions bounds the decision values a single-row prediction
// keeps on the stack, as core's linear predictors do; more take a pooled
// buffer.
const maxStackDecisions = 64

// denseBlock is the number of features of a dense row whose nonzeros are
// listed at a time (on the stack) before they are accumulated.
const denseBlock = 256

// QuantizeLinear returns m with its weights quantized to bits-bit codes
// (8 or 16), one symmetric scale per decision function:
//
//	s_k = max_j |w_jk| / (2^(bits−1) − 1),  q_jk = round(w_jk / s_k),
//
// so that |w_jk − s_k·q_jk| ≤ s_k/2 for every weight. The bias row keeps
// its float32 weights. The result records m's solver, labels, features and
// bias, the CRC-32C of m's model file payload (SourceCRC), m's creation
// time and m's Platt sigmoids (ProbA, ProbB), so that the quantized model
// gives class probabilities when m does; not its training parameters or
// result (see the package documentation). It returns an error for bits other than 8 and 16, and for
// a model modelfile.Marshal refuses (invalid, or beyond the format's
// limits). It does not modify m.
func QuantizeLinear(m *linear.LinearModel, bits int) (*Linear, error) {
	if err := checkBits(bits); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("quantize: nil linear model")
	}
	file, err := modelfile.Marshal(m) // validates m; its CRC is the provenance
	if err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	nf, nrW := m.NumFeatures, m.NrW()
	_, qmax := codeRange(bits)
	scale := make([]float32, nrW)
	for k := range scale {
		maxAbs := 0.0
		for j := range nf {
			maxAbs = max(maxAbs, math.Abs(float64(m.W[j*nrW+k])))
		}
		scale[k] = symmetricScale(maxAbs, qmax)
	}
	codes := make([]int32, nf*nrW)
	for j := range nf {
		for k := range nrW {
			codes[j*nrW+k] = symmetricCode(float64(m.W[j*nrW+k]), scale[k], qmax)
		}
	}
	var biasW []float32
	if m.Bias >= 0 {
		biasW = append([]float32(nil), m.W[nf*nrW:]...)
	}
	q := newLinear(bits, m.Solver, append([]int32(nil), m.Labels...), nf, m.Bias, scale, codes, biasW)
	q.sourceCRC = binary.LittleEndian.Uint32(file[20:24])
	q.created = m.Created
	q.probA = append([]float64(nil), m.ProbA...)
	q.probB = append([]float64(nil), m.ProbB...)
	if len(m.ProbA) == 0 {
		q.probA, q.probB = nil, nil
	}
	return q.withScale(m.Scale)
}

// newLinear assembles a Linear from checked parts; codes are feature-major.
func newLinear(bits int, solver linear.LinearSolver, labels []int32, nf int, bias float64,
	scale []float32, codes []int32, biasW []float32) *Linear {
	m := &Linear{bits: bits, solver: solver, labels: labels, nf: nf, nrW: len(scale),
		bias: bias, scale: scale, biasW: biasW}
	if bits == 8 {
		m.q8 = make([]int8, len(codes))
		for i, c := range codes {
			m.q8[i] = int8(c)
		}
	} else {
		m.qf = make([]float32, len(codes))
		for i, c := range codes {
			m.qf[i] = float32(c)
		}
	}
	if m.bias < 0 {
		m.bias = -1
	}
	nrW := m.nrW
	m.pool.New = func() any {
		b := make([]float64, nrW)
		return &b
	}
	return m
}

// code returns the code of feature j in decision function k.
func (m *Linear) code(j, k int) int32 {
	if m.bits == 8 {
		return int32(m.q8[j*m.nrW+k])
	}
	return int32(m.qf[j*m.nrW+k])
}

// Bits returns the width of the weight codes, 8 or 16.
func (m *Linear) Bits() int { return m.bits }

// Solver returns the formulation the float model was trained with.
func (m *Linear) Solver() linear.LinearSolver { return m.solver }

// IsRegression reports whether the model predicts real values (SVR).
func (m *Linear) IsRegression() bool { return m.solver.IsRegression() }

// NumFeatures returns the number of input features: dense rows have this
// many, and sparse features at or past it are ignored.
func (m *Linear) NumFeatures() int { return m.nf }

// Labels returns a copy of the class labels in decision-function order
// (linear.LinearModel.Labels); nil for regression.
func (m *Linear) Labels() []int32 {
	if m.labels == nil {
		return nil
	}
	return append([]int32(nil), m.labels...)
}

// NumDecisionValues returns how many decision values DecisionDense and
// DecisionSparse write: one per decision function (core's NrW).
func (m *Linear) NumDecisionValues() int { return m.nrW }

// Bias returns the value of the bias pseudo-feature, negative when the
// model has no bias term.
func (m *Linear) Bias() float64 { return m.bias }

// BiasWeights returns a copy of the bias row's weights, one per decision
// function, kept float32 as in the float model; nil without a bias.
func (m *Linear) BiasWeights() []float32 {
	if m.biasW == nil {
		return nil
	}
	return append([]float32(nil), m.biasW...)
}

// Scales returns a copy of the scales s_k, one per decision function.
func (m *Linear) Scales() []float32 { return append([]float32(nil), m.scale...) }

// Weight returns the quantized weight s_k·q_jk of feature j in decision
// function k, exactly (a float32 times a code is exact in float64). It
// panics if j or k is out of range.
func (m *Linear) Weight(j, k int) float64 {
	if uint(j) >= uint(m.nf) || uint(k) >= uint(m.nrW) {
		panic(fmt.Sprintf("quantize: Linear.Weight(%d, %d) of a %d × %d model", j, k, m.nf, m.nrW))
	}
	return float64(m.scale[k]) * float64(m.code(j, k))
}

// SourceCRC returns the CRC-32C of the payload of the float model's file
// (modelfile.Marshal's output, bytes 20–23 of its frame): which float model
// this one was made from.
func (m *Linear) SourceCRC() uint32 { return m.sourceCRC }

// Created returns the float model's creation time in Unix seconds, 0 when
// it was not recorded.
func (m *Linear) Created() int64 { return m.created }

// Kind returns modelfile.KindQLinear.
func (m *Linear) Kind() string { return modelfile.KindQLinear }

func (m *Linear) biasTerm(k int) float64 {
	if m.bias < 0 {
		return 0
	}
	return m.bias * float64(m.biasW[k])
}

// DecisionDense writes the decision values of the dense row x (len(x) ==
// NumFeatures) to dst[:NumDecisionValues()] and returns that slice:
//
//	dec_k = s_k · Σ_j x_j·q_jk + bias·bw_k,
//
// accumulated in float64. It allocates nothing. It panics if len(x) !=
// NumFeatures or dst is too short.
func (m *Linear) DecisionDense(dst []float64, x []float32) []float64 {
	if s := m.sc; s != nil {
		return s.DecisionDense(dst, x)
	}
	return m.decisionDense(dst, x)
}

// decisionDense is DecisionDense without the scaling: dst does not leak through the
// scaled model's interface call, so callers may pass stack arrays.
func (m *Linear) decisionDense(dst []float64, x []float32) []float64 {
	if len(x) != m.nf {
		panic(fmt.Sprintf("quantize: Linear.DecisionDense: row has %d features, model %d", len(x), m.nf))
	}
	return m.decideDense(dst[:m.nrW], x)
}

// decideDense is DecisionDense for a row of at most NumFeatures features,
// the missing ones zero.
func (m *Linear) decideDense(dst []float64, x []float32) []float64 {
	if m.nrW == 1 {
		var s float64
		if m.bits == 8 {
			s = dot8(x, m.q8[:len(x)])
		} else {
			s = simd.Dot64x4(x, m.qf[:len(x)])
		}
		dst[0] = float64(m.scale[0])*s + m.biasTerm(0)
		return dst
	}
	clear(dst)
	// Zero features are skipped, listed a block at a time: image rows are
	// half zeros, and listing them costs less than one sweep over dst
	// (Fashion-MNIST, 10 classes: see the package documentation).
	var idx [denseBlock]int32
	for base := 0; base < len(x); base += denseBlock {
		blk := x[base:min(base+denseBlock, len(x))]
		n := 0
		for j, v := range blk {
			idx[n] = int32(base + j)
			if v != 0 {
				n++
			}
		}
		if m.bits == 8 {
			m.axpy8(dst, x, idx[:n])
		} else {
			m.axpyF(dst, x, idx[:n])
		}
	}
	for k := range dst {
		dst[k] = float64(m.scale[k])*dst[k] + m.biasTerm(k)
	}
	return dst
}

// axpy8 adds x_j·q_j· to dst for the features idx, two at a time (half the
// loads and stores of dst).
func (m *Linear) axpy8(dst []float64, x []float32, idx []int32) {
	nrW := m.nrW
	k := 0
	for ; k+2 <= len(idx); k += 2 {
		j0, j1 := int(idx[k]), int(idx[k+1])
		v0, v1 := float64(x[j0]), float64(x[j1])
		w0 := m.q8[j0*nrW : j0*nrW+nrW][:len(dst)] // equal lengths: no bounds checks below
		w1 := m.q8[j1*nrW : j1*nrW+nrW][:len(dst)]
		for c := range dst {
			dst[c] += v0*table8[uint8(w0[c])] + v1*table8[uint8(w1[c])]
		}
	}
	if k < len(idx) {
		j := int(idx[k])
		v := float64(x[j])
		w := m.q8[j*nrW : j*nrW+nrW][:len(dst)]
		for c := range dst {
			dst[c] += v * table8[uint8(w[c])]
		}
	}
}

// axpyF is axpy8 for 16-bit codes held as float32.
func (m *Linear) axpyF(dst []float64, x []float32, idx []int32) {
	nrW := m.nrW
	k := 0
	for ; k+2 <= len(idx); k += 2 {
		j0, j1 := int(idx[k]), int(idx[k+1])
		v0, v1 := float64(x[j0]), float64(x[j1])
		w0 := m.qf[j0*nrW : j0*nrW+nrW][:len(dst)]
		w1 := m.qf[j1*nrW : j1*nrW+nrW][:len(dst)]
		for c := range dst {
			dst[c] += v0*float64(w0[c]) + v1*float64(w1[c])
		}
	}
	if k < len(idx) {
		j := int(idx[k])
		v := float64(x[j])
		w := m.qf[j*nrW : j*nrW+nrW][:len(dst)]
		for c := range dst {
			dst[c] += v * float64(w[c])
		}
	}
}

// dot8 returns Σ x_j·q_j over len(x) == len(q) with four accumulators.
func dot8(x []float32, q []int8) float64 {
	q = q[:len(x)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(x); j += 4 {
		s0 += float64(x[j]) * table8[uint8(q[j])]
		s1 += float64(x[j+1]) * table8[uint8(q[j+1])]
		s2 += float64(x[j+2]) * table8[uint8(q[j+2])]
		s3 += float64(x[j+3]) * table8[uint8(q[j+3])]
	}
	for ; j < len(x); j++ {
		s0 += float64(x[j]) * table8[uint8(q[j])]
	}
	return (s0 + s1) + (s2 + s3)
}

// sparseDot8 returns Σ value[p]·q[index[p]] over the indices inside q
// (the others meet no weight), with two accumulators.
func sparseDot8(index []int32, value []float32, q []int8) float64 {
	value = value[:len(index)]
	n := uint(len(q))
	var s0, s1 float64
	p := 0
	for ; p+2 <= len(index); p += 2 {
		if j := uint(index[p]); j < n {
			s0 += float64(value[p]) * table8[uint8(q[j])]
		}
		if j := uint(index[p+1]); j < n {
			s1 += float64(value[p+1]) * table8[uint8(q[j])]
		}
	}
	if p < len(index) {
		if j := uint(index[p]); j < n {
			s0 += float64(value[p]) * table8[uint8(q[j])]
		}
	}
	return s0 + s1
}

// sparseDotF is sparseDot8 for codes held as float32.
func sparseDotF(index []int32, value []float32, q []float32) float64 {
	value = value[:len(index)]
	n := uint(len(q))
	var s0, s1 float64
	p := 0
	for ; p+2 <= len(index); p += 2 {
		if j := uint(index[p]); j < n {
			s0 += float64(value[p]) * float64(q[j])
		}
		if j := uint(index[p+1]); j < n {
			s1 += float64(value[p+1]) * float64(q[j])
		}
	}
	if p < len(index) {
		if j := uint(index[p]); j < n {
			s0 += float64(value[p]) * float64(q[j])
		}
	}
	return s0 + s1
}

// DecisionSparse writes the decision values of the sparse row (0-based
// indices, strictly increasing, and their values) to
// dst[:NumDecisionValues()] and returns that slice. Indices at or past
// NumFeatures are ignored, as core's linear predictors ignore them. It
// allocates nothing. It panics if len(index) != len(value) or dst is too
// short.
func (m *Linear) DecisionSparse(dst []float64, index []int32, value []float32) []float64 {
	if s := m.sc; s != nil {
		return s.DecisionSparse(dst, index, value)
	}
	return m.decisionSparse(dst, index, value)
}

// decisionSparse is DecisionSparse without the scaling: dst does not leak through the
// scaled model's interface call, so callers may pass stack arrays.
func (m *Linear) decisionSparse(dst []float64, index []int32, value []float32) []float64 {
	if len(index) != len(value) {
		panic("quantize: Linear.DecisionSparse: index and value lengths differ")
	}
	dst = dst[:m.nrW]
	switch {
	case m.nrW == 1 && m.bits == 8:
		dst[0] = sparseDot8(index, value, m.q8)
	case m.nrW == 1:
		dst[0] = sparseDotF(index, value, m.qf)
	default:
		clear(dst)
		n, nrW := uint(m.nf), m.nrW
		value = value[:len(index)]
		for p, j := range index {
			if uint(j) >= n {
				continue
			}
			v := float64(value[p])
			if m.bits == 8 {
				w := m.q8[int(j)*nrW : int(j)*nrW+nrW][:len(dst)]
				for c := range dst {
					dst[c] += v * table8[uint8(w[c])]
				}
			} else {
				w := m.qf[int(j)*nrW : int(j)*nrW+nrW][:len(dst)]
				for c := range dst {
					dst[c] += v * float64(w[c])
				}
			}
		}
	}
	for k := range dst {
		dst[k] = float64(m.scale[k])*dst[k] + m.biasTerm(k)
	}
	return dst
}

// LabelOf turns decision values (as DecisionDense writes them) into the
// prediction, by linear.LinearPrediction: the value for regression, the
// sign's class for two classes, the first class of largest value
// otherwise.
func (m *Linear) LabelOf(dec []float64) float64 {
	return linear.LinearPrediction(dec, m.labels, m.IsRegression())
}

// PredictDense returns the predicted label (or value, for regression) of
// the dense row x, as linear.LinearModel.PredictDense decides from the
// decision values. It allocates nothing once warm. It panics if len(x) !=
// NumFeatures.
func (m *Linear) PredictDense(x []float32) float64 {
	if s := m.sc; s != nil {
		return s.PredictDense(x)
	}
	if len(x) != m.nf {
		panic(fmt.Sprintf("quantize: Linear.PredictDense: row has %d features, model %d", len(x), m.nf))
	}
	return m.predictDense(x)
}

// predictDense predicts a dense row of at most NumFeatures features.
func (m *Linear) predictDense(x []float32) float64 {
	if m.nrW == 1 { // two classes or regression: no buffer to clear
		var dec [1]float64
		return m.LabelOf(m.decideDense(dec[:], x))
	}
	if m.nrW <= maxStackDecisions {
		var buf [maxStackDecisions]float64
		return m.LabelOf(m.decideDense(buf[:m.nrW], x))
	}
	bp := m.pool.Get().(*[]float64)
	v := m.LabelOf(m.decideDense(*bp, x))
	m.pool.Put(bp)
	return v
}

// PredictSparse returns the prediction of a sparse row, read as
// DecisionSparse reads it. It allocates nothing once warm.
func (m *Linear) PredictSparse(index []int32, value []float32) float64 {
	if s := m.sc; s != nil {
		return s.PredictSparse(index, value)
	}
	if m.nrW == 1 {
		var dec [1]float64
		return m.LabelOf(m.decisionSparse(dec[:], index, value))
	}
	if m.nrW <= maxStackDecisions {
		var buf [maxStackDecisions]float64
		return m.LabelOf(m.decisionSparse(buf[:], index, value))
	}
	bp := m.pool.Get().(*[]float64)
	v := m.LabelOf(m.decisionSparse(*bp, index, value))
	m.pool.Put(bp)
	return v
}

// PredictDenseBatch writes the predictions of the rows of the row-major
// matrix x (len(x) = rows × NumFeatures) to dst and returns dst[:rows].
// Batches of 8 rows or more take the blocked float32 path of
// linearblock.go. It allocates nothing once warm. It panics on a size
// mismatch.
func (m *Linear) PredictDenseBatch(dst []float64, x []float32) []float64 {
	if s := m.sc; s != nil {
		return s.PredictDenseBatch(dst, x)
	}
	n := m.nf
	dst = core.BatchRows(dst, x, n, "quantize: Linear.PredictDenseBatch")
	if m.blockedDense(dst, x) {
		return dst
	}
	for i := range dst {
		dst[i] = m.predictDense(x[i*n : i*n+n])
	}
	return dst
}

// PredictBatch writes the prediction of every row of ds to dst[:ds.Len()]
// and returns that slice. A dense ds may be wider or narrower than the
// model: features past NumFeatures are ignored and missing ones read as
// zero, as linear.LinearModel.PredictBatch reads them. It allocates nothing
// once warm. It panics if len(dst) < ds.Len().
func (m *Linear) PredictBatch(dst []float64, ds *data.Dataset) []float64 {
	if s := m.sc; s != nil {
		return s.PredictBatch(dst, ds)
	}
	dst = dst[:ds.Len()]
	if ds.IsDense() && ds.NumFeatures() == m.nf && m.blockedDense(dst, ds.DenseMatrix()) {
		return dst
	}
	for i := range dst {
		if ds.IsDense() {
			x := ds.DenseRow(i)
			dst[i] = m.predictDense(x[:min(len(x), m.nf)])
		} else {
			dst[i] = m.PredictSparse(ds.SparseRow(i))
		}
	}
	return dst
}

// ErrorBoundDense writes to dst[:NumDecisionValues()], and returns, a
// bound on |dec_k − f_k(x)| for each decision value dec_k DecisionDense
// gives for the dense row x, where f_k(x) is the decision value
// linear.LinearModel.DecisionDense gives under the float model this one was
// made from:
//
//	B_k(x) = (s_k/2)·Σ_j |x_j| + γ_{2n+4}·(2·s_k·Σ_j |x_j||q_jk| + (s_k/2)·Σ_j |x_j| + 2|bias·bw_k|)
//
// The first term is the rounding of the weights (|w_jk − s_k·q_jk| ≤ s_k/2);
// the second allows for the float64 roundings of both computations (see
// the package documentation). It allocates nothing. It panics as
// DecisionDense does.
func (m *Linear) ErrorBoundDense(dst []float64, x []float32) []float64 {
	if s := m.sc; s != nil {
		return s.ApplyDense(dst, x, m.unscaled().ErrorBoundDense)
	}
	if len(x) != m.nf {
		panic(fmt.Sprintf("quantize: Linear.ErrorBoundDense: row has %d features, model %d", len(x), m.nf))
	}
	dst = dst[:m.nrW]
	clear(dst)
	var sumAbs float64
	for j, v := range x {
		if v == 0 {
			continue
		}
		a := math.Abs(float64(v))
		sumAbs += a
		for k := range dst {
			dst[k] += a * math.Abs(float64(m.code(j, k)))
		}
	}
	return m.bound(dst, sumAbs, len(x))
}

// ErrorBoundSparse is ErrorBoundDense for a sparse row, read as
// DecisionSparse reads it.
func (m *Linear) ErrorBoundSparse(dst []float64, index []int32, value []float32) []float64 {
	if s := m.sc; s != nil {
		return s.ApplySparse(dst, index, value, m.unscaled().ErrorBoundDense)
	}
	if len(index) != len(value) {
		panic("quantize: Linear.ErrorBoundSparse: index and value lengths differ")
	}
	dst = dst[:m.nrW]
	clear(dst)
	var sumAbs float64
	for p, j := range index {
		if uint(j) >= uint(m.nf) {
			continue
		}
		a := math.Abs(float64(value[p]))
		sumAbs += a
		for k := range dst {
			dst[k] += a * math.Abs(float64(m.code(int(j), k)))
		}
	}
	return m.bound(dst, sumAbs, len(index))
}

// bound turns dst[k] = Σ_j |x_j||q_jk| and sumAbs = Σ_j |x_j| over n terms
// into ErrorBoundDense's bound.
func (m *Linear) bound(dst []float64, sumAbs float64, n int) []float64 {
	g := gamma(2*n + 4)
	for k, codeSum := range dst {
		s := float64(m.scale[k])
		half := s / 2 * sumAbs
		dst[k] = (half + g*(2*s*codeSum+half+2*math.Abs(m.biasTerm(k)))) * boundSlack
	}
	return dst
}

// HasProbability reports whether the model gives class probabilities, as
// linear.LinearModel.HasProbability: logistic regression, or an SVC model
// trained with -b 1 (whose Platt sigmoids quantization keeps).
func (m *Linear) HasProbability() bool {
	return !m.IsRegression() && (m.solver.IsLogistic() || len(m.probA) > 0)
}

// ProbabilityDense writes to dst[:len(Labels)] the class probabilities, in
// Labels order, of the dense row x, from the quantized decision values as
// linear.LinearModel.ProbabilityDense computes them from its own
// (linear.LinearProbabilitiesOf), and returns that slice. It allocates nothing
// once warm. It panics if the model has no probabilities
// (HasProbability), if len(x) != NumFeatures or if dst is too short.
func (m *Linear) ProbabilityDense(dst []float64, x []float32) []float64 {
	m.checkProbability("ProbabilityDense")
	if s := m.sc; s != nil {
		return s.ProbabilityDense(dst, x)
	}
	if m.nrW <= maxStackDecisions {
		var buf [maxStackDecisions]float64
		return linear.LinearProbabilitiesOf(m.solver, dst, m.decisionDense(buf[:m.nrW], x), m.probA, m.probB)
	}
	bp := m.pool.Get().(*[]float64)
	defer m.pool.Put(bp)
	return linear.LinearProbabilitiesOf(m.solver, dst, m.decisionDense(*bp, x), m.probA, m.probB)
}

// ProbabilitySparse is ProbabilityDense for a sparse row, read as
// DecisionSparse reads it.
func (m *Linear) ProbabilitySparse(dst []float64, index []int32, value []float32) []float64 {
	m.checkProbability("ProbabilitySparse")
	if s := m.sc; s != nil {
		return s.ProbabilitySparse(dst, index, value)
	}
	if m.nrW <= maxStackDecisions {
		var buf [maxStackDecisions]float64
		return linear.LinearProbabilitiesOf(m.solver, dst, m.decisionSparse(buf[:m.nrW], index, value), m.probA, m.probB)
	}
	bp := m.pool.Get().(*[]float64)
	defer m.pool.Put(bp)
	return linear.LinearProbabilitiesOf(m.solver, dst, m.decisionSparse(*bp, index, value), m.probA, m.probB)
}

func (m *Linear) checkProbability(fn string) {
	if !m.HasProbability() {
		panic("quantize: Linear." + fn + ": the model has no class probabilities (logistic regression, or SVC trained with -b 1)")
	}
}

// ProbA returns a copy of the Platt sigmoids' A, one per decision function
// (an SVC model trained with -b 1); nil otherwise.
func (m *Linear) ProbA() []float64 { return append([]float64(nil), m.probA...) }

// ProbB returns a copy of the Platt sigmoids' B, as ProbA.
func (m *Linear) ProbB() []float64 { return append([]float64(nil), m.probB...) }
