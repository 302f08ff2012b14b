package core

import (
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// DeleteRows removes the dual variables of the rows at the given 0-based
// positions from every vector, as Dataset.DeleteRows removes the rows, so
// that the dual stays aligned with its data set for a warm start. The
// vectors are compacted in place; the gradient kept is a new value (duals
// made by Dual.Extended and Prefix share the old one).
//
// The stored gradient covers the rows that stay, but each removed row's
// α entered their gradients: Gradient keeps them without the removed
// rows and remembers the removed support vectors, whose terms the next
// Train takes out of G with one kernel value per remaining row of their
// pairs (KernelGradient.deleteRows), instead of rebuilding G from Alpha,
// which costs as much as a cold run. A gradient that cannot be kept so
// (one not made by Train) is dropped (set to nil) and the next Train
// rebuilds it.
//
// The dual's row count is the length of its vectors (0 without vectors).
// A position out of range or given twice, or vectors of unequal lengths,
// is an error wrapping ErrRowPosition, and then nothing is removed.
func (d *KernelDual) DeleteRows(rows []int) error {
	n := 0
	if len(d.Alpha) > 0 {
		n = len(d.Alpha[0])
	}
	var ng *KernelGradient
	if g := d.Gradient; g != nil && len(rows) > 0 && g.Rows <= n {
		if del, err := data.SortedPositions(rows, n); err == nil {
			ng = g.deleteRows(d.SVMType, d.Pairs, del)
		}
	}
	removed, err := solve.DeleteAlignedRows(d.Alpha, rows)
	if removed {
		d.Gradient = ng
	}
	return err
}
