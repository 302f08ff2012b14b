package quantize

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// DecodedModel returns the float32 kernel model of m's decoded support
// vectors (sv'_ij = o_j + a_j·q_ij, rounded once to float32) with m's
// coefficients, ρ and probability parameters: an explicit opt-in for
// callers who want float32 batch speed on models where the exact integer
// path does not pay (ε-SVR, sparse or non-RBF models; see kernelblock.go and the
// package documentation for the measurements), at a float model's memory
// (the decoded vectors, and core's packed copy once it predicts a batch:
// about 8 bytes a support vector's feature, against 1 or 2 for the codes).
// Its decision values move from m's exact ones by the float32 rounding of
// each decoded value and of core's blocked sums, so its labels may differ
// from m's at near-ties (shuttle int8: 1 of 14,500 test rows). m's own
// predictors never use it. It returns an error only if core refuses the
// assembled model, which m's checked parts rule out.
func (m *Kernel) DecodedModel() (*core.KernelModel, error) {
	// Decoded a column at a time (SupportVector's search of each sparse
	// column took 1.9 s for Fashion-MNIST's 5,557 × 784 int16 codes).
	nf := m.nf
	x := make([]float32, m.l*nf)
	m.eachColumn(func(j int, rows []int32, sv func(k int) float64) {
		for k, i := range rows {
			x[int(i)*nf+j] = float32(sv(k))
		}
	}, nil)
	sv := data.NewDense(m.l, nf)
	for i := range m.l {
		if err := sv.AppendDense(0, x[i*nf:i*nf+nf]); err != nil {
			return nil, err
		}
	}
	t := &core.KernelModel{
		SVMType: m.svmType, Kernel: m.kernel, NumFeatures: m.nf,
		Labels: cloneInt32(m.labels), NumSV: cloneInt32(m.numSV), SV: sv,
		Coef: cloneFloat64(m.coef), Rho: cloneFloat64(m.rho),
		ProbA: cloneFloat64(m.probA), ProbB: cloneFloat64(m.probB),
	}
	if err := t.Init(); err != nil {
		return nil, err
	}
	return t, nil
}
