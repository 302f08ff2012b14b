package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/shareddata"
)

// rowAtATime returns a copy of m that predicts a row at a time in float64
// (the reference the blocked path is held to).
func rowAtATime(t *testing.T, m *KernelModel) *KernelModel {
	t.Helper()
	c := *m
	c.pre = nil
	if err := c.Init(); err != nil {
		t.Fatal(err)
	}
	noBlocks(c.pre)
	return &c
}

// noBlocks makes a freshly initialised model predict a row at a time: the
// lazy pack is marked done with no blocks.
func noBlocks(pre *kernelPre) { pre.blkOnce.Do(func() {}) }

// decisionBound returns, per decision value of a row, Σ|coef·K| + |ρ| over
// what it adds (kv are the row's float64 kernel values).
func decisionBound(m *KernelModel, kv []float64) []float64 {
	abs := make([]float64, len(kv))
	for i, v := range kv {
		abs[i] = math.Abs(v)
	}
	coef := make([]float64, len(m.Coef))
	for i, c := range m.Coef {
		coef[i] = math.Abs(c)
	}
	bound := make([]float64, m.NumDecisionValues())
	rho := make([]float64, len(m.Rho))
	KernelDecisions(m.SVMType, bound, abs, coef, rho, m.prepared().start)
	for p := range bound {
		bound[p] += math.Abs(m.Rho[p])
	}
	return bound
}

// rbfCancel returns the extra error RBF's ‖x‖² + ‖sv‖² − 2x·sv takes in
// float32 when the rows are long: γ·2⁻²⁴·√(nf+1)·(‖x‖² + max ‖sv‖²) in
// the exponent, times the largest Σ|coef·K|.
func rbfCancel(m *KernelModel, xx float64) float64 {
	if m.Kernel.Type != RBFKernel {
		return 0
	}
	mx := 0.0
	for _, v := range m.prepared().sqnorm {
		mx = max(mx, v)
	}
	return m.Kernel.Gamma * 0x1p-24 * math.Sqrt(float64(m.NumFeatures)+1) * (xx + mx)
}

// checkBlockRow compares the blocked decision values of one row (dense x,
// or sparse idx/val) with the reference.
func checkBlockRow(t *testing.T, name string, m, ref *KernelModel, x []float32, idx []int32, val []float32, sparse bool) {
	t.Helper()
	pre, rpre := m.prepared(), ref.prepared()
	b := pre.blocks(m)
	if b == nil {
		t.Fatalf("%s: model not packed", name)
	}
	s := b.rowPool.Get().(*blockScratch)
	defer b.rowPool.Put(s)
	got := m.blockRow(b, s, x, idx, val, sparse)
	want := make([]float64, m.NumDecisionValues())
	kv := make([]float64, m.SV.Len())
	var xx float64
	if sparse {
		ref.DecisionSparse(want, idx, val)
		ref.kernelSparse(kv, idx, val, rpre)
		xx = sqSparse32(val)
	} else {
		ref.kernelDense(kv, x, rpre)
		xx = dotDense32(x, x)
		if len(x) == m.NumFeatures {
			ref.DecisionDense(want, x)
		} else {
			ref.decisions(want, kv, rpre)
		}
	}
	bound := decisionBound(m, kv)
	for p := range want {
		tol := blockDecisionTol*bound[p] + rbfCancel(m, xx)*bound[p]
		if d := math.Abs(got[p] - want[p]); !(d <= tol) {
			t.Fatalf("%s: decision %d = %.9g, row at a time %.9g (diff %.3g > %.3g)", name, p, got[p], want[p], d, tol)
		}
	}
}

// randomData returns n rows of nf features in [−1, 1], about a third of
// them zero, labelled by class (nr classes from a linear rule) or by a
// smooth target when nr == 0; dense or sparse storage.
func randomData(r *rand.Rand, n, nf, nr int, dense bool) *data.Dataset {
	var ds *data.Dataset
	if dense {
		ds = data.NewDense(n, nf)
	} else {
		ds = data.NewSparse(n, n*nf, 0)
	}
	x := make([]float32, nf)
	for range n {
		var s float64
		for j := range x {
			x[j] = 0
			if r.IntN(3) > 0 {
				x[j] = float32(r.Float64()*2 - 1)
			}
			s += float64(x[j]) * float64(j%5-2)
		}
		y := math.Sin(s)
		if nr > 0 {
			y = float64(int(math.Abs(s*2)) % nr)
		}
		if err := ds.AppendDense(y, x); err != nil {
			panic(err)
		}
	}
	return ds
}

