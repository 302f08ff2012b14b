package data

import (
	"errors"
	"math"
	"testing"
)

// RowHash gives a row the same hash dense or sparse (zeros, −0 among
// them, are not features), and a different one when a value, a feature's
// place, the label or the weight changes.
func TestRowHashLayouts(t *testing.T) {
	x := []float32{0, 1.5, 0, float32(math.Copysign(0, -1)), -2, 0, 0, 3, 7, 0.25, 0}
	dense := NewDense(4, len(x))
	var idx []int32
	var val []float32
	for j, v := range x {
		if v != 0 {
			idx, val = append(idx, int32(j)), append(val, v)
		}
	}
	sparse := NewSparse(4, 4*len(idx), len(x))
	for _, ds := range []*Dataset{dense, sparse} {
		for k, label := range []float64{1, 2} {
			var err error
			if ds.IsDense() {
				row := append([]float32(nil), x...)
				row[1] += float32(k)
				err = ds.AppendDense(label, row)
			} else {
				v := append([]float32(nil), val...)
				v[0] += float32(k)
				err = ds.AppendSparse(label, idx, v)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	moved := append([]int32(nil), idx...)
	moved[len(moved)-1]++ // the last feature one place on
	if err := sparse.AppendSparse(1, moved, val); err != nil {
		t.Fatal(err)
	}
	if err := sparse.AppendSparse(2, idx, val); err != nil { // row 0's values, row 1's label
		t.Fatal(err)
	}
	for i := range 2 {
		if d, s := dense.RowHash(i), sparse.RowHash(i); d != s {
			t.Errorf("row %d: dense hash %x, sparse %x", i, d, s)
		}
	}
	seen := map[uint64]int{}
	for i := range sparse.Len() {
		h := sparse.RowHash(i)
		if k, ok := seen[h]; ok {
			t.Errorf("rows %d and %d differ but hash alike (%x)", k, i, h)
		}
		seen[h] = i
	}
	w := NewDense(1, len(x))
	if err := w.AppendDense(1, x); err != nil {
		t.Fatal(err)
	}
	if err := w.SetWeights([]float64{2}); err != nil {
		t.Fatal(err)
	}
	if w.RowHash(0) == dense.RowHash(0) {
		t.Error("a weight of 2 left the hash as without weights")
	}
}

// A data set that keeps its rows' hashes (KeepRowHashes) holds each row's
// RowHash through appends, deletions, weights, views and clones.
func TestKeptRowHashes(t *testing.T) {
	for _, dense := range []bool{true, false} {
		ds := NewSparse(8, 8*3, 5)
		if dense {
			ds = NewDense(8, 5)
		}
		row := func(k int) ([]int32, []float32) {
			return []int32{int32(k % 4), 4}, []float32{float32(k) + 0.5, -float32(k)}
		}
		for k := range 3 {
			idx, val := row(k)
			if err := ds.AppendSparse(float64(k%2), idx, val); err != nil {
				t.Fatal(err)
			}
		}
		if ds.RowHashes() != nil {
			t.Fatal("hashes before KeepRowHashes")
		}
		ds.KeepRowHashes()
		check := func(what string, d *Dataset) {
			t.Helper()
			got := d.RowHashes()
			if len(got) != d.Len() {
				t.Fatalf("dense %v, %s: %d hashes for %d rows", dense, what, len(got), d.Len())
			}
			for i, h := range got {
				if want := d.RowHash(i); h != want {
					t.Errorf("dense %v, %s: row %d kept hash %x, RowHash %x", dense, what, i, h, want)
				}
			}
		}
		check("kept", ds)
		for k := 3; k < 7; k++ {
			idx, val := row(k)
			if err := ds.AppendSparse(float64(k%2), idx, val); err != nil {
				t.Fatal(err)
			}
		}
		if err := ds.AppendDense(1, []float32{0, 0, 9, 0, 1}); err != nil {
			t.Fatal(err)
		}
		check("appended", ds)
		before := ds.RowHashes()[4]
		if err := ds.SetWeight(4, 3); err != nil {
			t.Fatal(err)
		}
		if ds.RowHashes()[4] == before {
			t.Errorf("dense %v: the kept hash of a reweighted row did not change", dense)
		}
		check("weighted", ds)
		if err := ds.DeleteRows([]int{6, 0, 2}); err != nil {
			t.Fatal(err)
		}
		check("deleted", ds)
		check("prefix", ds.Prefix(3))
		check("range", ds.RowRange(1, 4))
		c := ds.CloneWithRoom(ds.Len()+1, 8*3)
		if err := c.AppendDense(0, []float32{1, 2, 3, 4, 5}); err != nil {
			t.Fatal(err)
		}
		check("clone", c)
		ds.Truncate(2)
		if err := ds.AppendSparse(1, []int32{1}, []float32{4}); err != nil {
			t.Fatal(err)
		}
		check("truncated", ds)
	}
}

// AppendRowOf copies a row as AppendDense or AppendSparse would store it,
// between data sets of either layout, weight and all.
func TestAppendRowOf(t *testing.T) {
	src := NewSparse(3, 9, 0)
	for k, r := range [][]float32{{0, 1.5, 0, -2}, {0, 0, 0, 0}, {3, 0, 0.5, 0}} {
		if err := src.AppendDense(float64(k), r); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.SetWeight(2, 4); err != nil {
		t.Fatal(err)
	}
	dense := NewDense(3, 4)
	for i := range src.Len() {
		if err := dense.AppendRowOf(src, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, dst := range []*Dataset{NewDense(3, 4), NewSparse(3, 9, 4), NewSparse(3, 9, 0)} {
		for _, from := range []*Dataset{src, dense} {
			dst.Reset()
			dst.KeepRowHashes()
			for i := range from.Len() {
				if err := dst.AppendRowOf(from, i); err != nil {
					t.Fatal(err)
				}
			}
			if dst.NumFeatures() != 4 && !dst.IsDense() {
				t.Errorf("dense %v from dense %v: %d features, want 4", dst.IsDense(), from.IsDense(), dst.NumFeatures())
			}
			for i := range from.Len() {
				if dst.RowHash(i) != src.RowHash(i) || dst.RowHashes()[i] != src.RowHash(i) || dst.Weight(i) != src.Weight(i) {
					t.Errorf("dense %v from dense %v: row %d differs", dst.IsDense(), from.IsDense(), i)
				}
			}
		}
	}
	narrow := NewSparse(1, 3, 2)
	if err := narrow.AppendRowOf(src, 0); !errors.Is(err, ErrBadRow) {
		t.Errorf("a row past the features allowed: %v, want ErrBadRow", err)
	}
	full := NewDense(0, 4)
	if err := full.AppendRowOf(dense, 0); !errors.Is(err, ErrFull) {
		t.Errorf("no room: %v, want ErrFull", err)
	}
}
