package data

import (
	"slices"
	"testing"
)

// TestClone checks that a clone holds the same rows (sparse, dense, a
// RowRange view, weights) and that changing the original or the clone
// afterwards leaves the other as it was.
func TestClone(t *testing.T) {
	sp := NewSparse(4, 8, 0)
	for _, r := range []struct {
		y   float64
		idx []int32
		val []float32
	}{{1, []int32{0, 3}, []float32{1, 2}}, {-1, []int32{1}, []float32{3}}, {1, []int32{2, 4}, []float32{4, 5}}} {
		if err := sp.AppendSparse(r.y, r.idx, r.val); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.SetWeight(1, 2.5); err != nil {
		t.Fatal(err)
	}
	dn := NewDense(3, 2)
	for i, x := range [][]float32{{1, 2}, {0, 3}, {4, 0}} {
		if err := dn.AppendDense(float64(i), x); err != nil {
			t.Fatal(err)
		}
	}
	same := func(t *testing.T, a, b *Dataset) {
		t.Helper()
		if a.Len() != b.Len() || a.NumFeatures() != b.NumFeatures() || a.IsDense() != b.IsDense() {
			t.Fatalf("shape %d×%d dense %v, want %d×%d dense %v", a.Len(), a.NumFeatures(), a.IsDense(), b.Len(), b.NumFeatures(), b.IsDense())
		}
		for i := range a.Len() {
			if a.Label(i) != b.Label(i) || a.Weight(i) != b.Weight(i) {
				t.Fatalf("row %d: label %v weight %v, want %v %v", i, a.Label(i), a.Weight(i), b.Label(i), b.Weight(i))
			}
			if a.IsDense() {
				if !slices.Equal(a.DenseRow(i), b.DenseRow(i)) {
					t.Fatalf("row %d: %v, want %v", i, a.DenseRow(i), b.DenseRow(i))
				}
				continue
			}
			ai, av := a.SparseRow(i)
			bi, bv := b.SparseRow(i)
			if !slices.Equal(ai, bi) || !slices.Equal(av, bv) {
				t.Fatalf("row %d: %v %v, want %v %v", i, ai, av, bi, bv)
			}
		}
	}
	for _, tc := range []struct {
		name string
		ds   *Dataset
	}{{"sparse", sp}, {"dense", dn}, {"range", sp.RowRange(1, 3)}} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.ds.Clone()
			same(t, c, tc.ds)
			kept := c.Clone()
			if err := c.DeleteRows([]int{0}); err != nil {
				t.Fatal(err)
			}
			same(t, tc.ds, kept) // the original did not change with its clone
			same(t, c, kept.RowRange(1, kept.Len()).Clone())
		})
	}
	if c := sp.RowRange(1, 3).Clone(); c.Nonzeros() != 3 {
		t.Fatalf("a RowRange clone holds %d nonzeros, want 3", c.Nonzeros())
	}
}
