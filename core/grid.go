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
	gamma0       float64 // the γ without a γ grid
	workers      int

	mu        sync.Mutex  // guards what follows
	fs        []*gridFold // the folds held: made by their first task, nil after their last
	foldLeft  []int       // per fold, the tasks not yet done
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

	// The training rows of each fold, shared read-only by its tasks: the
	// fold's rows, or, for more than two classes, each class pair's rows
	// (gridFold), made by the fold's first task and dropped after its last
	// (the tasks run fold by fold), so that one or two folds' copies are
	// held at a time rather than every fold's (digits: 9 pair copies of
	// each training row a fold).
	g.perm, g.foldStart = perm, foldStart
	g.fs = make([]*gridFold, o.Folds)
	g.foldLeft = make([]int, o.Folds)
	for f := range g.foldLeft {
		g.foldLeft[f] = len(g.log2g)
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
			for {
				g.mu.Lock()
				k := next
				next++
				stop := firstErr != nil
				g.mu.Unlock()
				if stop || k >= nTasks {
					return
				}
				if err := g.task(k); err != nil {
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

// fold returns fold f's training rows, made on first use (under g.mu: a
// second task of the fold waits for them rather than making its own).
func (g *gridSearch) fold(f int) (*gridFold, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fs[f] == nil {
		fd, err := newGridFold(g.ds, g.p.SVMType, g.perm, g.foldStart[f], g.foldStart[f+1])
		if err != nil {
			return nil, err
		}
		g.fs[f] = fd
	}
	return g.fs[f], nil
}

// foldDone drops fold f's rows after its last task.
func (g *gridSearch) foldDone(f int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.foldLeft[f]--; g.foldLeft[f] == 0 {
		g.fs[f] = nil
	}
}

// task k trains fold k / len(log2g) at γ number k % len(log2g) along the
// C path, warm from the previous C's solution unless Cold, and scores each
// C. The tasks go fold by fold, so that few folds' rows are held at once.
func (g *gridSearch) task(k int) error {
	gi, f := k%len(g.log2g), k/len(g.log2g)
	fd, err := g.fold(f)
	if err != nil {
		return err
	}
	defer g.foldDone(f)
	tp := g.p
	if g.gridG {
		tp.Kernel.Gamma = math.Exp2(g.log2g[gi])
	} else {
		tp.Kernel.Gamma = g.gamma0
	}
	trainers, hashes, err := g.pathTrainers(fd, tp)
	if err != nil {
		return err
	}
	duals := make([]*KernelDual, len(fd.sets))
	rhos := make([]float64, len(fd.sets))
	K := fd.kernelTest(newKernelRows(g.ds, tp.ResolvedKernel(g.ds.NumFeatures()), make([]float64, g.ds.Len())))
	prevC := 0.0
	for _, ci := range g.order {
		C := math.Exp2(g.log2c[ci])
		if len(g.o.Log2C) == 0 {
			C = g.p.C
		}
		var its, evals int64
		for s, t := range trainers {
			t.params.C = C
			var warm *KernelDual
			if !g.o.Cold && duals[s] != nil {
				warm = duals[s].pathStart(fd.sets[s], t.params, C/prevC, &hashes[s])
			}
			m, d, err := t.Train(fd.sets[s], warm)
			if err != nil {
				return fmt.Errorf("core: grid point log2c=%v log2g=%v, fold %d: %w", g.log2c[ci], g.log2g[gi], f+1, err)
			}
			rhos[s], duals[s] = m.Rho[0], d
			its += int64(m.Result.Iterations)
			evals += m.Result.KernelEvals
		}
		prevC = C
		g.record(ci*len(g.log2g)+gi, fd.score(g.ds, K, duals, rhos), its, evals)
	}
	return nil
}

// pathTrainers returns a trainer for each of fd's subproblems at the
// parameters tp, kept along the C path with its kernel cache (the task's
// cache budget split by rows²), and the hashes of their rows.
func (g *gridSearch) pathTrainers(fd *gridFold, tp KernelParams) ([]*KernelTrainer, []uint64, error) {
	trainers := make([]*KernelTrainer, len(fd.sets))
	hashes := make([]uint64, len(fd.sets))
	for s, set := range fd.sets {
		_, hashes[s] = hashRows(set, set.Len(), nil)
	}
	var sq float64
	for _, set := range fd.sets {
		sq += float64(set.Len()) * float64(set.Len())
	}
	for s, set := range fd.sets {
		sp := tp
		sp.CacheMB = max(tp.CacheMB*float64(set.Len())*float64(set.Len())/sq, 0.01)
		t, err := newKernelTrainer(sp, set.Len(), set.NumFeatures(), 1, largestSubproblem(set, sp.SVMType), false)
		if err != nil {
			return nil, nil, err
		}
		t.helpers = nil // the grid's workers use the cores
		if !g.o.Cold {
			for w := range t.workers {
				if q := t.workers[w].q; q != nil {
					q.reuse = true
				}
			}
		}
		trainers[s] = t
	}
	return trainers, hashes, nil
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

// gridFold is one fold's training rows as a grid search trains them: the
// whole training part for ε-SVR and two classes; for more classes each
// one-vs-one pair's rows, class i's then class j's in data order, as the
// C-SVC trainer cuts its subproblems, so that each pair keeps its own
// trainer and kernel cache along a C path (a trainer of every class holds
// one pair's columns at a time).
type gridFold struct {
	svm     SVMType
	train   *data.Dataset // the training part
	test    []int32       // the held-out rows of the data set
	labels  []int32       // the training part's classes in the trainer's order (more than two)
	sets    []*data.Dataset
	setRows [][]int32 // each set's rows as rows of train
	// trainRows are train's rows as rows of the data set.
	trainRows []int32
	pairs     [][2]int // class indices (i < j) of each set
}

func newGridFold(ds *data.Dataset, svm SVMType, perm []int32, begin, end int) (*gridFold, error) {
	l := ds.Len()
	train := newLike(ds, l-(end-begin), ds.Nonzeros())
	for _, i := range perm[:begin] {
		solve.AppendRow(train, ds, int(i))
	}
	for _, i := range perm[end:] {
		solve.AppendRow(train, ds, int(i))
	}
	all := make([]int32, train.Len())
	for r := range all {
		all[r] = int32(r)
	}
	fd := &gridFold{svm: svm, train: train, test: perm[begin:end], sets: []*data.Dataset{train}, setRows: [][]int32{all},
		trainRows: append(slices.Clone(perm[:begin]), perm[end:]...)}
	if svm != CSVC {
		return fd, nil
	}
	labels, err := solve.GroupClasses(train)
	if err != nil {
		return nil, err
	}
	if len(labels) <= 2 {
		return fd, nil
	}
	fd.labels, fd.sets, fd.setRows = labels, nil, nil
	for i := range labels {
		for j := i + 1; j < len(labels); j++ {
			n, nnz := 0, 0
			for r := range train.Len() {
				if c := int32(train.Label(r)); c == labels[i] || c == labels[j] {
					n++
					nnz += rowNonzeros(train, r)
				}
			}
			set := newLike(train, n, nnz)
			rows := make([]int32, 0, n)
			for _, c := range []int32{labels[i], labels[j]} {
				for r := range train.Len() {
					if int32(train.Label(r)) == c {
						solve.AppendRow(set, train, r)
						rows = append(rows, int32(r))
					}
				}
			}
			fd.sets = append(fd.sets, set)
			fd.setRows = append(fd.setRows, rows)
			fd.pairs = append(fd.pairs, [2]int{i, j})
		}
	}
	return fd, nil
}

// kernelTest returns K(x_i, x_r) for every held-out row i (fd.test) and
// training row r (fd.train), row-major, as the trainers compute kernel
// columns (float32, batched): what every model of a (γ, fold) task
// predicts from, computed once for its whole C path. kr is the kernel over
// ds's rows.
func (fd *gridFold) kernelTest(kr *kernelRows) []float32 {
	n := fd.train.Len()
	K := make([]float32, len(fd.test)*n)
	for a, i := range fd.test {
		kr.column(K[a*n:(a+1)*n], int(i), fd.trainRows)
	}
	return K
}

// score returns the correct predictions (C-SVC) or the summed squared
// error (ε-SVR) over fd's held-out rows of the models whose dual variables
// and ρ are duals and rhos (one per set), with the kernel values K
// (kernelTest). Pair models vote as LIBSVM's one-vs-one: a positive
// decision value is a vote for the pair's first class, else for its
// second; the most votes win, the first class in the trainer's order on a
// tie.
func (fd *gridFold) score(ds *data.Dataset, K []float32, duals []*KernelDual, rhos []float64) float64 {
	n := fd.train.Len()
	s := 0.0
	votes := make([]int, len(fd.labels))
	// Each model's support vectors: rows of train and y_t α_t (β_t).
	svRow := make([][]int32, len(duals))
	svCoef := make([][]float64, len(duals))
	for k, d := range duals {
		for t, a := range d.Alpha[0] {
			if a == 0 {
				continue
			}
			if d.SVMType == CSVC && int32(fd.sets[k].Label(t)) != d.Pairs[0][0] {
				a = -a
			}
			svRow[k] = append(svRow[k], fd.setRows[k][t])
			svCoef[k] = append(svCoef[k], a)
		}
	}
	decision := func(k, a int) float64 {
		row := K[a*n : (a+1)*n]
		v := 0.0
		for t, r := range svRow[k] {
			v += svCoef[k][t] * float64(row[r])
		}
		return v - rhos[k]
	}
	for a, i := range fd.test {
		y := ds.Label(int(i))
		switch {
		case fd.svm != CSVC:
			e := decision(0, a) - y
			s += e * e
			continue
		case fd.labels == nil:
			v := duals[0].Pairs[0][1]
			if decision(0, a) > 0 {
				v = duals[0].Pairs[0][0]
			}
			if float64(v) == y {
				s++
			}
			continue
		}
		clear(votes)
		for k := range duals {
			pi, pj := fd.pairs[k][0], fd.pairs[k][1]
			d := decision(k, a)
			if duals[k].Pairs[0][0] != fd.labels[pi] {
				d = -d // the pair's set put the second class first (a {−1, +1} pair)
			}
			if d > 0 {
				votes[pi]++
			} else {
				votes[pj]++
			}
		}
		best := 0
		for c, v := range votes {
			if v > votes[best] {
				best = c
			}
		}
		if float64(fd.labels[best]) == y {
			s++
		}
	}
	return s
}