func TestBlockedDecisionsMatchRowAtATime(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	kernels := []Kernel{
		{Type: LinearKernel},
		{Type: PolyKernel, Degree: 3, Gamma: 0.3, Coef0: 1},
		{Type: RBFKernel, Gamma: 0.5},
		{Type: SigmoidKernel, Gamma: 0.05, Coef0: -0.5},
	}
	types := []struct {
		t  SVMType
		nr int
	}{{CSVC, 3}, {CSVC, 2}, {EpsSVR, 0}, {OneClass, 2}}
	const nf = 23
	for _, dense := range []bool{true, false} {
		for _, k := range kernels {
			for _, ty := range types {
				name := fmt.Sprintf("%v/%v/%d classes/dense=%v", k.Type, ty.t, ty.nr, dense)
				ds := randomData(r, 150, nf, ty.nr, dense)
				p := DefaultKernelParams()
				p.SVMType, p.Kernel, p.C = ty.t, k, 4
				m, _, err := TrainKernel(ds, p)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				ref := rowAtATime(t, m)
				test := randomData(r, 40, nf, ty.nr, true)
				for i := range test.Len() {
					x := test.DenseRow(i)
					checkBlockRow(t, name+"/dense row", m, ref, x, nil, nil, false)
					checkBlockRow(t, name+"/narrow row", m, ref, x[:nf-3], nil, nil, false)
					checkBlockRow(t, name+"/wide row", m, ref, append(append([]float32(nil), x...), 0.5, -0.25), nil, nil, false)
					var idx []int32
					var val []float32
					for j, v := range x {
						if v != 0 {
							idx, val = append(idx, int32(j)), append(val, v)
						}
					}
					idx, val = append(idx, nf+4), append(val, 0.75) // past the model: only in ‖x‖²
					checkBlockRow(t, name+"/sparse row", m, ref, nil, idx, val, true)
				}
			}
		}
	}
}

// TestBlockedSpecialRows: an all-zero row and a model of one support
// vector per class.
func TestBlockedSpecialRows(t *testing.T) {
	ds := data.NewDense(2, 3)
	_ = ds.AppendDense(1, []float32{1, 0, 0})
	_ = ds.AppendDense(2, []float32{0, 1, 0})
	p := DefaultKernelParams()
	m, _, err := TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	ref := rowAtATime(t, m)
	for _, x := range [][]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.4, 0.6, 7}} {
		checkBlockRow(t, fmt.Sprint(x), m, ref, x, nil, nil, false)
		if got, want := m.PredictDense(x), ref.PredictDense(x); got != want {
			t.Fatalf("%v: PredictDense %v, row at a time %v", x, got, want)
		}
	}
	checkBlockRow(t, "empty sparse", m, ref, nil, nil, nil, true)
}

// sharedCase is a data set of ../shared/data with the options it is
// benchmarked with.
type sharedCase struct {
	name, train, test string
	params            func(p *KernelParams)
	maxTrain          int // 0: every row
}

// shortSkipsShared are the shared cases -short leaves out: the trainings
// that take most of the test's time (shuttle's 43,500 rows twice, digits'
// polynomial model), whose blocked paths the other cases also run.
var shortSkipsShared = map[string]bool{"shuttle": true, "shuttle nu": true, "digits poly": true, "debdesc_bin": true}

