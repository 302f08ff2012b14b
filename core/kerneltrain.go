package core

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/feasible"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Kernel SVM training: C-SVC (one-vs-one), one-class SVM and ε-SVR, each
// reduced to the general problem smo.go solves (C.-C. Chang, C.-J. Lin,
// "LIBSVM: A Library for Support Vector Machines", ACM TIST 2(3), 2011,
// Sections 2 and 7):
//
//	C-SVC pair (i, j): the rows of classes i and j, y = +1 for class i,
//	    p = −e, C_t = C·w_i (y = +1) or C·w_j (y = −1), Δ = 0;
//	    sv_coef = y_t α_t.
//	one-class:  y = e, p = 0, C = 1, Δ = νl: α starts with its first ⌊νl⌋
//	    entries at 1 and the next at νl − ⌊νl⌋; sv_coef = α_t.
//	ε-SVR:      2l variables (α, α*), y = (e, −e), p = (ε − z, ε + z),
//	    C both, Δ = 0; sv_coef = β_t = α_t − α*_t.
//	ν-SVC pair: as C-SVC with p = 0, C_t = 1 and each class's α summing
//	    to νl/2 (smo_nu.go); sv_coef = y_t α_t / r, ρ/r.
//	ν-SVR:      as ε-SVR with p = (−z, z), Σα = Σα* = Cνl/2
//	    (smo_nu.go); sv_coef = β_t, and the tube width is ε = −r.
//
// Instance weights (weights.go) multiply each row's bound, as in LIBSVM's
// instance-weight branch: C_t·ω_t for C-SVC and both of ε-SVR's variables
// of row t; for one-class the bound is ω_t and Δ = ν Σ ω_t, the cold start
// filling rows in order up to their bounds; for ν-SVC the bound is ω_t and
// each class's α sums to ν Σ ω_t / 2 over the pair's rows, for ν-SVR C·ω_t
// and Cν Σ ω_t / 2 (core/internal/feasible), the cold starts filling rows in order
// up to their bounds.
//
// The classes of C-SVC are taken in LIBSVM's order (first appearance, a
// {−1, +1} problem with −1 first swapped so that +1 is class 0), each
// pair's rows in data order, class i's before class j's, so that the
// subproblems are LIBSVM's.

// KernelDual holds the dual variables of a kernel training run, aligned
// with the rows of the data set trained on: what a later run is
// warm-started from.
type KernelDual struct {
	// SVMType is the formulation the variables belong to.
	SVMType SVMType
	// Pairs names the classes of each C-SVC or ν-SVC subproblem,
	// (positive, negative); nil for one-class and the SVRs.
	Pairs [][2]int32
	// Alpha holds one vector per subproblem, ds.Len() long. C-SVC: α_t ≥ 0
	// of row t in the pair's subproblem, 0 for rows of other classes
	// (unsigned, so it does not depend on which class of the pair is
	// positive). ν-SVC: the same, for the solver's problem with the box
	// [0, w_t] (w_t the row's instance weight, 1 without; the model's
	// coefficients are these divided by r). One-class:
	// α_t. ε-SVR and ν-SVR: β_t = α_t − α*_t (at an optimum at most one of
	// α_t, α*_t is nonzero, so β gives both back).
	Alpha [][]float64
	// Gradient, when not nil, is each subproblem's gradient at Alpha (as
	// Train returned them) and what it was computed under (kernelwarm.go).
	// As a warm start it spares rebuilding the gradient from Alpha, which
	// costs about as much as a cold run, when rows were appended or removed
	// (DeleteRows); an α changed since costs a kernel column. Train ignores
	// it when it does not fit ds's rows or the parameters.
	Gradient *KernelGradient
}

// KernelTrainer trains kernel SVMs by SMO. Its buffers and kernel caches
// are sized at construction for a row and feature capacity (KernelTrainerBytes
// tells how much that is), so a training run allocates only its outputs
// and per-run bookkeeping of a few bytes a row.
//
// C-SVC subproblems run in parallel, one per worker (GOMAXPROCS workers),
// each with its own solver and kernel cache: worker 0 solves the pairs
// too large for the others' small caches, with most of the CacheMB budget
// (workerShape), while the others take the small pairs; when there are two
// or more large pairs, worker 1 shares worker 0's arena and takes large
// pairs too (shareArena); one subproblem's kernel columns are split with
// idle helper goroutines (kparallel.go). The total stays within CacheMB, as LIBSVM's one
// subproblem at a time does. The results do not depend on the number of
// workers, bit for bit (the kernel evaluation counts do).
//
// A KernelTrainer is not safe for concurrent use.
type KernelTrainer struct {
	// progress, when not nil, receives the solvers' ProgressEvents
	// (SetProgress).
	progress    ProgressFunc
	params      KernelParams
	capRows     int
	capFeatures int
	lMax        int       // rows of the largest subproblem the workers are sized for
	sqnorm      []float64 // x_t'x_t of every row (RBF), shared read-only by workers
	// normHash and norm are the rows' hashes and x_t'x_t of the last
	// Train that computed norms, under normKey: a warm Train takes the
	// norms of the rows it shares with it from there (rowNorms).
	normHash []uint64
	norm     []float64
	normKey  normKey
	// dense is the dense copy the kernels read a sparse data set through
	// when most of its entries are nonzero (denseView); nil when the
	// trainer was made without one, or has not needed its lazy one yet.
	dense *data.Dataset
	// denseLazy says the copy is made when a Train first needs it, sized
	// to its rows (rows wider than denseViewMaxFeatures: kdenseview.go).
	denseLazy bool

	cls     []int32 // class index of each row (C-SVC)
	perm    []int32 // rows grouped by class, data order within a class
	svIndex []int32 // row → support vector index, −1 for none
	// rowHash holds RowHash of each row of a Train's data set, kept in
	// the gradient it returns (gradientRows.hash).
	rowHash []uint64
	// kept holds the kernel columns kept between warm Trains (KeepMB,
	// kkeep.go); nil when KeepMB is 0.
	kept    *keptColumns
	workers []kernelWorker
	// arenas holds the workers' cache arenas, back to back in worker
	// order (shareArena).
	arenas []float32
	// helpers are the kernelRows of the column helpers (kparallel.go),
	// GOMAXPROCS−1 of them, started for each Train.
	helpers []*kernelRows
	// wantDual is set during a Train, clear during a TrainModel.
	wantDual bool
	// scoreOnly makes Train's model carry ρ, the labels and the training
	// result only, no support vectors or coefficients (it is not
	// initialised): for a grid search, which scores from the dual and ρ,
	// and would otherwise copy every model's support vectors, most of
	// what it allocates (digits' default grid: 850 MB of 1.4 GB).
	scoreOnly bool
	// warmGrad is the usable gradient of the warm start during one Train's
	// solves, nil otherwise; goneK the kernel columns of the support
	// vectors removed since its run (KernelGradient.removedColumns).
	warmGrad *KernelGradient
	goneK    [][]float32
	// nuUnchecked skips ν-SVC's feasibility check (feasible.Feasible): set for
	// the internal cross-validation folds of Probability, which LIBSVM
	// trains whatever their class counts.
	nuUnchecked bool
	// solveSettled makes every warm pair go through the solver, even one
	// warmSettled finds optimal at its start (tests compare the two);
	// settled counts the pairs warmSettled solved since the trainer was
	// made.
	solveSettled bool
	settled      atomic.Int64
}

// denseViewMaxFeatures is the widest data a KernelTrainer made for a
// capacity (NewKernelTrainer) keeps a dense copy for: its kernels read a
// sparse data set whose rows are mostly nonzero (data.PreferDense) through
// that copy, as a data set read dense would be. On shuttle's 9 features,
// stored sparse by the daemon, the sparse kernel columns cost 2.7 times the
// dense ones (scattering a row, gathering each other row by its indices).
// The copy takes capRows × capFeatures float32 (plus a label each), at most
// 264 bytes a row.
const denseViewMaxFeatures = 64

// KernelRowWidth returns how many values a kernel trainer's kernels read
// per row of rows of numFeatures features holding about nonzeros
// nonzeros each (at most numFeatures): numFeatures when the rows are
// narrow and dense enough for the trainer to read them through its dense
// copy (denseViewMaxFeatures, data.PreferDense), else nonzeros. It is the
// one rule for what a row's width decides: the incremental trainers'
// default for kept columns (options.KernelOptions.Incremental, from the
// capacity's nonzeros a row), and in a warm Train (from the data set's),
// whether added rows get kept columns and columns are read across the
// kept ones (keptColumns.wide, acrossMinWidth).
func KernelRowWidth(numFeatures, nonzeros int) int {
	nonzeros = min(nonzeros, numFeatures)
	if numFeatures <= denseViewMaxFeatures && data.PreferDense(1, numFeatures, nonzeros) {
		return numFeatures
	}
	return nonzeros
}

// wantsDenseView reports whether a trainer for ds, when ds is all it
// trains, needs the dense copy: ds is sparse, narrow and mostly nonzero.
func wantsDenseView(ds *data.Dataset) bool {
	return !ds.IsDense() && ds.NumFeatures() <= denseViewMaxFeatures &&
		data.PreferDense(ds.Len(), ds.NumFeatures(), ds.Nonzeros())
}

