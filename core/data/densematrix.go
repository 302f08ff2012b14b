package data

// DenseMatrix returns the rows of a dense data set as one row-major matrix,
// Len() × NumFeatures() values: a view into its storage (valid until the
// data set changes), for batch predictors that multiply blocks of rows at
// once. It panics if the data set is sparse.
func (d *Dataset) DenseMatrix() []float32 {
	if !d.dense {
		panic("core: DenseMatrix on a sparse data set")
	}
	return d.x[:d.rows*d.numFeatures]
}
