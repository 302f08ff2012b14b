package core

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
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
// wrapped for a formulation without C or bad folds; Train's errors wrapped
// with the fold and point.
func GridSearch(ds *Dataset, o GridOptions) (GridResult, error) {
	p := o.Params
	if p.SVMType != CSVC && p.SVMType != EpsSVR {
		return GridResult{}, fmt.Errorf("%w: %v has no C to search", ErrGrid, p.SVMType)
	}
	l := ds.Len()
	if o.Folds < 2 || o.Folds > l {
		return GridResult{}, fmt.Errorf("%w: %d-fold cross validation of %d rows", ErrGrid, o.Folds, l)
	}
	if err := p.Validate(); err != nil {
		return GridResult{}, err
	}
	log2c, log2g := o.Log2C, o.Log2G
	if len(log2c) == 0 {
		log2c = []float64{math.Log2(p.C)}
	}
	gridG := len(log2g) > 0
	if !gridG {
		log2g = []float64{0}
	}
	// Each C path runs in ascending C.
	order := make([]int, len(log2c))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && log2c[order[j]] < log2c[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	folds := kernelFolds
	if o.LIBSVMFolds {
		folds = libsvmFolds
	}
	perm, foldStart, err := folds(ds, p, o.Folds)
	if err != nil {
		return GridResult{}, err
	}
	gamma0 := p.ResolvedKernel(ds.NumFeatures()).Gamma

	// The training rows of each fold, shared read-only by its tasks.
	trains := make([]*Dataset, o.Folds)
	for f := range trains {
		begin, end := foldStart[f], foldStart[f+1]
		tr := newLike(ds, l-(end-begin), ds.Nonzeros())
		for _, i := range perm[:begin] {
			appendRow(tr, ds, int(i))
		}
		for _, i := range perm[end:] {
			appendRow(tr, ds, int(i))
		}
		trains[f] = tr
	}

	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nTasks := len(log2g) * o.Folds
	workers = min(workers, nTasks)
	p.CacheMB /= float64(workers)

	res := GridResult{Points: make([]GridPoint, len(log2c)*len(log2g))}
	for ci, c := range log2c {
		for gi, g := range log2g {
			res.Points[ci*len(log2g)+gi] = GridPoint{Log2C: c, Log2G: g}
			if !gridG {
				res.Points[ci*len(log2g)+gi].Log2G = math.NaN()
			}
		}
	}
	score := make([]float64, len(res.Points)) // correct rows, or summed squared error
	foldsDone := make([]int, len(res.Points))
	var (
		mu       sync.Mutex
		firstErr error
		next     int
	)
	task := func(k int) error {
		gi, f := k/o.Folds, k%o.Folds
		tp := p
		if gridG {
			tp.Kernel.Gamma = math.Exp2(log2g[gi])
		} else {
			tp.Kernel.Gamma = gamma0
		}
		tr := trains[f]
		t, err := newKernelTrainer(tp, tr.Len(), tr.NumFeatures(), 1, largestSubproblem(tr, tp.SVMType))
		if err != nil {
			return err
		}
		t.helpers = nil // the grid's workers use the cores
		if !o.Cold {
			for w := range t.workers {
				if q := t.workers[w].q; q != nil {
					q.reuse = true
				}
			}
		}
		var dual *KernelDual
		prevC := 0.0
		begin, end := foldStart[f], foldStart[f+1]
		for _, ci := range order {
			C := math.Exp2(log2c[ci])
			if len(o.Log2C) == 0 {
				C = p.C
			}
			t.params.C = C
			var warm *KernelDual
			if !o.Cold && dual != nil {
				warm = dual.PathStart(tr, t.params, C/prevC)
			}
			m, d, err := t.Train(tr, warm)
			if err != nil {
				return fmt.Errorf("core: grid point log2c=%v log2g=%v, fold %d: %w", log2c[ci], log2g[gi], f+1, err)
			}
			dual, prevC = d, C
			s := 0.0
			for _, i := range perm[begin:end] {
				v := predictRow(m, ds, int(i))
				if p.SVMType == CSVC {
					if v == ds.Label(int(i)) {
						s++
					}
				} else {
					e := v - ds.Label(int(i))
					s += e * e
				}
			}
			pi := ci*len(log2g) + gi
			mu.Lock()
			pt := &res.Points[pi]
			score[pi] += s
			pt.Iterations += int64(m.Result.Iterations)
			pt.KernelEvals += m.Result.KernelEvals
			res.Iterations += int64(m.Result.Iterations)
			res.KernelEvals += m.Result.KernelEvals
			foldsDone[pi]++
			if foldsDone[pi] == o.Folds {
				if p.SVMType == CSVC {
					pt.Rate = 100 * score[pi] / float64(l)
				} else {
					pt.Rate = score[pi] / float64(l)
				}
				if o.Progress != nil {
					o.Progress(*pt)
				}
			}
			mu.Unlock()
		}
		return nil
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				k := next
				next++
				stop := firstErr != nil
				mu.Unlock()
				if stop || k >= nTasks {
					return
				}
				if err := task(k); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return GridResult{}, firstErr
	}
	return res, nil
}
