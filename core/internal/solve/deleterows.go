package solve

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// DeleteAlignedRows removes the given row positions from every vector of
// vecs (all of one length: the row count), compacting each in place, and
// reports whether any row went. On error nothing is removed.
func DeleteAlignedRows(vecs [][]float64, rows []int) (bool, error) {
	n := 0
	if len(vecs) > 0 {
		n = len(vecs[0])
	}
	for k, a := range vecs {
		if len(a) != n {
			return false, fmt.Errorf("%w: dual vector %d has %d rows, vector 0 has %d", data.ErrRowPosition, k, len(a), n)
		}
	}
	del, err := data.SortedPositions(rows, n)
	if err != nil || len(del) == 0 {
		return false, err
	}
	for k, a := range vecs {
		vecs[k] = data.DeleteSorted(a, del)
	}
	return true, nil
}
