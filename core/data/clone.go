package data

import "slices"

// Clone returns a copy of d's stored rows (labels, weights, features),
// with room for exactly them: a snapshot that later changes to d (Append,
// DeleteRows, Truncate) leave as it is. A Prefix or RowRange view is
// copied as the rows it shows.
func (d *Dataset) Clone() *Dataset {
	c := &Dataset{
		dense:       d.dense,
		numFeatures: d.numFeatures,
		maxFeatures: d.maxFeatures,
		rows:        d.rows,
		y:           slices.Clone(d.y[:d.rows]),
	}
	if d.weight != nil {
		c.weight = slices.Clone(d.weight[:d.rows])
	}
	if d.dense {
		c.x = slices.Clone(d.x[:d.rows*d.numFeatures])
		return c
	}
	// RowRange views keep offsets into their parent's arrays: rebase them.
	first, last := d.rowStart[0], d.rowStart[d.rows]
	c.rowStart = make([]int, d.rows+1)
	for i, s := range d.rowStart[:d.rows+1] {
		c.rowStart[i] = s - first
	}
	c.index = slices.Clone(d.index[first:last])
	c.value = slices.Clone(d.value[first:last])
	return c
}