// denseViewBytes is what the dense copy of capRows × capFeatures takes.
func denseViewBytes(capRows, capFeatures int) int64 {
	return int64(capRows) * (4*int64(capFeatures) + 8)
}

// kernelWorker is one goroutine's solver, matrix and buffers.
type kernelWorker struct {
	kr    *kernelRows
	q     *svcQ // C-SVC, ν-SVC and one-class (y all +1)
	svr   *svrQ // ε-SVR and ν-SVR
	s     *smo
	rows  []int32
	y     []int8
	p     []float64
	alpha []float64
	// alpha0 is α⁰ of a stored gradient (smo.solveFrom), in the solver's
	// variables.
	alpha0 []float64
	// wt holds the instance weight of each of the solver's variables
	// when the data set has weights.
	wt []float64
	// lCap is the most rows a subproblem of this worker may have: its
	// buffers' size.
	lCap int
	// lSmall is the most rows of a pair this worker takes when it is not
	// sharing worker 0's arena (workerShape); lCap for worker 0.
	lSmall int
	// limit is the most rows of a pair the worker takes in this Train.
	limit int
}

// workerShape divides a cache budget between the workers of a one-vs-one
// training whose pairs have at most lMax rows: the rows (l) and cache
// budget (b) of worker 0 and of each other worker. The other workers take
// only pairs whose every column fits their budget — a quarter of the whole
// budget between them — so two pairs that each fill a cache never run at
// once; worker 0 takes every pair, the large ones one after the other with
// the rest of the budget, as LIBSVM does. So the resident cache stays what
// one LIBSVM subproblem at a time would touch, plus small pairs' columns;
// splitting the budget evenly let two large pairs (shuttle's) fill both
// halves at once.
//
// Worker 1 is the exception that lets two large pairs run at once without
// more cache: its buffers and cache bookkeeping are sized for lMax rows,
// and when a training has two or more pairs too large for the small
// workers, worker 0's arena is split in halves between worker 0 and
// worker 1 for that training (KernelTrainer.shareArena), each taking large
// pairs. Its own arena (b1) then stays untouched. So the arenas' total is
// still the budget, and the resident cache at most worker 0's arena.
func workerShape(budget int64, lMax, workers int) (l0 int, b0 int64, l1 int, b1 int64) {
	if workers <= 1 {
		return lMax, budget, 0, 0
	}
	b1 = budget / int64(4*(workers-1))
	l1 = min(lMax, int(math.Sqrt(float64(b1/4))))
	b0 = max(budget-kernelCacheBytes(lMax, b1)-int64(workers-2)*kernelCacheBytes(l1, b1), 0)
	return lMax, b0, l1, b1
}

// setReuse makes w's C-SVC matrix keep its cache across Trains of the
// same rows (svcQ.reuse: a grid search's C path), or empty it for each.
func (w *kernelWorker) setReuse(reuse bool) {
	if w.q != nil {
		w.q.reuse = reuse
	}
}

// workerSize returns the rows and cache budget worker k is sized for,
// and the rows of the largest pair it takes alone (kernelWorker.lSmall),
// from workerShape's l0, b0, l1, b1: worker 1 is sized for the largest
// pair (shareArena) with the small budget.
func workerSize(k, l0 int, b0 int64, l1 int, b1 int64) (lMax int, budget int64, lSmall int) {
	switch k {
	case 0:
		return l0, b0, l0
	case 1:
		return l0, b1, l1
	}
	return l1, b1, l1
}

// setPool makes w's matrix split its kernel columns with pool's helpers
// (nil: none).
func (w *kernelWorker) setPool(pool *columnPool) {
	if w.q != nil {
		w.q.cols.pool = pool
	}
	if w.svr != nil {
		w.svr.cols.pool = pool
	}
}

// kernelHelperCount is the number of column helpers of a trainer
// (kparallel.go): one per processor beyond the first.
func kernelHelperCount() int { return max(0, runtime.GOMAXPROCS(0)-1) }

