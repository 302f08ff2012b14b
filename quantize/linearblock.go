package quantize

import "github.com/libsvmgo/libsvmgo/core/simd"

// Blocked linear batch prediction, as linear.LinearModel's batches predict
// (core/linear/linearblock.go): the codes q_jk, exact as float32, padded into
// simd panels once per call (PaddedCols(nrW)·nf float32, negligible next to
// the rows), the rows times the codes by simd.Gemm, then dec_k = s_k·Σ +
// bias·bw_k in float64. A float32 row against 8-bit codes is as much work
// for the matrix product whether the codes are int8 or float32, and the
// product is bound by reading the rows, so a quantized model's batches run
// as fast as the float model's (a row at a time, 6× slower on Fashion-MNIST
// than a blocked float32 batch); binary models and regression take
// simd.Dot with the codes as float32. Sums are float32: decision values
// agree with DecisionDense's float64 ones to about 2⁻²⁴·√nf·Σ|x_j·q_jk|·s_k.

const (
	linearBlockRows = 64
	minLinearBlock  = 8
)

// codeF returns code q_jk as a float32 (exact for int8 and int16 codes).
func (m *Linear) codeF(j, k int) float32 {
	if m.bits == 8 {
		return float32(m.q8[j*m.nrW+k])
	}
	return m.qf[j*m.nrW+k]
}

// blockedDense predicts the rows of the row-major matrix x (nf values a
// row) into dst, or reports false when the batch is too small or the model
// has more decision functions than the stack paths handle.
func (m *Linear) blockedDense(dst []float64, x []float32) bool {
	nf, nrW := m.nf, m.nrW
	rows := len(dst)
	if rows < minLinearBlock || nf == 0 || nrW > maxStackDecisions {
		return false
	}
	if nrW == 1 {
		s := simd.GetWorkspace(nf, 0, nrW)
		defer simd.PutWorkspace(s)
		dec64, w := s.Row, s.Panels
		for j := range w {
			w[j] = m.codeF(j, 0)
		}
		scale, bias := float64(m.scale[0]), m.biasTerm(0)
		for r := range dst {
			dec64[0] = scale*float64(simd.Dot(x[r*nf:r*nf+nf], w)) + bias
			dst[r] = m.LabelOf(dec64)
		}
		return true
	}
	nc := simd.PaddedCols(nrW)
	s := simd.GetWorkspace(simd.PackedLen(nrW, nf), linearBlockRows*nc, nrW)
	defer simd.PutWorkspace(s)
	dec64 := s.Row
	// simd.Pack's layout, filled from the codes: panel p, feature j, lane t.
	for p := 0; p < nc/simd.PanelWidth; p++ {
		panel := s.Panels[p*nf*simd.PanelWidth:][:nf*simd.PanelWidth]
		for j := range nf {
			col := panel[j*simd.PanelWidth:][:simd.PanelWidth]
			for t := range col {
				col[t] = 0
				if k := p*simd.PanelWidth + t; k < nrW {
					col[t] = m.codeF(j, k)
				}
			}
		}
	}
	for r0 := 0; r0 < rows; r0 += linearBlockRows {
		n := min(linearBlockRows, rows-r0)
		simd.Gemm(s.C, nc, x[r0*nf:(r0+n)*nf], nf, n, s.Panels, nrW, nf)
		for r := range n {
			d := s.C[r*nc:][:nrW]
			for k := range dec64 {
				dec64[k] = float64(m.scale[k])*float64(d[k]) + m.biasTerm(k)
			}
			dst[r0+r] = m.LabelOf(dec64)
		}
	}
	return true
}
