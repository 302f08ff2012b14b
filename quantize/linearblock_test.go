package quantize

import (
	"math/rand/v2"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// BenchmarkLinearBatchBlocked: a 10-class one-vs-rest model over 784
// features (Fashion-MNIST's shape), 10,000 rows half zeros: the float32
// model's blocked batch, the int8 model's blocked batch, and the int8
// model a row at a time (the baseline). SetBytes is the rows' bytes.
func BenchmarkLinearBatchBlocked(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	const rows, nf = 10000, 784
	m := &linear.LinearModel{Solver: linear.L2LossSVCDual, NumFeatures: nf, Bias: 1}
	for c := range 10 {
		m.Labels = append(m.Labels, int32(c+1))
	}
	m.W = make([]float32, (nf+1)*10)
	for i := range m.W {
		m.W[i] = float32(r.NormFloat64())
	}
	q, err := QuantizeLinear(m, 8)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float32, rows*nf)
	for i := range x {
		if r.IntN(2) == 0 {
			x[i] = float32(r.Float64())
		}
	}
	dst := make([]float64, rows)
	for name, f := range map[string]func(){
		"float32": func() { m.PredictDenseBatch(dst, x) },
		"int8":    func() { q.PredictDenseBatch(dst, x) },
		"int8-rowwise": func() {
			for i := range dst {
				dst[i] = q.PredictDense(x[i*nf : i*nf+nf])
			}
		},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				f()
			}
		})
	}
}