// kernelWorkerCount is the number of workers of a trainer: one for the
// single subproblem of one-class and the SVRs.
func kernelWorkerCount(p *KernelParams) int {
	if !p.SVMType.IsSVC() {
		return 1
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// kernelWorkersFor is kernelWorkerCount for a trainer of ds alone: no more
// workers than ds has one-vs-one pairs. A second worker of a binary C-SVC
// has no pair to take, yet workerShape gives it a quarter of the cache
// budget: debdesc_bin's first 10,000 rows took 52,544,317 kernel
// evaluations on two CPUs against 52,467,287 on one.
func kernelWorkersFor(ds *data.Dataset, p *KernelParams) int {
	w := kernelWorkerCount(p)
	if p.SVMType.IsSVC() {
		k := classCount(ds.Labels())
		w = min(w, max(1, k*(k-1)/2))
	}
	return w
}

// KernelTrainerBytes returns the memory, in bytes, that NewKernelTrainer
// allocates for these parameters and capacities (the models it returns not
// included): the kernel caches, the solvers, the per-row buffers and, for
// capFeatures ≤ 64, the dense copy of sparse rows (NewKernelTrainer), and
// the kernel columns kept between warm Trains (KeepMB, at most that). The
// caches take at most CacheMB in total (at least three columns a worker)
// and never more than capRows² float32 entries a worker, what a
// subproblem of capRows rows can use; how much of that becomes resident
// depends on the run (kcache.go).
func KernelTrainerBytes(p KernelParams, capRows, capFeatures int) int64 {
	return kernelTrainerBytes(p, capRows, capFeatures, kernelWorkerCount(&p), capRows, capFeatures <= denseViewMaxFeatures)
}

// kernelTrainerBytes is KernelTrainerBytes for a trainer whose subproblems
// have at most lMax rows (lMax ≤ capRows): the solvers, matrices and
// caches are sized for lMax, the per-row buffers for capRows; with view,
// the dense copy of a sparse data set (denseViewMaxFeatures).
func kernelTrainerBytes(p KernelParams, capRows, capFeatures, workers, lMax int, view bool) int64 {
	if !p.SVMType.IsSVC() {
		workers = 1
	}
	l := int64(capRows)
	shared := l*(8+4+4+4+8+8+8) + keptColumnsBytes(capRows, p.keepBytes()) // sqnorm, cls, perm, svIndex, rowHash, normHash, norm, kept columns
	// A copy of wider rows is made when a Train needs it (denseView).
	if view && capFeatures <= denseViewMaxFeatures {
		shared += denseViewBytes(capRows, capFeatures)
	}
	worker := func(lMax int, budget int64) int64 {
		return kernelWorkerBytes(&p, lMax, capFeatures) + kernelCacheBytes(lMax, budget)
	}
	l0, b0, l1, b1 := workerShape(p.cacheBytes(), lMax, workers)
	total := shared + worker(l0, b0)
	if workers > 1 {
		// worker 1 is sized for lMax rows with the small budget, the
		// others for l1 rows (workerShape).
		total += worker(lMax, b1) + int64(workers-2)*worker(l1, b1)
		if b := p.keepBytes(); b > 0 {
			// The kept columns' marks and each matrix's kpos: pairs
			// run at once (kkeepwrites.go).
			total += keptWritesBytes(capRows, b) + int64(workers)*8*l
		}
	}
	helpers := int64(kernelHelperCount()) * (int64(capFeatures)*8 + 64) // scratch, kernelRows
	return total + helpers
}

// kernelWorkerBytes returns the bytes of a worker's solver, matrix and
// buffers for subproblems of up to lMax rows, its cache not included.
func kernelWorkerBytes(p *KernelParams, lMax, capFeatures int) int64 {
	lm := int64(lMax)
	vars := lm // variables per subproblem
	if p.SVMType.IsRegression() {
		vars = 2 * lm
	}
	b := int64(smoBytes(int(vars))) +
		int64(capFeatures)*8 + // kernelRows scratch
		lm*4 + vars*(1+8+8+8+8) // rows; y, p, alpha, alpha0, wt
	if p.SVMType.IsRegression() {
		b += lm*4 + vars*(4+1+8+2*4+4) // svrQ rows; index, sign, qd, two column buffers, rowBuf
	} else {
		b += lm * (4 + 1 + 8 + 4) // svcQ index, y, qd, rowBuf
	}
	if p.keepBytes() > 0 {
		b += lm * (4 + 4 + 4) // the matrix's missing, keptBuf, kslot
	}
	return b
}

// largestSubproblem returns the rows of the largest subproblem of a
// training on ds: the two largest classes together for C-SVC and ν-SVC
// (every row when there are fewer than two), every row for one-class and
// the SVRs.
func largestSubproblem(ds *data.Dataset, t SVMType) int {
	l := ds.Len()
	if !t.IsSVC() {
		return l
	}
	count := make(map[float64]int)
	for _, v := range ds.Labels() {
		count[v]++
	}
	a, b := 0, 0 // the two largest counts
	for _, c := range count {
		switch {
		case c > a:
			a, b = c, a
		case c > b:
			b = c
		}
	}
	if len(count) < 2 {
		return l
	}
	return a + b
}

// NewKernelTrainer validates p and allocates the buffers and kernel caches
// for data sets of up to capRows rows and capFeatures features; for
// capFeatures ≤ 64 also a dense copy of the rows, which the kernels read a
// sparse data set through when most of its entries are nonzero (a sparse
// store of sensor data): the same model as from the rows read dense, in a
// third of the time on 9 features. It refuses (ErrTooLarge) capacities
// whose buffers, KernelTrainerBytes, exceed the machine's memory.
func NewKernelTrainer(p KernelParams, capRows, capFeatures int) (*KernelTrainer, error) {
	return newKernelTrainer(p, capRows, capFeatures, kernelWorkerCount(&p), capRows, capFeatures <= denseViewMaxFeatures)
}

// newKernelTrainer is NewKernelTrainer with the number of workers, the
// rows of the largest subproblem it will solve (lMax ≤ capRows; Train
// panics on a larger one), which sizes the solvers and caches, and whether
// to keep a dense copy for sparse data (view).
func newKernelTrainer(p KernelParams, capRows, capFeatures, workers, lMax int, view bool) (*KernelTrainer, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if capRows < 0 || capFeatures < 0 {
		return nil, fmt.Errorf("%w: negative capacity", ErrParams)
	}
	if !p.SVMType.IsSVC() {
		workers = 1
	}
	lMax = max(0, min(lMax, capRows))
	if err := CheckMemory("kernel trainer", kernelTrainerBytes(p, capRows, capFeatures, workers, lMax, view)); err != nil {
		return nil, err
	}
	p.Weights = append([]ClassWeight(nil), p.Weights...)
	t := &KernelTrainer{
		params:      p,
		capRows:     capRows,
		capFeatures: capFeatures,
		lMax:        lMax,
		sqnorm:      make([]float64, capRows),
		normHash:    make([]uint64, 0, capRows),
		norm:        make([]float64, 0, capRows),
		cls:         make([]int32, capRows),
		perm:        make([]int32, capRows),
		svIndex:     make([]int32, capRows),
		rowHash:     make([]uint64, capRows),
		workers:     make([]kernelWorker, workers),
		helpers:     make([]*kernelRows, kernelHelperCount()),
	}
	if view && capFeatures <= denseViewMaxFeatures {
		t.dense = data.NewDense(capRows, capFeatures)
	}
	t.denseLazy = view && capFeatures > denseViewMaxFeatures
	if b := p.keepBytes(); b > 0 {
		t.kept = &keptColumns{budget: b, prev: make([]int32, 0, capRows), oldOf: make([]int32, 0, capRows), cur: make([][]float32, 0, capRows)}
		t.kept.track = workers > 1 // pairs at once share the columns (kkeepwrites.go)
	}
	for h := range t.helpers {
		t.helpers[h] = &kernelRows{scratch: make([]float64, capFeatures)}
	}
	l0, b0, l1, b1 := workerShape(p.cacheBytes(), lMax, workers)
	// The workers' cache arenas lie back to back in t.arenas, so that a
	// training of one subproblem gives worker 0 all of them (shareArena).
	var total int64
	for k := range workers {
		lMax, budget, _ := workerSize(k, l0, b0, l1, b1)
		total += kernelCacheEntries(lMax, budget)
	}
	t.arenas = make([]float32, total)
	next := int64(0)
	for k := range t.workers {
		w := &t.workers[k]
		var lMax int
		var budget int64
		lMax, budget, w.lSmall = workerSize(k, l0, b0, l1, b1)
		vars := lMax
		if p.SVMType.IsRegression() {
			vars = 2 * lMax
		}
		w.lCap = lMax
		w.kr = &kernelRows{scratch: make([]float64, capFeatures)}
		w.s = newSMO(vars)
		w.rows = make([]int32, lMax)
		w.y = make([]int8, vars)
		w.p = make([]float64, vars)
		w.alpha = make([]float64, vars)
		w.alpha0 = make([]float64, vars)
		w.wt = make([]float64, vars)
		e := kernelCacheEntries(lMax, budget)
		cache := newKernelCacheIn(lMax, t.arenas[next:next+e:next+e])
		next += e
		if p.SVMType.IsRegression() {
			w.svr = &svrQ{
				kr:     w.kr,
				cache:  cache,
				rows:   make([]int32, 0, lMax),
				index:  make([]int32, vars),
				sign:   make([]int8, vars),
				qd:     make([]float64, vars),
				buf:    [2][]float32{make([]float32, vars), make([]float32, vars)},
				rowBuf: make([]int32, vars),
			}
			if t.kept != nil {
				w.svr.missing, w.svr.keptBuf, w.svr.kslot = make([]int32, 0, lMax), make([]float32, lMax), make([]int32, 0, lMax)
			}
		} else {
			w.q = &svcQ{
				kr:     w.kr,
				cache:  cache,
				index:  make([]int32, 0, lMax),
				y:      make([]int8, 0, lMax),
				qd:     make([]float64, lMax),
				rowBuf: make([]int32, lMax),
			}
			if t.kept != nil {
				w.q.missing, w.q.keptBuf, w.q.kslot = make([]int32, 0, lMax), make([]float32, lMax), make([]int32, 0, lMax)
				if t.kept.track {
					w.q.kpos = make([]int32, 2*capRows) // the most slots (keptColumns.begin)
				}
			}
		}
	}
	return t, nil
}

// Params returns the trainer's parameters.
func (t *KernelTrainer) Params() KernelParams { return t.params }

// KeptBytes returns the bytes of the kernel columns t keeps between warm
// Trains (kkeep.go) and their budget, KeepMB in bytes: kept ≤ budget
// after every Train. Both are 0 without KeepMB.
func (t *KernelTrainer) KeptBytes() (kept, budget int64) {
	if t.kept == nil {
		return 0, 0
	}
	return t.kept.bytes, t.kept.budget
}

// SetProgress makes t's runs report their progress to fn (nil: none):
// every 1000 SMO iterations of each subproblem, the iteration count and
// the violation m(α) − M(α) (Objective is NaN: f(α) needs the gradient of
// the shrunk variables, which SMO rebuilds only at the end). fn may be
// called from several goroutines at once (one-vs-one pairs train in
// parallel).
func (t *KernelTrainer) SetProgress(fn ProgressFunc) { t.progress = fn }

// smoProgress returns the SMO callback reporting the subproblem over
// classes (ProgressEvent.Classes: 0, or 2 for first against second), or
// nil without a progress function.
func (t *KernelTrainer) smoProgress(classes int, first, second int32) func(int, float64) {
	fn := t.progress
	if fn == nil {
		return nil
	}
	return func(iter int, violation float64) {
		fn(ProgressEvent{Classes: classes, Subproblem: first, Second: second, Iteration: iter,
			Objective: math.NaN(), Violation: violation})
	}
}

// TrainKernel trains a model on ds with a trainer sized for it: the
// one-call form of NewKernelTrainer and Train.
func TrainKernel(ds *data.Dataset, p KernelParams) (*KernelModel, *KernelDual, error) {
	t, err := newKernelTrainer(p, ds.Len(), ds.NumFeatures(), kernelWorkersFor(ds, &p), largestSubproblem(ds, p.SVMType), wantsDenseView(ds))
	if err != nil {
		return nil, nil, err
	}
	return t.Train(ds, nil)
}

// Train trains on every row of ds and returns the model (initialised, see
// KernelModel.Init) and its dual variables. A zero Gamma is resolved to
// 1/ds.NumFeatures(). With Params.Probability it also fits the
// probability estimates, ProbA and ProbB (see kernelprob.go), which costs
// about five more trainings on four fifths of the rows.
//
// warm, when not nil, holds dual variables aligned with ds's rows: a
// previous run's, with kept rows in place and new rows at zero. Each
// subproblem starts from the vector of the same formulation and class pair
// (in either order), or from the cold start when there is none. The start
// is made feasible: clipped to the box [0, C_t], then moved onto the
// equality yᵀα = Δ (Δ = 0, or νl for one-class, which changes with l) by
// feasible.RepairEquality; for ν-SVC and ν-SVR onto each side's sum (νl/2 of the
// pair's l rows, Cνl/2; l counts rows by their instance weights), the same
// way side by side (feasible.RepairSums). When warm.Gradient fits (same kernel,
// bounds and ε, the same first Gradient.Rows rows), the solver updates that
// gradient by a kernel column per α that differs from the one it was
// computed at (changed by the caller or the repair) and per row added
// since; otherwise it rebuilds the gradient from α, a column per support
// vector. The returned dual carries the gradient of this run.
//
// Errors: ErrLabels wrapped for unusable labels (no rows; for C-SVC a
// non-integer label or a single class); ErrParams wrapped for a ν that
// ν-SVC cannot meet (feasible.Feasible: some pair's νL/2 exceeds a class's L,
// rows counted by their instance weights) or meets only at r = 0. It
// panics if ds exceeds the trainer's capacity or a warm vector is not
// ds.Len() long.
func (t *KernelTrainer) Train(ds *data.Dataset, warm *KernelDual) (*KernelModel, *KernelDual, error) {
	t.wantDual = true
	return t.train(ds, warm)
}

// TrainModel is Train from a cold start that returns the model alone. It
// keeps no dual variables beyond each pair's own rows while it runs (Train
// returns α and the gradient of every subproblem for every row of ds: on
// shuttle's 21 pairs of 43,500 rows, 11 MB), so it is the form for a
// one-off training such as svmgo train.
func (t *KernelTrainer) TrainModel(ds *data.Dataset) (*KernelModel, error) {
	t.wantDual = false
	m, _, err := t.train(ds, nil)
	return m, err
}

// TrainKernelModel trains a model on ds with a trainer sized for it: the
// one-call form of NewKernelTrainer and TrainModel.
func TrainKernelModel(ds *data.Dataset, p KernelParams) (*KernelModel, error) {
	return trainKernelModel(ds, p, nil)
}

// trainKernelModel is TrainKernelModel reporting to progress (nil: none).
func trainKernelModel(ds *data.Dataset, p KernelParams, progress ProgressFunc) (*KernelModel, error) {
	t, err := newKernelTrainer(p, ds.Len(), ds.NumFeatures(), kernelWorkersFor(ds, &p), largestSubproblem(ds, p.SVMType), wantsDenseView(ds))
	if err != nil {
		return nil, err
	}
	t.SetProgress(progress)
	return t.TrainModel(ds)
}

func (t *KernelTrainer) train(ds *data.Dataset, warm *KernelDual) (*KernelModel, *KernelDual, error) {
	warm, err := t.checkRun(ds, warm)
	if err != nil {
		return nil, nil, err
	}
	p := &t.params
	l, n := ds.Len(), ds.NumFeatures()
	k := p.ResolvedKernel(n)
	mid := 0 // the rows a warm gradient covers
	if warm != nil && warm.Gradient != nil {
		mid = warm.Gradient.Rows
	}
	hMid, hAll := hashRows(ds, mid, t.rowHash)
	covered := 0 // the rows whose norms may be the last Train's
	if warm != nil {
		covered = mid
	}
	defer t.attachRows(ds, k, covered)()
	m := &KernelModel{SVMType: p.SVMType, Kernel: k, NumFeatures: n, Params: *p}
	m.Params.Weights = append([]ClassWeight(nil), p.Weights...)
	epsilon := 0.0 // ε in p of the SVR problem (ν-SVR has none)
	if p.SVMType == EpsSVR {
		epsilon = p.P
	}
	goneEvals := t.startWarm(ds, warm, k, epsilon, hMid)
	if t.kept != nil && warm == nil && t.wantDual && t.kept.of == nil {
		t.kept.startSeed(t.rowHash[:l])
	}
	var dual *KernelDual
	switch p.SVMType {
	case CSVC, NuSVC:
		dual, err = t.trainSVC(ds, warm, m)
	case OneClass:
		dual = t.trainOneClass(ds, warm, m)
	case EpsSVR, NuSVR:
		dual = t.trainSVR(ds, warm, m)
	}
	t.warmGrad, t.goneK = nil, nil
	for w := range t.workers {
		if q := t.workers[w].q; q != nil {
			q.kept = nil
		}
		if q := t.workers[w].svr; q != nil {
			q.kept = nil
		}
	}
	if err != nil {
		if t.kept != nil && t.kept.capturing {
			t.kept.drop()
		}
		return nil, nil, err
	}
	m.Result.KernelEvals += goneEvals
	if t.kept != nil && dual != nil && t.wantDual && (warm != nil || t.kept.capturing) {
		// Kept after warm runs, and the first cold one's captures: the
		// other cold runs leave them as they were.
		sv := func(i int) bool { return dual.Alpha[0][i] != 0 }
		if p.SVMType.IsSVC() {
			sv = func(i int) bool { return t.svIndex[i] >= 0 }
		}
		t.kept.end(l, t.rowHash, sv)
	} else if t.kept != nil && t.kept.capturing {
		t.kept.drop()
	}
	if !t.wantDual {
		dual = nil
	}
	if g := dual.gradient(); g != nil {
		g.Kernel, g.Epsilon, g.Rows = k, epsilon, l
		g.Check = hAll
		t.keepRows(dual, ds, m)
	}
	if p.Probability {
		if err := t.fitProbability(ds, m); err != nil {
			return nil, nil, err
		}
	}
	if t.scoreOnly {
		return m, dual, nil // no support vectors to initialise
	}
	if err := m.initTrained(); err != nil {
		// The trainer built the model; a failure is a bug here, or
		// non-finite numbers from a degenerate problem.
		return nil, nil, fmt.Errorf("core: kernel training produced an unusable model: %w", err)
	}
	return m, dual, nil
}

// checkRun refuses a run on ds the trainer cannot make: no rows, or costs
// the solvers cannot use (errors); rows beyond its capacity or a warm
// start of another row count (panics: the caller's bug). It returns the
// warm start to use: warm, or nil for another formulation's.
func (t *KernelTrainer) checkRun(ds *data.Dataset, warm *KernelDual) (*KernelDual, error) {
	l, n := ds.Len(), ds.NumFeatures()
	if l > t.capRows || n > t.capFeatures {
		panic(fmt.Sprintf("core: KernelTrainer.Train: %d rows × %d features exceed the capacity %d × %d",
			l, n, t.capRows, t.capFeatures))
	}
	if l == 0 {
		return nil, fmt.Errorf("%w: no training rows", data.ErrLabels)
	}
	if warm != nil {
		if warm.SVMType != t.params.SVMType {
			warm = nil // another formulation's variables mean nothing here
		} else {
			for _, a := range warm.Alpha {
				if len(a) != l {
					panic(fmt.Sprintf("core: KernelTrainer.Train: warm start has %d values for %d rows", len(a), l))
				}
			}
		}
	}
	p := &t.params
	c := p.C
	if p.SVMType == OneClass || p.SVMType == NuSVC {
		c = 1 // the weight alone bounds α
	}
	return warm, solve.CheckCosts(ds, c, p.Weights)
}

// attachRows points the workers' and helpers' kernel rows at ds (or its
// dense copy) under kernel k, with the rows' squared norms for RBF
// (rowNorms; the first covered rows may be the last Train's), and starts
// the helpers' column pool; it returns the function that stops it.
func (t *KernelTrainer) attachRows(ds *data.Dataset, k Kernel, covered int) (detach func()) {
	l := ds.Len()
	// kds is what the kernels read: ds, or its dense copy.
	kds := ds
	if v := t.denseView(ds); v != nil {
		kds = v
	}
	sqnorm := t.sqnorm[:l]
	if k.Type == RBFKernel {
		t.rowNorms(kds, covered)
	}
	setRows := func(kr *kernelRows) {
		kr.ds, kr.k, kr.sqnorm = kds, k, nil
		if k.Type == RBFKernel {
			kr.sqnorm = sqnorm
		}
	}
	for _, kr := range t.helpers {
		setRows(kr)
	}
	var pool *columnPool
	if worthOffering(kds.Len(), kds) {
		pool = startColumnPool(t.helpers)
	}
	for w := range t.workers {
		setRows(t.workers[w].kr)
		t.workers[w].setPool(pool)
	}
	return func() {
		pool.stop()
		for w := range t.workers {
			t.workers[w].setPool(nil)
		}
	}
}

// normKey is what the squared norms of a trainer's rows depend on
// besides the rows' values: whether the kernels read them dense (and how
// wide: trainDot's sum depends on it) or sparse.
type normKey struct {
	dense bool
	width int
}

// rowNorms sets t.sqnorm[i] = x_i'x_i for the rows of kds (the rows the
// kernels read), summed as kernelRows sums them, so K(x, x) = 1 exactly.
// Among the first covered rows, those the last Train's rows hold in the
// same order (matched by t.rowHash, kept rows in order and then new ones,
// as a warm start's rows are) take its norms: computing them for every
// row was a sixth of a warm one-class retrain on digits. The first row
// not found ends the matching.
func (t *KernelTrainer) rowNorms(kds *data.Dataset, covered int) {
	l := kds.Len()
	sqnorm, rowHash := t.sqnorm[:l], t.rowHash[:l]
	key := normKey{kds.IsDense(), kds.NumFeatures()}
	prevHash, prevNorm := t.normHash, t.norm
	if key != t.normKey {
		prevHash = nil
	}
	p, n0 := 0, len(prevHash)
	for i := range sqnorm {
		if i < covered && p < n0 {
			q := p
			for q < n0 && prevHash[q] != rowHash[i] {
				q++
			}
			if q < n0 {
				sqnorm[i], p = prevNorm[q], q+1
				continue
			}
			p = n0
		}
		if kds.IsDense() {
			x := kds.DenseRow(i)
			sqnorm[i] = trainDot(x, x)
		} else {
			_, v := kds.SparseRow(i)
			sqnorm[i] = sqSparse32(v)
		}
	}
	t.normHash = append(t.normHash[:0], rowHash...)
	t.norm = append(t.norm[:0], sqnorm...)
	t.normKey = key
}

// startWarm takes from warm what the run can start from beyond α: its
// gradient, when it covers these rows under this kernel (t.warmGrad),
// with the columns of the support vectors removed since (t.goneK, costing
// goneEvals kernel evaluations), and the kept kernel columns. hMid is
// hashRows's hash of the rows warm's gradient covers.
func (t *KernelTrainer) startWarm(ds *data.Dataset, warm *KernelDual, k Kernel, epsilon float64, hMid uint64) (goneEvals int64) {
	l := ds.Len()
	t.warmGrad = usableGradient(warm, k, epsilon, hMid, l)
	if t.kept != nil && t.warmGrad != nil && t.kept.of == nil {
		// The first warm run: columns for the start's support vectors,
		// which it fills as it computes them.
		n := t.warmGrad.Rows
		t.kept.seed(t.rowHash[:n], func(i int) bool {
			for _, a := range warm.Alpha {
				if a[i] != 0 {
					return true
				}
			}
			return false
		})
	}
	if t.kept != nil && t.warmGrad != nil && t.kept.begin(t.rowHash, l, t.warmGrad.Rows,
		KernelRowWidth(ds.NumFeatures(), ds.Nonzeros()/max(l, 1)) >= acrossMinWidth) {
		for w := range t.workers {
			if q := t.workers[w].q; q != nil {
				q.kept = t.kept
			} else {
				t.workers[w].svr.kept = t.kept
			}
		}
	}
	if t.warmGrad != nil {
		var kept *keptColumns
		if t.kept != nil && len(t.kept.left) > 0 {
			kept = t.kept
		}
		var pairs [][2]int32 // the classes of C-SVC's pairs: only their rows are read
		if warm.SVMType.IsSVC() {
			pairs = warm.Pairs
		}
		t.goneK, goneEvals = t.warmGrad.removedColumns(t.workers[0].kr, kept, pairs)
	}
	return goneEvals
}

// trainSVC solves the one-vs-one subproblems and fills m's C-SVC fields.
func (t *KernelTrainer) trainSVC(ds *data.Dataset, warm *KernelDual, m *KernelModel) (*KernelDual, error) {
	p := &t.params
	labels, err := solve.GroupClasses(ds)
	if err != nil {
		return nil, err
	}
	r := t.newSVCRun(ds, labels, warm)
	if r.nu && !t.nuUnchecked {
		if err := feasible.Feasible(p.Nu, labels, feasible.ClassSizes(labels, r.start, t.cls[:ds.Len()], r.dw), r.dw != nil); err != nil {
			return nil, err
		}
	}
	t.solvePairs(r)
	for _, err := range r.pairErr {
		if err != nil {
			return nil, err
		}
	}
	if t.scoreOnly {
		m.Labels, m.Rho = r.labels, make([]float64, len(r.subs))
		for pi := range r.subs {
			m.Rho[pi] = r.subs[pi].Rho
		}
		m.Result = summarizeKernel(r.subs, 0)
	} else {
		r.fillModel(ds, m, t.svIndex[:ds.Len()])
	}
	if !t.wantDual {
		return nil, nil
	}
	r.fillDualAlpha(ds.Len())
	return r.dual, nil
}

// svcRun is the state the one-vs-one subproblems of a C-SVC or ν-SVC run
// share: the rows grouped by class, and what each pair's solve leaves.
type svcRun struct {
	warm   *KernelDual
	labels []int32
	start  []int     // class c's rows are perm[start[c]:start[c+1]]
	perm   []int32   // the rows grouped by class, data order within a class
	dw     []float64 // the rows' instance weights; nil: all 1
	nu     bool
	// Pair pi is classes pairI[pi] < pairJ[pi].
	pairI, pairJ []int
	subs         []KernelSubproblem
	pairAlpha    [][]float64 // α of each pair's rows, class i's then class j's
	// coefScale multiplies a pair's α into its coefficients: 1/r for
	// ν-SVC, 1 for C-SVC.
	coefScale []float64
	pairErr   []error
	dual      *KernelDual
	grad      *KernelGradient
	// vals holds what the pairs' solves leave, in parts of off[nPairs]
	// values: every pair's α, then, when the dual is wanted, every pair's
	// G and Gbar; pair pi's values of a part are at off[pi]:off[pi+1]
	// (part): one allocation a run, where finishPair made three a pair
	// (135 on digits).
	vals []float64
	off  []int
}

// part returns pair pi's values of part k of r.vals (0: α, 1: G, 2:
// Gbar), capped so that an append cannot reach the next pair's.
func (r *svcRun) part(k, pi int) []float64 {
	n := r.off[len(r.off)-1]
	lo, hi := k*n+r.off[pi], k*n+r.off[pi+1]
	return r.vals[lo:hi:hi]
}

// newSVCRun groups ds's rows by class (a counting sort into t.perm) and
// sets up the class pairs of labels.
func (t *KernelTrainer) newSVCRun(ds *data.Dataset, labels []int32, warm *KernelDual) *svcRun {
	p := &t.params
	l, nr := ds.Len(), len(labels)
	r := &svcRun{warm: warm, labels: labels, start: make([]int, nr+1), dw: solve.RowWeights(ds), nu: p.SVMType == NuSVC}
	cls := t.cls[:l]
	for i, v := range ds.Labels() {
		c := int32(0)
		for labels[c] != int32(v) {
			c++
		}
		cls[i] = c
		r.start[c+1]++
	}
	for c := range nr {
		r.start[c+1] += r.start[c]
	}
	next := append([]int(nil), r.start[:nr]...)
	r.perm = t.perm[:l]
	for i, c := range cls {
		r.perm[next[c]] = int32(i)
		next[c]++
	}

	nPairs := nr * (nr - 1) / 2
	r.dual = &KernelDual{SVMType: p.SVMType, Pairs: make([][2]int32, 0, nPairs), Alpha: make([][]float64, nPairs)}
	r.pairI, r.pairJ = make([]int, 0, nPairs), make([]int, 0, nPairs)
	for i := range nr {
		for j := i + 1; j < nr; j++ {
			r.dual.Pairs = append(r.dual.Pairs, [2]int32{labels[i], labels[j]})
			r.pairI, r.pairJ = append(r.pairI, i), append(r.pairJ, j)
		}
	}
	r.subs = make([]KernelSubproblem, nPairs)
	r.pairAlpha = make([][]float64, nPairs)
	r.coefScale = make([]float64, nPairs)
	r.pairErr = make([]error, nPairs)
	r.grad = &KernelGradient{Box: make([][2]float64, nPairs), G: make([][]float64, nPairs), Gbar: make([][]float64, nPairs),
		First: make([]int, nPairs), alpha: make([][]float64, nPairs)}
	r.dual.Gradient = r.grad
	r.off = make([]int, nPairs+1)
	for pi := range nPairs {
		r.off[pi+1] = r.off[pi] + r.pairSize(pi)
	}
	parts := 1
	if t.wantDual {
		parts = 3
	}
	r.vals = make([]float64, parts*r.off[nPairs])
	return r
}

// pairSize returns the rows of pair pi.
func (r *svcRun) pairSize(pi int) int {
	i, j := r.pairI[pi], r.pairJ[pi]
	return r.start[i+1] - r.start[i] + r.start[j+1] - r.start[j]
}

// solvePairs solves every pair on the trainer's workers, largest pairs
// first: the workers take pairs in this order, so the longest solves
// start at once and the small ones fill in after them (in data order, the
// largest pair could start last and run alone).
func (t *KernelTrainer) solvePairs(r *svcRun) {
	order := make([]int, len(r.pairI))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return r.pairSize(b) - r.pairSize(a) })
	sizes := make([]int, len(order))
	for k, pi := range order {
		sizes[k] = r.pairSize(pi)
	}
	restore := t.shareArena(sizes)
	t.run(sizes, func(w *kernelWorker, k int) { t.solvePair(r, w, order[k]) })
	restore()
}

