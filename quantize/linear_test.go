package quantize

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// handLinear is a model whose quantization is exact to derive: the largest
// weight is 127/128, so s = 1/128 and w = k/128 has code k.
func handLinear() *linear.LinearModel {
	return &linear.LinearModel{
		Solver:      linear.L2LossSVCDual,
		Labels:      []int32{1, -1},
		NumFeatures: 3,
		Bias:        1,
		// 127/128, −64/128, 32.25/128 (code 32, error 1/512), bias row 0.3.
		W:      []float32{127.0 / 128, -0.5, 0.25 + 1.0/512, 0.3},
		Params: linear.DefaultLinearParams(),
	}
}

func TestQuantizeLinearHand(t *testing.T) {
	m := handLinear()
	q, err := QuantizeLinear(m, 8)
	if err != nil {
		t.Fatal(err)
	}
	if s := q.Scales(); len(s) != 1 || s[0] != 1.0/128 {
		t.Fatalf("scales %v, want [1/128]", s)
	}
	for j, want := range []float64{127, -64, 32} {
		if got := q.Weight(j, 0) * 128; got != want {
			t.Errorf("feature %d: code %v, want %v", j, got, want)
		}
	}
	if bw := q.BiasWeights(); len(bw) != 1 || bw[0] != float32(0.3) || q.Bias() != 1 {
		t.Errorf("bias %v, bias weights %v", q.Bias(), bw)
	}
	// x = (1, 2, −4): dec = (127 − 128 − 128)/128 + 1·0.3f = −129/128 + 0.3f.
	x := []float32{1, 2, -4}
	want := -129.0/128 + float64(float32(0.3))
	dec := q.DecisionDense(make([]float64, 1), x)
	if dec[0] != want {
		t.Errorf("DecisionDense = %v, want %v", dec[0], want)
	}
	if got := q.DecisionSparse(make([]float64, 1), []int32{0, 1, 2, 7}, []float32{1, 2, -4, 100})[0]; got != want {
		t.Errorf("DecisionSparse = %v, want %v (feature 7 ignored)", got, want)
	}
	if got := q.PredictDense(x); got != -1 {
		t.Errorf("PredictDense = %v, want -1", got)
	}
	if got := q.PredictDense([]float32{1, 0, 0}); got != 1 { // 127/128 + 0.3 > 0
		t.Errorf("PredictDense = %v, want 1", got)
	}
	// The float model gives 127/128 − 1 − 4·(0.25 + 1/512) + 0.3f: the
	// weights' error, 4/512 = 1/128, is within the bound (s/2)·Σ|x| = 7/256.
	f := m.DecisionDense(make([]float64, 1), x)[0]
	if math.Abs(f-dec[0]) != 1.0/128 {
		t.Errorf("error %v, want 1/128", math.Abs(f-dec[0]))
	}
	b := q.ErrorBoundDense(make([]float64, 1), x)[0]
	if b < 7.0/256 || b > 7.0/256*(1+1e-8) {
		t.Errorf("bound %v, want 7/256 plus a float64 allowance", b)
	}

	// 16 bits: s = (127/128)/32767, codes round(w/s).
	q16, err := QuantizeLinear(m, 16)
	if err != nil {
		t.Fatal(err)
	}
	s := float64(q16.Scales()[0])
	for j := range 3 {
		if d := math.Abs(float64(m.W[j]) - q16.Weight(j, 0)); d > s/2 {
			t.Errorf("16 bits, feature %d: error %g > s/2", j, d)
		}
	}
	if q16.Weight(0, 0) != float64(float32(s))*32767 {
		t.Errorf("largest weight has code %v, want 32767", q16.Weight(0, 0)/s)
	}
}

