package core

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Grid search over C and γ by cross-validation, as LIBSVM's grid.py does
// it, with the work a path of C values shares done once.
//
// grid.py runs svm-train -v for every (C, γ) point: a cold training per
// point per fold. Here each (γ, fold) pair is one task that trains its
// fold's rows at every C in ascending order with one KernelTrainer:
//   - each run starts from the previous solution scaled into the new box
//     (KernelDual.PathStart), with its gradient carried over exactly, so a
//     run begins at the previous optimum's shape instead of α = 0;
//   - the trainer's kernel cache keeps its columns between the runs (Q
//     does not depend on C), within the cache budget.
//
// A task trains its subproblems (the one-vs-one pairs) one after the
// other, each along the whole C path, with its worker's one trainer,
// whose cache holds one subproblem's columns at a time, and keeps only
// what scoring needs from each model: the held-out rows' votes or errors
// at each C, and the kernel values between held-out rows and support
// vectors (within a quarter of the worker's cache budget). So a worker
// holds what one training holds, one pair at a time, and not every pair's
// rows, cache and kernel values at once: digits' default grid peaked at
// 92–100 MB against 8.2 MB for one svmgo train, 14.6 MB now
// (examples/bench/grid.sh).
//
// Tasks run in parallel, one per worker; the folds are CrossValidateKernel's
// (or svm-train's, LIBSVMFolds), so each point's rate is that of a
// cross-validation at its C and γ, up to the solver's tolerance.

// GridOptions describes a grid search.
type GridOptions struct {
	// Params are the training parameters; C and the kernel's Gamma are
	// replaced by each point's. C-SVC and ε-SVR only (one-class has no C).
	// Probability is not used: the rates are those of decision values.
	Params KernelParams
	// Log2C are the values of log2 C (none: C stays Params.C); Log2G those
	// of log2 γ (none: Gamma stays Params.Kernel's, for kernels without
	// γ). Any order; each C path is trained in ascending C.
	Log2C, Log2G []float64
	// Folds is the number of cross-validation folds (≥ 2).
	Folds int
	// Workers bounds the tasks run at once; 0 means GOMAXPROCS. The cache
	// budget Params.CacheMB is shared among them.
	Workers int
	// LIBSVMFolds cuts the folds as svm-train -v does, with glibc's rand()
	// from its default seed, instead of from Params.Seed (as
	// CrossValidateKernel): the folds of grid.py's svm-train runs, so that
	// the rates compare point by point.
	LIBSVMFolds bool
	// Cold trains every point from α = 0 with an empty cache, as grid.py
	// does: the reference the warm path's saving is measured against.
	Cold bool
	// Progress, when not nil, is called once for every point, when its
	// last fold is done, from one goroutine at a time.
	Progress func(GridPoint)
}

// GridPoint is the cross-validation result of one (C, γ).
type GridPoint struct {
	// Log2C and Log2G are the point's log2 C and log2 γ (NaN for γ when
	// the search has no γ grid).
	Log2C, Log2G float64
	// Rate is the cross-validation accuracy in percent (C-SVC), or the
	// mean squared error (ε-SVR).
	Rate float64
	// Iterations and KernelEvals total the point's trainings.
	Iterations  int64
	KernelEvals int64
}

// GridResult is a grid search's outcome.
type GridResult struct {
	// Points holds every point, Log2C-major in the order of the options.
	Points []GridPoint
	// Iterations and KernelEvals total every training of the search.
	Iterations, KernelEvals int64
}

// ErrGrid is wrapped by GridSearch's errors for options it cannot search.
var ErrGrid = errors.New("core: bad grid")

// GridSearch cross-validates every (C, γ) of o on ds. Errors: ErrGrid
// wrapped for a formulation without C, bad folds, or a point whose C or γ
// is not positive and finite (log2c = −2000 or 2000); Train's errors
// wrapped with the fold and point.
func GridSearch(ds *data.Dataset, o GridOptions) (GridResult, error) {
	g, err := newGridSearch(ds, o)
	if err != nil {
		return GridResult{}, err
	}
	if err := g.run(); err != nil {
		return GridResult{}, err
	}
	return g.res, nil
}

