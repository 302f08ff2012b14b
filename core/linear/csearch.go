package linear

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// CSearchStep is one C of FindLinearC's path and its cross-validation
// score.
type CSearchStep struct {
	C     float64
	Score model.Score
}

// CSearchResult is what FindLinearC found.
type CSearchResult struct {
	// BestC is the C of the best score: the highest accuracy (the lowest
	// MSE for regression), the smallest such C on ties.
	BestC float64
	Best  model.Score
	// Steps are the Cs tried, in order, with their scores.
	Steps []CSearchStep
	// MaxCReached reports that the path ran to the largest C rather than
	// stopping when no fold's model changed any more.
	MaxCReached bool
}

// searchUnchanged is how many Cs in a row may leave every fold's weights
// unchanged before FindLinearC stops: liblinear-train 2.3.0 ran on through
// four such Cs on debdesc_bin, so it is at least five.
const searchUnchanged = 5

// Largest C FindLinearC tries: LIBLINEAR's (2^10 for classification, 2^20
// for regression).
const (
	maxSearchC    = 1024
	maxSearchCSVR = 1048576
)

// FindLinearC searches C as LIBLINEAR's -C does: folds-fold cross-validation
// (on liblinear-train's own folds, so that the scores compare with its C by
// C; p.Seed does not change them) along the path C, 2C, 4C,
// ... up to 2^10 (2^20 for regression), each fold's model warm-started from
// its model at the previous C by the primal Newton method. The path starts
// at startC, or, when startC is 0, at LIBLINEAR's smallest useful C: the
// power of two below 1/(2·l·max‖x_i‖²) for SVC (1/(l·max‖x_i‖²) for
// logistic regression), and for SVR
// 0.01·Σ max(|y_i| − p, 0)² / (8·(Σ|y_i|)²·max‖x_i‖²). It stops early once
// no fold's weights changed for five Cs in a row (larger Cs no longer
// change the models). LIBLINEAR's -C for -s 11 also searches p; this one
// keeps p.P.
//
// Folds train in parallel (p.Threads workers, 0: one per CPU); the result
// does not depend on it. Memory: the rows twice over, and a trainer per
// worker.
//
// It needs a formulation the primal Newton method solves: -s 0, -s 2,
// -s 11, or -s 1 and -s 12, which it trains through their primal twins
// (PrimalTwin). progress, when not
// nil, is called after each C. Errors wrap ErrParams for another
// formulation or a bad fold count, and ErrLabels for unusable labels.
func FindLinearC(ds *data.Dataset, p LinearParams, folds int, startC float64, progress func(CSearchStep)) (CSearchResult, error) {
	var res CSearchResult
	l := ds.Len()
	if !p.Solver.hasL2Loss() {
		return res, fmt.Errorf("%w: the C search needs -s 0, 1, 2, 11 or 12, not -s %d", model.ErrParams, int(p.Solver))
	}
	folds, err := solve.FoldCount(folds, l)
	if err != nil {
		return res, err
	}
	if !p.Solver.IsPrimal() {
		p.PrimalTwin = true
	}
	regression := p.Solver.IsRegression()
	maxC := float64(maxSearchC)
	if regression {
		maxC = maxSearchCSVR
	}
	if startC <= 0 {
		startC = searchStartC(ds, &p)
	}
	if !(startC > 0) || math.IsInf(startC, 0) {
		return res, fmt.Errorf("%w: no C to start the search from (every |y| <= p?)", model.ErrParams)
	}

	cs, err := newCSearch(ds, p, folds, startC)
	if err != nil {
		return res, err
	}
	unchanged := 0
	C := startC
	for ; C <= maxC; C *= 2 {
		if err := cs.run(C); err != nil {
			return res, err
		}
		step := CSearchStep{C: C, Score: model.ScorePredictions(cs.pred, ds.Labels(), regression)}
		res.Steps = append(res.Steps, step)
		if len(res.Steps) == 1 || better(step.Score, res.Best) {
			res.BestC, res.Best = C, step.Score
		}
		if progress != nil {
			progress(step)
		}
		// LIBLINEAR's count: the first C counts as unchanged, a change
		// anywhere starts the count again.
		if slices.Contains(cs.changed, true) {
			unchanged = 0
		} else {
			unchanged++
		}
		if unchanged == searchUnchanged {
			break
		}
	}
	res.MaxCReached = C > maxC && maxC > startC
	return res, nil
}

// cSearch is the cross-validation of FindLinearC at one C after another:
// each fold's trainer is warm-started from the fold's w at the previous C.
type cSearch struct {
	ds        *data.Dataset
	folds     int
	perm      []int           // the rows in liblinear-train's fold order
	trainRows []*data.Dataset // fold f's training rows
	trainers  []*LinearTrainer
	prev      []*LinearPrimal // fold f's w at the previous C
	changed   []bool          // fold f's w changed at this C
	errs      []error
	pred      []float64 // the cross-validated predictions at this C
}

