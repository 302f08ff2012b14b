package linear

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/shareddata"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// randomLinear returns a linear model of nrW decision functions (nr labels)
// over nf features with random weights and a bias.
func randomLinear(r *rand.Rand, nr, nf int) *LinearModel {
	m := &LinearModel{Solver: L2LossSVCDual, NumFeatures: nf, Bias: 1}
	for c := range nr {
		m.Labels = append(m.Labels, int32(c+1))
	}
	m.W = make([]float32, (nf+1)*m.NrW())
	for i := range m.W {
		m.W[i] = float32(r.NormFloat64())
	}
	return m
}

// TestLinearBlockedMatchesRowAtATime: blocked decision values within the
// float32 bound of the float64 ones; the labels equal wherever the two
// largest values are further apart than that bound.
func TestLinearBlockedMatchesRowAtATime(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, nr := range []int{2, 3, 10, 40} {
		for _, nf := range []int{1, 9, 67, 784} {
			m := randomLinear(r, nr, nf)
			rows := 131
			x := make([]float32, rows*nf)
			for i := range x {
				if r.IntN(3) > 0 {
					x[i] = float32(r.NormFloat64())
				}
			}
			got := m.PredictDenseBatch(make([]float64, rows), x)
			ds := data.NewDense(rows, nf)
			for i := range rows {
				_ = ds.AppendDense(0, x[i*nf:i*nf+nf])
			}
			got2 := m.PredictBatch(make([]float64, rows), ds)
			dec := make([]float64, m.NrW())
			close := 0
			for i := range rows {
				row := x[i*nf : i*nf+nf]
				m.DecisionDense(dec, row)
				want := m.label(dec)
				// The bound of a value: 4·2⁻²⁴·√nf·Σ|x_j·w_j| (package simd).
				var tol float64
				for k := range dec {
					var abs float64
					for j, v := range row {
						abs += math.Abs(float64(v) * float64(m.W[j*m.NrW()+k]))
					}
					tol = max(tol, 4*0x1p-24*math.Sqrt(float64(nf)+1)*abs)
				}
				if got[i] != want || got2[i] != want {
					// Only a near-tie may differ.
					top, second := math.Inf(-1), math.Inf(-1)
					for _, v := range dec {
						if v > top {
							top, second = v, top
						} else if v > second {
							second = v
						}
					}
					if len(dec) == 1 {
						second = -top
					}
					if top-second > 2*tol {
						t.Fatalf("%d classes, %d features, row %d: blocked %v/%v, row at a time %v (margin %g > %g)",
							nr, nf, i, got[i], got2[i], want, top-second, 2*tol)
					}
					close++
				}
			}
			if close > rows/20 {
				t.Errorf("%d classes %d features: %d near-ties differ", nr, nf, close)
			}
		}
	}
}

// TestLinearBlockedSharedData: labels of a trained one-vs-rest model on
// digits equal the row-at-a-time ones.
func TestLinearBlockedSharedData(t *testing.T) {
	train, err := data.ReadFile(shareddata.Path(t, "digits.train"), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	test, err := data.ReadFile(shareddata.Path(t, "digits.test"), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := TrainLinear(train, DefaultLinearParams())
	if err != nil {
		t.Fatal(err)
	}
	if !test.IsDense() || test.NumFeatures() != m.NumFeatures {
		t.Skipf("digits.test read as dense=%v with %d features", test.IsDense(), test.NumFeatures())
	}
	got := m.PredictBatch(make([]float64, test.Len()), test)
	for i := range got {
		if want := m.PredictDense(test.DenseRow(i)); got[i] != want {
			t.Fatalf("row %d: blocked %v, row at a time %v", i, got[i], want)
		}
	}
	if a := testing.AllocsPerRun(10, func() { m.PredictBatch(got, test) }); a != 0 && !raceEnabled {
		t.Errorf("PredictBatch: %v allocations a call", a)
	}
}

// BenchmarkLinearBatch: a 10-class one-vs-rest model over 784 features
// (Fashion-MNIST's shape) on 10,000 rows, blocked against the row at a
// time loop. SetBytes is the rows' bytes.
func BenchmarkLinearBatch(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	const rows, nf = 10000, 784
	m := randomLinear(r, 10, nf)
	x := make([]float32, rows*nf)
	for i := range x {
		x[i] = float32(r.Float64())
	}
	dst := make([]float64, rows)
	for _, v := range []string{"rowwise", "blocked"} {
		b.Run(fmt.Sprintf("10x%dx%d/%s", nf, rows, v), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(x) * 4))
			for b.Loop() {
				if v == "blocked" {
					m.PredictDenseBatch(dst, x)
				} else {
					for i := range dst {
						dst[i] = m.PredictDense(x[i*nf : i*nf+nf])
					}
				}
			}
		})
	}
}

