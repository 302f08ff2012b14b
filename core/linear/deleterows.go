package linear

import (
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// DeleteRows removes the dual variables of the rows at the given 0-based
// positions from every vector, as Dataset.DeleteRows removes the rows, so
// that the dual stays aligned with its data set for a warm start. The
// vectors are compacted in place.
//
// The Gradient covers the rows that stay, but the removed rows' terms are
// in its sums: it is replaced by a new value without them
// (gradientrows.go), so that the next Train still reads only the rows
// added since, or dropped (set to nil) when it cannot be kept so (one not
// made by Train, or whose Alpha was changed since).
//
// The dual's row count is the length of its vectors (0 without vectors).
// A position out of range or given twice, or vectors of unequal lengths,
// is an error wrapping ErrRowPosition, and then nothing is removed.
func (dual *LinearDual) DeleteRows(rows []int) error {
	var ng *LinearGradient
	if g := dual.Gradient; g != nil && len(rows) > 0 && len(dual.Alpha) > 0 && g.Rows <= len(dual.Alpha[0]) {
		if del, err := data.SortedPositions(rows, len(dual.Alpha[0])); err == nil {
			ng = g.deleteRows(dual.Labels, dual.Alpha, del)
		}
	}
	gone, err := solve.DeleteAlignedRows(dual.Alpha, rows)
	if gone {
		dual.Gradient = ng
		if ng != nil {
			_, hAll := ng.rows.hash(ng.Rows)
			ng.Check = hashLinearAlpha(hAll, dual.Alpha, ng.Rows)
		}
	}
	return err
}
