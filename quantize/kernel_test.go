package quantize

import (
	"math"
	"sync"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// handKernel is a two-class RBF model of three support vectors over two
// features whose codes are easy to derive (see TestQuantizeKernelHand).
func handKernel(t testing.TB) *core.KernelModel {
	sv := data.NewDense(3, 2)
	for _, row := range [][]float32{{0, 2}, {1, 4}, {0.25, 2.5}} {
		if err := sv.AppendDense(0, row); err != nil {
			t.Fatal(err)
		}
	}
	m := &core.KernelModel{
		SVMType:     core.CSVC,
		Kernel:      core.Kernel{Type: core.RBFKernel, Gamma: 0.5},
		NumFeatures: 2,
		Labels:      []int32{3, 7},
		NumSV:       []int32{2, 1},
		SV:          sv,
		Coef:        []float64{1, 0.5, -1.5},
		Rho:         []float64{0.25},
		Params:      core.DefaultKernelParams(),
	}
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestQuantizeKernelHand(t *testing.T) {
	m := handKernel(t)
	q, err := QuantizeKernel(m, 8)
	if err != nil {
		t.Fatal(err)
	}
	// Feature 0 spans [0, 1] and has a zero: a = 1/255 (the least float32
	// with 255·a ≥ 1), zero point −128, o = 128·a; 0.25 is 63.75 steps up,
	// code −64, decoded 64·a. Feature 1 spans [2, 4] without zeros:
	// a = 2/255 likewise, o = 2 + 128·a; 2.5 is 63.75 steps up, code −64,
	// decoded 2 + 64·a.
	a0, o0 := q.FeatureScale(0)
	a1, o1 := q.FeatureScale(1)
	if float64(a0)*255 < 1 || float64(math.Nextafter32(a0, 0))*255 >= 1 || o0 != 128*float64(a0) {
		t.Errorf("feature 0: a = %v, o = %v", a0, o0)
	}
	if float64(a1)*255 < 2 || float64(math.Nextafter32(a1, 0))*255 >= 2 || o1 != 2+128*float64(a1) {
		t.Errorf("feature 1: a = %v, o = %v", a1, o1)
	}
	want := [][]float64{
		{0, o1 - 128*float64(a1)},
		{o0 + 127*float64(a0), o1 + 127*float64(a1)},
		{64 * float64(a0), o1 - 64*float64(a1)},
	}
	sv := make([]float64, 2)
	for i, w := range want {
		q.SupportVector(sv, i)
		if sv[0] != w[0] || sv[1] != w[1] {
			t.Errorf("support vector %d decodes to %v, want %v", i, sv, w)
		}
	}
	if sv := q.SupportVector(sv, 0); sv[0] != 0 {
		t.Errorf("the zero of support vector 0 decodes to %v", sv[0])
	}
	// sv_coef: one row, largest |c| = 1.5: σ = 1.5/32767, codes
	// round(c/σ) = 21845 (1 → 21844.67), 10922 (0.5 → 10922.33), −32767.
	sigma := float64(q.CoefScales()[0])
	for i, code := range []float64{21845, 10922, -32767} {
		if got := q.Coef(0, i); got != sigma*code {
			t.Errorf("coefficient %d = %v, want σ·%v = %v", i, got, code, sigma*code)
		}
	}
	// The decision value of x = (0.5, 3), computed from the decoded model
	// by hand: Σ c_i·exp(−γ‖x − sv'_i‖²) − ρ.
	x := []float32{0.5, 3}
	var dec float64
	for i, w := range want {
		d0, d1 := 0.5-w[0], 3-w[1]
		dec += q.Coef(0, i) * math.Exp(-0.5*(d0*d0+d1*d1))
	}
	dec -= 0.25
	got := q.DecisionDense(make([]float64, 1), x)[0]
	if math.Abs(got-dec) > 1e-6 {
		t.Errorf("DecisionDense = %v, by hand %v", got, dec)
	}
	label := 7.0
	if dec > 0 {
		label = 3
	}
	if p := q.PredictDense(x); p != label {
		t.Errorf("PredictDense = %v, want %v", p, label)
	}
	f := m.DecisionDense(make([]float64, 1), x)[0]
	b := q.ErrorBoundDense(make([]float64, 1), x)[0]
	if e := math.Abs(f - got); !(e <= b) || e == 0 {
		t.Errorf("error %g, bound %g", e, b)
	}
	if q.NumSupportVectors() != 3 || q.NumClasses() != 2 || q.NumDecisionValues() != 1 {
		t.Errorf("shape %d SV, %d classes, %d decision values", q.NumSupportVectors(), q.NumClasses(), q.NumDecisionValues())
	}
}

func TestQuantizeKernelRefuses(t *testing.T) {
	m := handKernel(t)
	for _, bits := range []int{0, 1, 7, 12, 64} {
		if _, err := QuantizeKernel(m, bits); err == nil {
			t.Errorf("%d bits accepted", bits)
		}
	}
	if _, err := QuantizeKernel(nil, 8); err == nil {
		t.Error("nil model accepted")
	}
	bad := handKernel(t)
	bad.Rho = nil
	if _, err := QuantizeKernel(bad, 8); err == nil {
		t.Error("inconsistent model accepted")
	}
}

// decodedSV returns the decoded support vectors of q (SupportVector).
func decodedSV(q *Kernel) [][]float64 {
	sv := make([][]float64, q.NumSupportVectors())
	for i := range sv {
		sv[i] = q.SupportVector(make([]float64, q.NumFeatures()), i)
	}
	return sv
}

// decodedDecisions evaluates the quantized model q on the dense row x
// straight from its definition, with the decoded support vectors svs and
// coefficients (SupportVector, Coef), in float64: an evaluation that
// shares nothing with the predictors' column sums and input codes.
func decodedDecisions(q *Kernel, svs [][]float64, x []float32) []float64 {
	l := q.NumSupportVectors()
	k := q.KernelFunc()
	kv := make([]float64, l)
	var xx float64
	for _, v := range x {
		xx += float64(v) * float64(v)
	}
	for i, sv := range svs {
		var dot, ss float64
		for j, v := range sv {
			dot += float64(x[j]) * v
			ss += v * v
		}
		kv[i] = k.FromDot(xx, ss, dot)
	}
	dec := make([]float64, q.NumDecisionValues())
	if q.SVMType() != core.CSVC {
		for i := range l {
			dec[0] += q.Coef(0, i) * kv[i]
		}
		dec[0] -= q.Rho()[0]
		return dec
	}
	numSV := q.NumSV()
	start := make([]int, len(numSV)+1)
	for c, n := range numSV {
		start[c+1] = start[c] + int(n)
	}
	p := 0
	for i := range numSV {
		for j := i + 1; j < len(numSV); j++ {
			for s := start[i]; s < start[i+1]; s++ {
				dec[p] += q.Coef(j-1, s) * kv[s]
			}
			for s := start[j]; s < start[j+1]; s++ {
				dec[p] += q.Coef(i, s) * kv[s]
			}
			dec[p] -= q.Rho()[p]
			p++
		}
	}
	return dec
}

// TestKernelBounds checks every decision value of every test row, dense
// and sparse, for every kernel case and both widths, against the float
// model's, within ErrorBound; and, on 20 rows of each, against the
// decoded model evaluated from its definition.
func TestKernelBounds(t *testing.T) {
	for _, c := range kernelCases {
		m := c.model(t)
		te := c.test(t)
		for _, bits := range []int{8, 16} {
			q, err := QuantizeKernel(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			nd, nf := q.NumDecisionValues(), q.NumFeatures()
			f, g, b := make([]float64, nd), make([]float64, nd), make([]float64, nd)
			var dense, sparse errorStats
			xbuf := make([]float32, nf)
			svs := decodedSV(q)
			var maxDecoded float64
			for i := range te.Len() {
				idx, val := sparseRow(te, i)
				m.DecisionSparse(f, idx, val)
				q.DecisionSparse(g, idx, val)
				q.ErrorBoundSparse(b, idx, val)
				sparse.add(t, c.name+" sparse", g, f, b)

				x := denseRowTo(xbuf, te, i)
				if !te.IsDense() {
					// Dense rows cannot hold a sparse test row's features
					// past the model's, which RBF counts: compare with the
					// float model on the same dense row.
					m.DecisionDense(f, x)
				}
				q.DecisionDense(g, x)
				q.ErrorBoundDense(b, x)
				dense.add(t, c.name+" dense", g, f, b)

				if i%max(1, te.Len()/20) == 0 { // 20 rows: the definition costs l × nf a row
					ref := decodedDecisions(q, svs, x)
					for k := range ref {
						// The predictors differ from the definition by the
						// input's rounding (2^-25 relative) and roundings.
						maxDecoded = max(maxDecoded, math.Abs(ref[k]-g[k])/(1+math.Abs(ref[k])))
					}
				}
			}
			if maxDecoded > 1e-5 {
				t.Errorf("%s int%d: predictors differ from the decoded model by %g (relative)", c.name, bits, maxDecoded)
			}
			t.Logf("%-22s int%-2d %-6s: %5d values, max |error| %.3g, max bound %.3g, max error/bound %.4f (sparse) %.4f (dense); vs decoded model %.2g",
				c.name, bits, map[bool]string{true: "dense", false: "sparse"}[q.DenseLayout()],
				sparse.values+dense.values, max(sparse.maxErr, dense.maxErr), max(sparse.maxBound, dense.maxBound),
				sparse.maxRatio, dense.maxRatio, maxDecoded)
		}
	}
}

// TestKernelAcceptance checks the size and accuracy goals on the kernel
// acceptance models (svmgo train defaults on breast_cancer and digits).
func TestKernelAcceptance(t *testing.T) {
	for _, c := range kernelCases[:2] {
		m := c.model(t)
		te := c.test(t)
		floatSize := floatFileSize(t, m)
		floatAcc := accuracy(m.PredictBatch(make([]float64, te.Len()), te), te)
		for _, bits := range []int{8, 16} {
			q, err := QuantizeKernel(m, bits)
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

// TestKernelRegressionAndOneClass checks the ε-SVR model's mean squared
// error and the one-class model's predictions against the float models'.
func TestKernelRegressionAndOneClass(t *testing.T) {
	svr, oc := kernelCases[2], kernelCases[3]
	te := svr.test(t)
	m := svr.model(t)
	floatMSE := core.ScorePredictions(m.PredictBatch(make([]float64, te.Len()), te), te.Labels(), true).MSE
	for _, bits := range []int{8, 16} {
		q, err := QuantizeKernel(m, bits)
		if err != nil {
			t.Fatal(err)
		}
		if !q.IsRegression() || q.NumClasses() != 2 || q.Labels() != nil {
			t.Fatalf("ε-SVR shape: regression %v, %d classes, labels %v", q.IsRegression(), q.NumClasses(), q.Labels())
		}
		mse := core.ScorePredictions(q.PredictBatch(make([]float64, te.Len()), te), te.Labels(), true).MSE
		t.Logf("diabetes ε-SVR int%d: MSE %.4f (float32 %.4f)", bits, mse, floatMSE)
		if math.Abs(mse-floatMSE) > 1e-3*floatMSE {
			t.Errorf("int%d: MSE %v, float %v", bits, mse, floatMSE)
		}
	}
	m = oc.model(t)
	te = oc.test(t)
	want := m.PredictBatch(make([]float64, te.Len()), te)
	for _, bits := range []int{8, 16} {
		q, err := QuantizeKernel(m, bits)
		if err != nil {
			t.Fatal(err)
		}
		got := q.PredictBatch(make([]float64, te.Len()), te)
		differ := 0
		for i := range got {
			if got[i] != 1 && got[i] != -1 {
				t.Fatalf("one-class prediction %v", got[i])
			}
			if got[i] != want[i] {
				differ++
			}
		}
		if differ > 1 {
			t.Errorf("one-class int%d: %d of %d predictions differ", bits, differ, len(got))
		}
	}
}

// TestKernelProbability compares the probabilities of a -b 1 model with
// the float model's (core's coupling of the quantized decision values).
func TestKernelProbability(t *testing.T) {
	c := kernelCases[6] // digits, linear kernel, -b 1
	m := c.model(t)
	te := c.test(t)
	for _, bits := range []int{8, 16} {
		q, err := QuantizeKernel(m, bits)
		if err != nil {
			t.Fatal(err)
		}
		if !q.HasProbability() {
			t.Fatal("no probability estimates")
		}
		nr := q.NumClasses()
		pf, pq := make([]float64, nr), make([]float64, nr)
		var maxDiff float64
		for i := range te.Len() {
			x := denseRow(te, i, q.NumFeatures())
			m.ProbabilityDense(pf, x)
			q.ProbabilityDense(pq, x)
			var sum float64
			for k := range pq {
				sum += pq[k]
				maxDiff = max(maxDiff, math.Abs(pq[k]-pf[k]))
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("row %d: probabilities sum to %v", i, sum)
			}
			idx, val := sparseRow(te, i)
			ps := q.ProbabilitySparse(make([]float64, nr), idx, val)
			for k := range ps {
				if ps[k] != pq[k] {
					t.Fatalf("row %d: sparse and dense probabilities differ", i)
				}
			}
		}
		t.Logf("digits -b 1 int%d: largest probability difference %.3g", bits, maxDiff)
		if limit := map[int]float64{8: 0.05, 16: 1e-3}[bits]; maxDiff > limit {
			t.Errorf("int%d: probabilities differ by %v from the float model's", bits, maxDiff)
		}
	}
	// Models without class probabilities panic, as core's do.
	q, err := QuantizeKernel(kernelCases[0].model(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("ProbabilityDense of a model without estimates did not panic")
		}
	}()
	q.ProbabilityDense(make([]float64, 2), make([]float32, q.NumFeatures()))
}

// TestKernelPredictConsistent checks the predictors against
// core.KernelPrediction of the decision values, LabelOf, the batch
// predictors (dense sets narrower and wider than the model included) and
// PredictBatchParallel.
func TestKernelPredictConsistent(t *testing.T) {
	for _, c := range kernelCases {
		m := c.model(t)
		te := c.test(t)
		q, err := QuantizeKernel(m, 8)
		if err != nil {
			t.Fatal(err)
		}
		nf, nd := q.NumFeatures(), q.NumDecisionValues()
		batch := q.PredictBatch(make([]float64, te.Len()), te)
		par := q.PredictBatchParallel(make([]float64, te.Len()), te, 3)
		dec := make([]float64, nd)
		votes := make([]float64, q.NumClasses())
		for i := range min(te.Len(), 200) {
			idx, val := sparseRow(te, i)
			want := core.KernelPrediction(q.SVMType(), q.Labels(), q.DecisionSparse(dec, idx, val), votes)
			// Batches of int8 models take the blocked path (kernelblock.go),
			// and so do single rows but for ε-SVR: the same labels, regression
			// batch values within its float32 rounding, single ones exact.
			near := func(v float64) bool {
				return v == want || q.IsRegression() && math.Abs(v-want) <= 1e-5*(1+math.Abs(want))
			}
			got := q.PredictSparse(idx, val)
			if got != want || q.LabelOf(dec) != want || !near(batch[i]) || !near(par[i]) {
				t.Fatalf("%s row %d: PredictSparse %v, LabelOf %v, PredictBatch %v, parallel %v; want %v",
					c.name, i, got, q.LabelOf(dec), batch[i], par[i], want)
			}
			x := denseRow(te, i, nf)
			gotDense := q.PredictDense(x)
			if gotDense != core.KernelPrediction(q.SVMType(), q.Labels(), q.DecisionDense(dec, x), votes) {
				t.Fatalf("%s row %d: PredictDense disagrees with DecisionDense", c.name, i)
			}
			// A single row and the same row in a batch agree bit for bit
			// (a dense set's rows are encoded as PredictDense encodes them).
			single := got
			if te.IsDense() {
				single = gotDense
			}
			if !q.IsRegression() && (single != batch[i] || par[i] != batch[i]) {
				t.Fatalf("%s row %d: single-row prediction %v, PredictBatch %v, parallel %v", c.name, i, single, batch[i], par[i])
			}
		}
		for _, width := range []int{nf - 1, nf + 2} {
			ds := data.NewDense(10, width)
			for i := range 10 {
				row := make([]float32, width)
				copy(row, denseRow(te, i, nf))
				if width > nf {
					row[nf], row[nf+1] = 0.5, -2
				}
				if err := ds.AppendDense(te.Label(i), row); err != nil {
					t.Fatal(err)
				}
			}
			got := q.PredictBatch(make([]float64, 10), ds)
			want := m.PredictBatch(make([]float64, 10), ds)
			for i := range 10 {
				idx, val := sparseRow(ds, i)
				if w := q.PredictSparse(idx, val); got[i] != w && !(q.IsRegression() && math.Abs(got[i]-w) <= 1e-5*(1+math.Abs(w))) {
					t.Fatalf("%s width %d row %d: PredictBatch %v, PredictSparse %v", c.name, width, i, got[i], q.PredictSparse(idx, val))
				}
				_ = want
			}
		}
		var x []float32
		for i := range 4 {
			x = append(x, denseRow(te, i, nf)...)
		}
		got := q.PredictDenseBatch(make([]float64, 4), x)
		for i := range 4 {
			if want := q.PredictDense(x[i*nf : i*nf+nf]); got[i] != want && !(q.IsRegression() && math.Abs(got[i]-want) <= 1e-5*(1+math.Abs(want))) {
				t.Fatalf("%s: PredictDenseBatch row %d %v, PredictDense %v", c.name, i, got[i], want)
			}
		}
	}
}

// TestKernelAllocs checks that every predictor allocates nothing once
// warm, for a small model and for ones whose scratch is larger.
func TestKernelAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops buffers under the race detector")
	}
	for _, c := range []kernelCase{kernelCases[0], kernelCases[1], kernelCases[6], kernelCases[7]} {
		m := c.model(t)
		te := c.test(t)
		for _, bits := range []int{8, 16} {
			q, err := QuantizeKernel(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			x := denseRow(te, 0, q.NumFeatures())
			idx, val := sparseRow(te, 0)
			dst := make([]float64, max(q.NumDecisionValues(), q.NumClasses()))
			batch := make([]float64, 20)
			small := subset(te, 20)
			fs := map[string]func(){
				"DecisionDense":  func() { q.DecisionDense(dst, x) },
				"DecisionSparse": func() { q.DecisionSparse(dst, idx, val) },
				"PredictDense":   func() { q.PredictDense(x) },
				"PredictSparse":  func() { q.PredictSparse(idx, val) },
				"LabelOf":        func() { q.LabelOf(dst) },
				"PredictBatch":   func() { q.PredictBatch(batch, small) },
			}
			if q.HasProbability() {
				fs["ProbabilityDense"] = func() { q.ProbabilityDense(dst, x) }
				fs["ProbabilitySparse"] = func() { q.ProbabilitySparse(dst, idx, val) }
			}
			for name, f := range fs {
				if a := testing.AllocsPerRun(20, f); a != 0 {
					t.Errorf("%s int%d: %s allocates %v times", c.name, bits, name, a)
				}
			}
		}
	}
}

// TestKernelConcurrent predicts with one model from several goroutines
// (run with -race) and checks the results against a sequential run.
func TestKernelConcurrent(t *testing.T) {
	c := kernelCases[1]
	te := c.test(t)
	q, err := QuantizeKernel(c.model(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	want := q.PredictBatch(make([]float64, te.Len()), te)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			dec := make([]float64, q.NumDecisionValues())
			for i := w; i < te.Len(); i += 4 {
				idx, val := sparseRow(te, i)
				if got := q.PredictSparse(idx, val); got != want[i] {
					t.Errorf("row %d: %v, want %v", i, got, want[i])
					return
				}
				q.DecisionDense(dec, te.DenseRow(i))
			}
		})
	}
	wg.Wait()
}

// TestKernelNonFinite checks that non-finite inputs give values, not
// panics.
func TestKernelNonFinite(t *testing.T) {
	q, err := QuantizeKernel(kernelCases[1].model(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32} {
		x := make([]float32, q.NumFeatures())
		x[3], x[10] = v, 1
		q.PredictDense(x)
		q.DecisionSparse(make([]float64, q.NumDecisionValues()), []int32{3, 10}, []float32{v, 1})
	}
}

func TestKernelPanics(t *testing.T) {
	q, err := QuantizeKernel(handKernel(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(){
		"DecisionDense short row":  func() { q.DecisionDense(make([]float64, 1), []float32{1}) },
		"PredictDense long row":    func() { q.PredictDense([]float32{1, 2, 3}) },
		"DecisionSparse lengths":   func() { q.DecisionSparse(make([]float64, 1), []int32{1}, nil) },
		"PredictSparse lengths":    func() { q.PredictSparse([]int32{1}, nil) },
		"ErrorBoundSparse lengths": func() { q.ErrorBoundSparse(make([]float64, 1), nil, []float32{1}) },
		"PredictDenseBatch size":   func() { q.PredictDenseBatch(make([]float64, 2), make([]float32, 3)) },
		"SupportVector range":      func() { q.SupportVector(make([]float64, 2), 3) },
		"Coef range":               func() { q.Coef(1, 0) },
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
