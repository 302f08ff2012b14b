package core

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/feasible"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// extendDual returns d's vectors padded with zeros to l rows: the warm start
// of a run whose data set grew by appended rows.
func extendDual(d *KernelDual, l int) *KernelDual {
	w := &KernelDual{SVMType: d.SVMType, Pairs: d.Pairs, Gradient: d.Gradient}
	for _, a := range d.Alpha {
		w.Alpha = append(w.Alpha, append(append([]float64(nil), a...), make([]float64, l-len(a))...))
	}
	return w
}

// A warm start from the solution on the first 90% of digits.train reaches
// the cold optimum on all of it with a fraction of the kernel evaluations.
func TestKernelWarmStart(t *testing.T) {
	ds := readRefData(t, "digits.train")
	cold, warm, wdual := digitsWarmAfterAppend(t, ds, ds.Len()*9/10)
	co, wo := cold.Result.Objective, warm.Result.Objective
	if math.Abs(co-wo) > 1e-4*math.Abs(co) {
		t.Errorf("warm objective %.8g, cold %.8g", wo, co)
	}
	for k, s := range warm.Result.Subproblems {
		c := cold.Result.Subproblems[k]
		if math.Abs(s.Objective-c.Objective) > 1e-3*math.Abs(c.Objective) {
			t.Errorf("pair %d: warm objective %.8g, cold %.8g", k, s.Objective, c.Objective)
		}
	}
	ratio := float64(warm.Result.KernelEvals) / float64(cold.Result.KernelEvals)
	t.Logf("kernel evaluations: cold %d, warm %d (ratio %.3f); iterations cold %d, warm %d",
		cold.Result.KernelEvals, warm.Result.KernelEvals, ratio, cold.Result.Iterations, warm.Result.Iterations)
	// Issue 5's target. Measured 0.388: the 144 new rows' gradients from
	// their entries against the support vectors (about 0.1 of the cold
	// work), the rest the iterations, whose columns start uncached.
	if ratio > 0.4 {
		t.Errorf("warm start used %.1f%% of the cold run's kernel evaluations, want ≤ 40%%", 100*ratio)
	}
	checkStoredGradient(t, ds, warm.Kernel, wdual, 1, []int{0, 17, 44})
}

// A warm start after a handful of rows were added builds the new rows'
// gradients one row at a time against the support vectors
// (rebuildByRows, at most rowwiseUnknownMax per pair): the stored
// gradient after it is the directly summed one, and the model is the
// cold run's.
func TestKernelWarmStartFewRows(t *testing.T) {
	ds := readRefData(t, "digits.train")
	cold, warm, wdual := digitsWarmAfterAppend(t, ds, ds.Len()-rowwiseUnknownMax)
	if co, wo := cold.Result.Objective, warm.Result.Objective; math.Abs(co-wo) > 1e-4*math.Abs(co) {
		t.Errorf("warm objective %.8g, cold %.8g", wo, co)
	}
	checkStoredGradient(t, ds, warm.Kernel, wdual, 1, []int{0, 9, 17, 44})
}

