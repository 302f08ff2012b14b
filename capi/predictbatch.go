package main

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// blockedPredictor is implemented by the models whose labels for a block of
// rows come cheaper together than a row at a time and equal, bit for bit,
// what their single-row calls give: float kernel models, whose single-row
// and batch paths both run the blocked product of core/kernelblock.go. A
// quantized kernel model's batch path rounds differently from its
// single-row one, so the C ABI keeps it row by row: a call's outputs must
// not depend on how many rows it was given.
type blockedPredictor interface {
	core.Model
	// PredictCSRBatch writes the labels of len(dst) CSR rows to dst and
	// returns dst.
	PredictCSRBatch(dst []float64, indptr []int64, indices []int32, values []float32) []float64
}

var _ blockedPredictor = (*core.KernelModel)(nil)

// denseBatch predicts the labels of rows rows of x through the model's
// batch path and reports whether it did. Only the sinks that check their
// inputs first take it: a linear model's row-at-a-time path finds a
// non-finite input from its decision values, which a batch of labels would
// hide. The rows are scanned before anything is predicted.
func (s *rowSink) denseBatch(dst []float64, x []float32, rows int) (bool, error) {
	bp, ok := s.m.(blockedPredictor)
	if !ok || s.output != outputLabel || !s.scan || rows < 2 || s.nf == 0 {
		return false, nil
	}
	for r := range rows {
		if err := scanDense(x[r*s.nf:r*s.nf+s.nf], r); err != nil {
			return true, err
		}
	}
	bp.PredictDenseBatch(dst[:rows], x[:rows*s.nf])
	return true, nil
}

// csrBatch is denseBatch for CSR rows of float32 values, already checked
// by checkCSR (every value, for sinks that scan their inputs).
func (s *rowSink) csrBatch(dst []float64, indptr []int64, indices []int32, values []float32, rows int) bool {
	bp, ok := s.m.(blockedPredictor)
	if !ok || s.output != outputLabel || !s.scan || rows < 2 {
		return false
	}
	bp.PredictCSRBatch(dst[:rows], indptr[:rows+1], indices, values)
	return true
}

// decisionBatcher is implemented by the models whose decision values for a
// block of dense rows equal, bit for bit, their single-row DecisionDense
// (float linear models: simd.PairDots64's order), so that blocking rows
// changes no output while the weights are read once per four rows.
type decisionBatcher interface {
	DecisionDenseBatch(dst []float64, x []float32) []float64
}

var _ decisionBatcher = (*linear.LinearModel)(nil)

// decisionBlockRows is how many rows a blocked call takes at a time: the
// decision values of a block (label output) are held in a pooled buffer.
const decisionBlockRows = 64

// decisionBatcher returns the model's batch decision path when this sink
// takes it: label or decision value output of a model that finds a
// non-finite input from its decision values (no scan), two rows or more.
func (s *rowSink) decisionBatcher(rows int) (decisionBatcher, bool) {
	db, ok := s.m.(decisionBatcher)
	if !ok || s.scan || rows < 2 || s.nf == 0 || (s.output != outputLabel && s.output != outputDecisionValues) {
		return nil, false
	}
	return db, true
}

// decisionWidth returns the decision values a row has.
func (s *rowSink) decisionWidth() int {
	if s.output == outputLabel {
		return len(s.scratch)
	}
	return s.width
}

// decisionBlock writes the outputs of the n rows of x (row-major, the
// model's width), rows r0.. of the call, from their decision values taken
// together (into dec for label output, else straight into dst), and
// returns the first of them whose values are not finite, or -1.
func (s *rowSink) decisionBlock(db decisionBatcher, dst []float64, r0, n int, x []float32, dec []float64) int {
	w := s.decisionWidth()
	vals := dec[:n*w]
	if s.output != outputLabel {
		vals = dst[r0*w : (r0+n)*w]
	}
	db.DecisionDenseBatch(vals, x[:n*s.nf])
	for r := range n {
		if !s.finish(dst, r0+r, vals[r*w:r*w+w]) {
			return r
		}
	}
	return -1
}

// decisionRowsF32 predicts the rows rows of x through db, a block at a
// time; the error names the first row with a non-finite input.
func (s *rowSink) decisionRowsF32(db decisionBatcher, dst []float64, x []float32, rows int) error {
	pooled := getF64(decisionBlockRows * s.decisionWidth())
	defer f64Pool.Put(pooled)
	for r0 := 0; r0 < rows; r0 += decisionBlockRows {
		n := min(decisionBlockRows, rows-r0)
		if r := s.decisionBlock(db, dst, r0, n, x[r0*s.nf:], *pooled); r >= 0 {
			return notFiniteDense(x[(r0+r)*s.nf:(r0+r+1)*s.nf], r0+r)
		}
	}
	return nil
}

// decisionRowsF64 is decisionRowsF32 for float64 rows, each block rounded
// to float32 (as predictDenseF64 rounds a row) into a pooled buffer.
func (s *rowSink) decisionRowsF64(db decisionBatcher, dst []float64, x []float64, rows int) error {
	pooled := getF64(decisionBlockRows * s.decisionWidth())
	defer f64Pool.Put(pooled)
	buf := getF32(decisionBlockRows * s.nf)
	defer f32Pool.Put(buf)
	for r0 := 0; r0 < rows; r0 += decisionBlockRows {
		n := min(decisionBlockRows, rows-r0)
		src := x[r0*s.nf : (r0+n)*s.nf]
		x32 := (*buf)[:len(src)]
		for j, v := range src {
			x32[j] = float32(v)
		}
		if r := s.decisionBlock(db, dst, r0, n, x32, *pooled); r >= 0 {
			return notFiniteDense(x[(r0+r)*s.nf:(r0+r+1)*s.nf], r0+r)
		}
	}
	return nil
}
