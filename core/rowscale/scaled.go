package rowscale

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// Scaled is a model that takes raw rows (train --scale): it scales each
// row by its ranges into pooled float32 scratch (dense, since scaling maps
// 0 to o_j ≠ 0 in general) and predicts that with the model it wraps,
// which was trained on scaled rows. It is the one scaled form of the kinds
// that cannot absorb the ranges into their parameters (a quantized
// model's codes have one scale per decision function, not per feature);
// a float linear model folds them into its weights instead.
//
// Its Info is the inner model's with Scale set to the ranges. It is safe
// for concurrent use, and its predicting methods allocate nothing once
// warm beyond what the inner model's do.
type Scaled struct {
	inner  model.Model
	ranges *scale.Ranges
	rs     *rowScaler
}

var _ model.ProbabilityModel = (*Scaled)(nil)

// NewScaled returns inner scaling raw rows by r. It returns an error
// wrapping scale.ErrRanges for ranges that do not fit inner
// (model.CheckScale), and panics if r or inner is nil.
func NewScaled(inner model.Model, r *scale.Ranges) (*Scaled, error) {
	if inner == nil || r == nil {
		panic("rowscale: NewScaled: nil model or ranges")
	}
	if err := model.CheckScale(r, inner.Info().NumFeatures); err != nil {
		return nil, err
	}
	return &Scaled{inner: inner, ranges: r, rs: newRowScaler(r)}, nil
}

// Inner returns the model that predicts the scaled rows.
func (s *Scaled) Inner() model.Model { return s.inner }

// Ranges returns the ranges raw rows are scaled by; they must not be
// modified.
func (s *Scaled) Ranges() *scale.Ranges { return s.ranges }

// Info is the inner model's description with Scale set to the ranges.
func (s *Scaled) Info() model.ModelInfo {
	info := s.inner.Info()
	info.Scale = s.ranges
	return info
}

// checkDense panics for a dense row that is not NumFeatures wide, naming
// the method, as every kind does.
func (s *Scaled) checkDense(x []float32, fn string) {
	if len(x) != s.rs.numFeatures() {
		panic(fmt.Sprintf("rowscale: Scaled.%s: row has %d features, model %d", fn, len(x), s.rs.numFeatures()))
	}
}

// DecisionDense writes the decision values of the raw dense row x to
// dst[:NumDecisionValues] and returns that slice. It panics if len(x) !=
// NumFeatures.
func (s *Scaled) DecisionDense(dst []float64, x []float32) []float64 {
	s.checkDense(x, "DecisionDense")
	b := s.rs.dense(x)
	dst = s.inner.DecisionDense(dst, *b)
	s.rs.put(b)
	return dst
}

// DecisionSparse is DecisionDense for a raw sparse row; features past
// NumFeatures are dropped, as svm-scale drops them.
func (s *Scaled) DecisionSparse(dst []float64, index []int32, value []float32) []float64 {
	if len(index) != len(value) {
		panic("rowscale: Scaled.DecisionSparse: index and value lengths differ")
	}
	b := s.rs.sparse(index, value)
	dst = s.inner.DecisionDense(dst, *b)
	s.rs.put(b)
	return dst
}

// LabelOf is the inner model's: decision values do not depend on how the
// row reached them.
func (s *Scaled) LabelOf(dec []float64) float64 { return s.inner.LabelOf(dec) }

// PredictDense returns the prediction of the raw dense row x. It panics
// if len(x) != NumFeatures.
func (s *Scaled) PredictDense(x []float32) float64 {
	s.checkDense(x, "PredictDense")
	b := s.rs.dense(x)
	y := s.inner.PredictDense(*b)
	s.rs.put(b)
	return y
}

// PredictSparse is PredictDense for a raw sparse row.
func (s *Scaled) PredictSparse(index []int32, value []float32) float64 {
	if len(index) != len(value) {
		panic("rowscale: Scaled.PredictSparse: index and value lengths differ")
	}
	b := s.rs.sparse(index, value)
	y := s.inner.PredictDense(*b)
	s.rs.put(b)
	return y
}

// PredictDenseBatch writes the predictions of the raw rows of the
// row-major matrix x to dst[:rows] and returns that slice, scaling
// ScalerBatchRows rows at a time so that the inner model sees batches.
func (s *Scaled) PredictDenseBatch(dst []float64, x []float32) []float64 {
	n := s.rs.numFeatures()
	dst = model.BatchRows(dst, x, n, "rowscale: Scaled.PredictDenseBatch")
	s.rs.batch(dst, len(dst), func(r int, row []float32) { s.rs.denseInto(row, x[r*n:r*n+n]) }, s.predictMatrix)
	return dst
}