// newCSearch sets up the folds of ds and their trainers (p.Threads workers,
// 0: one per CPU) for the C path from startC.
func newCSearch(ds *data.Dataset, p LinearParams, folds int, startC float64) (*cSearch, error) {
	l := ds.Len()
	// The rows twice over in liblinear-train's fold order: fold f's
	// training rows, perm[end:] then perm[:start], are then one contiguous
	// range, a view that costs no copy (2× the data's memory, once).
	perm := liblinearFolds(l)
	var twice *data.Dataset
	if ds.IsDense() {
		twice = data.NewDense(2*l, ds.NumFeatures())
	} else {
		twice = data.NewSparse(2*l, 2*ds.Nonzeros(), 0)
	}
	for range 2 {
		for _, i := range perm {
			solve.AppendRow(twice, ds, i)
		}
	}
	s := &cSearch{ds: ds, folds: folds, perm: perm, trainRows: make([]*data.Dataset, folds),
		prev: make([]*LinearPrimal, folds), changed: make([]bool, folds), errs: make([]error, folds), pred: make([]float64, l)}
	maxRows := 0
	for f := range folds {
		start, end := f*l/folds, (f+1)*l/folds
		s.trainRows[f] = twice.RowRange(end, l+start)
		maxRows = max(maxRows, l-(end-start))
	}

	// Folds train in parallel, one trainer each worker.
	workers := p.Threads
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, folds)
	p.C = startC
	p.Probability = false // the folds are scored on labels
	if workers > 1 {
		p.Threads = 1
	}
	s.trainers = make([]*LinearTrainer, workers)
	for g := range s.trainers {
		var err error
		if s.trainers[g], err = NewLinearTrainer(p, maxRows, ds.NumFeatures()); err != nil {
			return nil, err
		}
		s.trainers[g].cPath = true
	}
	return s, nil
}

// run cross-validates C: every fold trained warm from its previous w on
// the trainers in parallel, its test rows predicted into pred.
func (s *cSearch) run(C float64) error {
	for _, t := range s.trainers {
		t.params.C = C
	}
	solve.Parallel(s.folds, len(s.trainers), func(g, f int) { s.runFold(s.trainers[g], f, C) })
	for _, err := range s.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runFold trains fold f at C on trainer t and predicts its test rows.
func (s *cSearch) runFold(t *LinearTrainer, f int, C float64) {
	l := s.ds.Len()
	start, end := f*l/s.folds, (f+1)*l/s.folds
	m, _, err := t.TrainFrom(s.trainRows[f], nil, s.prev[f])
	if err != nil {
		s.errs[f] = fmt.Errorf("core: C search at C = %g, fold %d: %w", C, f+1, err)
		return
	}
	w := PrimalOf(m)
	s.changed[f] = s.prev[f] != nil && !samePrimal(s.prev[f], w)
	s.prev[f] = w
	for _, i := range s.perm[start:end] {
		if s.ds.IsDense() {
			s.pred[i] = m.predictAnyWidth(s.ds.DenseRow(i))
		} else {
			s.pred[i] = m.PredictSparse(s.ds.SparseRow(i))
		}
	}
}

// better reports whether score a beats b: higher accuracy, or lower MSE.
func better(a, b model.Score) bool {
	if a.Regression {
		return a.MSE < b.MSE
	}
	return a.Correct > b.Correct
}

// samePrimal reports whether two starts hold the same weights.
func samePrimal(a, b *LinearPrimal) bool {
	if len(a.W) != len(b.W) {
		return false
	}
	var d float64
	for k := range a.W {
		u, v := a.W[k], b.W[k]
		for j := range max(len(u), len(v)) {
			var x, y float64
			if j < len(u) {
				x = u[j]
			}
			if j < len(v) {
				y = v[j]
			}
			d += (x - y) * (x - y)
		}
		if a.BiasW != nil && b.BiasW != nil {
			d += (a.BiasW[k] - b.BiasW[k]) * (a.BiasW[k] - b.BiasW[k])
		}
	}
	return math.Sqrt(d) <= 1e-15
}

// searchStartC is LIBLINEAR's first C of the search (see FindLinearC).
func searchStartC(ds *data.Dataset, p *LinearParams) float64 {
	maxXX := 0.0
	for i := range ds.Len() {
		xx := ds.SquaredNorm(i)
		if p.Bias >= 0 {
			xx += p.Bias * p.Bias
		}
		maxXX = max(maxXX, xx)
	}
	if maxXX == 0 {
		return 1
	}
	l := float64(ds.Len())
	minC := 1 / (2 * l * maxXX)
	if p.Solver == L2Logistic {
		minC = 1 / (l * maxXX)
	}
	if p.Solver.IsRegression() {
		var sumY, loss float64
		for _, y := range ds.Labels() {
			a := math.Abs(y)
			sumY += a
			loss += max(a-p.P, 0) * max(a-p.P, 0)
		}
		if loss == 0 {
			return math.Inf(1)
		}
		const delta = 0.1
		minC = delta * delta * loss / (8 * sumY * sumY * maxXX)
	}
	return math.Pow(2, math.Floor(math.Log2(minC)))
}

// foldPermutation is CrossValidateLinear's shuffle of the rows.
func foldPermutation(l int, seed uint64) []int {
	perm := make([]int, l)
	for i := range perm {
		perm[i] = i
	}
	r := solve.NewRNG(seed)
	for i := range perm {
		j := i + r.Intn(l-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// liblinearFolds returns the row permutation liblinear-train's -C and -v
// cut their folds from: perm[i] swapped with perm[i + rand() % (l − i)],
// rand() being glibc's from its default seed (train.c never seeds it).
// With the same folds, FindLinearC's scores compare with liblinear-train's
// C by C.
func liblinearFolds(l int) []int {
	perm := make([]int, l)
	for i := range perm {
		perm[i] = i
	}
	var r solve.GlibcRand
	r.Seed(1)
	for i := range perm {
		j := i + int(r.Next())%(l-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}