// solvePair solves pair pi (class i's rows at y = +1, class j's at −1) on
// worker w, warm from r.warm's α and, when it fits, its gradient.
func (t *KernelTrainer) solvePair(r *svcRun, w *kernelWorker, pi int) {
	p := &t.params
	i, j := r.pairI[pi], r.pairJ[pi]
	rows := w.rows[:0]
	rows = append(rows, r.perm[r.start[i]:r.start[i+1]]...)
	ni := len(rows)
	rows = append(rows, r.perm[r.start[j]:r.start[j+1]]...)
	lp := len(rows)
	// The solve leaves α, and with the dual wanted G and Gbar, where the
	// run keeps them (r.vals), not in the worker's buffers to be copied.
	y, alpha, pv := w.y[:lp], r.part(0, pi), w.p[:lp]
	if t.wantDual {
		w.s.gradientInto(r.part(1, pi), r.part(2, pi))
		defer w.s.gradientInto(nil, nil)
	}
	// By side, without a test a variable (here and in the start's clip
	// below): a pair's per-variable passes are most of what a warm
	// retrain does outside its solves.
	for k := range y[:ni] {
		y[k] = 1
	}
	for k := range y[ni:] {
		y[ni+k] = -1
	}
	for k := range pv {
		pv[k] = -1
	}
	Cp, Cn := p.C*p.weightOf(r.labels[i]), p.C*p.weightOf(r.labels[j])
	var wv []float64 // the variables' instance weights; nil: all 1
	if r.dw != nil {
		wv = w.wt[:lp]
		for k, row := range rows {
			wv[k] = r.dw[row]
		}
	}
	var nuSum float64 // ν-SVC: each class's Σα, νL/2 with L = Σ w_t (core/internal/feasible)
	if r.nu {
		// svm-train ignores class weights here (its ν-SVC has no C);
		// KernelParams.Validate refuses them.
		Cp, Cn = 1, 1
		nuSum = p.Nu * solve.WeightSum(wv, lp) / 2
	}
	w.q.assign(rows, y)
	var a0, G0, Gbar0 []float64
	a, v := warmPair(r.warm, r.labels[i], r.labels[j])
	warmStart := a != nil
	if a == nil {
		clear(alpha)
	} else {
		clipStart(alpha[:ni], a, rows[:ni], Cp, wv)
		var wn []float64
		if wv != nil {
			wn = wv[ni:]
		}
		clipStart(alpha[ni:], a, rows[ni:], Cn, wn)
		if r.nu {
			feasible.RepairSums(alpha, y, ni, 1, wv, nuSum)
		} else {
			feasible.RepairEquality(alpha, y, Cp, Cn, wv, 0)
		}
		flipped := r.warm.Pairs[v][0] != r.labels[i]
		if g := t.warmGrad; g != nil && g.boxMatches(v, Cp, Cn, flipped) {
			a0 = w.alpha0[:lp]
			G0, Gbar0 = w.s.gradient(lp)
			g.fillStored(a0, G0, Gbar0, rows, ni, flipped, v)
			g.takeOutRemoved(G0, Gbar0, rows, ni, flipped, v, t.goneK)
			if !r.nu && !t.solveSettled {
				if res, ok := w.s.warmSettled(w.q, alpha, a0, G0, Gbar0, pv, y, Cp, Cn, wv, p.Eps); ok {
					t.settled.Add(1)
					t.finishPair(r, w, pi, res, alpha, Cp, Cn, ni)
					return
				}
			}
		}
	}
	if r.nu {
		for k := range pv {
			pv[k] = 0
		}
		if !warmStart {
			feasible.Start(alpha[:ni], 1, wv, nuSum)
			var wn []float64
			if wv != nil {
				wn = wv[ni:]
			}
			feasible.Start(alpha[ni:], 1, wn, nuSum)
		}
	}
	w.q.prepare()
	res := w.s.solveFrom(w.q, pv, y, alpha, a0, G0, Gbar0, smoParams{Cp: Cp, Cn: Cn, Weight: wv, Eps: p.Eps,
		Shrinking: p.Shrinking, MaxIter: p.MaxIter, ShrinkAtStart: warmStart, Warm: warmStart, Nu: r.nu,
		Progress: t.smoProgress(2, r.labels[i], r.labels[j])})
	if t.kept != nil && t.kept.capturing {
		t.kept.capture(w.q, alpha)
	}
	t.finishPair(r, w, pi, res, alpha, Cp, Cn, ni)
}

