package linear

import "github.com/libsvmgo/libsvmgo/core/internal/solve"

// DeleteRows removes the dual variables of the rows at the given 0-based
// positions from every vector, as Dataset.DeleteRows removes the rows, so
// that the dual stays aligned with its data set for a warm start. The
// vectors are compacted in place; the only allocation is a sorted copy of
// rows.
//
// The dual's row count is the length of its vectors (0 without vectors).
// A position out of range or given twice, or vectors of unequal lengths,
// is an error wrapping ErrRowPosition, and then nothing is removed. The
// Gradient is dropped (set to nil) whenever a row is removed.
func (dual *LinearDual) DeleteRows(rows []int) error {
	gone, err := solve.DeleteAlignedRows(dual.Alpha, rows)
	if gone {
		dual.Gradient = nil // it covers rows that are gone
	}
	return err
}
