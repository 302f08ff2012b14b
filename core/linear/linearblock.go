package linear

import (
	"sync/atomic"
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core/simd"
)

// Blocked linear batch prediction. The decision values of a block of dense
// rows X against the weight vectors are one matrix product D = X·W (rows ×
// decision functions), computed by simd.Gemm with W packed into panels of
// simd.PanelWidth decision functions. W is stored feature-major, which is
// exactly the packed layout but for the zero padding of each feature's
// weights to a whole panel. The packing is one pass over W, yet it costs
// as much as predicting some 60 rows (784 features, 10 classes: Pack was
// 1.7% of a server's CPU on 1000-row batches against gemm's 26%, and 7%
// against 20% when each batch was predicted in a few calls), so a model
// keeps its packed weights after its first blocked call (keptPanels) when
// they are small; a larger model packs at each call, so that its memory
// does not grow by a padded copy of W. Binary models and regression have
// one weight vector: a row's value is then simd.Dot with W.
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
	panels := m.keptPanels(nrW, nf)
	packLen := 0
	if panels == nil {
		packLen = simd.PackedLen(nrW, nf)
	}
	s := simd.GetWorkspace(packLen, linearBlockRows*nc, nrW)
	if panels == nil {
		panels = s.Panels
		simd.Pack(panels, m.W, nrW, nf, 1, nrW)
	}
	dec64 := s.Row
	for r0 := 0; r0 < rows; r0 += linearBlockRows {
		n := min(linearBlockRows, rows-r0)
		simd.Gemm(s.C, nc, x[r0*nf:(r0+n)*nf], nf, n, panels, nrW, nf)
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

// maxKeptPanels is the most packed weights a model keeps (1 MiB of
// float32: 8192 features at up to 32 decision functions).
const maxKeptPanels = 1 << 18

// packedW is W packed for simd.Gemm, with the weights it was packed from.
type packedW struct {
	w      *float32 // &W[0]: a copy of the model given other weights packs its own
	panels []float32
}

// keptPanels returns m's weights packed for simd.Gemm (nrW decision
// functions over nf features), packing them on the first call (the one
// allocation; racing first calls each pack and the last stored wins), or
// nil when they are larger than maxKeptPanels. The pointer is read
// atomically, as fold's (scaling.go).
func (m *LinearModel) keptPanels(nrW, nf int) []float32 {
	n := simd.PackedLen(nrW, nf)
	if n > maxKeptPanels {
		return nil
	}
	if p := (*packedW)(atomic.LoadPointer(&m.packed)); p != nil && p.w == &m.W[0] {
		return p.panels
	}
	p := &packedW{w: &m.W[0], panels: make([]float32, n)}
	simd.Pack(p.panels, m.W, nrW, nf, 1, nrW)
	atomic.StorePointer(&m.packed, unsafe.Pointer(p))
	return p.panels
}