// digitsWarmAfterAppend trains ds (digits) cold, and warm from a run on
// its first keep rows, with the default parameters at a fixed γ (so that
// both runs have the same kernel).
func digitsWarmAfterAppend(t *testing.T, ds *data.Dataset, keep int) (cold, warm *KernelModel, wdual *KernelDual) {
	t.Helper()
	p := DefaultKernelParams()
	p.Kernel.Gamma = 1.0 / 64
	tr, err := NewKernelTrainer(p, ds.Len(), ds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	if cold, _, err = tr.Train(ds, nil); err != nil {
		t.Fatal(err)
	}
	_, d, err := tr.Train(ds.Prefix(keep), nil)
	if err != nil {
		t.Fatal(err)
	}
	if warm, wdual, err = tr.Train(ds, extendDual(d, ds.Len())); err != nil {
		t.Fatal(err)
	}
	return cold, warm, wdual
}

// checkStoredGradient compares the stored G and Gbar of the C-SVC pairs
// listed with G_r = −1 + Σ_s y_r y_s K(x_r, x_s) α_s and Gbar_r = Σ_{s:
// α_s = C_s} C_s y_r y_s K(x_r, x_s) summed directly over the pair's rows
// (K rounded to float32 as the solver's Q is), relative to the sum of the
// terms' magnitudes. C is the same for every class (no weights).
func checkStoredGradient(t *testing.T, ds *data.Dataset, k Kernel, d *KernelDual, C float64, pairs []int) {
	t.Helper()
	g := d.Gradient
	if g == nil || g.Rows != ds.Len() {
		t.Fatalf("dual carries no gradient for %d rows: %+v", ds.Len(), g)
	}
	kr := newKernelRows(ds, k, make([]float64, ds.Len()))
	for _, v := range pairs {
		pos, neg := d.Pairs[v][0], d.Pairs[v][1]
		var rows, at []int // at: the row's place in G[v] (pos rows, then neg rows)
		var y []float64
		nPos := g.First[v]
		for r := range ds.Len() {
			switch int32(ds.Label(r)) {
			case pos:
				rows, y, at = append(rows, r), append(y, 1), append(at, len(rows)-int(slicesCount(y, -1)))
			case neg:
				rows, y, at = append(rows, r), append(y, -1), append(at, nPos+int(slicesCount(y, -1)))
			}
		}
		if len(g.G[v]) != len(rows) || int(slicesCount(y, 1)) != nPos {
			t.Fatalf("pair %d: %d stored values, %d of the first class; want %d and %d", v, len(g.G[v]), nPos, len(rows), int(slicesCount(y, 1)))
		}
		a := d.Alpha[v]
		worst := 0.0
		for ir, r := range rows {
			G, Gbar, scale := -1.0, 0.0, 1.0
			for is, s := range rows {
				q := y[ir] * y[is] * float64(float32(kr.eval(r, s)))
				G += a[s] * q
				scale += math.Abs(a[s] * q)
				if a[s] >= C {
					Gbar += C * q
				}
			}
			e := max(math.Abs(G-g.G[v][at[ir]]), math.Abs(Gbar-g.Gbar[v][at[ir]])) / scale
			worst = max(worst, e)
		}
		if worst > 1e-9 {
			t.Errorf("pair %d: stored gradient off by %.3g relative", v, worst)
		}
	}
}

// slicesCount returns how many entries of y equal v.
func slicesCount(y []float64, v float64) int {
	n := 0
	for _, u := range y {
		if u == v {
			n++
		}
	}
	return n
}

// A warm start from a run's own dual, gradient included, is optimal at
// once: no iteration, and no kernel work beyond the one column the first
// working-set selection asks for, in each formulation.
func TestKernelWarmStartAtOptimum(t *testing.T) {
	for _, c := range []struct {
		file string
		args []string
	}{
		{"digits.train", []string{"-s", "0"}},
		{"heart_scale", []string{"-s", "2", "-n", "0.3"}},
		{"diabetes.train", []string{"-s", "3", "-c", "10"}},
	} {
		opt, _, err := ParseKernelOptions(append(c.args, "-g", "0.1"))
		if err != nil {
			t.Fatal(err)
		}
		ds := readRefData(t, c.file)
		tr, err := NewKernelTrainer(opt.Params, ds.Len(), ds.NumFeatures())
		if err != nil {
			t.Fatal(err)
		}
		first, dual, err := tr.Train(ds, nil)
		if err != nil {
			t.Fatal(err)
		}
		again, _, err := tr.Train(ds, dual)
		if err != nil {
			t.Fatal(err)
		}
		var column int64 // one column of each subproblem
		for _, s := range again.Result.Subproblems {
			column += int64(s.Rows)
		}
		r := again.Result
		if r.Iterations != 0 || r.KernelEvals > column || r.Objective != first.Result.Objective {
			t.Errorf("%v: %d iterations, %d kernel evaluations (one column: %d), objective %.10g, first run %.10g",
				c.args, r.Iterations, r.KernelEvals, column, r.Objective, first.Result.Objective)
		}
	}
}

// A stored gradient computed under other bounds or another kernel is
// ignored: the run is the one without it, bit for bit, and reaches the
// cold optimum. One kept with an α the caller changed since is used, the
// changed α costing a column each (the gradient keeps the α it was
// computed at), and reaches the cold optimum too.
func TestKernelWarmStartStaleGradient(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	p := DefaultKernelParams()
	p.Kernel.Gamma = 0.1
	_, dual, err := TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	changedC, changedGamma := p, p
	changedC.C = 2
	changedGamma.Kernel.Gamma = 0.2
	editedAlpha := &KernelDual{SVMType: dual.SVMType, Pairs: dual.Pairs, Gradient: dual.Gradient,
		Alpha: [][]float64{append([]float64(nil), dual.Alpha[0]...)}}
	for r, a := range editedAlpha.Alpha[0] {
		if a > 0 {
			editedAlpha.Alpha[0][r] = 0 // forget one support vector
			break
		}
	}
	for _, c := range []struct {
		name string
		p    KernelParams
		warm *KernelDual
	}{
		{"C", changedC, dual},
		{"gamma", changedGamma, dual},
		{"alpha", p, editedAlpha},
	} {
		noGrad := *c.warm
		noGrad.Gradient = nil
		tr, err := NewKernelTrainer(c.p, ds.Len(), ds.NumFeatures())
		if err != nil {
			t.Fatal(err)
		}
		with, _, err := tr.Train(ds, c.warm)
		if err != nil {
			t.Fatal(err)
		}
		without, _, err := tr.Train(ds, &noGrad)
		if err != nil {
			t.Fatal(err)
		}
		cold, _, err := tr.Train(ds, nil)
		if err != nil {
			t.Fatal(err)
		}
		w, o := with.Result, without.Result
		if c.name == "alpha" {
			// One α edited, a few moved by the equality's repair: a
			// few columns, where rebuilding G costs one per support vector.
			if w.KernelEvals*10 > o.KernelEvals {
				t.Errorf("alpha: %d kernel evaluations with the gradient, %d without", w.KernelEvals, o.KernelEvals)
			}
		} else if w.KernelEvals != o.KernelEvals || w.Iterations != o.Iterations || w.Objective != o.Objective {
			t.Errorf("%s: with the stale gradient %d evaluations, %d iterations, objective %.10g; without %d, %d, %.10g",
				c.name, w.KernelEvals, w.Iterations, w.Objective, o.KernelEvals, o.Iterations, o.Objective)
		}
		if co := cold.Result.Objective; math.Abs(w.Objective-co) > 1e-4*math.Abs(co) {
			t.Errorf("%s: warm objective %.8g, cold %.8g", c.name, w.Objective, co)
		}
	}
}

// Dropping rows breaks Σ yα = 0; the repaired warm start still reaches the
// cold optimum, for every formulation.
func TestKernelWarmStartDroppedRows(t *testing.T) {
	for _, c := range []struct {
		file string
		args []string
	}{
		{"heart_scale", []string{"-s", "0"}},
		{"heart_scale", []string{"-s", "2", "-n", "0.3"}},
		{"diabetes.train", []string{"-s", "3", "-c", "10"}},
	} {
		opt, _, err := ParseKernelOptions(append(c.args, "-g", "0.1"))
		if err != nil {
			t.Fatal(err)
		}
		ds := readRefData(t, c.file)
		_, dual, err := TrainKernel(ds, opt.Params)
		if err != nil {
			t.Fatal(err)
		}
		// Drop every third row, in the data set and in the dual.
		var drop []int
		for i := 0; i < ds.Len(); i += 3 {
			drop = append(drop, i)
		}
		if err := ds.DeleteRows(drop); err != nil {
			t.Fatal(err)
		}
		w := &KernelDual{SVMType: dual.SVMType, Pairs: dual.Pairs}
		for _, a := range dual.Alpha {
			var kept []float64
			for i, v := range a {
				if i%3 != 0 {
					kept = append(kept, v)
				}
			}
			w.Alpha = append(w.Alpha, kept)
		}
		cold, _, err := TrainKernel(ds, opt.Params)
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := NewKernelTrainer(opt.Params, ds.Len(), ds.NumFeatures())
		warm, _, err := tr.Train(ds, w)
		if err != nil {
			t.Fatal(err)
		}
		co, wo := cold.Result.Objective, warm.Result.Objective
		if math.Abs(co-wo) > 1e-4*math.Abs(co) || !warm.Result.Converged {
			t.Errorf("%v: warm objective %.8g (converged %v), cold %.8g", c.args, wo, warm.Result.Converged, co)
		}
		t.Logf("%v: kernel evaluations cold %d, warm %d", c.args, cold.Result.KernelEvals, warm.Result.KernelEvals)
	}
}

func TestRepairEquality(t *testing.T) {
	y := []int8{1, 1, 1, -1, -1}
	alpha := []float64{1, 0.5, 0, 0.25, 1}
	feasible.RepairEquality(alpha, y, 1, 1, nil, 0) // Σyα = 0.25: lower the free +1 (0.5 → 0.25)
	want := []float64{1, 0.25, 0, 0.25, 1}
	for i := range want {
		if math.Abs(alpha[i]-want[i]) > 1e-15 {
			t.Fatalf("C-SVC repair: %v, want %v", alpha, want)
		}
	}
	// One-class, νl grew from 1.5 to 2.5: raise the free one to 1, then
	// the first zero.
	y = []int8{1, 1, 1, 1}
	alpha = []float64{1, 0.5, 0, 0}
	feasible.RepairEquality(alpha, y, 1, 1, nil, 2.5)
	want = []float64{1, 1, 0.5, 0}
	for i := range want {
		if math.Abs(alpha[i]-want[i]) > 1e-15 {
			t.Fatalf("one-class repair: %v, want %v", alpha, want)
		}
	}
}

// TestWarmRepairKeepsBounds: a repair whose d exceeds a bounded α's worth
// by a rounding residual leaves the next bounded α at its bound, not a
// residual below it, where it would count as a free variable (and ρ
// would be its y_t G_t alone); likewise a raise within the tolerance of a
// bound reaches the bound.
func TestWarmRepairKeepsBounds(t *testing.T) {
	y := []int8{1, 1, -1}
	alpha := []float64{1, 1, 1}
	// Σyα − delta = 1 + 1e-13: the first +1 goes to 0, the second keeps 1
	// (tol = 1e-12·Σα = 3e-12).
	feasible.RepairEquality(alpha, y, 1, 1, nil, -1e-13)
	if want := []float64{0, 1, 1}; !slices.Equal(alpha, want) {
		t.Fatalf("lowering: %v, want %v", alpha, want)
	}
	// One-class: νl = 2 − 1e-13 of 2 rows needs the zero α raised to
	// 1 − 1e-13, within the tolerance of its bound: it goes to 1.
	y = []int8{1, 1}
	alpha = []float64{1, 0}
	feasible.RepairEquality(alpha, y, 1, 1, nil, 2-1e-13)
	if want := []float64{1, 1}; !slices.Equal(alpha, want) {
		t.Fatalf("raising: %v, want %v", alpha, want)
	}
	// A free α lowered to within the tolerance of 0 goes to 0.
	y = []int8{1, 1, -1}
	alpha = []float64{0.5, 0.25, 0}
	feasible.RepairEquality(alpha, y, 1, 1, nil, 0.25-1e-13)
	if want := []float64{0, 0.25, 0}; !slices.Equal(alpha, want) {
		t.Fatalf("lowering to 0: %v, want %v", alpha, want)
	}
}

// A cache of a few columns changes the work, not the solution.
func TestKernelTinyCache(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	p := DefaultKernelParams()
	big, _, err := TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	p.CacheMB = float64(4*ds.Len()*4) / (1 << 20) // about four columns
	small, _, err := TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	if big.Result.Objective != small.Result.Objective || big.Rho[0] != small.Rho[0] || big.SV.Len() != small.SV.Len() {
		t.Errorf("tiny cache: obj %v rho %v nSV %d; big cache: obj %v rho %v nSV %d",
			small.Result.Objective, small.Rho[0], small.SV.Len(), big.Result.Objective, big.Rho[0], big.SV.Len())
	}
	if small.Result.KernelEvals <= big.Result.KernelEvals {
		t.Errorf("tiny cache computed %d kernel values, big %d: the cache did not shrink", small.Result.KernelEvals, big.Result.KernelEvals)
	}
	t.Logf("kernel evaluations: 100 MB cache %d, four columns %d", big.Result.KernelEvals, small.Result.KernelEvals)
}

// One worker or several give the same model, bit for bit.
func TestKernelDeterministicAcrossWorkers(t *testing.T) {
	ds := readRefData(t, "digits.train")
	// 2.7 MiB: with 3 workers the small-pair workers take pairs of up to
	// about 297 rows (workerShape), so digits' pairs (about 280 to 300 rows)
	// are split between "worker 0 only" and "any worker".
	for _, mb := range []float64{100, 2.7} {
		p := DefaultKernelParams()
		p.CacheMB = mb
		if _, _, l1, _ := workerShape(p.cacheBytes(), ds.Len(), 3); mb < 100 && (l1 < 280 || l1 > 300) {
			t.Fatalf("%v MiB: small pairs up to %d rows, want about 290", mb, l1)
		}
		checkSameAcrossWorkers(t, ds, p)
	}
}

// Two pairs too large for the small workers share worker 0's arena in
// halves (workers 0 and 1 each take large pairs) for one training, and get
// their own arenas back after it; the model is the one-worker model.
func TestKernelShareArena(t *testing.T) {
	ds := readRefData(t, "digits.train")
	p := DefaultKernelParams()
	p.CacheMB = 1.2 // two workers: worker 1 alone takes pairs of up to about 280 rows
	tr, err := newKernelTrainer(p, ds.Len(), ds.NumFeatures(), 2, ds.Len(), false)
	if err != nil {
		t.Fatal(err)
	}
	w0, w1 := &tr.workers[0], &tr.workers[1]
	whole, own := w0.q.cache.arena, w1.q.cache.arena
	if w1.lCap != ds.Len() || w1.lSmall >= 285 {
		t.Fatalf("worker 1: %d rows, takes up to %d alone; want %d and under digits' pairs (about 285 to 300)", w1.lCap, w1.lSmall, ds.Len())
	}
	large := []int{w1.lSmall + 20, w1.lSmall + 10, w1.lSmall}
	restore := tr.shareArena(large)
	extra := (kernelWorkerBytes(&tr.params, w1.lCap, tr.capFeatures) + kernelCacheBookBytes(w1.lCap) + 3) / 4
	half := (len(whole) - int(extra)) / 2
	if len(w0.q.cache.arena) != half || len(w1.q.cache.arena) != half || &w1.q.cache.arena[0] != &whole[half] || w1.limit != w1.lCap {
		t.Fatalf("two large pairs: arenas %d and %d entries (whole %d), worker 1 limit %d", len(w0.q.cache.arena), len(w1.q.cache.arena), len(whole), w1.limit)
	}
	restore()
	if len(w0.q.cache.arena) != len(whole) || &w1.q.cache.arena[0] != &own[0] || w1.limit != w1.lSmall {
		t.Fatal("restore did not give the arenas back")
	}
	tr.shareArena([]int{w1.lSmall + 20, w1.lSmall, 3})() // one large pair: nothing shared
	if tr.workers[1].limit != w1.lSmall || len(w0.q.cache.arena) != len(whole) {
		t.Fatal("one large pair: the arena was shared")
	}
	checkSameAcrossWorkers(t, ds, p) // digits' pairs: most are large here
}

// A binary training (one pair) caches as much on two or three workers as
// on one, but for the other workers' cache bookkeeping: worker 0 takes
// every worker's arena for it, and gives them back after. Before, worker 0
// kept three quarters of the budget, and a binary training on two CPUs
// computed 15% more kernel values than on one (debdesc_bin's first 10,000
// rows, examples/bench/cores.sh).
func TestKernelBinaryUsesWholeBudget(t *testing.T) {
	digits := readRefData(t, "digits.train")
	ds := data.NewDense(digits.Len(), digits.NumFeatures())
	for i := range digits.Len() {
		y := 1.0 // digits 0 to 4 against 5 to 9
		if digits.Label(i) >= 5 {
			y = -1
		}
		if err := ds.AppendDense(y, digits.DenseRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	p := DefaultKernelParams()
	p.CacheMB = float64(100*ds.Len()*4) / (1 << 20) // about 100 of the 1,437 columns: the cache binds
	l := ds.Len()
	one := kernelCacheEntries(l, p.cacheBytes())
	for _, workers := range []int{2, 3} {
		tr, err := newKernelTrainer(p, l, ds.NumFeatures(), workers, l, false)
		if err != nil {
			t.Fatal(err)
		}
		c0 := tr.workers[0].q.cache
		own := len(c0.arena)
		restore := tr.shareArena([]int{l})
		others := int64(workers-1) * ((kernelCacheBookBytes(l) + 3) / 4)
		if got := int64(len(c0.arena)); got < one-others || got > one || &c0.arena[0] != &tr.arenas[0] {
			t.Errorf("%d workers, one pair: worker 0's arena holds %d entries (its own %d); one worker's holds %d, less %d of the others' bookkeeping",
				workers, got, own, one, others)
		}
		restore()
		if len(c0.arena) != own {
			t.Errorf("%d workers: restore left worker 0 %d entries, want its own %d", workers, len(c0.arena), own)
		}
	}
	checkSameAcrossWorkers(t, ds, p)
}

func checkSameAcrossWorkers(t *testing.T, ds *data.Dataset, p KernelParams) {
	t.Helper()
	var models []*KernelModel
	for _, w := range []int{1, 2, 3} {
		tr, err := newKernelTrainer(p, ds.Len(), ds.NumFeatures(), w, ds.Len(), false)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := tr.Train(ds, nil)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	for k, b := range models[1:] {
		a := models[0]
		same := len(a.Coef) == len(b.Coef) && len(a.Rho) == len(b.Rho)
		for i := range a.Coef {
			same = same && a.Coef[i] == b.Coef[i]
		}
		for i := range a.Rho {
			same = same && a.Rho[i] == b.Rho[i]
		}
		if !same {
			t.Errorf("%v MiB: models trained with 1 and %d workers differ", p.CacheMB, k+2)
		}
	}
}

// Predictions match a direct evaluation of the decision function, on dense
// and sparse rows, and allocate nothing.
func TestKernelPredict(t *testing.T) {
	dense := readRefData(t, "heart_scale")
	sparse := data.NewSparse(dense.Len(), dense.Len()*dense.NumFeatures(), 0)
	for i := range dense.Len() {
		if err := sparse.AppendDense(dense.Label(i), dense.DenseRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	p := DefaultKernelParams()
	m, _, err := TrainKernel(sparse, p)
	if err != nil {
		t.Fatal(err)
	}
	n := m.NumFeatures
	x := make([]float32, n)
	dec := make([]float64, 1)
	for i := range 20 {
		idx, val := sparse.SparseRow(i)
		clear(x)
		for k, j := range idx {
			x[j] = val[k]
		}
		// Direct: Σ coef_s exp(−γ‖x − sv_s‖²) − ρ in float64.
		want := -m.Rho[0]
		for s := range m.SV.Len() {
			si, sv := m.SV.SparseRow(s)
			y := make([]float64, n)
			for k, j := range si {
				y[j] = float64(sv[k])
			}
			var d2 float64
			for j := range n {
				d2 += (float64(x[j]) - y[j]) * (float64(x[j]) - y[j])
			}
			want += m.Coef[s] * math.Exp(-m.Kernel.Gamma*d2)
		}
		gd := m.DecisionDense(dec, x)[0]
		gs := m.DecisionSparse(dec, idx, val)[0]
		if math.Abs(gd-want) > 1e-9 || math.Abs(gs-want) > 1e-9 {
			t.Fatalf("row %d: dense %.12g sparse %.12g, direct %.12g", i, gd, gs, want)
		}
		lab := float64(m.Labels[1])
		if want > 0 {
			lab = float64(m.Labels[0])
		}
		if m.PredictDense(x) != lab || m.PredictSparse(idx, val) != lab {
			t.Fatalf("row %d: predictions %v %v, want %v", i, m.PredictDense(x), m.PredictSparse(idx, val), lab)
		}
	}
	idx, val := sparse.SparseRow(0)
	if a := testing.AllocsPerRun(50, func() { m.PredictDense(x); m.PredictSparse(idx, val); m.DecisionDense(dec, x) }); a != 0 && !raceEnabled {
		t.Errorf("%v allocations per prediction (stack scratch)", a)
	}
	// A model too large for the stack scratch uses the pool.
	digits := readRefData(t, "digits.train")
	big, _, err := TrainKernel(digits, p)
	if err != nil {
		t.Fatal(err)
	}
	if big.SV.Len() <= maxStackKernel {
		t.Fatalf("digits model has %d SVs: does not exercise the pool", big.SV.Len())
	}
	row := make([]float32, big.NumFeatures)
	var bi []int32
	var bv []float32
	if digits.IsDense() {
		copy(row, digits.DenseRow(0))
		for j, v := range row {
			if v != 0 {
				bi, bv = append(bi, int32(j)), append(bv, v)
			}
		}
	} else {
		bi, bv = digits.SparseRow(0)
		for k, j := range bi {
			row[j] = bv[k]
		}
	}
	if big.PredictDense(row) != big.PredictSparse(bi, bv) {
		t.Errorf("dense and sparse predictions of a digit differ")
	}
	big.PredictDense(row) // warm the pool
	if a := testing.AllocsPerRun(50, func() { big.PredictDense(row); big.PredictSparse(bi, bv) }); a != 0 && !raceEnabled {
		t.Errorf("%v allocations per prediction (pooled scratch)", a)
	}
}

// LIBSVM's vote: a pair's vote goes to its first class when the decision
// value is positive, and the first class with most votes wins.
func TestKernelVoteTie(t *testing.T) {
	m := &KernelModel{SVMType: CSVC, Labels: []int32{7, 8, 9}}
	votes := make([]float64, 3)
	// Pairs (7,8), (7,9), (8,9): 7 beats 8, 9 beats 7, 8 beats 9: a
	// three-way tie, won by 7.
	if got := m.label([]float64{1, -1, 1}, votes); got != 7 {
		t.Errorf("three-way tie went to %v, want 7", got)
	}
	// A zero decision value votes for the second class: 8 and 9 get one
	// vote each from the zeros, 8 a second one from (8,9).
	if got := m.label([]float64{0, 0, 1}, votes); got != 8 {
		t.Errorf("zero decisions went to %v, want 8 (two votes)", got)
	}
}

func TestKernelModelValidate(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	m, _, err := TrainKernel(ds, DefaultKernelParams())
	if err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(m *KernelModel){
		"coef length":  func(m *KernelModel) { m.Coef = m.Coef[1:] },
		"rho length":   func(m *KernelModel) { m.Rho = append(m.Rho, 0) },
		"nsv sum":      func(m *KernelModel) { m.NumSV = []int32{m.NumSV[0] + 1, m.NumSV[1]} },
		"labels":       func(m *KernelModel) { m.Labels = []int32{1, 1}; m.NumSV = []int32{0, int32(m.SV.Len())} },
		"nan coef":     func(m *KernelModel) { m.Coef = append([]float64{math.NaN()}, m.Coef[1:]...) },
		"kernel":       func(m *KernelModel) { m.Kernel.Type = 9 },
		"probA only":   func(m *KernelModel) { m.ProbA = []float64{1} },
		"no SV":        func(m *KernelModel) { m.SV = nil },
		"feature span": func(m *KernelModel) { m.NumFeatures = 2 },
	} {
		c := *m
		c.pre = nil
		spoil(&c)
		if err := c.Init(); err == nil {
			t.Errorf("%s: Init accepted a broken model", name)
		}
	}
	c := *m
	c.pre = nil
	defer func() {
		if recover() == nil {
			t.Errorf("predict before Init did not panic")
		}
	}()
	c.PredictDense(make([]float32, c.NumFeatures))
}

// A solve from a stored gradient, with rows lacking one, allocates nothing.
func TestSMOSolveFromAllocs(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	l := ds.Len()
	kr := newKernelRows(ds, Kernel{Type: RBFKernel, Gamma: 0.1}, make([]float64, l))
	rows, y, p := make([]int32, l), make([]int8, l), make([]float64, l)
	for r := range l {
		rows[r], y[r], p[r] = int32(r), 1, -1
		if ds.Label(r) < 0 {
			y[r] = -1
		}
	}
	q := newSVCQ(kr, rows, y, 1<<20)
	s := newSMO(l)
	par := smoParams{Cp: 1, Cn: 1, Shrinking: true}
	alpha := make([]float64, l)
	s.solve(q, p, y, alpha, par)
	G, Gbar := s.gradient(l)
	a0 := append([]float64(nil), alpha...)
	g0, gb0 := append([]float64(nil), G...), append([]float64(nil), Gbar...)
	for r := l - 20; r < l; r++ { // as if the last 20 rows were new
		g0[r] = math.NaN()
	}
	start := make([]float64, l)
	var res smoResult
	allocs := testing.AllocsPerRun(5, func() {
		copy(start, a0)
		copy(G, g0)
		copy(Gbar, gb0)
		q.reset(rows, y)
		res = s.solveFrom(q, p, y, start, a0, G, Gbar, par)
	})
	if allocs != 0 || !res.Converged {
		t.Errorf("%g allocations per solve (converged %v)", allocs, res.Converged)
	}
}

// TestKernelPredictBatchParallel: splitting a batch among goroutines gives
// PredictBatch's predictions, row for row, for dense and sparse test rows.
func TestKernelPredictBatchParallel(t *testing.T) {
	train := readRefData(t, "digits.train")
	m, _, err := TrainKernel(train, DefaultKernelParams())
	if err != nil {
		t.Fatal(err)
	}
	test := readRefData(t, "digits.test")
	sparse := data.NewSparse(test.Len(), test.Len()*test.NumFeatures(), 0)
	for i := range test.Len() {
		solve.AppendRow(sparse, test, i)
	}
	for _, ds := range []*data.Dataset{test, sparse} {
		want := m.PredictBatch(make([]float64, ds.Len()), ds)
		for _, workers := range []int{0, 1, 3, 1000} {
			got := m.PredictBatchParallel(make([]float64, ds.Len()), ds, workers)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("dense=%v workers %d: row %d predicted %v, PredictBatch %v", ds.IsDense(), workers, i, got[i], want[i])
				}
			}
		}
	}
}

// KernelTrainerBytes is what NewKernelTrainer takes from the Go heap,
// within the allocator's rounding, and a cache is sized by what the
// subproblems can use (capRows² entries), not by a larger budget.
func TestKernelTrainerBytes(t *testing.T) {
	for _, c := range []struct {
		opts              []string
		capRows, features int
	}{
		{[]string{"-s", "0"}, 3000, 64}, // 100 MB budget, 36 MB of columns at most
		{[]string{"-s", "0"}, 20000, 9}, // the budget caps the cache
		{[]string{"-s", "3"}, 2000, 13}, // ε-SVR: 2l variables
		{[]string{"-s", "2", "-m", "1"}, 5000, 20},
	} {
		opt, _, err := ParseKernelOptions(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		want := KernelTrainerBytes(opt.Params, c.capRows, c.features)
		var before, after runtime.MemStats
		// Twice: a sync.Pool's objects survive one collection (its victim
		// cache), and pooled buffers of earlier tests freed by the second
		// collection below would read as the trainer using less.
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		tr, err := NewKernelTrainer(opt.Params, c.capRows, c.features)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		got := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		// Small allocations round up to a size class (≤ 12.5%), large
		// ones to a page; the structs themselves are a few hundred bytes.
		if d := got - want; d < -(want/64+256<<10) || d > want/64+64<<10 {
			t.Errorf("%v rows %d: heap grew %d bytes, KernelTrainerBytes %d", c.opts, c.capRows, got, want)
		}
		if budget := opt.Params.cacheBytes(); want > budget+int64(c.capRows)*400 {
			t.Errorf("%v rows %d: %d bytes for a cache budget of %d", c.opts, c.capRows, want, budget)
		}
		runtime.KeepAlive(tr)
	}
	// capRows² float32 entries a worker are all the columns there are.
	opt, _, _ := ParseKernelOptions(nil)
	workers := int64(kernelWorkerCount(&opt.Params))
	if got, most := KernelTrainerBytes(opt.Params, 1000, 10), workers*(1000*1000*4+1000*400); got > most {
		t.Errorf("1,000 rows: %d bytes, more than %d", got, most)
	}
}

// TrainModel is Train without the dual: the same model, bit for bit.
func TestKernelTrainModel(t *testing.T) {
	ds := readRefData(t, "digits.train")
	for _, opts := range [][]string{nil, {"-s", "3", "-c", "10"}, {"-s", "2", "-n", "0.2"}} {
		opt, _, err := ParseKernelOptions(opts)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := TrainKernel(ds, opt.Params)
		if err != nil {
			t.Fatal(err)
		}
		got, err := TrainKernelModel(ds, opt.Params)
		if err != nil {
			t.Fatal(err)
		}
		if got.SV.Len() != want.SV.Len() || !slices.Equal(got.Coef, want.Coef) || !slices.Equal(got.Rho, want.Rho) ||
			!slices.Equal(got.NumSV, want.NumSV) || got.Result.Objective != want.Result.Objective {
			t.Errorf("%v: TrainModel: %d SV, rho %v; Train: %d SV, rho %v", opts, got.SV.Len(), got.Rho[:1], want.SV.Len(), want.Rho[:1])
		}
	}
}

// A trainer made for a capacity reads a narrow sparse data set whose rows
// are mostly nonzero through its dense copy: the model is the one trained
// on the same rows stored dense, bit for bit, and so is a warm retrain's.
func TestKernelDenseViewOfSparse(t *testing.T) {
	for _, c := range []struct {
		file string
		opts []string
	}{
		{"heart_scale", []string{"-c", "4", "-g", "0.1"}},
		{"diabetes.train", []string{"-s", "3", "-c", "10", "-p", "0.5"}},
	} {
		dense := readRefData(t, c.file)
		sparse := toSparse(t, dense)
		if !dense.IsDense() || !wantsDenseView(sparse) {
			t.Fatalf("%s: dense %v, sparse copy wants a dense view %v", c.file, dense.IsDense(), wantsDenseView(sparse))
		}
		opt, _, err := ParseKernelOptions(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewKernelTrainer(opt.Params, sparse.Len(), sparse.NumFeatures()+3) // wider than the rows
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := TrainKernel(dense, opt.Params)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := tr.Train(sparse, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tr.dense == nil || tr.workers[0].kr.ds != tr.dense || tr.dense.Len() != sparse.Len() {
			t.Fatalf("%s: the kernels did not read the sparse rows through the dense copy", c.file)
		}
		same := func(what string, a, b *KernelModel) {
			t.Helper()
			if !slices.Equal(a.Rho, b.Rho) || !slices.Equal(a.Coef, b.Coef) || a.Result.Iterations != b.Result.Iterations ||
				a.Result.KernelEvals != b.Result.KernelEvals {
				t.Errorf("%s %s: rho %v, %d coefficients, %d iterations, %d kernel values; dense %v, %d, %d, %d", c.file, what,
					a.Rho, len(a.Coef), a.Result.Iterations, a.Result.KernelEvals, b.Rho, len(b.Coef), b.Result.Iterations, b.Result.KernelEvals)
			}
		}
		same("cold", got, want)
		// A warm retrain after rows were appended, from the dual and its
		// gradient (the hash treats both layouts alike).
		n := sparse.Len() / 2
		half, halfDense := sparse.Prefix(n), dense.Prefix(n)
		_, d1, err := tr.Train(half, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, d1Dense, err := TrainKernel(halfDense, opt.Params)
		if err != nil {
			t.Fatal(err)
		}
		warmGot, _, err := tr.Train(sparse, (&Dual{Kernel: d1}).Extended(sparse.Len()).Kernel)
		if err != nil {
			t.Fatal(err)
		}
		warmWant, _, err := TrainKernel(dense, opt.Params) // the cold model, for the optimum
		if err != nil {
			t.Fatal(err)
		}
		dt, err := NewKernelTrainer(opt.Params, dense.Len(), dense.NumFeatures())
		if err != nil {
			t.Fatal(err)
		}
		warmDense, _, err := dt.Train(dense, (&Dual{Kernel: d1Dense}).Extended(dense.Len()).Kernel)
		if err != nil {
			t.Fatal(err)
		}
		same("warm", warmGot, warmDense)
		if rel := math.Abs(warmGot.Result.Objective-warmWant.Result.Objective) / math.Abs(warmWant.Result.Objective); rel > 1e-4 {
			t.Errorf("%s: warm objective %.8g, cold %.8g", c.file, warmGot.Result.Objective, warmWant.Result.Objective)
		}
	}
	// Wide data keeps no copy; a dense data set needs none.
	p := DefaultKernelParams()
	if tr, _ := NewKernelTrainer(p, 10, denseViewMaxFeatures+1); tr.dense != nil {
		t.Errorf("a trainer for %d features keeps a dense copy", denseViewMaxFeatures+1)
	}
	if d := readRefData(t, "heart_scale"); wantsDenseView(d) {
		t.Errorf("a dense data set wants a dense copy")
	}
	// A trainer for data stored dense (NewDenseTrainer, the C ABI's dense
	// trainer) keeps none and trains the same model.
	heart := readRefData(t, "heart_scale")
	o, _, err := parseTrainParams([]string{"-t", "2", "-c", "4"}, KernelFamily)
	if err != nil {
		t.Fatal(err)
	}
	dt, err := NewDenseTrainer(o, heart.Len(), heart.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewTrainer(o, heart.Len(), heart.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	if kt := dt.(kernelTrainer).t; kt.dense != nil {
		t.Errorf("NewDenseTrainer's kernel trainer keeps a dense copy")
	}
	if kt := st.(kernelTrainer).t; kt.dense == nil {
		t.Errorf("NewTrainer's kernel trainer for %d features keeps no dense copy", heart.NumFeatures())
	}
	md, _, err := dt.Train(heart, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := st.Train(heart, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := md.(*KernelModel), ms.(*KernelModel)
	if !slices.Equal(a.Rho, b.Rho) || !slices.Equal(a.Coef, b.Coef) || a.Result.Iterations != b.Result.Iterations {
		t.Errorf("NewDenseTrainer's model: rho %v, %d iterations; NewTrainer's %v, %d", a.Rho, a.Result.Iterations, b.Rho, b.Result.Iterations)
	}
}

// KernelRowWidth counts rows of at most 64 features that are 40% nonzero
// (the trainer reads them through its dense copy) as wide as their
// features, others by their nonzeros, at most the features.
func TestKernelRowWidth(t *testing.T) {
	for _, c := range []struct{ features, nonzeros, want int }{
		{64, 33, 64}, // digits
		{64, 25, 25}, // under 40%
		{9, 9, 9},    // shuttle
		{65, 60, 60}, // too wide for the dense copy
		{784, 400, 400},
		{1000, 2000, 1000},
	} {
		if got := KernelRowWidth(c.features, c.nonzeros); got != c.want {
			t.Errorf("KernelRowWidth(%d, %d) = %d, want %d", c.features, c.nonzeros, got, c.want)
		}
	}
}

// NewSparseTrainer keeps the dense copy for wide rows when its nonzero
// capacity says they are mostly nonzero (Fashion-MNIST's 784 features in
// the daemon's sparse store): the model is the one trained on the rows
// stored dense, bit for bit, cold and warm. With a nonzero capacity of
// sparse rows it keeps none, as NewTrainer does for wide rows.
func TestSparseTrainerDenseViewWide(t *testing.T) {
	const l, nf = 240, 120
	rng := rand.New(rand.NewPCG(21, 1))
	dense := data.NewDense(l, nf)
	row := make([]float32, nf)
	for i := range l {
		c := i % 3
		for j := range row {
			row[j] = 0
			if rng.Float64() < 0.6 {
				row[j] = float32(rng.Float64() + 0.3*float64(c)*float64(j%4))
			}
		}
		if err := dense.AppendDense(float64(c), row); err != nil {
			t.Fatal(err)
		}
	}
	sparse := toSparse(t, dense)
	o, _, err := parseTrainParams([]string{"-t", "2", "-c", "4", "-g", "0.02"}, KernelFamily)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewSparseTrainer(o, l, nf, sparse.Nonzeros())
	if err != nil {
		t.Fatal(err)
	}
	if kt := st.(kernelTrainer).t; kt.dense != nil || !kt.denseLazy {
		t.Fatalf("NewSparseTrainer for %d × %d with %d nonzeros: copy made %v, lazy %v; want one made when needed",
			l, nf, sparse.Nonzeros(), kt.dense != nil, kt.denseLazy)
	}
	dt, err := NewDenseTrainer(o, l, nf)
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, a, b Model) {
		t.Helper()
		x, y := a.(*KernelModel), b.(*KernelModel)
		if !slices.Equal(x.Rho, y.Rho) || !slices.Equal(x.Coef, y.Coef) || x.Result.Iterations != y.Result.Iterations ||
			x.Result.KernelEvals != y.Result.KernelEvals {
			t.Errorf("%s: sparse rows: rho %v, %d iterations, %d kernel values; dense %v, %d, %d", what,
				x.Rho, x.Result.Iterations, x.Result.KernelEvals, y.Rho, y.Result.Iterations, y.Result.KernelEvals)
		}
	}
	half, halfDense := sparse.Prefix(l/2), dense.Prefix(l/2)
	ms, ds1, err := st.Train(half, nil)
	if err != nil {
		t.Fatal(err)
	}
	if held, most := st.DenseCopyBytes(); held != denseViewBytes(l/2+l/8, nf) || most != denseViewBytes(l, nf) {
		t.Errorf("after a Train on %d rows the dense copy takes %d bytes of at most %d; want %d of %d",
			l/2, held, most, denseViewBytes(l/2+l/8, nf), denseViewBytes(l, nf))
	}
	md, dd1, err := dt.Train(halfDense, nil)
	if err != nil {
		t.Fatal(err)
	}
	same("cold", ms, md)
	ms, _, err = st.Train(sparse, ds1.Extended(l))
	if err != nil {
		t.Fatal(err)
	}
	md, _, err = dt.Train(dense, dd1.Extended(l))
	if err != nil {
		t.Fatal(err)
	}
	same("warm", ms, md)
	if held, _ := st.DenseCopyBytes(); held != denseViewBytes(l, nf) {
		t.Errorf("after a Train on %d rows the dense copy takes %d bytes, want %d", l, held, denseViewBytes(l, nf))
	}
	if tr, _ := NewSparseTrainer(o, l, nf, l*nf/10); tr.(kernelTrainer).t.dense != nil {
		t.Errorf("NewSparseTrainer for rows 10%% nonzero keeps a dense copy")
	}
	if tr, _ := NewTrainer(o, l, nf); tr.(kernelTrainer).t.dense != nil {
		t.Errorf("NewTrainer for %d features keeps a dense copy", nf)
	}
}

// A sparse trainer whose nonzero capacity is every cell of rows wider
// than 64 features (the daemon's store with --store.nonzeros unset) neither
// reserves nor counts the dense copy at construction: the memory check
// refused such a trainer near the machine's memory for a copy its rows
// might never need. Its first Train on rows mostly zero makes none; the
// first on rows mostly nonzero makes it, for the rows held.
func TestSparseTrainerDenseCopyWhenNeeded(t *testing.T) {
	const l, nf = 200, 100
	p := DefaultKernelParams()
	if with, without := kernelTrainerBytes(p, l, nf, 1, l, true), kernelTrainerBytes(p, l, nf, 1, l, false); with != without {
		t.Errorf("the memory check of a trainer of %d features counts %d bytes of dense copy", nf, with-without)
	}
	tr, err := NewSparseTrainer(TrainParams{Family: KernelFamily, Kernel: p}, l, nf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if held, most := tr.DenseCopyBytes(); held != 0 || most != denseViewBytes(l, nf) {
		t.Errorf("new trainer: dense copy %d bytes of at most %d; want 0 of %d", held, most, denseViewBytes(l, nf))
	}
	rng := rand.New(rand.NewPCG(7, 7))
	rows := func(n int, density float64) *data.Dataset {
		ds := data.NewSparse(n, n*nf, nf)
		var idx []int32
		var val []float32
		for i := range n {
			idx, val = idx[:0], val[:0]
			for j := range nf {
				if rng.Float64() < density {
					idx, val = append(idx, int32(j)), append(val, float32(rng.Float64()))
				}
			}
			if err := ds.AppendSparse(float64(i%2), idx, val); err != nil {
				t.Fatal(err)
			}
		}
		return ds
	}
	if _, _, err := tr.Train(rows(l, 0.1), nil); err != nil {
		t.Fatal(err)
	}
	if held, _ := tr.DenseCopyBytes(); held != 0 {
		t.Errorf("after a Train on rows 10%% nonzero the dense copy takes %d bytes", held)
	}
	if _, _, err := tr.Train(rows(80, 0.7), nil); err != nil {
		t.Fatal(err)
	}
	if held, _ := tr.DenseCopyBytes(); held != denseViewBytes(100, nf) {
		t.Errorf("after a Train on 80 rows 70%% nonzero the dense copy takes %d bytes, want %d", held, denseViewBytes(100, nf))
	}
}
