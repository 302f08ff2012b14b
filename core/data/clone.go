package data

// Clone returns a copy of d's stored rows (labels, weights, features, and
// their hashes when d keeps them), with room for exactly them: a snapshot
// that later changes to d (Append, DeleteRows, Truncate) leave as it is. A
// Prefix or RowRange view is copied as the rows it shows.
func (d *Dataset) Clone() *Dataset {
	if d.dense {
		return d.CloneWithRoom(d.rows, 0)
	}
	return d.CloneWithRoom(d.rows, d.rowStart[d.rows]-d.rowStart[0])
}

// CloneWithRoom is Clone with room for capRows rows and, when sparse,
// capNonzeros nonzeros in all, so that rows can be appended to the copy.
// It panics if either is below what d holds.
func (d *Dataset) CloneWithRoom(capRows, capNonzeros int) *Dataset {
	if capRows < d.rows {
		panic("core: CloneWithRoom: fewer rows than the data set holds")
	}
	c := &Dataset{
		dense:       d.dense,
		numFeatures: d.numFeatures,
		maxFeatures: d.maxFeatures,
		rows:        d.rows,
		y:           make([]float64, capRows),
	}
	copy(c.y, d.y[:d.rows])
	if d.weight != nil {
		c.weight = make([]float64, capRows)
		copy(c.weight, d.weight[:d.rows])
	}
	if d.hashes != nil {
		c.hashes = make([]uint64, capRows)
		copy(c.hashes, d.hashes[:d.rows])
	}
	if d.dense {
		c.x = make([]float32, capRows*d.numFeatures)
		copy(c.x, d.x[:d.rows*d.numFeatures])
		return c
	}
	// RowRange views keep offsets into their parent's arrays: rebase them.
	first, last := d.rowStart[0], d.rowStart[d.rows]
	if capNonzeros < last-first {
		panic("core: CloneWithRoom: fewer nonzeros than the data set holds")
	}
	c.rowStart = make([]int, capRows+1)
	for i, s := range d.rowStart[:d.rows+1] {
		c.rowStart[i] = s - first
	}
	c.index = make([]int32, capNonzeros)
	c.value = make([]float32, capNonzeros)
	copy(c.index, d.index[first:last])
	copy(c.value, d.value[first:last])
	return c
}

// AppendRowOf appends a copy of src's row i (label, features, weight) to
// d: the one copy a trainer makes of each support vector. A row of a
// data set passed Append's checks when it was stored, so a row copied
// between data sets of one layout is not checked again (on a model's
// support vectors, the checks were a third of the copy); between layouts
// it goes through AppendDense or AppendSparse. Errors are Append's
// (ErrFull; for a sparse d narrower than the row, ErrBadRow).
func (d *Dataset) AppendRowOf(src *Dataset, i int) error {
	w := src.Weight(i)
	switch {
	case d.dense && src.dense && d.numFeatures == src.numFeatures:
		if d.rows == len(d.y) {
			return ErrFull
		}
		n := d.numFeatures
		copy(d.x[d.rows*n:(d.rows+1)*n], src.DenseRow(i))
		d.y[d.rows] = src.Label(i)
		d.appended()
	case !d.dense && !src.dense && fitsWidth(src, i, d.maxFeatures):
		idx, val := src.SparseRow(i)
		p := d.rowStart[d.rows]
		if d.rows == len(d.y) || p+len(idx) > len(d.index) {
			return ErrFull
		}
		copy(d.index[p:], idx)
		copy(d.value[p:], val)
		if len(idx) > 0 {
			d.numFeatures = max(d.numFeatures, int(idx[len(idx)-1])+1)
		}
		d.rowStart[d.rows+1] = p + len(idx)
		d.y[d.rows] = src.Label(i)
		d.appended()
	default:
		var err error
		if src.dense {
			err = d.AppendDense(src.Label(i), src.DenseRow(i))
		} else {
			idx, val := src.SparseRow(i)
			err = d.AppendSparse(src.Label(i), idx, val)
		}
		if err != nil {
			return err
		}
	}
	if w != 1 {
		return d.SetWeight(d.rows-1, w)
	}
	return nil
}

// fitsWidth reports whether sparse row i of src has no index at or past
// maxFeatures (0: no bound); its indices increase, so its last is its
// largest.
func fitsWidth(src *Dataset, i, maxFeatures int) bool {
	idx, _ := src.SparseRow(i)
	return maxFeatures == 0 || len(idx) == 0 || int(idx[len(idx)-1]) < maxFeatures
}
