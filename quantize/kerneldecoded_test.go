package quantize

import (
	"math"
	"testing"
)

// DecodedModel holds each support vector as SupportVector decodes it,
// rounded once to float32, and its decision values stay within float32
// rounding (1e-4 relative, generous) of the quantized model's exact ones.
func TestDecodedModel(t *testing.T) {
	for _, c := range kernelCases {
		m := c.model(t)
		te := c.test(t)
		for _, bits := range []int{8, 16} {
			q, err := QuantizeKernel(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			d, err := q.DecodedModel()
			if err != nil {
				t.Fatal(err)
			}
			sv := make([]float64, q.nf)
			for i := range q.l {
				q.SupportVector(sv, i)
				row := d.SV.DenseRow(i)
				for j, v := range sv {
					if math.Float32bits(row[j]) != math.Float32bits(float32(v)) {
						t.Fatalf("%s int%d: support vector %d feature %d: decoded model %v, SupportVector %v", c.name, bits, i, j, row[j], v)
					}
				}
			}
			dq := make([]float64, q.NumDecisionValues())
			dd := make([]float64, q.NumDecisionValues())
			for r := range min(te.Len(), 100) {
				x := denseRow(te, r, q.nf)
				q.DecisionDense(dq, x)
				d.DecisionDense(dd, x)
				for p := range dq {
					if diff := math.Abs(dq[p] - dd[p]); diff > 1e-4*(1+math.Abs(dq[p])) {
						t.Fatalf("%s int%d row %d value %d: decoded model %v, quantized %v", c.name, bits, r, p, dd[p], dq[p])
					}
				}
			}
		}
	}
}
