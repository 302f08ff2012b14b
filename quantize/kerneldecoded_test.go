package quantize

import (
	"math"
	"testing"
)

// The decoded twin holds each support vector as SupportVector decodes it,
// rounded once to float32, and serves the models issue 30 measured slow:
// int16 codes and few-feature int8 ones; its labels are the quantized
// model's single-row labels.
func TestDecodedTwin(t *testing.T) {
	for _, c := range kernelCases {
		m := c.model(t)
		te := c.test(t)
		for _, bits := range []int{8, 16} {
			q, err := QuantizeKernel(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			d := q.decoded
			wide := !q.dense && q.nf >= int8ProductMinFeatures
			if (d == nil) != wide {
				t.Errorf("%s int%d: decoded twin %v, want one unless wide and sparse (%d features, dense layout %v)", c.name, bits, d != nil, q.nf, q.dense)
			}
			if d == nil {
				continue
			}
			sv := make([]float64, q.nf)
			for i := range q.l {
				q.SupportVector(sv, i)
				row := d.SV.DenseRow(i)
				for j, v := range sv {
					if math.Float32bits(row[j]) != math.Float32bits(float32(v)) {
						t.Fatalf("%s int%d: support vector %d feature %d: twin %v, decoded %v", c.name, bits, i, j, row[j], v)
					}
				}
			}
			got := q.PredictBatch(make([]float64, te.Len()), te)
			for r := range got {
				idx, val := sparseRow(te, r)
				if want := q.PredictSparse(idx, val); got[r] != want && !q.svmType.IsRegression() {
					t.Fatalf("%s int%d: row %d: batch %v, single row %v", c.name, bits, r, got[r], want)
				}
			}
		}
	}
}