func sharedCases() []sharedCase {
	const dir = "../../shared/data/"
	return []sharedCase{
		{name: "heart_scale", train: dir + "heart_scale", test: dir + "heart_scale"},
		{name: "breast_cancer", train: dir + "breast_cancer.train", test: dir + "breast_cancer.test"},
		{name: "digits", train: dir + "digits.train", test: dir + "digits.test"},
		{name: "digits poly", train: dir + "digits.train", test: dir + "digits.test",
			params: func(p *KernelParams) { p.Kernel = Kernel{Type: PolyKernel, Degree: 3, Gamma: 1.0 / 64, Coef0: 1} }},
		{name: "diabetes svr", train: dir + "diabetes.train", test: dir + "diabetes.test",
			params: func(p *KernelParams) { p.SVMType, p.C = EpsSVR, 100 }},
		{name: "shuttle", train: dir + "shuttle.train", test: dir + "shuttle.test",
			params: func(p *KernelParams) { p.C, p.Kernel.Gamma = 100, 1 }},
		// ν-SVC at a tiny ν: coefficients α/r up to 6·10⁵ on kernel values
		// near 1, so float32 sums lose the sign of decision values of
		// order 0.01 (the parity case shuttle_nu).
		{name: "shuttle nu", train: dir + "shuttle.train", test: dir + "shuttle.test",
			params: func(p *KernelParams) { p.SVMType, p.Nu, p.Kernel.Gamma = NuSVC, 1e-4, 0.01 }},
		{name: "debdesc_bin", train: dir + "debdesc_bin.train", test: dir + "debdesc_bin.test", maxTrain: 2000},
	}
}

// TestBlockedLabelsSharedData trains each shared data set's model and
// checks on its test set the blocked decision values against the stated
// accuracy and the blocked batch predictions against the row-at-a-time
// ones: the same labels, regression values within the tolerance.
func TestBlockedLabelsSharedData(t *testing.T) {
	for _, c := range sharedCases() {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && shortSkipsShared[c.name] {
				t.Skip("-short: a larger training; digits and diabetes cover the blocked paths")
			}
			if _, err := os.Stat(c.train); err != nil {
				shareddata.Missing(t, c.train)
			}
			train, err := data.ReadFile(c.train, data.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.maxTrain > 0 && train.Len() > c.maxTrain {
				train.Truncate(c.maxTrain)
			}
			test, err := data.ReadFile(c.test, data.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := DefaultKernelParams()
			if c.params != nil {
				c.params(&p)
			}
			m, _, err := TrainKernel(train, p)
			if err != nil {
				t.Fatal(err)
			}
			ref := rowAtATime(t, m)
			// The stated accuracy, which refineTies relies on, on real rows.
			if test.IsDense() && m.prepared().blocks(m) != nil {
				for i := range test.Len() {
					checkBlockRow(t, c.name, m, ref, test.DenseRow(i), nil, nil, false)
				}
			}
			want := ref.PredictBatch(make([]float64, test.Len()), test)
			got := m.PredictBatchParallel(make([]float64, test.Len()), test, 2)
			single := make([]float64, test.Len())
			for i := range single {
				if test.IsDense() && test.NumFeatures() == m.NumFeatures {
					single[i] = m.PredictDense(test.DenseRow(i))
				} else if !test.IsDense() {
					single[i] = m.PredictSparse(test.SparseRow(i))
				} else {
					single[i] = m.predictDenseAnyWidth(test.DenseRow(i))
				}
			}
			// The same rows in CSR form through PredictCSRBatch.
			indptr := []int64{0}
			var indices []int32
			var values []float32
			for i := range test.Len() {
				if test.IsDense() {
					for j, v := range test.DenseRow(i) {
						if v != 0 {
							indices, values = append(indices, int32(j)), append(values, v)
						}
					}
				} else {
					idx, val := test.SparseRow(i)
					indices, values = append(indices, idx...), append(values, val...)
				}
				indptr = append(indptr, int64(len(indices)))
			}
			csr := m.PredictCSRBatch(make([]float64, test.Len()), indptr, indices, values)
			for i := range csr {
				if csr[i] != got[i] && !(m.IsRegression() && math.Abs(csr[i]-got[i]) <= 1e-4*(1+math.Abs(got[i]))) {
					t.Fatalf("row %d: PredictCSRBatch %v, PredictBatchParallel %v", i, csr[i], got[i])
				}
			}
			differ := 0
			for i := range want {
				if m.IsRegression() {
					if d := math.Abs(got[i] - want[i]); d > 1e-4*(1+math.Abs(want[i])) {
						t.Errorf("row %d: value %v, row at a time %v", i, got[i], want[i])
					}
					continue
				}
				if got[i] != want[i] || single[i] != want[i] {
					differ++
					if differ < 5 {
						t.Errorf("row %d: batch %v, single %v, row at a time %v", i, got[i], single[i], want[i])
					}
				}
			}
			if differ > 0 {
				t.Errorf("%d of %d labels differ", differ, len(want))
			}
			t.Logf("%d rows, %d support vectors, %d features, packed: %v", len(want), m.SV.Len(), m.NumFeatures, m.prepared().blocks(m) != nil)
		})
	}
}

func TestBlockedPredictNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	r := rand.New(rand.NewPCG(3, 3))
	ds := randomData(r, 200, 30, 4, true)
	p := DefaultKernelParams()
	m, _, err := TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	x := ds.DenseRow(3)
	idx, val := []int32{0, 4, 9}, []float32{0.5, -1, 0.25}
	dst := make([]float64, ds.Len())
	mat := ds.DenseMatrix()[:ds.Len()*30]
	m.PredictBatch(dst, ds)
	m.PredictDenseBatch(dst, mat)
	indptr := []int64{0, 3, 3, 6}
	indices := []int32{0, 4, 9, 1, 2, 29}
	values := []float32{0.5, -1, 0.25, 1, 1, -0.5}
	csr := make([]float64, 3)
	m.PredictCSRBatch(csr, indptr, indices, values)
	for name, f := range map[string]func(){
		"PredictCSRBatch":   func() { m.PredictCSRBatch(csr, indptr, indices, values) },
		"PredictDense":      func() { m.PredictDense(x) },
		"PredictSparse":     func() { m.PredictSparse(idx, val) },
		"PredictBatch":      func() { m.PredictBatch(dst, ds) },
		"PredictDenseBatch": func() { m.PredictDenseBatch(dst, mat) },
	} {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s: %v allocations a call, want 0", name, a)
		}
	}
}

// TestBlocksPackedOnFirstPredict checks that training (Init) leaves the
// support vectors unpacked, and that goroutines racing to make the first
// prediction share one packing and get exactly the labels of a copy that
// packed alone. Under -race it also checks the packing is published
// safely.
func TestBlocksPackedOnFirstPredict(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	ds := randomData(r, 300, 12, 3, true)
	m, _, err := TrainKernel(ds, DefaultKernelParams())
	if err != nil {
		t.Fatal(err)
	}
	if m.prepared().blk != nil {
		t.Fatal("Init packed the support vectors; want them packed by the first prediction")
	}
	seq := *m
	seq.pre = nil
	if err := seq.Init(); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, ds.Len())
	for i := range want {
		want[i] = seq.PredictDense(ds.DenseRow(i))
	}

	const workers = 4
	got := make([][]float64, workers)
	blks := make([]*kernelBlocks, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			got[w] = make([]float64, ds.Len())
			for i := range got[w] {
				got[w][i] = m.PredictDense(ds.DenseRow(i))
			}
			blks[w] = m.prepared().blocks(m)
		})
	}
	wg.Wait()
	if blks[0] == nil {
		t.Fatal("model not packed after predicting")
	}
	for w := range workers {
		if blks[w] != blks[0] {
			t.Errorf("worker %d sees another packing", w)
		}
		for i, v := range got[w] {
			if v != want[i] {
				t.Fatalf("worker %d row %d: label %v, packed alone %v", w, i, v, want[i])
			}
		}
	}
}

