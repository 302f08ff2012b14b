package core

import (
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// DeleteRows removes the dual variables of the rows at the given 0-based
// positions from every vector, as Dataset.DeleteRows removes the rows, so
// that the dual stays aligned with its data set for a warm start. The
// vectors and the gradient kept are compacted in place, each run of rows
// that stays moved with one copy.
//
// The stored gradient covers the rows that stay, but each removed row's
// α entered their gradients: Gradient keeps them without the removed
// rows and remembers the removed support vectors, whose terms the next
// Train takes out of G with one kernel value per remaining row of their
// pairs (KernelGradient.deleteRows), instead of rebuilding G from Alpha,
// which costs as much as a cold run. A gradient that cannot be kept so
// (one not made by Train) is dropped (set to nil) and the next Train
// rebuilds it. Duals made by Dual.Extended and Prefix share the gradient:
// theirs then covers the rows that stay, which its check tells from the
// rows they were made for, so a Train from one of them rebuilds G.
//
// The dual's row count is the length of its vectors (0 without vectors).
// A position out of range or given twice, or vectors of unequal lengths,
// is an error wrapping ErrRowPosition, and then nothing is removed.
func (d *KernelDual) DeleteRows(rows []int) error {
	n := 0
	if len(d.Alpha) > 0 {
		n = len(d.Alpha[0])
	}
	removed, err := solve.DeleteAlignedRows(d.Alpha, rows)
	if !removed {
		return err
	}
	// DeleteAlignedRows checked the positions, so SortedPositions cannot
	// fail here.
	g := d.Gradient
	if del, _ := data.SortedPositions(rows, n); g == nil || g.Rows > n || !g.deleteRows(d.SVMType, d.Pairs, del) {
		d.Gradient = nil
	}
	return err
}
