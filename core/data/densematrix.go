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

// SparseMatrix returns the rows of a sparse data set in CSR form: row i is
// index[start[i]:start[i+1]] with value[start[i]:start[i+1]], its indices
// strictly increasing and below NumFeatures(); len(start) = Len() + 1.
// The slices are views into its storage (valid until the data set
// changes), for kernels that run over many rows a call. It panics if the
// data set is dense.
func (d *Dataset) SparseMatrix() (start []int, index []int32, value []float32) {
	if d.dense {
		panic("core: SparseMatrix on a dense data set")
	}
	start = d.rowStart[:d.rows+1]
	e := start[d.rows]
	return start, d.index[:e:e], d.value[:e:e]
}
