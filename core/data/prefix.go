package data

// Prefix returns a read-only view of d's first n rows: a Dataset sharing d's
// storage, so making it allocates only the Dataset header (and, for a sparse
// set, costs O(n) to find NumFeatures, as Truncate does; a dense view keeps
// d's width). It lets a trainer leave d's last rows out of a run without
// copying the rest — a held-back slice scored after training.
//
// The view is valid until d changes (Append, Truncate, Reset, DeleteRows).
// Its capacity is n rows, so appending to it returns ErrFull and writes
// nothing; Truncate, Reset and DeleteRows on it would rewrite d's storage
// and must not be called. It panics if n is negative or above Len.
func (d *Dataset) Prefix(n int) *Dataset {
	if n < 0 || n > d.rows {
		panic("core: Prefix out of range")
	}
	v := &Dataset{
		dense:       d.dense,
		numFeatures: d.numFeatures,
		maxFeatures: d.maxFeatures,
		rows:        n,
		y:           d.y[:n:n],
	}
	if d.weight != nil {
		v.weight = d.weight[:n:n]
	}
	if d.hashes != nil {
		v.hashes = d.hashes[:n:n]
	}
	if d.dense {
		k := n * d.numFeatures
		v.x = d.x[:k:k]
		return v
	}
	nnz := d.rowStart[n]
	v.rowStart = d.rowStart[: n+1 : n+1]
	v.index = d.index[:nnz:nnz]
	v.value = d.value[:nnz:nnz]
	// Rows' indices increase, so a row's last index is its largest.
	v.numFeatures = 0
	for i := range n {
		if e := d.rowStart[i+1]; e > d.rowStart[i] {
			v.numFeatures = max(v.numFeatures, int(d.index[e-1])+1)
		}
	}
	return v
}

// RowRange returns a read-only view of rows [from, to) of d, sharing its
// storage and keeping its NumFeatures (as LIBLINEAR's cross-validation
// subproblems keep the whole problem's n). Like Prefix's view, it is valid
// until d changes, and must not be appended to or truncated; its Nonzeros
// is not a count (rowStart keeps offsets into d's arrays): only trainers
// and predictions read it.
func (d *Dataset) RowRange(from, to int) *Dataset {
	if from < 0 || from > to || to > d.rows {
		panic("core: RowRange out of range")
	}
	n := to - from
	v := &Dataset{
		dense:       d.dense,
		numFeatures: d.numFeatures,
		maxFeatures: d.maxFeatures,
		rows:        n,
		y:           d.y[from:to:to],
	}
	if d.weight != nil {
		v.weight = d.weight[from:to:to]
	}
	if d.hashes != nil {
		v.hashes = d.hashes[from:to:to]
	}
	if d.dense {
		v.x = d.x[from*d.numFeatures : to*d.numFeatures : to*d.numFeatures]
		return v
	}
	// rowStart holds offsets into the whole index and value arrays.
	v.rowStart = d.rowStart[from : to+1 : to+1]
	v.index, v.value = d.index[:d.rowStart[to]:d.rowStart[to]], d.value[:d.rowStart[to]:d.rowStart[to]]
	return v
}
