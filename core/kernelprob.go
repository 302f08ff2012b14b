package core

import (
	"fmt"
	"sync"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/probfit"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Probability estimates of a trained kernel model (svm-train -b 1, Chang &
// Lin 2011, Section 8; the fitting maths is in probability.go):
//
//   - C-SVC: each class pair (i, j) gets Platt's A_ij, B_ij, fitted to the
//     decision values that 5-fold cross-validation over the pair's own rows
//     gives. Each fold trains the pair's binary subproblem with the pair's
//     Cp = C·w_i and Cn = C·w_j on the other four folds, as LIBSVM's
//     svm_binary_svc_probability does.
//     ν-SVC's folds train the pair's ν-SVC subproblem with the same ν,
//     unchecked for feasibility on the fold, as LIBSVM's do.
//   - ε-SVR and ν-SVR: ProbA[0] = σ, the scale of the Laplace noise of the
//     residuals of 5-fold cross-validation over all rows.
//
// The folds are solved by small trainers of their own (one per worker),
// not by the main trainer's solvers: fitting runs once a training call, so
// its allocation does not matter, and the main trainer's buffers stay
// untouched.

// fitProbability sets m.ProbA and m.ProbB from internal cross-validation
// over ds, for a model Train has just filled (C-SVC, ν-SVC or an SVR; one-class has
// no estimates and Validate refuses Probability for it). Fold assignment
// is seeded from t.params.Seed, per class pair for C-SVC, so the result
// does not depend on the number of workers.
func (t *KernelTrainer) fitProbability(ds *data.Dataset, m *KernelModel) error {
	p := t.params
	sub := p
	sub.Probability = false
	sub.Kernel = m.Kernel // the resolved Gamma: a fold may lack some features
	switch p.SVMType {
	case CSVC, NuSVC:
		return t.fitSVCProbability(ds, m, sub)
	case EpsSVR, NuSVR:
		f := newFoldFitter(sub, ds, ds.Len(), 1)
		y := append([]float64(nil), ds.Labels()...)
		sigma, err := probfit.FitSVRScale(y, p.Seed, func(train []int32) (func(int32) float64, error) {
			sm, err := f.train(train, nil)
			if err != nil {
				return nil, err
			}
			return func(row int32) float64 { return predictRow(sm, ds, int(row)) }, nil
		})
		if err != nil {
			return fmt.Errorf("core: ε-SVR probability model: %w", err)
		}
		m.ProbA = []float64{sigma}
	}
	return nil
}

// fitSVCProbability fits Platt's sigmoid of every class pair, pairs spread
// over as many workers as the main trainer has.
func (t *KernelTrainer) fitSVCProbability(ds *data.Dataset, m *KernelModel, sub KernelParams) error {
	labels := m.Labels
	nr := len(labels)
	nPairs := nr * (nr - 1) / 2
	// Rows of each class in data order: a pair's subproblem lists class
	// i's rows, then class j's (Train's order).
	byClass := make([][]int32, nr)
	for r, v := range ds.Labels() {
		for c, lab := range labels {
			if float64(lab) == v {
				byClass[c] = append(byClass[c], int32(r))
				break
			}
		}
	}
	type pair struct{ i, j int }
	pairs := make([]pair, 0, nPairs)
	maxRows := 0
	for i := range nr {
		for j := i + 1; j < nr; j++ {
			pairs = append(pairs, pair{i, j})
			maxRows = max(maxRows, len(byClass[i])+len(byClass[j]))
		}
	}
	m.ProbA = make([]float64, nPairs)
	m.ProbB = make([]float64, nPairs)
	errs := make([]error, nPairs)

	workers := min(len(t.workers), nPairs)
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			f := newFoldFitter(sub, ds, maxRows, workers)
			var rows []int32
			var y []int8
			for {
				mu.Lock()
				pi := next
				next++
				mu.Unlock()
				if pi >= nPairs {
					return
				}
				i, j := pairs[pi].i, pairs[pi].j
				rows = append(append(rows[:0], byClass[i]...), byClass[j]...)
				y = y[:0]
				for k := range rows {
					if k < len(byClass[i]) {
						y = append(y, 1)
					} else {
						y = append(y, -1)
					}
				}
				if t.params.SVMType == CSVC {
					f.params.Weights = []ClassWeight{
						{Label: 1, Weight: t.params.C * t.params.weightOf(labels[i])},
						{Label: -1, Weight: t.params.C * t.params.weightOf(labels[j])},
					}
					f.params.C = 1
				}
				A, B, err := probfit.FitBinaryProbability(y, solve.SubSeed(t.params.Seed, pi), func(train []int32) (func(int32) float64, error) {
					sm, err := f.train(train, func(k int32) (int32, float64) { return rows[k], float64(y[k]) })
					if err != nil {
						return nil, err
					}
					// Positive toward y = +1 whichever class the fold's
					// model lists first.
					sign := 1.0
					if sm.Labels[0] != 1 {
						sign = -1
					}
					var dec [1]float64
					return func(k int32) float64 {
						return sign * decideRow(sm, dec[:], ds, int(rows[k]))[0]
					}, nil
				})
				m.ProbA[pi], m.ProbB[pi] = A, B
				if err != nil {
					errs[pi] = fmt.Errorf("core: probability model of classes %d and %d: %w", labels[i], labels[j], err)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// foldFitter trains the models of internal cross-validation folds: a
// trainer and a data set sized once, refilled for each fold.
type foldFitter struct {
	params KernelParams
	src    *data.Dataset
	ds     *data.Dataset
	capRow int
	tr     *KernelTrainer
}

// newFoldFitter sizes a fitter for folds of up to capRows rows of src,
// with the kernel cache budget p.CacheMB shared by workers fitters.
func newFoldFitter(p KernelParams, src *data.Dataset, capRows, workers int) *foldFitter {
	p.CacheMB /= float64(workers)
	f := &foldFitter{params: p, src: src, capRow: capRows}
	if src.IsDense() {
		f.ds = data.NewDense(capRows, src.NumFeatures())
	} else {
		f.ds = data.NewSparse(capRows, src.Nonzeros(), 0)
	}
	return f
}

// train trains a model with f.params on the rows train, each with its
// instance weight in f.src. With relabel nil
// they are rows of f.src with their own labels; otherwise relabel maps
// each entry of train to a row of f.src and the label to train it with.
func (f *foldFitter) train(train []int32, relabel func(int32) (int32, float64)) (*KernelModel, error) {
	f.ds.Reset()
	for _, k := range train {
		row, label := int(k), 0.0
		if relabel != nil {
			r, y := relabel(k)
			row, label = int(r), y
		} else {
			label = f.src.Label(row)
		}
		var err error
		if f.src.IsDense() {
			err = f.ds.AppendDense(label, f.src.DenseRow(row))
		} else {
			idx, val := f.src.SparseRow(row)
			err = f.ds.AppendSparse(label, idx, val)
		}
		// The row's instance weight goes with it, as in LIBSVM's
		// instance-weight branch: a fold trains the problem the model does.
		if w := f.src.Weight(row); err == nil && w != 1 {
			err = f.ds.SetWeight(f.ds.Len()-1, w)
		}
		if err != nil {
			panic("core: foldFitter: " + err.Error()) // sized from src: a bug
		}
	}
	if f.tr == nil {
		tr, err := newKernelTrainer(f.params, f.capRow, f.src.NumFeatures(), 1, f.capRow, wantsDenseView(f.src))
		if err != nil {
			return nil, err
		}
		tr.nuUnchecked = true
		f.tr = tr
	}
	// The class weights change from pair to pair; the buffers do not.
	f.tr.params.C = f.params.C
	f.tr.params.Weights = f.params.Weights
	m, _, err := f.tr.Train(f.ds, nil)
	return m, err
}

// decideRow returns the decision values of row i of ds under m, a model
// trained on rows of ds (so a dense row has m's width).
func decideRow(m *KernelModel, dst []float64, ds *data.Dataset, i int) []float64 {
	if ds.IsDense() {
		return m.DecisionDense(dst, ds.DenseRow(i))
	}
	idx, val := ds.SparseRow(i)
	return m.DecisionSparse(dst, idx, val)
}

// predictRow returns m's prediction of row i of ds, read as PredictBatch
// reads it.
func predictRow(m *KernelModel, ds *data.Dataset, i int) float64 {
	switch {
	case !ds.IsDense():
		return m.PredictSparse(ds.SparseRow(i))
	case ds.NumFeatures() == m.NumFeatures:
		return m.PredictDense(ds.DenseRow(i))
	}
	return m.predictDenseAnyWidth(ds.DenseRow(i))
}

// maxStackProbability bounds the scratch (decision values and coupling
// matrices) a probability prediction keeps on the stack: enough for 20
// classes. Models with more classes allocate it each call.
const maxStackProbability = 1024

// HasProbability reports whether the model carries probability estimates:
// Platt parameters for C-SVC, which ProbabilityDense and ProbabilitySparse
// need, or the Laplace scale ProbA[0] for ε-SVR.
func (m *KernelModel) HasProbability() bool {
	return m.SVMType != OneClass && len(m.ProbA) > 0
}

// ProbabilityDense writes to dst[:NumClasses()] the class probabilities,
// in Labels order, of the dense row x (len(x) == NumFeatures) under a
// C-SVC model with probability estimates, and returns that slice: Platt's
// sigmoid of each pair's decision value, coupled over the pairs (Wu, Lin &
// Weng 2004, method 2) as svm-predict -b 1 computes them. The probabilities
// sum to 1; the -b 1 prediction is the label of the largest, the first in
// Labels order on a tie. It allocates nothing once warm for up to 20
// classes. It panics, as for a caller bug, if the model is not a C-SVC
// model with probability estimates (see HasProbability), if len(x) !=
// NumFeatures, if dst is too short, or if Init was not called.
func (m *KernelModel) ProbabilityDense(dst []float64, x []float32) []float64 {
	k, nDec, need := m.probabilityShape("ProbabilityDense")
	if sc := m.prepared().scaled; sc != nil {
		return sc.ProbabilityDense(dst, x)
	}
	dst = dst[:k]
	var buf [maxStackProbability]float64
	s := buf[:]
	if need > len(buf) {
		s = make([]float64, need)
	}
	dec := m.decisionDense(s[:nDec], x)
	probfit.PairwiseProbabilities(dst, dec, m.ProbA, m.ProbB, s[nDec:need])
	return dst
}

// ProbabilitySparse is ProbabilityDense for a sparse row (0-based indices,
// strictly increasing, and their values), read as DecisionSparse reads it.
func (m *KernelModel) ProbabilitySparse(dst []float64, index []int32, value []float32) []float64 {
	k, nDec, need := m.probabilityShape("ProbabilitySparse")
	if sc := m.prepared().scaled; sc != nil {
		return sc.ProbabilitySparse(dst, index, value)
	}
	dst = dst[:k]
	var buf [maxStackProbability]float64
	s := buf[:]
	if need > len(buf) {
		s = make([]float64, need)
	}
	dec := m.decisionSparse(s[:nDec], index, value)
	probfit.PairwiseProbabilities(dst, dec, m.ProbA, m.ProbB, s[nDec:need])
	return dst
}

// probabilityShape checks that m can give class probabilities and returns
// the class count, the decision value count and the scratch they need.
func (m *KernelModel) probabilityShape(fn string) (k, nDec, need int) {
	if !m.SVMType.IsSVC() || len(m.ProbA) == 0 {
		panic("core: KernelModel." + fn + ": the model has no class probability estimates (train C-SVC with Probability)")
	}
	k = len(m.Labels)
	nDec = m.NumDecisionValues()
	return k, nDec, nDec + probfit.ProbabilityScratch(k)
}