// clipStart sets alpha[k] = a[rows[k]] clipped to [0, C·wt[k]] (wt nil:
// weights 1): one side's start from a warm α laid out over the data set.
func clipStart(alpha, a []float64, rows []int32, C float64, wt []float64) {
	alpha = alpha[:len(rows)] // equal lengths: no bounds checks on alpha
	if wt == nil {
		for k, row := range rows {
			alpha[k] = feasible.Clip(a[row], C)
		}
		return
	}
	wt = wt[:len(rows)]
	for k, row := range rows {
		alpha[k] = feasible.Clip(a[row], C*wt[k])
	}
}

// finishPair keeps what pair pi's solve left: its α (the pair's own rows,
// in the solver's order; the data set's layout, KernelDual.Alpha, is
// built after the solves, if wanted), its coefficient scale, its gradient
// for the next run, and its report.
func (t *KernelTrainer) finishPair(r *svcRun, w *kernelWorker, pi int, res smoResult, alpha []float64, Cp, Cn float64, ni int) {
	p := &t.params
	i, j := r.pairI[pi], r.pairJ[pi]
	r.pairAlpha[pi] = r.part(0, pi)
	copy(r.pairAlpha[pi], alpha) // nothing to move where alpha is that part (solvePair)
	r.coefScale[pi] = 1
	if r.nu && !(res.R > 0) {
		// r ≤ 0 only where the dual optimum is 0 (the classes' reduced
		// convex hulls meet; Chang & Lin 2001, Section 3): LIBSVM
		// divides by it anyway, flipping or blowing up the decision
		// values. Refused, but in the internal cross-validation folds
		// of Probability, whose decision values are kept unscaled.
		if !t.nuUnchecked {
			r.pairErr[pi] = fmt.Errorf("%w: nu-SVC of classes %d and %d: r = %g at the optimum (the dual objective is 0: "+
				"the classes' reduced convex hulls meet at nu = %v); a larger nu is needed", ErrParams, r.labels[i], r.labels[j], res.R, p.Nu)
		}
	} else if r.nu {
		// The C-SVC solution with C = 1/r (Chang & Lin 2001, Theorem 2).
		r.coefScale[pi] = 1 / res.R
		res.Rho /= res.R
		res.Objective /= res.R * res.R
	}
	lp := len(alpha)
	if t.wantDual {
		G, Gbar := w.s.gradient(lp)
		r.grad.Box[pi] = [2]float64{Cp, Cn}
		r.grad.G[pi], r.grad.Gbar[pi] = r.part(1, pi), r.part(2, pi)
		copy(r.grad.G[pi], G) // nothing to move where solvePair lent them (gradientInto)
		copy(r.grad.Gbar[pi], Gbar)
		r.grad.alpha[pi] = r.pairAlpha[pi] // read only from here on
		r.grad.First[pi] = ni
	}
	r.subs[pi] = subproblemOf(res, r.labels[i], r.labels[j], lp, w.q.kernelEvals)
}

