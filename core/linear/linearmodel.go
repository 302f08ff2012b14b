package linear

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
	"github.com/libsvmgo/libsvmgo/core/scale"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// LinearModel is a trained linear SVM: one weight vector per decision
// function (a single one for two classes and for regression, one per class
// for one-vs-rest), stored float32.
//
// A LinearModel is immutable once trained or loaded; its methods are safe
// for concurrent use.
type LinearModel struct {
	// Solver is the formulation the model was trained with; it tells
	// classification (SVC) from regression (SVR).
	Solver LinearSolver
	// Labels are the class labels in the order of the decision functions
	// (LIBLINEAR's order: first appearance in the training data, except
	// that a {-1,+1} problem puts +1 first). Nil for regression.
	Labels []int32
	// NumFeatures is the number of input features (indices 0..NumFeatures-1).
	// Features past it are ignored by the sparse predictors.
	NumFeatures int
	// Bias is the value of the bias pseudo-feature (LIBLINEAR's -B); a
	// negative value means the model has no bias term.
	Bias float64
	// W holds the weights feature-major, as LIBLINEAR does: W[j*NrW()+k] is
	// feature j's weight in decision function k, and when Bias >= 0 row
	// j = NumFeatures holds the bias weights. Feature-major keeps one
	// row's reads of all classes' weights together.
	W []float32
	// NonzeroRows, when not nil, lists in increasing order the feature
	// rows of W (j < NumFeatures) that hold a nonzero weight; every other
	// feature row is zero. The dense predictors then read those rows only:
	// an L1-regularized model (-s 5, -s 6) with 3% of its rows nonzero
	// predicts a dense 784-feature row of 10 classes about 10× faster.
	// IndexNonzeroRows sets it; training, the model file reader and the
	// LIBLINEAR text importer do for the L1-regularized models. Nil: every
	// row is read.
	NonzeroRows []int32
	// ProbA and ProbB hold Platt's sigmoid of each decision function,
	// P(class k | d_k) = 1/(1 + exp(ProbA[k]·d_k + ProbB[k])), for an SVC
	// model trained with Params.Probability (linearprob.go); nil
	// otherwise (logistic regression needs none).
	ProbA, ProbB []float64
	// Params are the parameters the model was trained with.
	Params LinearParams
	// Result describes the training run that produced the model.
	Result TrainResult
	// Created is the creation time in Unix seconds, 0 when not recorded.
	// Training leaves it 0 so that equal inputs give equal model files;
	// publishers (the daemon) set it.
	Created int64
	// Scale, when not nil, is the scaling the model was trained behind
	// (train --scale): W applies to scaled rows, and every predict method
	// takes raw rows and scales them, by weights folded with the ranges
	// on the first prediction (scaling.go). Its ranges cover exactly
	// NumFeatures features, without target scaling.
	Scale *scale.Ranges

	// fold is the *LinearModel folded from Scale (scaling.go), nil until
	// the first prediction of a scaled model.
	fold unsafe.Pointer
	// packed is the *packedW of W (linearblock.go), nil until the first
	// blocked prediction.
	packed unsafe.Pointer
}

// IsRegression reports whether the model predicts real values (SVR).
func (m *LinearModel) IsRegression() bool { return m.Solver.IsRegression() }

// NrW returns the number of decision functions (weight vectors).
func (m *LinearModel) NrW() int {
	if m.Solver.IsRegression() || (len(m.Labels) == 2 && !m.Solver.IsMultinomial()) {
		return 1
	}
	return len(m.Labels)
}

// NumDecisionValues returns how many decision values DecisionDense and
// DecisionSparse write: NrW.
func (m *LinearModel) NumDecisionValues() int { return m.NrW() }

// weightRows returns the number of rows of W: the features plus the bias row.
func (m *LinearModel) weightRows() int {
	if m.Bias >= 0 {
		return m.NumFeatures + 1
	}
	return m.NumFeatures
}

