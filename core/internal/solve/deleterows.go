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
	// The rows between two deleted ones move down as one run (a memmove):
	// a daemon's window deletes the oldest rows, so every row moves, and a
	// copy per value cost several times as much.
	for k, a := range vecs {
		w := del[0]
		for j, r := range del {
			end := n
			if j+1 < len(del) {
				end = del[j+1]
			}
			w += copy(a[w:], a[r+1:end])
		}
		vecs[k] = a[:w]
	}
	return true, nil
}