// fillModel sets m's support vectors, coefficients and ρ from the pairs'
// α: the support vectors are the rows with α > 0 in some pair, grouped by
// class in Labels order, data order within a class (LIBSVM's layout);
// svIndex[row] becomes each row's position among them, −1 for none.
func (r *svcRun) fillModel(ds *data.Dataset, m *KernelModel, svIndex []int32) {
	nr, nPairs := len(r.labels), len(r.pairI)
	// A row of class c at position k of its class is at k in pairAlpha of
	// a pair (c, ·) and at n_i + k in one of (i, c).
	m.Labels = r.labels
	m.NumSV = make([]int32, nr)
	// Each pair marks its own rows with α > 0 (0 in svIndex): a pass over
	// the pairs' rows, (nr − 1)·l, not over every pair for every row.
	for _, row := range r.perm {
		svIndex[row] = -1
	}
	for pi := range nPairs {
		i, j := r.pairI[pi], r.pairJ[pi]
		rows := r.perm[r.start[i]:r.start[i+1]]
		a := r.pairAlpha[pi][:len(rows)]
		for k, row := range rows {
			if a[k] > 0 {
				svIndex[row] = 0
			}
		}
		a = r.pairAlpha[pi][len(rows):]
		rows = r.perm[r.start[j]:r.start[j+1]]
		a = a[:len(rows)]
		for k, row := range rows {
			if a[k] > 0 {
				svIndex[row] = 0
			}
		}
	}
	nSV, nnz := 0, 0
	for c := range nr {
		for _, row := range r.perm[r.start[c]:r.start[c+1]] {
			if svIndex[row] == 0 {
				svIndex[row] = int32(nSV)
				nSV++
				m.NumSV[c]++
				nnz += rowNonzeros(ds, int(row))
			}
		}
	}
	m.SV = newLike(ds, nSV, nnz)
	for c := range nr {
		for _, row := range r.perm[r.start[c]:r.start[c+1]] {
			if svIndex[row] >= 0 {
				solve.AppendRow(m.SV, ds, int(row))
			}
		}
	}
	m.Coef = make([]float64, (nr-1)*nSV)
	m.Rho = make([]float64, nPairs)
	for pi := range nPairs {
		i, j := r.pairI[pi], r.pairJ[pi]
		a := r.pairAlpha[pi]
		ni := r.start[i+1] - r.start[i]
		// −a·s is a·(−s) to the bit (rounding is symmetric in sign).
		coefsOf(m.Coef[(j-1)*nSV:j*nSV], r.perm[r.start[i]:r.start[i+1]], svIndex, a[:ni], r.coefScale[pi])
		coefsOf(m.Coef[i*nSV:(i+1)*nSV], r.perm[r.start[j]:r.start[j+1]], svIndex, a[ni:], -r.coefScale[pi])
		m.Rho[pi] = r.subs[pi].Rho
	}
	m.Result = summarizeKernel(r.subs, nSV)
}

// fillDualAlpha lays each pair's α out over the l rows of the data set
// (KernelDual.Alpha), 0 for the rows of other classes.
func (r *svcRun) fillDualAlpha(l int) {
	all := make([]float64, l*len(r.pairI)) // one allocation, not one a pair
	for pi := range r.pairI {
		i, j := r.pairI[pi], r.pairJ[pi]
		full := all[pi*l : (pi+1)*l : (pi+1)*l]
		a := r.pairAlpha[pi]
		ni := r.start[i+1] - r.start[i]
		scatter(full, r.perm[r.start[i]:r.start[i+1]], a[:ni])
		scatter(full, r.perm[r.start[j]:r.start[j+1]], a[ni:])
		r.dual.Alpha[pi] = full
	}
}