// TestBlockedRefinesTies: on a ν-SVC model with large coefficients on
// kernel values near 1 (small ν and γ), every blocked decision value that
// refineTies recomputes equals the row-at-a-time one bit for bit, every
// other one has the row-at-a-time sign, the labels are the row-at-a-time
// ones, and some values were recomputed (without which the test would
// check nothing). Refining allocates nothing. A C-SVC model of the same
// data does not refine (blockRefineAbove).
func TestBlockedRefinesTies(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 2))
	const nf = 6
	ds := randomData(r, 400, nf, 3, true)
	p := DefaultKernelParams()
	p.SVMType, p.Nu, p.Kernel.Gamma = NuSVC, 0.05, 0.005
	m, _, err := TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	ref := rowAtATime(t, m)
	b := m.prepared().blocks(m)
	if b == nil || b.absCoef == nil {
		t.Fatalf("model not packed (%v) or not refining its ties", b == nil)
	}
	// The same data at C-SVC's coefficients of order 1: nothing to refine
	// (blockRefineAbove).
	p.SVMType = CSVC
	mc, _, err := TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	if bc := mc.prepared().blocks(mc); bc == nil || bc.absCoef != nil {
		t.Errorf("C-SVC model not packed (%v) or refining its ties", bc == nil)
	}
	s := b.rowPool.Get().(*blockScratch)
	defer b.rowPool.Put(s)
	test := randomData(r, 2000, nf, 3, true)
	raw := make([]float64, m.NumDecisionValues())
	want := make([]float64, m.NumDecisionValues())
	refined, wrongSign := 0, 0
	for i := range test.Len() {
		x := test.DenseRow(i)
		a := b.stageRow(s, x, nil, nil, false)
		m.kernelRows(b, s, a, b.nf, 1)
		m.blockDecisions(b, s, raw, s.kv[:b.l])
		label := m.blockLabel(b, s, s.kv[:b.l], a, s.xx[0])
		ref.DecisionDense(want, x)
		for q := range want {
			if (raw[q] > 0) != (want[q] > 0) {
				wrongSign++
			}
			switch {
			case s.dec[q] != raw[q]:
				refined++
				if s.dec[q] != want[q] {
					t.Fatalf("row %d, pair %d: refined %.17g, row at a time %.17g", i, q, s.dec[q], want[q])
				}
			case (raw[q] > 0) != (want[q] > 0):
				t.Fatalf("row %d, pair %d: blocked %.9g kept, row at a time %.9g", i, q, raw[q], want[q])
			}
		}
		if w := ref.PredictDense(x); label != w || m.PredictDense(x) != w {
			t.Fatalf("row %d: blocked label %v (PredictDense %v), row at a time %v", i, label, m.PredictDense(x), w)
		}
	}
	t.Logf("%d of %d decision values recomputed; %d blocked signs were wrong", refined, test.Len()*len(want), wrongSign)
	if refined == 0 {
		t.Fatal("no decision value was recomputed: the model does not exercise refineTies")
	}
	if raceEnabled {
		return
	}
	// A row that needs refining, through the public single-row predictor.
	for i := range test.Len() {
		x := test.DenseRow(i)
		a := b.stageRow(s, x, nil, nil, false)
		m.kernelRows(b, s, a, b.nf, 1)
		m.blockDecisions(b, s, raw, s.kv[:b.l])
		m.blockLabel(b, s, s.kv[:b.l], a, s.xx[0])
		if slices.Equal(raw, s.dec) {
			continue
		}
		if n := testing.AllocsPerRun(20, func() { m.PredictDense(x) }); n != 0 {
			t.Errorf("PredictDense of a refined row: %v allocations a call, want 0", n)
		}
		break
	}
}

// TestBlockedDecisionsLongCancellingSums holds KernelDecisions32 to
// blockDecisionTol where float32 rounding is worst: two classes of 3,000
// support vectors at kernel values near 1, whose coefficient sums cancel
// to decision values a million times smaller than Σ|coef·K| (shuttle's
// model at the default C has such a pair; armv7's portable simd.Dot, four
// float32 partial sums, missed the bound by twice on it, and 11 labels).
// make cross-armv7 and cross-arm64 run it on the portable paths.
func TestBlockedDecisionsLongCancellingSums(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 7))
	const n = 3000 // support vectors a class
	l := 2 * n
	kv32, coef32 := make([]float32, l), make([]float32, l)
	kv, coef := make([]float64, l), make([]float64, l)
	start := []int{0, n, l}
	part := make([]float32, 2)
	dec, want := make([]float64, 1), make([]float64, 1)
	worst := 0.0
	for trial := range 200 {
		var sum, abs float64
		for s := range kv32 {
			kv32[s] = float32(1 - 0.01*r.Float64())
			c := r.Float64()
			if s >= n {
				c = -c
			}
			coef32[s] = float32(c)
			kv[s], coef[s] = float64(kv32[s]), float64(coef32[s])
			sum += coef[s] * kv[s]
			abs += math.Abs(coef[s] * kv[s])
		}
		rho := []float64{sum + 1e-4*(r.Float64()-0.5)} // |dec| ≤ 5·10⁻⁵
		KernelDecisions32(CSVC, dec, kv32, coef32, rho, start, part)
		KernelDecisions(CSVC, want, kv, coef, rho, start)
		err := math.Abs(dec[0]-want[0]) / (abs + math.Abs(rho[0]))
		worst = max(worst, err)
		if err > blockDecisionTol {
			t.Fatalf("trial %d: decision %.9g, float64 %.9g: error %.3g of Σ|coef·K| + |ρ|, stated %.3g", trial, dec[0], want[0], err, blockDecisionTol)
		}
	}
	t.Logf("largest error %.3g of Σ|coef·K| + |ρ| (stated %.3g; wide simd.Dot: %v)", worst, blockDecisionTol, wideDot)
}

