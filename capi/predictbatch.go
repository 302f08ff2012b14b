package main

import "github.com/libsvmgo/libsvmgo/core"

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