// coefsOf sets coef[svIndex[row]] = a[k]·scale for each rows[k] that is a
// support vector (svIndex ≥ 0). The loops of fillModel and fillDualAlpha
// are helpers taking slices, not loops over r's fields: the compiler
// reloaded those fields at every store (on digits -M 20, nothing changed,
// a warm retrain took 4.38 M instructions with those loops, 3.96 M
// with these).
func coefsOf(coef []float64, rows, svIndex []int32, a []float64, scale float64) {
	a = a[:len(rows)] // equal lengths: no bounds checks on a
	for k, row := range rows {
		if s := svIndex[row]; s >= 0 {
			coef[s] = a[k] * scale
		}
	}
}

// scatter sets dst[rows[k]] = src[k].
func scatter(dst []float64, rows []int32, src []float64) {
	src = src[:len(rows)] // equal lengths: no bounds checks on src
	for k, row := range rows {
		dst[row] = src[k]
	}
}

// trainOneClass solves the one-class problem and fills m's fields.
func (t *KernelTrainer) trainOneClass(ds *data.Dataset, warm *KernelDual, m *KernelModel) *KernelDual {
	p := &t.params
	l := ds.Len()
	w := &t.workers[0]
	rows, y, alpha, pv := w.rows[:l], w.y[:l], w.alpha[:l], w.p[:l]
	for r := range rows {
		rows[r], y[r], pv[r] = int32(r), 1, 0
	}
	nul := p.Nu * float64(l)
	dw := solve.RowWeights(ds) // the bounds of α; nil: all 1
	if dw != nil {
		sum := 0.0
		for _, v := range dw {
			sum += v
		}
		nul = p.Nu * sum
	}
	w.q.assign(rows, y)
	var a0, G0, Gbar0 []float64
	var res smoResult
	settled := false
	warmStart := warm != nil && len(warm.Alpha) == 1
	if warmStart {
		for r := range alpha {
			alpha[r] = feasible.Clip(warm.Alpha[0][r], solve.Weighted(1, dw, r))
		}
		feasible.RepairEquality(alpha, y, 1, 1, dw, nul)
		if g := t.warmGrad; g != nil && g.boxMatches(0, 1, 1, false) {
			a0 = w.alpha0[:l]
			G0, Gbar0 = w.s.gradient(l)
			g.fillStored(a0, G0, Gbar0, rows, l, false, 0)
			g.takeOutRemoved(G0, Gbar0, rows, l, false, 0, t.goneK)
			if !t.solveSettled {
				res, settled = w.s.warmSettled(w.q, alpha, a0, G0, Gbar0, pv, y, 1, 1, dw, p.Eps)
			}
		}
	} else if dw != nil {
		// The cold start below with bounds ω_r: rows in order filled up
		// to their bound until Σα = ν Σ ω.
		clear(alpha)
		rest := nul
		for r := 0; r < l && rest > 0; r++ {
			alpha[r] = min(dw[r], rest)
			rest -= alpha[r]
		}
	} else {
		// The cold start of Chang & Lin (2011, Section 2.2): Σα = νl with
		// as few nonzero α as the box allows.
		clear(alpha)
		nOnes := int(nul)
		for r := range min(nOnes, l) {
			alpha[r] = 1
		}
		if nOnes < l {
			alpha[nOnes] = nul - float64(nOnes)
		}
	}
	if settled {
		t.settled.Add(1)
	} else {
		w.q.prepare()
		res = w.s.solveFrom(w.q, pv, y, alpha, a0, G0, Gbar0, smoParams{Cp: 1, Cn: 1, Weight: dw, Eps: p.Eps,
			Shrinking: p.Shrinking, MaxIter: p.MaxIter, ShrinkAtStart: warmStart, Warm: warmStart,
			Progress: t.smoProgress(0, 0, 0)})
		if t.kept != nil && t.kept.capturing {
			t.kept.capture(w.q, alpha)
		}
	}
	sub := subproblemOf(res, 0, 0, l, w.q.kernelEvals)
	dual := &KernelDual{SVMType: OneClass, Alpha: [][]float64{append([]float64(nil), alpha...)}}
	G, Gbar := w.s.gradient(l)
	dual.Gradient = &KernelGradient{Box: [][2]float64{{1, 1}},
		G: [][]float64{append([]float64(nil), G...)}, Gbar: [][]float64{append([]float64(nil), Gbar...)},
		alpha: [][]float64{append([]float64(nil), alpha...)}} // callers change dual.Alpha in place
	t.collectSV(ds, m, dual.Alpha[0], sub)
	return dual
}

// trainSVR solves the ε-SVR or ν-SVR problem over 2l variables and fills
// m's fields.
func (t *KernelTrainer) trainSVR(ds *data.Dataset, warm *KernelDual, m *KernelModel) *KernelDual {
	p := &t.params
	l := ds.Len()
	w := &t.workers[0]
	nu := p.SVMType == NuSVR
	epsilon := p.P // ν-SVR has none in p: its ε is an outcome, −r
	if nu {
		epsilon = 0
	}
	rows, y, alpha, pv := w.rows[:l], w.y[:2*l], w.alpha[:2*l], w.p[:2*l]
	for r, z := range ds.Labels() {
		rows[r] = int32(r)
		y[r], y[r+l] = 1, -1
		pv[r], pv[r+l] = epsilon-z, epsilon+z
	}
	var wv []float64 // the variables' instance weights; nil: all 1
	if dw := solve.RowWeights(ds); dw != nil {
		wv = w.wt[:2*l]
		copy(wv, dw)
		copy(wv[l:], dw)
	}
	clear(alpha)
	// ν-SVR's two sums, Σα = Σα* = Cνl/2 (Chang & Lin 2011, Section 2.4),
	// CνL/2 with L = Σ w_t under instance weights (kernelnu.go).
	nuSum := p.C * p.Nu * solve.WeightSum(wv, l) / 2
	var a0, G0, Gbar0 []float64
	warmStart := warm != nil && len(warm.Alpha) == 1
	if warmStart {
		for r, b := range warm.Alpha[0] {
			C := solve.Weighted(p.C, wv, r)
			alpha[r] = feasible.Clip(max(b, 0), C)
			alpha[r+l] = feasible.Clip(max(-b, 0), C)
		}
		if nu {
			feasible.RepairSums(alpha, y, l, p.C, wv, nuSum)
		} else {
			feasible.RepairEquality(alpha, y, p.C, p.C, wv, 0)
		}
		if g := t.warmGrad; g != nil && g.boxMatches(0, p.C, p.C, false) {
			a0 = w.alpha0[:2*l]
			G0, Gbar0 = w.s.gradient(2 * l)
			g.fillStoredSVR(a0, G0, Gbar0)
			if g.rows.gone != nil {
				// α's half; α*'s follows as fillStoredSVR has it.
				g.takeOutRemoved(G0[:l], Gbar0[:l], rows, l, false, 0, t.goneK)
				for r := range min(g.Rows, l) {
					G0[r+l], Gbar0[r+l] = 2*g.Epsilon-G0[r], -Gbar0[r]
				}
			}
		}
	} else if nu {
		// The cold start: α_t = α*_t, filled to C_t in row order.
		feasible.Start(alpha[:l], p.C, wv, nuSum)
		copy(alpha[l:], alpha[:l])
	}
	resetSVRQ(w.svr, rows)
	res := w.s.solveFrom(w.svr, pv, y, alpha, a0, G0, Gbar0, smoParams{Cp: p.C, Cn: p.C, Weight: wv, Eps: p.Eps,
		Shrinking: p.Shrinking, MaxIter: p.MaxIter, ShrinkAtStart: warmStart, Warm: warmStart, Nu: nu,
		Progress: t.smoProgress(0, 0, 0)})
	if t.kept != nil && t.kept.capturing {
		t.kept.captureSVR(w.svr, alpha)
	}
	beta := make([]float64, l)
	nBound := 0
	both := false // α_t and α*_t both nonzero: β does not give α back
	for r := range beta {
		beta[r] = alpha[r] - alpha[r+l]
		if math.Abs(beta[r]) >= solve.Weighted(p.C, wv, r) {
			nBound++
		}
		both = both || alpha[r] > 0 && alpha[r+l] > 0
	}
	sub := subproblemOf(res, 0, 0, l, w.svr.kernelEvals)
	sub.NumBoundSV = nBound
	dual := &KernelDual{SVMType: p.SVMType, Alpha: [][]float64{beta}}
	if !both {
		G, Gbar := w.s.gradient(l) // α's half; α*'s follows (fillStoredSVR)
		dual.Gradient = &KernelGradient{Box: [][2]float64{{p.C, p.C}},
			G: [][]float64{append([]float64(nil), G...)}, Gbar: [][]float64{append([]float64(nil), Gbar...)},
			alpha: [][]float64{append([]float64(nil), beta...)}}
	}
	t.collectSV(ds, m, beta, sub)
	return dual
}