// Validate checks that the model's fields agree with each other (sizes,
// labels and solver) and that its bias and weights are finite, which every
// training gives and without which every prediction would be refused.
// The model file decoder calls it, so every path that loads a model (a
// file, a buffer, a watched directory, the command) refuses what it
// refuses.
func (m *LinearModel) Validate() error {
	if !m.Solver.valid() {
		return fmt.Errorf("core: linear model: unknown solver %d", m.Solver)
	}
	if m.NumFeatures < 0 {
		return fmt.Errorf("core: linear model: negative feature count %d", m.NumFeatures)
	}
	if m.Solver.IsRegression() {
		if len(m.Labels) != 0 {
			return fmt.Errorf("core: linear model: regression model with %d labels", len(m.Labels))
		}
	} else {
		if len(m.Labels) < 2 {
			return fmt.Errorf("core: linear model: classification model with %d labels, want at least 2", len(m.Labels))
		}
		seen := make(map[int32]bool, len(m.Labels))
		for _, l := range m.Labels {
			if seen[l] {
				return fmt.Errorf("core: linear model: label %d repeated", l)
			}
			seen[l] = true
		}
	}
	if want := m.weightRows() * m.NrW(); len(m.W) != want {
		return fmt.Errorf("core: linear model: %d weights, want %d (%d rows × %d functions)",
			len(m.W), want, m.weightRows(), m.NrW())
	}
	if err := m.checkNonzeroRows(); err != nil {
		return err
	}
	if err := m.checkPlatt(); err != nil {
		return err
	}
	if err := model.CheckScale(m.Scale, m.NumFeatures); err != nil {
		return fmt.Errorf("core: linear model: %w", err)
	}
	return m.checkFinite()
}

// IndexNonzeroRows sets NonzeroRows from W when at most half the feature
// rows hold a nonzero weight, and to nil otherwise (reading every row is
// then as fast). Call it before the model is shared: it writes the field.
func (m *LinearModel) IndexNonzeroRows() {
	m.NonzeroRows = nil
	nrW, n := m.NrW(), m.NumFeatures
	if nrW == 0 || len(m.W) < n*nrW {
		return
	}
	count := 0
	for j := range n {
		if !allZero(m.W[j*nrW : j*nrW+nrW]) {
			count++
		}
	}
	if 2*count > n {
		return
	}
	m.NonzeroRows = make([]int32, 0, count)
	for j := range n {
		if !allZero(m.W[j*nrW : j*nrW+nrW]) {
			m.NonzeroRows = append(m.NonzeroRows, int32(j))
		}
	}
}

func allZero(w []float32) bool {
	for _, v := range w {
		if v != 0 {
			return false
		}
	}
	return true
}

// checkNonzeroRows reports whether NonzeroRows is nil or lists, in
// increasing order, exactly the feature rows of W holding a nonzero
// weight, or a superset of them.
func (m *LinearModel) checkNonzeroRows() error {
	if m.NonzeroRows == nil {
		return nil
	}
	nrW, next := m.NrW(), 0
	for q, j := range m.NonzeroRows {
		if j < 0 || int(j) >= m.NumFeatures || (q > 0 && j <= m.NonzeroRows[q-1]) {
			return fmt.Errorf("core: linear model: nonzero row index %d out of order or range", j)
		}
		for r := next; r < int(j); r++ {
			if !allZero(m.W[r*nrW : r*nrW+nrW]) {
				return fmt.Errorf("core: linear model: row %d has nonzero weights but is not in NonzeroRows", r)
			}
		}
		next = int(j) + 1
	}
	for r := next; r < m.NumFeatures; r++ {
		if !allZero(m.W[r*nrW : r*nrW+nrW]) {
			return fmt.Errorf("core: linear model: row %d has nonzero weights but is not in NonzeroRows", r)
		}
	}
	return nil
}

