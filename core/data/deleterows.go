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
	y := d.y[:d.rows]
	// The weights and kept hashes move as the labels do; compacting them
	// first keeps the loops below as they were.
	if d.weight != nil {
		DeleteSorted(d.weight[:d.rows], del)
	}
	if d.hashes != nil {
		DeleteSorted(d.hashes[:d.rows], del)
	}
	w := del[0] // next row to write
	k := 0      // next entry of del
	if d.dense {
		n := d.numFeatures
		for r := del[0]; r < len(y); r++ {
			if k < len(del) && del[k] == r {
				k++
				continue
			}
			copy(d.x[w*n:w*n+n], d.x[r*n:r*n+n])
			y[w] = y[r]
			w++
		}
		// AppendSparse on a dense set writes only a row's nonzeros, so
		// storage past the last row must read as zero.
		clear(d.x[w*n : len(y)*n])
	} else {
		p := d.rowStart[del[0]] // next nonzero to write
		start := p              // the original start of row r
		for r := del[0]; r < len(y); r++ {
			// rowStart[r+1] is read before anything at r+1 or above is
			// written: writes go to rowStart[w+1] and w < r here.
			end := d.rowStart[r+1]
			if k < len(del) && del[k] == r {
				k++
				start = end
				continue
			}
			copy(d.index[p:], d.index[start:end])
			copy(d.value[p:], d.value[start:end])
			p += end - start
			start = end
			d.rowStart[w+1] = p
			y[w] = y[r]
			w++
		}
	}
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
