package linear

import "github.com/libsvmgo/libsvmgo/core/simd"

// Blocked linear batch prediction. The decision values of a block of dense
// rows X against the weight vectors are one matrix product D = X·W (rows ×
// decision functions), computed by simd.Gemm with W packed into panels of
// simd.PanelWidth decision functions. W is stored feature-major, which is
// exactly the packed layout but for the zero padding of each feature's
// weights to a whole panel, so the packing is one pass over W per batch
// call, negligible next to the rows; a model keeps no packed copy (it has
// no Init to make one). Binary models and regression have one weight
// vector: a row's value is then simd.Dot with W.
//
// Accuracy: float32 dot products (see package simd) where the row-at-a-time
// predictors accumulate in float64: decision values agree to about
// 2⁻²⁴·√n·Σ|x_j·w_j|, so labels may differ only on such near-ties.

// linearBlockRows is the number of rows a block takes; below
// minLinearBlock rows a call predicts a row at a time.
const (
	linearBlockRows = 64
	minLinearBlock  = 8
)

// blockedDense predicts the rows of the row-major matrix x (NumFeatures
// values a row) into dst, len(dst) rows. It reports false, doing nothing,
// when the batch is too small to be worth it, the model has more
// decision functions than the stack paths handle, or its weights are
// sparse (NonzeroRows: a row at a time over the nonzero weights is faster).
func (m *LinearModel) blockedDense(dst []float64, x []float32) bool {
	nf, nrW := m.NumFeatures, m.NrW()
	rows := len(dst)
	if rows < minLinearBlock || nf == 0 || nrW > maxStackDecisions || m.NonzeroRows != nil {
		return false
	}
	if nrW == 1 {
		w := m.W[:nf]
		bias := m.biasTerm(0)
		var dec [1]float64
		for r := range dst {
			dec[0] = float64(simd.Dot(x[r*nf:r*nf+nf], w)) + bias
			dst[r] = m.label(dec[:])
		}
		return true
	}
	nc := simd.PaddedCols(nrW)
	s := simd.GetWorkspace(simd.PackedLen(nrW, nf), linearBlockRows*nc, nrW)
	dec64 := s.Row
	simd.Pack(s.Panels, m.W, nrW, nf, 1, nrW)
	for r0 := 0; r0 < rows; r0 += linearBlockRows {
		n := min(linearBlockRows, rows-r0)
		simd.Gemm(s.C, nc, x[r0*nf:(r0+n)*nf], nf, n, s.Panels, nrW, nf)
		for r := range n {
			d := s.C[r*nc:][:nrW]
			for k := range dec64 {
				dec64[k] = float64(d[k]) + m.biasTerm(k)
			}
			dst[r0+r] = m.label(dec64)
		}
	}
	simd.PutWorkspace(s)
	return true
}