// collectSV fills the fields of a single-subproblem model (one-class,
// ε-SVR): the rows with a nonzero coefficient, in data order.
func (t *KernelTrainer) collectSV(ds *data.Dataset, m *KernelModel, coef []float64, sub KernelSubproblem) {
	m.Rho = []float64{sub.Rho}
	if t.scoreOnly {
		m.Result = summarizeKernel([]KernelSubproblem{sub}, 0)
		return
	}
	nSV, nnz := 0, 0
	for r, c := range coef {
		if c != 0 {
			nSV++
			nnz += rowNonzeros(ds, r)
		}
	}
	m.SV = newLike(ds, nSV, nnz)
	m.Coef = make([]float64, 0, nSV)
	for r, c := range coef {
		if c != 0 {
			solve.AppendRow(m.SV, ds, r)
			m.Coef = append(m.Coef, c)
		}
	}
	sub.NumSV = nSV
	m.Result = summarizeKernel([]KernelSubproblem{sub}, nSV)
}

// run calls solve for tasks 0..n−1, spread over the workers.
// run calls solve for tasks 0..len(sizes)−1, whose subproblems have
// sizes[k] rows (in decreasing order), spread over the workers: each
// worker takes the next task it is sized for (workerShape), so worker 0
// takes the large ones in turn and every worker the small ones.
func (t *KernelTrainer) run(sizes []int, solve func(w *kernelWorker, task int)) {
	n := len(sizes)
	workers := min(len(t.workers), n)
	if workers <= 1 {
		for k := range n {
			solve(&t.workers[0], k)
		}
		return
	}
	var mu sync.Mutex
	taken := make([]bool, n)
	var wg sync.WaitGroup
	for g := range workers {
		w := &t.workers[g]
		wg.Go(func() {
			for {
				mine := -1
				mu.Lock()
				for k := range n {
					if !taken[k] && sizes[k] <= w.limit {
						mine = k
						taken[k] = true
						break
					}
				}
				mu.Unlock()
				if mine < 0 {
					return
				}
				solve(w, mine)
			}
		})
	}
	wg.Wait()
}

// shareArena sets each worker's pair limit for a one-vs-one training whose
// pairs have sizes rows (decreasing), and, when two or more pairs are too
// large for the small workers and GOMAXPROCS allows two workers, splits
// worker 0's cache arena in halves between workers 0 and 1, so that two
// large pairs run at once within the arena one of them had (workerShape).
// A training of one pair gives worker 0 every worker's arena.
// On shuttle the two largest pairs (40,856 and 34,240 rows, most of the
// time) then overlap instead of running one after the other. A half holds
// fewer columns than the whole, so a pair that would have filled the
// whole recomputes some (the solution does not depend on the cache). It
// returns the function that gives each worker its own arena back.
func (t *KernelTrainer) shareArena(sizes []int) (restore func()) {
	for k := range t.workers {
		t.workers[k].limit = t.workers[k].lSmall
	}
	restore = func() {}
	if len(t.workers) < 2 || t.workers[0].q == nil || t.workers[1].q == nil || len(sizes) < 1 {
		return restore
	}
	w0, w1 := &t.workers[0], &t.workers[1]
	if len(sizes) == 1 {
		// One subproblem (a binary C-SVC): the other workers have
		// nothing to do, so worker 0 takes their arenas too, and caches
		// about what the trainer of one worker (one CPU) would: all but
		// the other workers' bookkeeping. Before, a binary training on
		// two CPUs had three quarters of the budget, and computed 15%
		// more kernel values than on one (debdesc_bin's first 10,000
		// rows, examples/bench/cores.sh).
		c0 := w0.q.cache
		own := c0.arena
		l := int64(w0.lCap)
		c0.arena = t.arenas[:min(int64(len(t.arenas)), max(l*l, cacheMinColumns*l))] // as kernelCacheEntries bounds an arena
		return func() { c0.arena = own }
	}
	if sizes[1] <= w1.lSmall || sizes[0] > w1.lCap {
		return restore // at most one large pair: worker 0 keeps the whole arena
	}
	c0, c1 := w0.q.cache, w1.q.cache
	whole, own := c0.arena, c1.arena
	// Worker 1's buffers and cache bookkeeping, sized for the largest pair
	// and touched only now, come out of the shared arena: the two halves
	// and they fill what worker 0's arena alone could.
	extra := (kernelWorkerBytes(&t.params, w1.lCap, t.capFeatures) + kernelCacheBookBytes(w1.lCap) + 3) / 4
	half := max(len(whole)-int(extra), 0) / 2
	if half < cacheMinColumns*sizes[0] {
		return restore // halves too small for the largest pair's three columns
	}
	c0.arena, c1.arena = whole[:half:half], whole[half:2*half:2*half]
	w1.limit = w1.lCap
	return func() {
		c0.arena, c1.arena = whole, own
		w1.limit = w1.lSmall
	}
}

// resetSVRQ makes q the ε-SVR matrix of the samples rows (data rows of
// q.kr's data set), reusing its buffers and cache, as newSVRQ builds it.
func resetSVRQ(q *svrQ, rows []int32) {
	l := len(rows)
	q.rows = append(q.rows[:0], rows...)
	q.index, q.sign, q.qd = q.index[:2*l], q.sign[:2*l], q.qd[:2*l]
	for r, d := range q.rows {
		k := q.kr.diag(int(d))
		q.index[r], q.sign[r], q.qd[r] = int32(r), 1, k
		q.index[r+l], q.sign[r+l], q.qd[r+l] = int32(r), -1, k
	}
	if q.kept != nil {
		q.kslot = q.kslot[:l]
		for r, d := range q.rows {
			q.kslot[r] = q.kept.oldOf[d]
		}
	}
	q.cache.reset(l)
	q.identity = true
	q.next = 0
	q.kernelEvals = 0
	q.unkept = 0
}

// warmPair returns the warm-start vector of the C-SVC pair {a, b}, in
// either order, and its index in warm.Alpha, or nil.
func warmPair(warm *KernelDual, a, b int32) ([]float64, int) {
	if warm == nil {
		return nil, -1
	}
	for k, pr := range warm.Pairs {
		if k < len(warm.Alpha) && (pr == [2]int32{a, b} || pr == [2]int32{b, a}) {
			return warm.Alpha[k], k
		}
	}
	return nil, -1
}

// subproblemOf converts one solve's result.
func subproblemOf(res smoResult, pos, neg int32, rows int, evals int64) KernelSubproblem {
	return KernelSubproblem{
		Pos: pos, Neg: neg, Rows: rows,
		Iterations: res.Iterations, Objective: res.Objective, Rho: res.Rho, R: res.R, Gap: res.Gap,
		KernelEvals: evals, NumSV: res.NumSV, NumBoundSV: res.NumBoundSV, Converged: res.Converged,
	}
}

// summarizeKernel totals the subproblems' results.
func summarizeKernel(subs []KernelSubproblem, nSV int) KernelTrainResult {
	r := KernelTrainResult{Subproblems: subs, NumSV: nSV, Converged: true}
	for _, s := range subs {
		r.Iterations += s.Iterations
		r.KernelEvals += s.KernelEvals
		r.Objective += s.Objective
		r.NumBoundSV += s.NumBoundSV
		r.Converged = r.Converged && s.Converged
	}
	return r
}

// rowNonzeros returns the stored entries of row i of a sparse data set
// (0 for a dense one, whose copies need no nonzero capacity).
func rowNonzeros(ds *data.Dataset, i int) int {
	if ds.IsDense() {
		return 0
	}
	idx, _ := ds.SparseRow(i)
	return len(idx)
}

// newLike returns an empty data set of ds's layout for rows rows (and nnz
// nonzeros when sparse).
func newLike(ds *data.Dataset, rows, nnz int) *data.Dataset {
	if ds.IsDense() {
		return data.NewDense(rows, ds.NumFeatures())
	}
	return data.NewSparse(rows, nnz, ds.NumFeatures())
}

// keepRows records in dual's gradient, from a Train on ds that made m,
// what lets it outlive removed rows (gradientRows): the rows' hashes,
// their classes for C-SVC and ν-SVC, and where each row is among m's
// support vectors, which it reads (m's support vectors are not changed
// after training).
func (t *KernelTrainer) keepRows(dual *KernelDual, ds *data.Dataset, m *KernelModel) {
	l := ds.Len()
	rs := gradientRows{hash: append([]uint64(nil), t.rowHash[:l]...), sv: m.SV, svOf: make([]int32, l)}
	if t.params.SVMType.IsSVC() {
		copy(rs.svOf, t.svIndex[:l])
		rs.label = make([]int32, l)
		for i, y := range ds.Labels() {
			rs.label[i] = int32(y)
		}
	} else {
		// collectSV: the rows with a nonzero coefficient, in data order.
		n := int32(0)
		for i, a := range dual.Alpha[0] {
			rs.svOf[i] = -1
			if a != 0 {
				rs.svOf[i] = n
				n++
			}
		}
	}
	dual.Gradient.rows = rs
}

// gradient returns d.Gradient, nil for a nil d.
func (d *KernelDual) gradient() *KernelGradient {
	if d == nil {
		return nil
	}
	return d.Gradient
}