// TestDecisionDenseBatchBitIdentical: a row's decision values are the same
// bit for bit alone (DecisionDense) and in a batch (DecisionDenseBatch), for
// one and several decision functions, with and without a bias, dense and
// listed nonzero weight rows, batches past multiples of the four-row step;
// and DecisionDense's values follow the pairwise float64 order written out.
func TestDecisionDenseBatchBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, nr := range []int{2, 3, 10, 12} {
		for _, nf := range []int{1, 2, 9, 784} {
			for _, variant := range []string{"bias", "no bias", "nonzero rows"} {
				m := randomLinear(r, nr, nf)
				nrW := m.NrW()
				switch variant {
				case "no bias":
					m.Bias = -1
					m.W = m.W[:nf*nrW]
				case "nonzero rows":
					for j := 0; j < nf; j += 2 {
						clear(m.W[j*nrW : j*nrW+nrW])
					}
					m.IndexNonzeroRows()
				}
				for _, rows := range []int{1, 4, 7, 66} {
					x := make([]float32, rows*nf)
					for i := range x {
						if r.IntN(3) > 0 {
							x[i] = float32(r.NormFloat64() * 1e3)
						}
					}
					batch := m.DecisionDenseBatch(make([]float64, rows*nrW), x)
					if len(batch) != rows*nrW {
						t.Fatalf("%d classes, %d features, %s: %d values for %d rows", nr, nf, variant, len(batch), rows)
					}
					one := make([]float64, nrW)
					for i := range rows {
						row := x[i*nf : i*nf+nf]
						m.DecisionDense(one, row)
						for k := range nrW {
							if math.Float64bits(one[k]) != math.Float64bits(batch[i*nrW+k]) {
								t.Fatalf("%d classes, %d features, %s, %d rows: row %d value %d: alone %v, batch %v",
									nr, nf, variant, rows, i, k, one[k], batch[i*nrW+k])
							}
							if nrW == 1 || variant == "nonzero rows" {
								continue
							}
							want := 0.0
							j := 0
							for ; j+1 < nf; j += 2 {
								p0 := float64(float64(row[j]) * float64(m.W[j*nrW+k]))
								p1 := float64(float64(row[j+1]) * float64(m.W[(j+1)*nrW+k]))
								want += float64(p0 + p1)
							}
							if j < nf {
								want += float64(float64(row[j]) * float64(m.W[j*nrW+k]))
							}
							want += m.biasTerm(k)
							if math.Float64bits(one[k]) != math.Float64bits(want) {
								t.Fatalf("%d classes, %d features, %s: row %d value %d: %v, the pairwise order gives %v", nr, nf, variant, i, k, one[k], want)
							}
						}
					}
				}
			}
		}
	}
}

// TestLinearKeptPanels: a model keeps its packed weights after its first
// blocked call and predicts with them without allocating; a copy of the
// model given other weights packs its own (its predictions are those of a
// fresh model with those weights, not the original's); a model whose
// packed weights exceed maxKeptPanels packs at each call and keeps none.
func TestLinearKeptPanels(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	const nr, nf, rows = 10, 784, 100
	m := randomLinear(r, nr, nf)
	x := make([]float32, rows*nf)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	first := m.PredictDenseBatch(make([]float64, rows), x)
	if m.packed == nil {
		t.Fatal("no packed weights kept after a blocked call")
	}
	dst := make([]float64, rows)
	if n := testing.AllocsPerRun(20, func() { m.PredictDenseBatch(dst, x) }); n != 0 && !raceEnabled {
		t.Fatalf("PredictDenseBatch with kept panels: %v allocations, want 0", n)
	}
	for i := range dst {
		if dst[i] != first[i] {
			t.Fatalf("row %d: %v with kept panels, %v on the call that packed them", i, dst[i], first[i])
		}
	}

	other := randomLinear(r, nr, nf)
	c := *m // carries m's packed weights
	c.W = other.W
	fresh := &LinearModel{Solver: m.Solver, NumFeatures: nf, Bias: m.Bias, Labels: m.Labels, W: slices.Clone(other.W)}
	got, want := c.PredictDenseBatch(make([]float64, rows), x), fresh.PredictDenseBatch(make([]float64, rows), x)
	differ := 0
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: copy given other weights predicts %v, a fresh model with them %v", i, got[i], want[i])
		}
		if got[i] != first[i] {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("the two weight sets predict the same labels: the test cannot tell stale panels")
	}

	wide := randomLinear(r, nr, maxKeptPanels/simd.PaddedCols(nr)+1)
	xw := make([]float32, 8*wide.NumFeatures)
	for i := range xw {
		xw[i] = float32(r.NormFloat64())
	}
	wide.PredictDenseBatch(make([]float64, 8), xw)
	if simd.PackedLen(wide.NrW(), wide.NumFeatures) <= maxKeptPanels || wide.packed != nil {
		t.Fatalf("a model of %d packed values kept them (cap %d)", simd.PackedLen(wide.NrW(), wide.NumFeatures), maxKeptPanels)
	}
}