// DecisionDense writes the decision values of the dense row x (len(x) ==
// NumFeatures) to dst[:NrW()] and returns that slice. It allocates nothing.
// It panics if len(x) != NumFeatures or len(dst) < NrW().
func (m *LinearModel) DecisionDense(dst []float64, x []float32) []float64 {
	if f := m.folded(); f != nil {
		return f.DecisionDense(dst, x)
	}
	if len(x) != m.NumFeatures {
		panic(fmt.Sprintf("core: DecisionDense: row has %d features, model %d", len(x), m.NumFeatures))
	}
	nrW := m.NrW()
	dst = dst[:nrW]
	if m.NonzeroRows != nil {
		return m.decisionNonzero(dst, x)
	}
	if nrW == 1 {
		dst[0] = simd.Dot64x4(x, m.W[:len(x)]) + m.biasTerm(0)
		return dst
	}
	// simd.PairDots64: two features per sweep (in Go, that halved the
	// loads and stores of dst that bounded the loop; 10 classes × 784
	// features: 2.4 µs, 7.4 µs with a test for zeros, which a dense row
	// mispredicts about half the time). Its order is DecisionDenseBatch's.
	simd.PairDots64(dst, x, 1, len(x), m.W[:len(x)*nrW], nrW)
	for k := range dst {
		dst[k] += m.biasTerm(k)
	}
	return dst
}

// DecisionDenseBatch writes the decision values of the rows of the
// row-major matrix x (NumFeatures values a row) to dst, NrW() values a row,
// and returns dst[:rows·NrW()]. Each row's values are DecisionDense's, bit
// for bit (the same summation order, simd.PairDots64's, taken four rows at
// a time where it is vectorized), so a caller may block rows without
// changing any output. It allocates nothing. It panics if len(x) is not a
// multiple of NumFeatures or dst is too short.
func (m *LinearModel) DecisionDenseBatch(dst []float64, x []float32) []float64 {
	if f := m.folded(); f != nil {
		return f.DecisionDenseBatch(dst, x)
	}
	nf, nrW := m.NumFeatures, m.NrW()
	rows := 0
	if nf > 0 {
		if len(x)%nf != 0 {
			panic(fmt.Sprintf("core: DecisionDenseBatch: %d values are not rows of %d features", len(x), nf))
		}
		rows = len(x) / nf
	}
	dst = dst[:rows*nrW]
	if nrW == 1 || m.NonzeroRows != nil {
		for r := range rows {
			m.DecisionDense(dst[r*nrW:r*nrW+nrW], x[r*nf:r*nf+nf])
		}
		return dst
	}
	simd.PairDots64(dst, x, rows, nf, m.W[:nf*nrW], nrW)
	for r := range rows {
		d := dst[r*nrW : r*nrW+nrW]
		for k := range d {
			d[k] += m.biasTerm(k)
		}
	}
	return dst
}

// decisionNonzero is DecisionDense over the rows NonzeroRows lists.
func (m *LinearModel) decisionNonzero(dst []float64, x []float32) []float64 {
	nrW := len(dst)
	clear(dst)
	for _, j := range m.NonzeroRows {
		v := float64(x[j])
		wj := m.W[int(j)*nrW : int(j)*nrW+nrW][:len(dst)]
		for k := range dst {
			dst[k] += v * float64(wj[k])
		}
	}
	for k := range dst {
		dst[k] += m.biasTerm(k)
	}
	return dst
}

// DecisionSparse writes the decision values of the sparse row (0-based
// indices, strictly increasing, with their values) to dst[:NrW()] and
// returns that slice. Indices at or past NumFeatures are ignored, as
// LIBLINEAR does. It allocates nothing. It panics if len(index) !=
// len(value) or len(dst) < NrW().
func (m *LinearModel) DecisionSparse(dst []float64, index []int32, value []float32) []float64 {
	if f := m.folded(); f != nil {
		return f.DecisionSparse(dst, index, value)
	}
	if len(index) != len(value) {
		panic("core: DecisionSparse: index and value lengths differ")
	}
	nrW := m.NrW()
	dst = dst[:nrW]
	clear(dst)
	n := uint(m.NumFeatures)
	for k, j := range index {
		if uint(j) >= n {
			continue
		}
		v := float64(value[k])
		wj := m.W[int(j)*nrW : int(j)*nrW+nrW]
		for c := range dst {
			dst[c] += v * float64(wj[c])
		}
	}
	for k := range dst {
		dst[k] += m.biasTerm(k)
	}
	return dst
}