func TestQuantizeLinearRefuses(t *testing.T) {
	m := handLinear()
	for _, bits := range []int{0, 4, 7, 9, 32} {
		if _, err := QuantizeLinear(m, bits); err == nil {
			t.Errorf("%d bits accepted", bits)
		}
	}
	if _, err := QuantizeLinear(nil, 8); err == nil {
		t.Error("nil model accepted")
	}
	bad := handLinear()
	bad.W = bad.W[:3] // the bias row is missing
	if _, err := QuantizeLinear(bad, 8); err == nil {
		t.Error("inconsistent model accepted")
	}
}

// TestLinearBounds checks every decision value of every test row, dense
// and sparse, against the float model's, within ErrorBound, and against
// an independent evaluation of the quantized model (Σ_j x_j·Weight(j, k)
// in float64).
func TestLinearBounds(t *testing.T) {
	for _, c := range linearCases {
		m := c.model(t)
		te := c.test(t)
		for _, bits := range []int{8, 16} {
			q, err := QuantizeLinear(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			nd, nf := q.NumDecisionValues(), q.NumFeatures()
			f, g, b, ref := make([]float64, nd), make([]float64, nd), make([]float64, nd), make([]float64, nd)
			var dense, sparse errorStats
			xbuf := make([]float32, nf)
			for i := range te.Len() {
				idx, val := sparseRow(te, i)
				m.DecisionSparse(f, idx, val)
				q.DecisionSparse(g, idx, val)
				q.ErrorBoundSparse(b, idx, val)
				sparse.add(t, c.name+" sparse", g, f, b)

				clear(ref)
				for p, j := range idx {
					if int(j) < nf {
						for k := range ref {
							ref[k] += float64(val[p]) * q.Weight(int(j), k)
						}
					}
				}
				for k := range ref {
					if q.Bias() >= 0 {
						ref[k] += q.Bias() * float64(m.W[len(m.W)-nd+k])
					}
					if d := math.Abs(ref[k] - g[k]); d > 1e-12*(1+math.Abs(ref[k])) {
						t.Fatalf("%s %d bits row %d: decision %v, independent evaluation %v", c.name, bits, i, g[k], ref[k])
					}
				}

				if te.IsDense() && te.NumFeatures() != nf {
					continue
				}
				x := denseRowTo(xbuf, te, i)
				m.DecisionDense(f, x)
				q.DecisionDense(g, x)
				q.ErrorBoundDense(b, x)
				dense.add(t, c.name+" dense", g, f, b)
			}
			t.Logf("%-16s int%-2d: %d values, max |error| %.3g, max bound %.3g, max error/bound %.6f (sparse), %.6f (dense)",
				c.name, bits, sparse.values+dense.values, max(sparse.maxErr, dense.maxErr),
				max(sparse.maxBound, dense.maxBound), sparse.maxRatio, dense.maxRatio)
		}
	}
}

// TestLinearAcceptance checks the size and accuracy goals on the three
// linear acceptance models: the int8 file at most 30% of the float32
// file, int8 accuracy within 0.5 points of the float model's and int16
// within 0.05.
func TestLinearAcceptance(t *testing.T) {
	for _, c := range linearCases[:3] {
		m := c.model(t)
		te := c.test(t)
		floatSize := floatFileSize(t, m)
		floatAcc := accuracy(m.PredictBatch(make([]float64, te.Len()), te), te)
		for _, bits := range []int{8, 16} {
			q, err := QuantizeLinear(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			size := len(mustMarshal(t, q))
			acc := accuracy(q.PredictBatch(make([]float64, te.Len()), te), te)
			t.Logf("%-14s int%-2d: %6d bytes of %6d (%.1f%%), accuracy %.4f%% (float32 %.4f%%)",
				c.name, bits, size, floatSize, 100*float64(size)/float64(floatSize), acc, floatAcc)
			if bits == 8 && 10*size > 3*floatSize {
				t.Errorf("%s int8: %d bytes, more than 30%% of %d", c.name, size, floatSize)
			}
			if tolerance := map[int]float64{8: 0.5, 16: 0.05}[bits]; math.Abs(acc-floatAcc) > tolerance {
				t.Errorf("%s int%d: accuracy %.4f%%, float %.4f%%: more than %v points apart", c.name, bits, acc, floatAcc, tolerance)
			}
		}
	}
}

// TestLinearPredictConsistent checks that the predictors agree with
// linear.LinearPrediction of the decision values, that LabelOf does, and
// that the batch predictors read wider and narrower dense rows as core
// does.
func TestLinearPredictConsistent(t *testing.T) {
	for _, c := range linearCases {
		m := c.model(t)
		te := c.test(t)
		q, err := QuantizeLinear(m, 8)
		if err != nil {
			t.Fatal(err)
		}
		nf, nd := q.NumFeatures(), q.NumDecisionValues()
		batch := q.PredictBatch(make([]float64, te.Len()), te)
		dec := make([]float64, nd)
		for i := range te.Len() {
			idx, val := sparseRow(te, i)
			want := linear.LinearPrediction(q.DecisionSparse(dec, idx, val), q.Labels(), q.IsRegression())
			if got := q.PredictSparse(idx, val); got != want || q.LabelOf(dec) != want {
				t.Fatalf("%s row %d: PredictSparse %v, LabelOf %v, want %v", c.name, i, got, q.LabelOf(dec), want)
			}
			// Dense batches take the blocked float32 path (linearblock.go): the
			// same labels, regression values within its rounding.
			if batch[i] != want && !(q.IsRegression() && math.Abs(batch[i]-want) <= 1e-5*(1+math.Abs(want))) {
				t.Fatalf("%s row %d: PredictBatch %v, want %v", c.name, i, batch[i], want)
			}
			x := denseRow(te, i, nf)
			if got := q.PredictDense(x); got != linear.LinearPrediction(q.DecisionDense(dec, x), q.Labels(), q.IsRegression()) {
				t.Fatalf("%s row %d: PredictDense %v disagrees with DecisionDense", c.name, i, got)
			}
		}
		if nf < 3 {
			continue
		}
		// A dense set 2 features narrower and one 2 wider than the model.
		for _, width := range []int{nf - 2, nf + 2} {
			ds := data.NewDense(10, width)
			for i := range 10 {
				row := make([]float32, width)
				copy(row, denseRow(te, i, nf))
				if width > nf {
					row[nf], row[nf+1] = 5, -7
				}
				if err := ds.AppendDense(te.Label(i), row); err != nil {
					t.Fatal(err)
				}
			}
			got := q.PredictBatch(make([]float64, 10), ds)
			for i := range 10 {
				idx, val := sparseRow(ds, i)
				if want := q.PredictSparse(idx, val); got[i] != want {
					t.Fatalf("%s width %d row %d: PredictBatch %v, PredictSparse %v", c.name, width, i, got[i], want)
				}
			}
		}
		// PredictDenseBatch over 5 rows.
		var x []float32
		for i := range 5 {
			x = append(x, denseRow(te, i, nf)...)
		}
		got := q.PredictDenseBatch(make([]float64, 5), x)
		for i := range 5 {
			if want := q.PredictDense(x[i*nf : i*nf+nf]); got[i] != want {
				t.Fatalf("%s: PredictDenseBatch row %d %v, PredictDense %v", c.name, i, got[i], want)
			}
		}
	}
}

// wideLinear is a random 70-class model: more decision functions than the
// stack buffer holds, so the predictors take the pooled path.
func wideLinear(t testing.TB) *linear.LinearModel {
	r := rand.New(rand.NewPCG(7, 8))
	const nf, nr = 40, 70
	m := &linear.LinearModel{Solver: linear.L2LossSVCDual, NumFeatures: nf, Bias: 1, Params: linear.DefaultLinearParams()}
	for k := range nr {
		m.Labels = append(m.Labels, int32(100+k))
	}
	m.W = make([]float32, (nf+1)*nr)
	for i := range m.W {
		m.W[i] = float32(r.NormFloat64())
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLinearWide(t *testing.T) {
	m := wideLinear(t)
	r := rand.New(rand.NewPCG(9, 10))
	for _, bits := range []int{8, 16} {
		q, err := QuantizeLinear(m, bits)
		if err != nil {
			t.Fatal(err)
		}
		f, g, b := make([]float64, 70), make([]float64, 70), make([]float64, 70)
		var stats errorStats
		for range 50 {
			x := make([]float32, 40)
			for j := range x {
				x[j] = float32(r.NormFloat64())
			}
			m.DecisionDense(f, x)
			q.DecisionDense(g, x)
			q.ErrorBoundDense(b, x)
			stats.add(t, "wide", g, f, b)
			if got, want := q.PredictDense(x), linear.LinearPrediction(g, q.Labels(), false); got != want {
				t.Fatalf("PredictDense %v, want %v", got, want)
			}
			idx, val := []int32{3, 7, 39}, []float32{x[3], x[7], x[39]}
			if got, want := q.PredictSparse(idx, val), linear.LinearPrediction(q.DecisionSparse(g, idx, val), q.Labels(), false); got != want {
				t.Fatalf("PredictSparse %v, want %v", got, want)
			}
		}
	}
}

// TestLinearAllocs checks that the predictors allocate nothing, for a
// model on the stack path and one on the pooled path.
func TestLinearAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops buffers under the race detector")
	}
	te := linearCases[1].test(t)
	models := []*linear.LinearModel{linearCases[1].model(t), wideLinear(t)}
	for _, m := range models {
		for _, bits := range []int{8, 16} {
			q, err := QuantizeLinear(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			x := denseRow(te, 0, q.NumFeatures())
			idx, val := sparseRow(te, 0)
			dst := make([]float64, q.NumDecisionValues())
			batch := make([]float64, te.Len())
			for name, f := range map[string]func(){
				"DecisionDense":  func() { q.DecisionDense(dst, x) },
				"DecisionSparse": func() { q.DecisionSparse(dst, idx, val) },
				"PredictDense":   func() { q.PredictDense(x) },
				"PredictSparse":  func() { q.PredictSparse(idx, val) },
				"LabelOf":        func() { q.LabelOf(dst) },
				"PredictBatch":   func() { q.PredictBatch(batch, te) },
			} {
				if a := testing.AllocsPerRun(50, f); a != 0 {
					t.Errorf("%d classes, %d bits: %s allocates %v times", len(m.Labels), bits, name, a)
				}
			}
		}
	}
}

// TestLinearConcurrent predicts with one model from several goroutines
// (run with -race) and checks the results against a sequential run.
func TestLinearConcurrent(t *testing.T) {
	c := linearCases[1]
	te := c.test(t)
	q, err := QuantizeLinear(c.model(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	want := q.PredictBatch(make([]float64, te.Len()), te)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got := make([]float64, te.Len())
			for i := range got {
				idx, val := sparseRow(te, i)
				got[i] = q.PredictSparse(idx, val)
				if got[i] != want[i] {
					t.Errorf("row %d: %v, want %v", i, got[i], want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestLinearPanics(t *testing.T) {
	q, err := QuantizeLinear(handLinear(), 8)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(){
		"DecisionDense short row":   func() { q.DecisionDense(make([]float64, 1), []float32{1, 2}) },
		"PredictDense long row":     func() { q.PredictDense([]float32{1, 2, 3, 4}) },
		"DecisionSparse lengths":    func() { q.DecisionSparse(make([]float64, 1), []int32{1}, nil) },
		"ErrorBoundDense short row": func() { q.ErrorBoundDense(make([]float64, 1), nil) },
		"PredictDenseBatch size":    func() { q.PredictDenseBatch(make([]float64, 2), make([]float32, 4)) },
		"Weight out of range":       func() { q.Weight(3, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}