// gridSearch is a grid search under way: its tasks, one per (γ, fold),
// each train a fold's rows along the C path and add the fold's score to
// every point of their γ.
type gridSearch struct {
	ds           *data.Dataset
	o            GridOptions // Folds resolved (leave-one-out for more folds than rows)
	p            KernelParams
	log2c, log2g []float64 // the points: log2g is {0} without a γ grid
	gridG        bool      // a γ grid
	order        []int     // the indices of log2c in ascending C: each task's path
	perm         []int32   // the folds' rows: fold f is perm[foldStart[f]:foldStart[f+1]]
	foldStart    []int
	folds        []*gridFold
	gamma0       float64 // the γ without a γ grid
	workers      int
	// The most rows and nonzeros of a subproblem, held-out rows and
	// training rows of any fold: what a worker is sized for.
	lMax, nnzMax, testMax, trainMax int

	mu        sync.Mutex // guards what follows
	res       GridResult
	score     []float64 // per point: correct rows, or summed squared error
	foldsDone []int     // per point
}

// newGridSearch checks o and sets up the search of ds: the points, the
// folds' training rows and the workers' share of the cache.
func newGridSearch(ds *data.Dataset, o GridOptions) (*gridSearch, error) {
	p := o.Params
	p.Probability = false
	if p.SVMType != CSVC && p.SVMType != EpsSVR {
		return nil, fmt.Errorf("%w: %v has no C to search", ErrGrid, p.SVMType)
	}
	nFolds, err := solve.FoldCount(o.Folds, ds.Len())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGrid, err)
	}
	o.Folds = nFolds // leave-one-out for more folds than rows, as svm-train -v
	if err := p.Validate(); err != nil {
		return nil, err
	}
	g := &gridSearch{ds: ds, o: o, log2c: o.Log2C, log2g: o.Log2G}
	if len(g.log2c) == 0 {
		g.log2c = []float64{math.Log2(p.C)}
	}
	g.gridG = len(g.log2g) > 0
	if !g.gridG {
		g.log2g = []float64{0}
	}
	if err := checkGridPoints(p, g.log2c, g.log2g, g.gridG); err != nil {
		return nil, err
	}
	g.order = ascendingOrder(g.log2c)
	folds := kernelFolds
	if o.LIBSVMFolds {
		folds = libsvmFolds
	}
	perm, foldStart, err := folds(ds, p, o.Folds)
	if err != nil {
		return nil, err
	}
	g.gamma0 = p.ResolvedKernel(ds.NumFeatures()).Gamma

	g.perm, g.foldStart = perm, foldStart
	g.folds = make([]*gridFold, o.Folds)
	for f := range g.folds {
		fd, err := newGridFold(ds, p.SVMType, perm, foldStart[f], foldStart[f+1])
		if err != nil {
			return nil, err
		}
		g.folds[f] = fd
		l, nnz := fd.largestSet(ds)
		g.lMax, g.nnzMax = max(g.lMax, l), max(g.nnzMax, nnz)
		g.testMax, g.trainMax = max(g.testMax, len(fd.test)), max(g.trainMax, ds.Len()-len(fd.test))
	}

	g.workers = o.Workers
	if g.workers <= 0 {
		g.workers = runtime.GOMAXPROCS(0)
	}
	g.workers = min(g.workers, len(g.log2g)*o.Folds)
	p.CacheMB /= float64(g.workers)
	g.p = p

	g.res = GridResult{Points: make([]GridPoint, len(g.log2c)*len(g.log2g))}
	for ci, c := range g.log2c {
		for gi, lg := range g.log2g {
			g.res.Points[ci*len(g.log2g)+gi] = GridPoint{Log2C: c, Log2G: lg}
			if !g.gridG {
				g.res.Points[ci*len(g.log2g)+gi].Log2G = math.NaN()
			}
		}
	}
	g.score = make([]float64, len(g.res.Points))
	g.foldsDone = make([]int, len(g.res.Points))
	return g, nil
}