// checkPlatt refuses Platt parameters that do not fit the model
// (CheckLinearPlatt).
func (m *LinearModel) checkPlatt() error {
	return CheckLinearPlatt(m.Solver, m.NrW(), m.ProbA, m.ProbB)
}

// CheckLinearPlatt reports why Platt parameters probA, probB (either may
// be empty when both are) do not fit a linear model of formulation s with
// nrW decision functions: they are for SVC models only (regression has
// no classes, logistic regression its own probabilities), one per decision
// function, and finite. The model file readers of every linear kind share
// it.
func CheckLinearPlatt(s LinearSolver, nrW int, probA, probB []float64) error {
	if len(probA) == 0 && len(probB) == 0 {
		return nil
	}
	switch {
	case s.IsRegression() || s.IsLogistic():
		return fmt.Errorf("core: linear model: Platt parameters on a %v model", s)
	case len(probA) != nrW || len(probB) != nrW:
		return fmt.Errorf("core: linear model: %d and %d Platt parameters, want %d each", len(probA), len(probB), nrW)
	}
	for k := range probA {
		if a, b := probA[k], probB[k]; math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
			return fmt.Errorf("core: linear model: Platt parameters %v, %v of decision function %d are not finite", a, b, k)
		}
	}
	return nil
}

func (m *LinearModel) biasTerm(k int) float64 {
	if m.Bias < 0 {
		return 0
	}
	return m.Bias * float64(m.W[m.NumFeatures*m.NrW()+k])
}

// label turns decision values into a prediction by LIBLINEAR's rules
// (LinearPrediction).
func (m *LinearModel) label(dec []float64) float64 {
	return LinearPrediction(dec, m.Labels, m.Solver.IsRegression())
}

// maxStackDecisions bounds the number of decision functions handled with a
// stack buffer by the single-row predictors; larger models use a slower
// path that also allocates nothing.
const maxStackDecisions = 64

// PredictDense returns the predicted label (or value, for regression) of the
// dense row x. It allocates nothing. It panics if len(x) != NumFeatures.
func (m *LinearModel) PredictDense(x []float32) float64 {
	if f := m.folded(); f != nil {
		return f.PredictDense(x)
	}
	if m.NrW() > maxStackDecisions {
		return m.predictWide(func(k int) float64 { return m.denseOne(x, k) })
	}
	var buf [maxStackDecisions]float64
	return m.label(m.DecisionDense(buf[:], x))
}

// PredictSparse returns the predicted label (or value) of a sparse row, as
// DecisionSparse reads it. It allocates nothing.
func (m *LinearModel) PredictSparse(index []int32, value []float32) float64 {
	if f := m.folded(); f != nil {
		return f.PredictSparse(index, value)
	}
	if m.NrW() > maxStackDecisions {
		return m.predictWide(func(k int) float64 { return m.sparseOne(index, value, k) })
	}
	var buf [maxStackDecisions]float64
	return m.label(m.DecisionSparse(buf[:], index, value))
}

// predictWide computes the arg-max one decision function at a time, for
// models with more classes than the stack buffer holds.
func (m *LinearModel) predictWide(decision func(k int) float64) float64 {
	best, bestV := 0, decision(0)
	for k := 1; k < m.NrW(); k++ {
		if v := decision(k); v > bestV {
			best, bestV = k, v
		}
	}
	return float64(m.Labels[best])
}

func (m *LinearModel) denseOne(x []float32, k int) float64 {
	if len(x) != m.NumFeatures {
		panic(fmt.Sprintf("core: PredictDense: row has %d features, model %d", len(x), m.NumFeatures))
	}
	nrW := m.NrW()
	var s float64
	if m.NonzeroRows != nil {
		for _, j := range m.NonzeroRows {
			s += float64(x[j]) * float64(m.W[int(j)*nrW+k])
		}
		return s + m.biasTerm(k)
	}
	for j, v := range x {
		s += float64(v) * float64(m.W[j*nrW+k])
	}
	return s + m.biasTerm(k)
}

