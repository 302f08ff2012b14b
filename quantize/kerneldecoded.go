package quantize

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// The decoded twin: the labels (and ε-SVR batch values) of a quantized
// kernel model through core's float32 blocked path, over the support
// vectors decoded once, when the model is made, to float32 (sv'_ij = o_j +
// a_j·q_ij, rounded once).
//
// Where the int8 product does not pay, that is the fastest way to predict
// a quantized model, and it costs what the float32 model costs, so a
// quantized model is never the slow choice (issue 30). Measured with
// BenchmarkKernelBatch (one goroutine, whole test sets), before the twin:
//
//   - int16 codes have no fast product: their exact int64 column sums took
//     9–40× the float32 batch (digits 52 ms against 4 ms);
//   - int8 codes on the VNNI product took 1.16–2.5× the float32 batch on
//     every small set (digits, 64 features: 4.6 ms against 4.0 ms;
//     breast_cancer, 30: 0.31 against 0.17 ms): encoding each row into two
//     byte planes and the per-row scale cost more than the product saves
//     below int8ProductMinFeatures features, while on Fashion-MNIST's 784
//     the product takes 0.55 of float32's time.
//
// What it costs: the decoded float32 support vectors, stored dense, and
// core's packed copy of them, 8 bytes a support vector's feature, the
// memory a dense float32 model takes once loaded (the file stays the
// quantized one's size); sparse-layout models take the twin only when
// dense enough for core to store them dense (data.PreferDense: digits,
// Fashion-MNIST). The decision values move from the exact quantized sums
// by the float32 rounding of each decoded value (2⁻²⁴ relative) and of
// core's blocked sums, as the int8 product's do; labels keep core's
// float64 recompute at near-ties. Single rows of 16-bit models from
// int8ProductMinFeatures features on keep their exact column sums, which
// are faster than the twin there (rowDecoded). Wide sparse-layout models
// (debdesc_bin, 9,132 features) keep their exact column sums, already 4–9×
// faster than the float32 model's row-at-a-time sparse path.

// int8ProductMinFeatures is the least number of features for which a
// dense int8 model predicts with the int8 product rather than its decoded
// twin (see above: slower at 64 features, faster at 784).
const int8ProductMinFeatures = 256

// newDecodedTwin returns the float32 core model of m's decoded support
// vectors, or nil where another path is faster: m's int8 product from
// int8ProductMinFeatures features on, and the exact column sums of a
// sparse-layout model too sparse for core to keep dense (whose dense
// decoded copy would also be large).
func newDecodedTwin(m *Kernel) *core.KernelModel {
	if m.blk != nil && m.nf >= int8ProductMinFeatures {
		return nil
	}
	if !m.dense && !data.PreferDense(m.l, m.nf, len(m.colRow)) {
		return nil
	}
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
			panic("quantize: newDecodedTwin: " + err.Error()) // sized above
		}
	}
	t := &core.KernelModel{
		SVMType: m.svmType, Kernel: m.kernel, NumFeatures: m.nf,
		Labels: m.labels, NumSV: m.numSV, SV: sv, Coef: m.coef, Rho: m.rho,
	}
	if err := t.Init(); err != nil {
		// m's parts were checked when it was made or read.
		panic("quantize: newDecodedTwin: " + err.Error())
	}
	return t
}
