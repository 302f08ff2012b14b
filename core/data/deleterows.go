package data

import (
	"errors"
	"fmt"
	"slices"
)

// ErrRowPosition is wrapped by the errors DeleteRows returns for a position
// that is out of range or given twice.
var ErrRowPosition = errors.New("core: bad row position")

// DeleteRows removes the rows at the given 0-based positions, given in any
// order, and keeps the remaining rows in their order: what a trainer needs
// to forget samples while its other rows keep their dual variables (delete
// the same positions from the LinearDual). Storage is compacted in place;
// the only allocation is a sorted copy of rows.
//
// A position out of range or given twice is an error wrapping
// ErrRowPosition, and then nothing is removed. As after Truncate, a sparse
// data set's NumFeatures becomes that of the rows kept.
func (d *Dataset) DeleteRows(rows []int) error {
	del, err := SortedPositions(rows, d.rows)
	if err != nil || len(del) == 0 {
		return err
	}
	// The rows between two deleted ones move as one run, each of their
	// arrays with one copy (DeleteSorted's way): a window deletes the
	// oldest rows, so every row moves, where a copy per row and array
	// (a sparse row's indices and values) cost several times as much.
	if d.weight != nil {
		DeleteSorted(d.weight[:d.rows], del)
	}
	if d.hashes != nil {
		DeleteSorted(d.hashes[:d.rows], del)
	}
	n := d.rows
	w := del[0] // next row to write
	if d.dense {
		nf := d.numFeatures
		for j, r := range del {
			end := n
			if j+1 < len(del) {
				end = del[j+1]
			}
			copy(d.x[w*nf:], d.x[(r+1)*nf:end*nf])
			w += end - r - 1
		}
		// AppendSparse on a dense set writes only a row's nonzeros, so
		// storage past the last row must read as zero.
		clear(d.x[w*nf : n*nf])
	} else {
		p := d.rowStart[del[0]] // next nonzero to write
		for j, r := range del {
			end := n
			if j+1 < len(del) {
				end = del[j+1]
			}
			// Rows r+1 .. end−1 move to w ..; rowStart[k+1] is read
			// before anything at k+1 or above is written (writes go to
			// rowStart[w+1], w < k).
			a, b := d.rowStart[r+1], d.rowStart[end]
			copy(d.index[p:], d.index[a:b])
			copy(d.value[p:], d.value[a:b])
			shift := a - p
			for k := r + 1; k < end; k++ {
				d.rowStart[w+1] = d.rowStart[k+1] - shift
				w++
			}
			p += b - a
		}
	}
	DeleteSorted(d.y[:n], del)
	d.rows = w
	if !d.dense {
		// Truncate to the current length keeps every row and recomputes
		// the width from them.
		d.Truncate(w)
	}
	return nil
}

// SortedPositions returns rows sorted in a new slice, after checking that
// each lies in [0, n) and none repeats (an error wrapping ErrRowPosition):
// the check every DeleteRows makes, the data set's and the duals', so that
// they refuse the same positions.
func SortedPositions(rows []int, n int) ([]int, error) {
	for _, r := range rows {
		if r < 0 || r >= n {
			return nil, fmt.Errorf("%w: position %d is outside the %d rows held", ErrRowPosition, r, n)
		}
	}
	del := slices.Clone(rows)
	slices.Sort(del)
	for i := 1; i < len(del); i++ {
		if del[i] == del[i-1] {
			return nil, fmt.Errorf("%w: position %d given twice", ErrRowPosition, del[i])
		}
	}
	return del, nil
}

// DeleteSorted removes the entries of s at positions del, which must be
// ascending, distinct and below len(s) (SortedPositions returns them so),
// in place and in order, and returns s cut to the entries left. The
// entries between two deleted ones move down as one run (a memmove): a
// window deletes the oldest rows, so every row moves, and a copy per
// value cost several times as much.
func DeleteSorted[T any](s []T, del []int) []T {
	if len(del) == 0 {
		return s
	}
	w := del[0]
	for j, r := range del {
		end := len(s)
		if j+1 < len(del) {
			end = del[j+1]
		}
		w += copy(s[w:], s[r+1:end])
	}
	return s[:w]
}
