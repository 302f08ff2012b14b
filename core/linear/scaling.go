package linear

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core/model"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// foldScale returns the unscaled linear model equivalent to m (m.Scale
// set): W'_j = W_j·s_j and a bias row (Bias 1) holding b_k + Σ_j W_jk·o_j,
// in float32. Its decision values equal m's on scaled rows up to float32
// rounding of W' and of the constant: about 6e-8·(Σ_j|W'_jk·x_j| + |b'_k|).
func (m *LinearModel) foldScale() *LinearModel {
	nrW := m.NrW()
	n := m.NumFeatures
	w := make([]float32, (n+1)*nrW)
	c := make([]float64, nrW)
	for k := range c {
		c[k] = m.biasTerm(k)
	}
	for j := range n {
		s, o := m.Scale.Affine(j)
		for k := range nrW {
			wj := float64(m.W[j*nrW+k])
			w[j*nrW+k] = float32(wj * s)
			c[k] += wj * o
		}
	}
	for k := range c {
		w[n*nrW+k] = float32(c[k])
	}
	f := *m
	f.Scale, f.Bias, f.W = nil, 1, w
	f.fold = nil
	return &f
}

// folded returns the folded model of a scaled model, building it on the
// first call (the one allocation; racing first calls each build one and
// the first stored wins), and nil for an unscaled model. The pointer is
// an unsafe.Pointer read atomically rather than an atomic.Pointer, whose
// no-copy marker would forbid copying a LinearModel value.
func (m *LinearModel) folded() *LinearModel {
	if m.Scale == nil {
		return nil
	}
	if p := atomic.LoadPointer(&m.fold); p != nil {
		return (*LinearModel)(p)
	}
	atomic.CompareAndSwapPointer(&m.fold, nil, unsafe.Pointer(m.foldScale()))
	return (*LinearModel)(atomic.LoadPointer(&m.fold))
}

// SetScale sets the scaling m was trained behind (m's W applies to rows
// scaled by r; nil for none) and checks it. Call it before the model is
// shared or predicts.
func (m *LinearModel) SetScale(r *scale.Ranges) error {
	if err := model.CheckScale(r, m.NumFeatures); err != nil {
		return fmt.Errorf("core: linear model: %w", err)
	}
	m.Scale, m.fold = r, nil
	return nil
}
