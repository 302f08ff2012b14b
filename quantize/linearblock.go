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

// packCodes writes the feature-major codes (codes[j·nrW + k] = q_jk) to
// dst in simd.Pack's layout, as float32 (exact): panel p, feature j, lane
// t holds q_j,32p+t, zero past nrW. A contiguous run of a feature's codes
// a panel: one pass over the codes at the speed of a copy, where a call per
// code cost int8 batches 7 ns a row on digits (360 rows, 10 classes × 64
// features; 13% of the float model's batch time).
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
		dec64, w := s.Row, m.qf // 16-bit codes: held as float32
		if m.bits == 8 {
			w = s.Panels
			for j, c := range m.q8[:len(w)] {
				w[j] = float32(c)
			}
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
	if m.bits == 8 {
		packCodes(s.Panels, m.q8, nf, nrW)
	} else {
		packCodes(s.Panels, m.qf, nf, nrW)
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