// TestClassSumsMatchKernelDecisions32 holds the batch path's class sums
// (classSums32, a class at a time over a block's rows) to the row-at-a-time
// KernelDecisions32's bit for bit, decision values included, on class
// sizes around simd.DotStrided's steps; on the portable path (no wide dot)
// the batch path does not take them.
func TestClassSumsMatchKernelDecisions32(t *testing.T) {
	if !wideDot {
		t.Skip("classSums32 runs on the wide dot only")
	}
	r := rand.New(rand.NewPCG(21, 22))
	start := []int{0, 1, 18, 18, 83, 200, 347}
	nr, l := len(start)-1, start[len(start)-1]
	w := nr * (nr - 1)
	const n, ldk = 9, 352
	kv := make([]float32, n*ldk)
	for i := range kv {
		kv[i] = r.Float32()
	}
	coef := make([]float32, (nr-1)*l)
	for i := range coef {
		coef[i] = float32(r.NormFloat64())
	}
	rho := make([]float64, nr*(nr-1)/2)
	for i := range rho {
		rho[i] = r.NormFloat64()
	}
	parts := make([]float32, n*w)
	classSums32(parts, kv, ldk, n, coef, l, start, nil)
	part := make([]float32, w)
	want := make([]float64, len(rho))
	got := make([]float64, len(rho))
	for row := range n {
		KernelDecisions32(CSVC, want, kv[row*ldk:][:l], coef, rho, start, part)
		for k := range w {
			if math.Float32bits(parts[row*w+k]) != math.Float32bits(part[k]) {
				t.Fatalf("row %d: class sum %d = %v, KernelDecisions32 %v", row, k, parts[row*w+k], part[k])
			}
		}
		svcDecisions(got, parts[row*w:][:w], rho, nr)
		for p := range want {
			if math.Float64bits(got[p]) != math.Float64bits(want[p]) {
				t.Fatalf("row %d: decision %d = %v, KernelDecisions32 %v", row, p, got[p], want[p])
			}
		}
	}
}

// TestBlockBatchSumsMatchRows checks that a batch block's fused path
// (blockBatch: the kernel function and the class sums a class at a time)
// gives each row the class sums, bit for bit, of the kernel values taken a
// whole row at a time (kernelRows) summed by KernelDecisions32, on every
// kernel of a 4-class model.
func TestBlockBatchSumsMatchRows(t *testing.T) {
	if !wideDot {
		t.Skip("the fused path runs on the wide dot only")
	}
	r := rand.New(rand.NewPCG(23, 24))
	const nf = 30
	ds := randomData(r, 300, nf, 4, true)
	for _, kt := range []KernelType{RBFKernel, PolyKernel, SigmoidKernel} {
		p := DefaultKernelParams()
		p.Kernel.Type = kt
		p.Kernel.Gamma = 0.05
		m, _, err := TrainKernel(ds, p)
		if err != nil {
			t.Fatal(err)
		}
		b := m.prepared().blocks(m)
		s := b.batchPool.Get().(*blockScratch)
		if s.parts == nil {
			t.Fatalf("%v: no batch class sums for a %d-class C-SVC model", kt, len(m.Labels))
		}
		n := min(b.rows, ds.Len())
		a := ds.DenseMatrix()[:n*nf]
		for i := range n {
			s.xx[i] = dotDense32(a[i*nf:][:nf], a[i*nf:][:nf])
		}
		m.blockBatch(b, s, make([]float64, n), a, n)
		got := slices.Clone(s.parts)
		m.kernelRows(b, s, a, nf, n)
		nr := len(m.pre.start) - 1
		w := nr * (nr - 1)
		for i := range n {
			KernelDecisions32(m.SVMType, s.dec, s.kv[i*b.lp:][:b.l], b.coef, m.Rho, m.pre.start, s.part)
			for k := range w {
				if math.Float32bits(got[i*w+k]) != math.Float32bits(s.part[k]) {
					t.Fatalf("%v row %d: class sum %d = %v, a row at a time %v", kt, i, k, got[i*w+k], s.part[k])
				}
			}
		}
		b.batchPool.Put(s)
	}
}
