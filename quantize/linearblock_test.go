package quantize

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestLinearBatchOneFunction checks that dense batches of one-function
// models (two classes, regression) give the single-row predictors' values
// bit for bit (DotRows64x4 sums in dot8's and Dot64x4's order, products
// exact), at both widths, on every linear case with dense test rows.
func TestLinearBatchOneFunction(t *testing.T) {
	n := 0
	for _, c := range linearCases {
		m := c.model(t)
		te := c.test(t)
		if m.NrW() != 1 || !te.IsDense() || te.NumFeatures() != m.NumFeatures {
			continue
		}
		n++
		for _, bits := range []int{8, 16} {
			q, err := QuantizeLinear(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			got := q.PredictBatch(make([]float64, te.Len()), te)
			for i := range te.Len() {
				if want := q.PredictDense(te.DenseRow(i)); math.Float64bits(got[i]) != math.Float64bits(want) {
					t.Fatalf("%s int%d row %d: PredictBatch %v, PredictDense %v", c.name, bits, i, got[i], want)
				}
			}
		}
	}
	if n < 3 { // breast_cancer, diabetes -s 12 and -s 13 -B 1
		t.Fatalf("%d one-function cases with dense rows, want 3 or more", n)
	}
}

// TestLinearBatchUnkept checks the batches of models too large to keep
// their batch weights (maxBatchWeights): a binary model of 2^17 + 1
// features (a row at a time) and a 3-class one whose panels pass the
// limit (packed at each call), against PredictDense.
func TestLinearBatchUnkept(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct{ nf, classes int }{{maxBatchWeights/2 + 1, 2}, {maxBatchWeights/32 + 1, 3}} {
		m := &linear.LinearModel{Solver: linear.L2LossSVCDual, NumFeatures: c.nf, Bias: 1, Params: linear.DefaultLinearParams()}
		for k := range c.classes {
			m.Labels = append(m.Labels, int32(k+1))
		}
		nrW := m.NrW()
		m.W = make([]float32, (c.nf+1)*nrW)
		for i := range m.W {
			m.W[i] = float32(r.NormFloat64())
		}
		const rows = 9
		x := make([]float32, rows*c.nf)
		for i := range x {
			x[i] = float32(r.Float64())
		}
		for _, bits := range []int{8, 16} {
			q, err := QuantizeLinear(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			got := q.PredictDenseBatch(make([]float64, rows), x)
			if q.batchWeights() != nil {
				t.Fatalf("%d features, %d classes: batch weights kept, want none past maxBatchWeights", c.nf, c.classes)
			}
			for i := range rows {
				if want := q.PredictDense(x[i*c.nf : (i+1)*c.nf]); got[i] != want {
					t.Fatalf("%d features, %d classes, int%d row %d: PredictDenseBatch %v, PredictDense %v", c.nf, c.classes, bits, i, got[i], want)
				}
			}
			if !raceEnabled { // the packing workspace is pooled
				if a := testing.AllocsPerRun(3, func() { q.PredictDenseBatch(got, x) }); a != 0 {
					t.Errorf("%d features, %d classes, int%d: PredictDenseBatch allocates %v times", c.nf, c.classes, bits, a)
				}
			}
		}
	}
}

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
