package core

// DeleteRows removes the dual variables of the rows at the given 0-based
// positions from every vector, as Dataset.DeleteRows removes the rows, so
// that the dual stays aligned with its data set for a warm start. The
// vectors are compacted in place; the only allocation is a sorted copy of
// rows.
//
// Removing rows changes Q for the rows that stay and, since each row's α
// entered every other row's gradient, invalidates the stored gradient, so
// Gradient is dropped (set to nil) whenever a row is removed: the next
// Train rebuilds it from Alpha. Train would also notice the mismatch
// through the gradient's Check, but only after hashing every row.
//
// The dual's row count is the length of its vectors (0 without vectors).
// A position out of range or given twice, or vectors of unequal lengths,
// is an error wrapping ErrRowPosition, and then nothing is removed.
func (d *KernelDual) DeleteRows(rows []int) error {
	removed, err := deleteAlignedRows(d.Alpha, rows)
	if removed {
		d.Gradient = nil
	}
	return err
}