// PredictBatch writes the prediction of every raw row of ds to
// dst[:ds.Len()] and returns that slice.
func (s *Scaled) PredictBatch(dst []float64, ds *data.Dataset) []float64 {
	dst = dst[:ds.Len()]
	s.PredictRows(dst, ds, 0)
	return dst
}

// PredictRows writes the predictions of the raw rows from, from+1, … of
// ds to dst, one a row of dst: a part of PredictBatch, for a caller that
// shares the rows out among goroutines.
func (s *Scaled) PredictRows(dst []float64, ds *data.Dataset, from int) {
	s.rs.batch(dst, len(dst), func(r int, row []float32) { s.rs.datasetRowInto(row, ds, from+r) }, s.predictMatrix)
}

// PredictCSRBatch writes to dst the predictions of len(dst) raw sparse
// rows in CSR form (row r: indices[indptr[r]:indptr[r+1]] with their
// values, read as PredictSparse reads a row) and returns it. It panics if
// indptr has fewer than len(dst)+1 entries or does not bound rows of
// indices and values.
func (s *Scaled) PredictCSRBatch(dst []float64, indptr []int64, indices []int32, values []float32) []float64 {
	if len(indptr) < len(dst)+1 {
		panic("rowscale: Scaled.PredictCSRBatch: indptr shorter than len(dst)+1")
	}
	s.rs.batch(dst, len(dst), func(r int, row []float32) {
		b, e := indptr[r], indptr[r+1]
		s.rs.sparseInto(row, indices[b:e], values[b:e])
	}, s.predictMatrix)
	return dst
}

// ApplyDense scales the raw dense row x and returns f(dst, the scaled
// row): how a method only the inner kind has (a quantized model's error
// bound) reaches the row it must see. It panics if len(x) != NumFeatures.
func (s *Scaled) ApplyDense(dst []float64, x []float32, f func(dst []float64, row []float32) []float64) []float64 {
	s.checkDense(x, "ApplyDense")
	b := s.rs.dense(x)
	dst = f(dst, *b)
	s.rs.put(b)
	return dst
}

// ApplySparse is ApplyDense for a raw sparse row.
func (s *Scaled) ApplySparse(dst []float64, index []int32, value []float32, f func(dst []float64, row []float32) []float64) []float64 {
	if len(index) != len(value) {
		panic("rowscale: Scaled.ApplySparse: index and value lengths differ")
	}
	b := s.rs.sparse(index, value)
	dst = f(dst, *b)
	s.rs.put(b)
	return dst
}

// predictMatrix is the inner PredictDenseBatch without its result, for
// rowScaler.Batch.
func (s *Scaled) predictMatrix(out []float64, x []float32) { s.inner.PredictDenseBatch(out, x) }

// probability returns the inner model as a ProbabilityModel, panicking,
// as for a caller bug, when its kind has no probabilities.
func (s *Scaled) probability(fn string) model.ProbabilityModel {
	p, ok := s.inner.(model.ProbabilityModel)
	if !ok {
		panic("rowscale: Scaled." + fn + ": a " + s.inner.Info().Kind + " model has no probabilities")
	}
	return p
}

// ProbabilityDense writes the class probabilities of the raw dense row x
// to dst[:len(Labels)] and returns that slice. It panics, as the inner
// model does, when the model has none (ModelInfo.Probability false), and
// if len(x) != NumFeatures.
func (s *Scaled) ProbabilityDense(dst []float64, x []float32) []float64 {
	p := s.probability("ProbabilityDense")
	s.checkDense(x, "ProbabilityDense")
	b := s.rs.dense(x)
	dst = p.ProbabilityDense(dst, *b)
	s.rs.put(b)
	return dst
}

// ProbabilitySparse is ProbabilityDense for a raw sparse row.
func (s *Scaled) ProbabilitySparse(dst []float64, index []int32, value []float32) []float64 {
	p := s.probability("ProbabilitySparse")
	if len(index) != len(value) {
		panic("rowscale: Scaled.ProbabilitySparse: index and value lengths differ")
	}
	b := s.rs.sparse(index, value)
	dst = p.ProbabilityDense(dst, *b)
	s.rs.put(b)
	return dst
}
