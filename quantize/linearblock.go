package quantize

import (
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// Blocked linear batch prediction. Two classes and regression (one
// decision function): simd.DotRows64x4 of 64 rows a call against the
// codes held as float64 (exact), in Dot64x4's order, which is the order
// of the single-row predictors' dot8 and Dot64x4 with products exact in
// float64 (a float32 value times a code of at most 16 bits): a batch's
// decision values are DecisionDense's bit for bit, and a call a block of
// rows costs less than simd.Dot's call a row (the float model's path) on
// the few-feature models where a call weighs as much as its arithmetic
// (heart_scale 13 features, diabetes 8, breast_cancer 30).
//
// More decision functions: the codes q_jk, exact as float32, packed into
// simd panels, the rows times the codes by simd.Gemm (float32 sums, as
// linear.LinearModel's batches: decision values agree with DecisionDense's
// float64 ones to about 2⁻²⁴·√nf·Σ|x_j·q_jk|·s_k), then dec_k = s_k·Σ +
// bias·bw_k in float64, and the first largest wins (LinearPrediction's
// rule) without storing the values.
//
// Both forms of the codes are built at a model's first dense batch and
// kept (batchWeights), as the float model keeps its packed weights, up to
// maxBatchWeights values; a larger model converts its codes at each call
// (multi-class) or predicts a row at a time (one function).

const (
	linearBlockRows = 64
	minLinearBlock  = 8
	// maxBatchWeights is the most values a model keeps for its batches
	// (1 MiB of float32 panels, or of float64 codes for one function), as
	// core/linear's maxKeptPanels.
	maxBatchWeights = 1 << 18
)

// batchWeights is what a Linear keeps for its dense batches.
type batchWeights struct {
	w64    []float64 // one function: q_j as float64
	panels []float32 // several: q_jk as float32 in simd.Pack's layout
	scale  []float64 // s_k
	bias   []float64 // bias·bw_k (0 without a bias)
}

// batchWeights returns m's kept batch weights, building them at the first
// call (racing first calls each build, the last stored wins), or nil when
// they would pass maxBatchWeights.
func (m *Linear) batchWeights() *batchWeights {
	if w := m.batchW.Load(); w != nil {
		return w
	}
	nf, nrW := m.nf, m.nrW
	if nrW == 1 && nf > maxBatchWeights/2 || nrW > 1 && simd.PackedLen(nrW, nf) > maxBatchWeights {
		return nil // float64 codes take twice a float32's bytes
	}
	w := &batchWeights{scale: make([]float64, nrW), bias: make([]float64, nrW)}
	for k := range nrW {
		w.scale[k], w.bias[k] = float64(m.scale[k]), m.biasTerm(k)
	}
	if nrW == 1 {
		w.w64 = make([]float64, nf)
		for j := range w.w64 {
			w.w64[j] = float64(m.code(j, 0))
		}
	} else {
		w.panels = make([]float32, simd.PackedLen(nrW, nf))
		m.packCodes(w.panels)
	}
	m.batchW.Store(w)
	return w
}

// packCodes writes the feature-major codes (q_jk at j·nrW + k) to dst in
// simd.Pack's layout, as float32 (exact): panel p, feature j, lane t holds
// q_j,32p+t, zero past nrW.
func (m *Linear) packCodes(dst []float32) {
	if m.bits == 8 {
		packCodes(dst, m.q8, m.nf, m.nrW)
	} else {
		packCodes(dst, m.qf, m.nf, m.nrW)
	}
}

// packCodes is Linear.packCodes for either form of the codes. A contiguous
// run of a feature's codes a panel: one pass over the codes at the speed
// of a copy, where a call per code cost int8 batches 7 ns a row on digits.
func packCodes[T int8 | float32](dst []float32, codes []T, nf, nrW int) {
	const pw = simd.PanelWidth
	for p := 0; p*pw < nrW; p++ {
		from, to := p*pw, min(nrW, p*pw+pw)
		panel := dst[p*nf*pw:][:nf*pw]
		for j := range nf {
			col := panel[j*pw:][:pw]
			src := codes[j*nrW+from : j*nrW+to]
			for t, c := range src {
				col[t] = float32(c)
			}
			clear(col[len(src):])
		}
	}
}

// blockedDense predicts the rows of the row-major matrix x (nf values a
// row) into dst, or reports false when the batch is too small, the model
// has more decision functions than the stack paths handle, or (one
// function) its codes are too many to keep as float64.
func (m *Linear) blockedDense(dst []float64, x []float32) bool {
	nf, nrW := m.nf, m.nrW
	rows := len(dst)
	if rows < minLinearBlock || nf == 0 || nrW > maxStackDecisions {
		return false
	}
	w := m.batchWeights()
	if nrW == 1 {
		if w == nil {
			return false
		}
		m.blockedDense1(dst, x, w)
		return true
	}
	nc := simd.PaddedCols(nrW)
	var scBuf, btBuf [maxStackDecisions]float64
	sc, bt, panels, packLen := scBuf[:nrW], btBuf[:nrW], []float32(nil), 0
	if w != nil {
		sc, bt, panels = w.scale[:nrW], w.bias[:nrW], w.panels
	} else {
		packLen = simd.PackedLen(nrW, nf)
		for k := range nrW {
			sc[k], bt[k] = float64(m.scale[k]), m.biasTerm(k)
		}
	}
	s := simd.GetWorkspace(packLen, linearBlockRows*nc, 0)
	defer simd.PutWorkspace(s)
	if panels == nil {
		panels = s.Panels
		m.packCodes(panels)
	}
	labels := m.labels[:nrW]
	for r0 := 0; r0 < rows; r0 += linearBlockRows {
		n := min(linearBlockRows, rows-r0)
		simd.Gemm(s.C, nc, x[r0*nf:(r0+n)*nf], nf, n, panels, nrW, nf)
		out := dst[r0 : r0+n]
		for r := range out {
			d := s.C[r*nc:][:nrW] // equal lengths: no bounds checks below
			best, bv := 0, sc[0]*float64(d[0])+bt[0]
			for k := 1; k < len(d); k++ {
				if v := sc[k]*float64(d[k]) + bt[k]; v > bv {
					best, bv = k, v
				}
			}
			out[r] = float64(labels[best])
		}
	}
	return true
}

// blockedDense1 is blockedDense for one decision function: 64 rows a
// simd.DotRows64x4 call, then s·Σ + bias and the label.
func (m *Linear) blockedDense1(dst []float64, x []float32, w *batchWeights) {
	nf := m.nf
	s, b := w.scale[0], w.bias[0]
	var sums [linearBlockRows]float64
	regression := m.IsRegression()
	var pos, neg float64
	if !regression {
		pos, neg = float64(m.labels[0]), float64(m.labels[1])
	}
	for r0 := 0; r0 < len(dst); r0 += linearBlockRows {
		out := dst[r0:min(r0+linearBlockRows, len(dst))]
		d := sums[:len(out)]
		simd.DotRows64x4(d, x[r0*nf:(r0+len(out))*nf], nf, nil, w.w64)
		for r, v := range d {
			dec := s*v + b
			switch {
			case regression:
				out[r] = dec
			case dec > 0:
				out[r] = pos
			default:
				out[r] = neg
			}
		}
	}
}
