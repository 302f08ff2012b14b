package main

// batchPredictor is implemented by predictors whose labels for a block of
// dense or CSR rows come cheaper together than a row at a time: kernel models,
// whose blocked path (core/kernelblock.go) multiplies a block of rows with
// the support vectors once. The dense and float32 CSR label calls use it
// for more than one row; the rows were checked for finiteness before
// (kernel predictors scan their inputs).
type batchPredictor interface {
	// predictDenseBatch writes the labels of the rows of the row-major
	// matrix x (numFeatures values a row) to dst, one a row.
	predictDenseBatch(dst []float64, x []float32)
	// predictCSRBatch writes the labels of len(dst) CSR rows to dst.
	predictCSRBatch(dst []float64, indptr []int64, indices []int32, values []float32)
}

func (p *kernelPredictor) predictDenseBatch(dst []float64, x []float32) {
	p.m().PredictDenseBatch(dst, x)
}

func (p *kernelPredictor) predictCSRBatch(dst []float64, indptr []int64, indices []int32, values []float32) {
	p.m().PredictCSRBatch(dst, indptr, indices, values)
}

// denseBatch predicts the labels of rows rows of x through p's batch path
// when it has one and the call is worth it, and reports whether it did.
// The rows are scanned first when the predictor asks it, as a row at a
// time would.
func denseBatch(p predictor, output int, dst []float64, x []float32, rows, nf int) (bool, error) {
	bp, ok := p.(batchPredictor)
	if !ok || output != outputLabel || rows < 2 || nf == 0 {
		return false, nil
	}
	if p.scansInputs() {
		for r := range rows {
			if err := scanDense(x[r*nf:r*nf+nf], r); err != nil {
				return true, err
			}
		}
	}
	bp.predictDenseBatch(dst[:rows], x[:rows*nf])
	return true, nil
}

// csrBatch is denseBatch for CSR rows of float32 values, already checked by
// checkCSR (every value, for predictors that scan their inputs).
func csrBatch(p predictor, output int, dst []float64, indptr []int64, indices []int32, values []float32, rows int) bool {
	bp, ok := p.(batchPredictor)
	if !ok || output != outputLabel || rows < 2 || !p.scansInputs() {
		return false
	}
	bp.predictCSRBatch(dst[:rows], indptr[:rows+1], indices, values)
	return true
}
