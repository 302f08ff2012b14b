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