// checkGridPoints checks every point's parameters: 2^-2000 is a C of 0
// (the solver's bounds) and 2^2000 an infinite one, whose rates are
// meaningless.
func checkGridPoints(p KernelParams, log2c, log2g []float64, gridG bool) error {
	for _, c := range log2c {
		for _, g := range log2g {
			q := p
			q.C = math.Exp2(c)
			if gridG {
				q.Kernel.Gamma = math.Exp2(g)
			}
			if err := q.Validate(); err != nil || (gridG && !(q.Kernel.Gamma > 0 && q.Kernel.Gamma <= math.MaxFloat64)) {
				return fmt.Errorf("%w: log2c %v, log2g %v give C = %v, γ = %v: want both positive and finite", ErrGrid, c, g, q.C, q.Kernel.Gamma)
			}
		}
	}
	return nil
}

// ascendingOrder returns the indices of v in ascending order of the
// values, equal values in index order.
func ascendingOrder(v []float64) []int {
	order := make([]int, len(v))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && v[order[j]] < v[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order
}

// run runs the tasks on the workers, each taking the next task as it
// frees, and returns the first error (the tasks not begun are dropped).
func (g *gridSearch) run() error {
	nTasks := len(g.log2g) * g.o.Folds
	var (
		firstErr error
		next     int
	)
	var wg sync.WaitGroup
	for range g.workers {
		wg.Go(func() {
			var w *gridWorker
			for {
				g.mu.Lock()
				k := next
				next++
				stop := firstErr != nil
				g.mu.Unlock()
				if stop || k >= nTasks {
					return
				}
				err := error(nil)
				if w == nil {
					w, err = g.newWorker()
				}
				if err == nil {
					err = g.task(w, k)
				}
				if err != nil {
					g.mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					g.mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// gridWorker is what a worker of the search keeps from one task to the
// next: one trainer, sized for the largest subproblem of any fold, the
// subproblem's rows and the held-out rows' kernel values, so that a task
// allocates no cache (a task's cache is what most of the search's memory
// is, and freeing one while the next is made doubled it).
type gridWorker struct {
	tr  *KernelTrainer
	set *data.Dataset
	kt  *gridTestKernel
}

// newWorker returns a worker's state for g's tasks: its cache budget (the
// search's, shared by the workers) three quarters for the trainer's
// columns, a quarter for the held-out rows' kernel values
// (gridTestKernel).
func (g *gridSearch) newWorker() (*gridWorker, error) {
	tp := g.p
	testMB := tp.CacheMB / 4
	tp.CacheMB -= testMB
	tr, err := newKernelTrainer(tp, g.lMax, g.ds.NumFeatures(), 1, g.lMax, false)
	if err != nil {
		return nil, err
	}
	tr.helpers = nil // the grid's workers use the cores
	tr.scoreOnly = true
	return &gridWorker{tr: tr, set: newLike(g.ds, g.lMax, g.nnzMax),
		kt: newGridTestKernel(g.ds, tp.ResolvedKernel(g.ds.NumFeatures()), g.testMax, g.trainMax, testMB)}, nil
}

// task k trains fold k / len(log2g) at γ number k % len(log2g) on w: each
// of the fold's subproblems (gridFold) along the C path, one after the
// other, warm from the previous C's solution unless Cold, and scores every
// C. The worker's trainer serves the subproblems in turn, its cache kept
// along a C path (Q does not depend on C) and emptied for the next
// subproblem, so a task holds one subproblem's rows and columns at a time,
// as a training of the data set does (svmgo train: one pair at a time per
// worker).
func (g *gridSearch) task(w *gridWorker, k int) error {
	gi, f := k%len(g.log2g), k/len(g.log2g)
	fd := g.folds[f]
	tr, set, kt := w.tr, w.set, w.kt
	tr.params.Kernel.Gamma = g.gamma0
	if g.gridG {
		tr.params.Kernel.Gamma = math.Exp2(g.log2g[gi])
	}
	kt.reset(tr.params.ResolvedKernel(g.ds.NumFeatures()), fd.test)
	sc := newGridScores(g.ds, fd, len(g.log2c))
	its := make([]int64, len(g.log2c))
	evals := make([]int64, len(g.log2c))
	for s, rows := range fd.setRows {
		set.Reset()
		for _, i := range rows {
			solve.AppendRow(set, g.ds, int(i))
		}
		_, hash := hashRows(set, set.Len(), nil)
		var dual *KernelDual
		prevC := 0.0
		for pos, ci := range g.order {
			C := math.Exp2(g.log2c[ci])
			if len(g.o.Log2C) == 0 {
				C = g.p.C
			}
			tr.params.C = C
			// Q is the same along the path: the trainer keeps its cache
			// from the second C on, and empties it for a new subproblem.
			tr.workers[0].setReuse(!g.o.Cold && pos > 0)
			var warm *KernelDual
			if !g.o.Cold && dual != nil {
				warm = dual.pathStart(set, tr.params, C/prevC, &hash)
			}
			m, d, err := tr.Train(set, warm)
			if err != nil {
				return fmt.Errorf("core: grid point log2c=%v log2g=%v, fold %d: %w", g.log2c[ci], g.log2g[gi], f+1, err)
			}
			dual, prevC = d, C
			its[ci] += int64(m.Result.Iterations)
			evals[ci] += m.Result.KernelEvals
			sc.add(ci, s, d, kt.decisions(g.ds, rows, d, m.Rho[0]))
		}
	}
	for ci := range g.log2c {
		g.record(ci*len(g.log2g)+gi, sc.score(ci), its[ci], evals[ci])
	}
	return nil
}

// record adds a fold's score sc and work at point pi; the point's rate is
// set, and reported to Progress, when its last fold is in.
func (g *gridSearch) record(pi int, sc float64, its, evals int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	pt := &g.res.Points[pi]
	g.score[pi] += sc
	pt.Iterations += its
	pt.KernelEvals += evals
	g.res.Iterations += its
	g.res.KernelEvals += evals
	g.foldsDone[pi]++
	if g.foldsDone[pi] == g.o.Folds {
		l := float64(g.ds.Len())
		if g.p.SVMType == CSVC {
			pt.Rate = 100 * g.score[pi] / l
		} else {
			pt.Rate = g.score[pi] / l
		}
		if g.o.Progress != nil {
			g.o.Progress(*pt)
		}
	}
}

// gridFold is one fold as a grid search trains it: its held-out rows and
// its subproblems' rows (rows of the data set) — the whole training part
// for ε-SVR and two classes; for more classes each one-vs-one pair's rows,
// class i's then class j's in data order, as the C-SVC trainer cuts its
// subproblems.
type gridFold struct {
	svm     SVMType
	test    []int32   // the held-out rows of the data set
	labels  []int32   // the training part's classes in the trainer's order (more than two)
	setRows [][]int32 // each subproblem's rows
	pairs   [][2]int  // class indices (i < j) of each subproblem (more than two classes)
}

func newGridFold(ds *data.Dataset, svm SVMType, perm []int32, begin, end int) (*gridFold, error) {
	train := append(slices.Clone(perm[:begin]), perm[end:]...)
	fd := &gridFold{svm: svm, test: perm[begin:end], setRows: [][]int32{train}}
	if svm != CSVC {
		return fd, nil
	}
	y := make([]float64, len(train))
	for r, i := range train {
		y[r] = ds.Label(int(i))
	}
	labels, err := solve.GroupLabels(y)
	if err != nil {
		return nil, err
	}
	if len(labels) <= 2 {
		return fd, nil
	}
	fd.labels, fd.setRows = labels, nil
	for i := range labels {
		for j := i + 1; j < len(labels); j++ {
			var rows []int32
			for _, c := range []int32{labels[i], labels[j]} {
				for r, v := range y {
					if int32(v) == c {
						rows = append(rows, train[r])
					}
				}
			}
			fd.setRows = append(fd.setRows, rows)
			fd.pairs = append(fd.pairs, [2]int{i, j})
		}
	}
	return fd, nil
}

// largestSet returns the rows of fd's largest subproblem, and the most
// nonzeros of any subproblem's rows in ds (0 for dense data).
func (fd *gridFold) largestSet(ds *data.Dataset) (rows, nnz int) {
	for _, set := range fd.setRows {
		rows = max(rows, len(set))
		n := 0
		for _, i := range set {
			n += rowNonzeros(ds, int(i))
		}
		nnz = max(nnz, n)
	}
	return rows, nnz
}

// gridTestKernel gives the kernel values K(x_a, x_t) between a fold's
// held-out rows a and the support vectors t of the subproblems a task
// trains, for the decision values of their C paths. A row's values are
// computed the first time it is a support vector and kept while the
// budget allows (a C path's support vectors are mostly the same from one
// C to the next, and each row is in several pairs' subproblems), else
// computed again each time.
type gridTestKernel struct {
	kr   *kernelRows // over the data set's rows
	test []int32
	// slot[i] is the kept slot of the data set's row i, or −1; kept
	// holds the slots' values, held-out row a's at a·slots + slot.
	slot  []int32
	kept  []float32
	slots int // slots in kept
	used  int // slots taken
	// Per call of decisions: the rows whose values it computes, kept
	// (fill, to slot) or not (uncached); vals holds a row's values for
	// them.
	fill, fillSlot, uncached []int32
	vals                     []float32
	// sv holds each support vector's slot (−1: none), coef its y_t α_t.
	sv   []int32
	coef []float64
	dec  []float64
}

// newGridTestKernel returns the kernel of k's type between up to nTest
// held-out rows of ds and the support vectors of subproblems whose rows
// are among nTrain others, keeping at most budgetMB of values; reset
// gives it its kernel and held-out rows.
func newGridTestKernel(ds *data.Dataset, k Kernel, nTest, nTrain int, budgetMB float64) *gridTestKernel {
	slots := nTrain
	if nTest > 0 {
		slots = min(nTrain, int(budgetMB*(1<<20)/4/float64(nTest)))
	}
	kr := newKernelRows(ds, k, make([]float64, ds.Len())) // the squared norms do not depend on γ
	if kr.scratch == nil {
		// Dense rows take the widened-row path of columnRBFOf.
		kr.scratch = make([]float64, ds.NumFeatures())
	}
	return &gridTestKernel{kr: kr, slot: make([]int32, ds.Len()), kept: make([]float32, slots*nTest), slots: slots,
		vals: make([]float32, nTrain), dec: make([]float64, nTest)}
}

// reset makes k the kernel k0 (of the type k was made for) between the
// held-out rows test and support vectors, none kept yet.
func (k *gridTestKernel) reset(k0 Kernel, test []int32) {
	if k0.Type != k.kr.k.Type {
		panic("core: gridTestKernel.reset: another kernel type")
	}
	k.kr.k, k.test, k.dec = k0, test, k.dec[:len(test)]
	for i := range k.slot {
		k.slot[i] = -1
	}
	k.used = 0
}

// decisions returns the decision values Σ_t y_t α_t K(x_a, x_t) − ρ at
// the held-out rows of the model of d (one subproblem of the rows rows of
// ds, its first class at y = +1) with rho; the slice is valid until the
// next call. The kernel values are the trainer's (float32, kernelRows),
// summed in row order in float64, as svm-predict sums its support
// vectors' terms.
func (k *gridTestKernel) decisions(ds *data.Dataset, rows []int32, d *KernelDual, rho float64) []float64 {
	// The support vectors in row order: their coefficients y_t α_t and
	// where their values are (a slot, or the next of vals).
	k.sv, k.coef = k.sv[:0], k.coef[:0]
	k.fill, k.fillSlot, k.uncached = k.fill[:0], k.fillSlot[:0], k.uncached[:0]
	for t, a := range d.Alpha[0] {
		if a == 0 {
			continue
		}
		if d.SVMType == CSVC && int32(ds.Label(int(rows[t]))) != d.Pairs[0][0] {
			a = -a
		}
		r := rows[t]
		if k.slot[r] < 0 && k.used < k.slots {
			k.slot[r] = int32(k.used)
			k.used++
			k.fill, k.fillSlot = append(k.fill, r), append(k.fillSlot, k.slot[r])
		}
		s := k.slot[r]
		if s < 0 {
			k.uncached = append(k.uncached, rows[t])
		}
		k.sv, k.coef = append(k.sv, s), append(k.coef, a)
	}
	for a, i := range k.test {
		// Each value as the trainer computes K(x_a, ·): bit for bit
		// kernelRows.eval(a, t), whichever rows a column holds.
		row := k.kept[a*k.slots : (a+1)*k.slots]
		if len(k.fill) > 0 {
			v := k.vals[:len(k.fill)]
			k.kr.column(v, int(i), k.fill)
			for u, s := range k.fillSlot {
				row[s] = v[u]
			}
		}
		if len(k.uncached) > 0 {
			k.kr.column(k.vals[:len(k.uncached)], int(i), k.uncached)
		}
		v, u := 0.0, 0
		for n, s := range k.sv {
			var kv float32
			if s >= 0 {
				kv = row[s]
			} else {
				kv = k.vals[u]
				u++
			}
			v += k.coef[n] * float64(kv)
		}
		k.dec[a] = v - rho
	}
	return k.dec
}

// gridScores gathers a task's scores along its C path: for more than two
// classes the one-vs-one votes of each held-out row at each C, else each
// C's correct rows (C-SVC) or summed squared error (ε-SVR).
type gridScores struct {
	fd    *gridFold
	ds    *data.Dataset
	votes []int32 // C number ci, held-out row a, class c at (ci·len(test) + a)·classes + c
	sum   []float64
}

func newGridScores(ds *data.Dataset, fd *gridFold, nC int) *gridScores {
	sc := &gridScores{fd: fd, ds: ds, sum: make([]float64, nC)}
	if fd.labels != nil {
		sc.votes = make([]int32, nC*len(fd.test)*len(fd.labels))
	}
	return sc
}

// add takes the decision values dec at the held-out rows of subproblem
// s's model at C number ci, whose dual is d. Pair models vote as LIBSVM's
// one-vs-one: a positive decision value is a vote for the pair's first
// class, else for its second.
func (sc *gridScores) add(ci, s int, d *KernelDual, dec []float64) {
	fd := sc.fd
	for a, i := range fd.test {
		y := sc.ds.Label(int(i))
		switch {
		case fd.svm != CSVC:
			e := dec[a] - y
			sc.sum[ci] += e * e
		case fd.labels == nil:
			v := d.Pairs[0][1]
			if dec[a] > 0 {
				v = d.Pairs[0][0]
			}
			if float64(v) == y {
				sc.sum[ci]++
			}
		default:
			pi, pj := fd.pairs[s][0], fd.pairs[s][1]
			v := dec[a]
			if d.Pairs[0][0] != fd.labels[pi] {
				v = -v // the pair's set put the second class first (a {−1, +1} pair)
			}
			votes := sc.votes[(ci*len(fd.test)+a)*len(fd.labels):][:len(fd.labels)]
			if v > 0 {
				votes[pi]++
			} else {
				votes[pj]++
			}
		}
	}
}

// score returns the correct rows (C-SVC) or the summed squared error
// (ε-SVR) at C number ci, every subproblem added; with more than two
// classes the most votes win, the first class in the trainer's order on a
// tie.
func (sc *gridScores) score(ci int) float64 {
	fd := sc.fd
	if fd.labels == nil {
		return sc.sum[ci]
	}
	s := 0.0
	for a, i := range fd.test {
		votes := sc.votes[(ci*len(fd.test)+a)*len(fd.labels):][:len(fd.labels)]
		best := 0
		for c, v := range votes {
			if v > votes[best] {
				best = c
			}
		}
		if float64(fd.labels[best]) == sc.ds.Label(int(i)) {
			s++
		}
	}
	return s
}
