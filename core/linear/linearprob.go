package linear

import (
	"fmt"
	"math"
	"sync"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/probfit"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// Class probabilities of linear models, in LIBLINEAR's convention for
// logistic regression, extended to linear SVC by Platt scaling:
//
//   - Logistic regression (-s 0, -s 7): decision function k's value d_k is
//     a log-odds, so P(class k) = σ(d_k) = 1/(1 + e^{−d_k}); a binary
//     model gives σ(d) to Labels[0] and 1 − σ(d) to Labels[1], a
//     one-vs-rest model normalizes the σ(d_k) to sum 1 (LIBLINEAR's
//     predict_probability).
//   - Linear SVC trained with Probability (-b 1): each decision function
//     gets Platt's sigmoid P(class k | d_k) = 1/(1 + exp(A_k·d_k + B_k)),
//     fitted (probfit.PlattFit) to the decision values that internal 5-fold
//     cross-validation of its own binary subproblem gives
//     (probfit.CrossValidatedDecisions, as the kernel path fits each class pair:
//     Chang & Lin 2011, Section 8); binary and one-vs-rest models then
//     combine them as above.
//
// Both are σ of a logit t_k (t_k = d_k, or −(A_k·d_k + B_k)), so one
// function, ovrProbabilities, computes them.

// HasProbability reports whether the model gives class probabilities:
// a logistic regression classifier, or an SVC model trained with
// Probability (Platt parameters ProbA, ProbB).
func (m *LinearModel) HasProbability() bool {
	return !m.IsRegression() && (m.Solver.IsLogistic() || len(m.ProbA) > 0)
}

// ProbabilityDense writes to dst[:len(Labels)] the class probabilities,
// in Labels order, of the dense row x (len(x) == NumFeatures) and returns
// that slice: LIBLINEAR's for logistic regression (liblinear-predict -b 1),
// Platt's for an SVC model trained with Probability (see linearprob.go).
// They sum to 1. It allocates nothing for up to 64 decision functions.
// It panics, as for a caller bug, if the model has no probabilities
// (HasProbability), if len(x) != NumFeatures or if dst is too short.
func (m *LinearModel) ProbabilityDense(dst []float64, x []float32) []float64 {
	m.checkProbability("ProbabilityDense")
	dst = dst[:len(m.Labels)]
	var buf [maxStackDecisions]float64
	dec := buf[:]
	if m.NrW() > len(buf) {
		dec = make([]float64, m.NrW())
	}
	m.ovrProbabilities(dst, m.DecisionDense(dec, x))
	return dst
}

// ProbabilitySparse is ProbabilityDense for a sparse row, read as
// DecisionSparse reads it.
func (m *LinearModel) ProbabilitySparse(dst []float64, index []int32, value []float32) []float64 {
	m.checkProbability("ProbabilitySparse")
	dst = dst[:len(m.Labels)]
	var buf [maxStackDecisions]float64
	dec := buf[:]
	if m.NrW() > len(buf) {
		dec = make([]float64, m.NrW())
	}
	m.ovrProbabilities(dst, m.DecisionSparse(dec, index, value))
	return dst
}

func (m *LinearModel) checkProbability(fn string) {
	if !m.HasProbability() {
		panic("core: LinearModel." + fn + ": the model has no class probabilities (logistic regression, or SVC trained with Probability)")
	}
}

// ovrProbabilities writes the class probabilities for the decision values
// dec to dst (LinearProbabilities with the model's Platt parameters).
func (m *LinearModel) ovrProbabilities(dst, dec []float64) {
	LinearProbabilitiesOf(m.Solver, dst, dec, m.ProbA, m.ProbB)
}

// LinearProbabilitiesOf writes to dst the class probabilities that the
// decision values dec of a linear model trained with s give, and returns
// dst[:classes]: SoftmaxProbabilities for multinomial logistic regression
// (-s 40), LinearProbabilities otherwise. Every linear kind (float and
// quantized) calls it, so the rule lives here once. It allocates nothing.
func LinearProbabilitiesOf(s LinearSolver, dst, dec, probA, probB []float64) []float64 {
	if s.IsMultinomial() {
		return SoftmaxProbabilities(dst, dec)
	}
	return LinearProbabilities(dst, dec, probA, probB)
}

// SoftmaxProbabilities writes to dst the class probabilities of a
// multinomial logistic regression model's decision values dec (one per
// class, in Labels order), exp(d_k) / Σ_l exp(d_l), and returns
// dst[:len(dec)]. It allocates nothing; it panics if dst is shorter than
// dec.
func SoftmaxProbabilities(dst, dec []float64) []float64 {
	dst = dst[:len(dec)]
	dmax := math.Inf(-1)
	for _, d := range dec {
		dmax = max(dmax, d)
	}
	var sum float64
	for k, d := range dec {
		dst[k] = math.Exp(d - dmax)
		sum += dst[k]
	}
	for k := range dst {
		dst[k] /= sum
	}
	return dst
}

// LinearProbabilities writes to dst the class probabilities that a linear
// model's decision values dec (one per decision function, in Labels order)
// give, and returns dst[:classes]: with probA and probB nil, logistic
// regression's σ(d_k) (LIBLINEAR's convention); otherwise Platt's sigmoid
// 1/(1 + exp(probA[k]·d_k + probB[k])) of each. One decision value gives
// two classes, (p, 1 − p); more are one-vs-rest and normalized to sum 1.
// Should every value underflow to 0 (all logits below about −745), the
// normalized values are their limit, the softmax of the logits, instead of
// 0/0. It allocates nothing; quantized linear models (package quantize)
// share it. It panics if dst is shorter than the classes or probA, probB
// are shorter than dec when given.
func LinearProbabilities(dst, dec, probA, probB []float64) []float64 {
	logit := func(k int, d float64) float64 {
		if probA != nil {
			return -(probA[k]*d + probB[k])
		}
		return d
	}
	if len(dec) == 1 {
		dst = dst[:2]
		dst[0], dst[1] = sigmoidPQ(logit(0, dec[0]))
		return dst
	}
	dst = dst[:len(dec)]
	sum := 0.0
	for k, d := range dec {
		dst[k], _ = sigmoidPQ(logit(k, d))
		sum += dst[k]
	}
	if sum > 0 {
		for k := range dst {
			dst[k] /= sum
		}
		return dst
	}
	tmax := math.Inf(-1)
	for k, d := range dec {
		dst[k] = logit(k, d)
		tmax = max(tmax, dst[k])
	}
	sum = 0
	for k := range dst {
		dst[k] = math.Exp(dst[k] - tmax)
		sum += dst[k]
	}
	for k := range dst {
		dst[k] /= sum
	}
	return dst
}

// sigmoidPQ returns σ(t) = 1/(1 + e^{−t}) and 1 − σ(t), each without
// overflow or the cancellation of a subtraction (probfit.PlattPQ(−t)).
func sigmoidPQ(t float64) (p, q float64) {
	return probfit.PlattPQ(-t)
}

// fitProbability sets m.ProbA and m.ProbB, Platt's sigmoid of every
// decision function, for an SVC model Train has just filled from ds: each
// one-vs-rest (or the binary) subproblem, with its own costs, is
// cross-validated over probfit.Folds folds of all rows (fold assignment seeded
// from Params.Seed and the decision function, so the result does not
// depend on the number of workers), and probfit.PlattFit is applied to the
// held-out decision values. The folds are trained by small trainers of
// their own, not the main trainer's buffers; fitting runs once a training
// call, so its allocation does not matter.
func (t *LinearTrainer) fitProbability(ds *data.Dataset, m *LinearModel) error {
	p := t.params
	nrW := m.NrW()
	m.ProbA = make([]float64, nrW)
	m.ProbB = make([]float64, nrW)
	errs := make([]error, nrW)
	sub := p
	sub.Probability, sub.Threads, sub.C, sub.Weights = false, 1, 1, nil

	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range min(len(t.workers), nrW) {
		wg.Go(func() {
			var f *linearFoldFitter
			y := make([]int8, ds.Len())
			for {
				mu.Lock()
				k := next
				next++
				mu.Unlock()
				if k >= nrW {
					return
				}
				pos := m.Labels[k]
				for i, v := range ds.Labels() {
					y[i] = -1
					if int32(v) == pos {
						y[i] = 1
					}
				}
				Cp, Cn := p.C*p.weightOf(pos), p.C
				if nrW == 1 {
					Cn = p.C * p.weightOf(m.Labels[1])
				}
				if f == nil {
					var err error
					if f, err = newLinearFoldFitter(sub, ds); err != nil {
						errs[k] = err
						return
					}
				}
				f.tr.params.Weights = []model.ClassWeight{{Label: 1, Weight: Cp}, {Label: -1, Weight: Cn}}
				A, B, err := probfit.FitBinaryProbability(y, solve.SubSeed(p.Seed, k), func(train []int32) (func(int32) float64, error) {
					fm, err := f.train(train, y)
					if err != nil {
						return nil, err
					}
					// Positive toward y = +1 whichever class the fold's
					// model lists first.
					sign := 1.0
					if fm.Labels[0] != 1 {
						sign = -1
					}
					var dec [1]float64
					return func(row int32) float64 {
						if ds.IsDense() {
							return sign * fm.DecisionDense(dec[:], ds.DenseRow(int(row)))[0]
						}
						idx, val := ds.SparseRow(int(row))
						return sign * fm.DecisionSparse(dec[:], idx, val)[0]
					}, nil
				})
				m.ProbA[k], m.ProbB[k] = A, B
				if err != nil {
					errs[k] = fmt.Errorf("core: probability model of class %d: %w", pos, err)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			m.ProbA, m.ProbB = nil, nil
			return err
		}
	}
	return nil
}

// linearFoldFitter trains the binary models of internal cross-validation
// folds: a trainer and a data set sized once for all rows of src,
// refilled for each fold.
type linearFoldFitter struct {
	src *data.Dataset
	ds  *data.Dataset
	tr  *LinearTrainer
}

func newLinearFoldFitter(p LinearParams, src *data.Dataset) (*linearFoldFitter, error) {
	f := &linearFoldFitter{src: src}
	if src.IsDense() {
		f.ds = data.NewDense(src.Len(), src.NumFeatures())
	} else {
		f.ds = data.NewSparse(src.Len(), src.Nonzeros(), 0)
	}
	var err error
	f.tr, err = NewLinearTrainer(p, src.Len(), src.NumFeatures())
	return f, err
}

// train trains a binary model on the rows train of src, labelled y (±1),
// each with its instance weight.
func (f *linearFoldFitter) train(train []int32, y []int8) (*LinearModel, error) {
	f.ds.Reset()
	for _, i := range train {
		var err error
		if f.src.IsDense() {
			err = f.ds.AppendDense(float64(y[i]), f.src.DenseRow(int(i)))
		} else {
			idx, val := f.src.SparseRow(int(i))
			err = f.ds.AppendSparse(float64(y[i]), idx, val)
		}
		// The row's instance weight goes with it: a fold trains the
		// problem the model does.
		if w := f.src.Weight(int(i)); err == nil && w != 1 {
			err = f.ds.SetWeight(f.ds.Len()-1, w)
		}
		if err != nil {
			panic("core: linearFoldFitter: " + err.Error()) // sized from src: a bug
		}
	}
	m, _, err := f.tr.Train(f.ds, nil)
	return m, err
}