func (m *LinearModel) sparseOne(index []int32, value []float32, k int) float64 {
	nrW := m.NrW()
	var s float64
	for q, j := range index {
		if uint(j) < uint(m.NumFeatures) {
			s += float64(value[q]) * float64(m.W[int(j)*nrW+k])
		}
	}
	return s + m.biasTerm(k)
}

// PredictBatch writes the prediction of every row of ds to dst[:ds.Len()]
// and returns that slice. A dense ds may be wider or narrower than the
// model: features past NumFeatures are ignored and missing ones read as
// zero, as for sparse rows. A dense ds of the model's width takes the
// blocked path of PredictDenseBatch. It allocates nothing once warm. It
// panics if len(dst) < ds.Len().
func (m *LinearModel) PredictBatch(dst []float64, ds *data.Dataset) []float64 {
	if f := m.folded(); f != nil {
		return f.PredictBatch(dst, ds)
	}
	dst = dst[:ds.Len()]
	if ds.IsDense() && ds.NumFeatures() == m.NumFeatures && m.blockedDense(dst, ds.DenseMatrix()) {
		return dst
	}
	for i := range dst {
		if ds.IsDense() {
			dst[i] = m.predictAnyWidth(ds.DenseRow(i))
		} else {
			dst[i] = m.PredictSparse(ds.SparseRow(i))
		}
	}
	return dst
}

// predictAnyWidth predicts a dense row of any width: features past
// NumFeatures are ignored, missing ones are zero.
func (m *LinearModel) predictAnyWidth(x []float32) float64 {
	if len(x) == m.NumFeatures {
		return m.PredictDense(x)
	}
	if len(x) > m.NumFeatures {
		return m.PredictDense(x[:m.NumFeatures])
	}
	nrW := m.NrW()
	if nrW > maxStackDecisions {
		return m.predictWide(func(k int) float64 {
			var s float64
			for j, v := range x {
				s += float64(v) * float64(m.W[j*nrW+k])
			}
			return s + m.biasTerm(k)
		})
	}
	var buf [maxStackDecisions]float64
	dec := buf[:nrW]
	for j, v := range x {
		for k := range dec {
			dec[k] += float64(v) * float64(m.W[j*nrW+k])
		}
	}
	for k := range dec {
		dec[k] += m.biasTerm(k)
	}
	return m.label(dec)
}

// PredictDenseBatch writes the predictions of the rows of the row-major
// matrix x (len(x) = rows × NumFeatures) to dst and returns dst[:rows].
// Batches of 8 rows or more take the blocked float32 path of
// linearblock.go. It allocates nothing once warm. It panics on a size
// mismatch.
func (m *LinearModel) PredictDenseBatch(dst []float64, x []float32) []float64 {
	if f := m.folded(); f != nil {
		return f.PredictDenseBatch(dst, x)
	}
	n := m.NumFeatures
	dst = model.BatchRows(dst, x, n, "core: LinearModel.PredictDenseBatch")
	if m.blockedDense(dst, x) {
		return dst
	}
	for i := range dst {
		dst[i] = m.PredictDense(x[i*n : i*n+n])
	}
	return dst
}

// Widen makes m take rows of n features when it has fewer (Widen): the
// features it lacks get zero weights, which is what training gives a
// feature no row held, and its scaling (--scale) drops them as svm-scale
// drops features its ranges do not know. Call it before the model is
// shared or predicts.
func (m *LinearModel) Widen(n int) error {
	if m.NumFeatures >= n {
		return nil
	}
	nrW := m.NrW()
	w := make([]float32, n*nrW, (n+1)*nrW)
	copy(w, m.W[:m.NumFeatures*nrW])
	if m.Bias >= 0 {
		w = append(w, m.W[m.NumFeatures*nrW:]...)
	}
	m.W, m.NumFeatures = w, n
	if m.Scale != nil {
		return m.SetScale(m.Scale.Widen(n))
	}
	return nil
}
