package data

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPrefixMatchesCopy checks a prefix view against an independent
// reference, a data set built from the same first rows alone, and against
// its parent, for both layouts and every prefix length.
func TestPrefixMatchesCopy(t *testing.T) {
	const rows, width = 12, 9
	f := newDeleteRowsFixture(rand.New(rand.NewPCG(21, 5)), rows, width)
	// The widest row last, so a sparse prefix is narrower than its parent.
	f.index[rows-1] = []int32{0, width + 2}
	f.value[rows-1] = []float32{3, 4}
	w := make([]float64, width+3)
	for j := range w {
		w[j] = float64(j) - 2.5
	}
	for _, dense := range []bool{false, true} {
		newSet := func(capRows int) *Dataset {
			if dense {
				return NewDense(capRows, width+3)
			}
			return NewSparse(capRows, capRows*(width+3), 0)
		}
		all := func(int) bool { return true }
		parent := f.build(t, newSet(rows+4), all)
		for n := range rows + 1 {
			v := parent.Prefix(n)
			ref := f.build(t, newSet(n), func(r int) bool { return r < n })
			if v.Len() != n || v.CapRows() != n || v.IsDense() != dense {
				t.Fatalf("dense=%v n=%d: Len %d, CapRows %d, IsDense %v", dense, n, v.Len(), v.CapRows(), v.IsDense())
			}
			if v.NumFeatures() != ref.NumFeatures() || v.Nonzeros() != ref.Nonzeros() {
				t.Errorf("dense=%v n=%d: NumFeatures %d, Nonzeros %d; want %d, %d",
					dense, n, v.NumFeatures(), v.Nonzeros(), ref.NumFeatures(), ref.Nonzeros())
			}
			if !slices.Equal(v.Labels(), ref.Labels()) {
				t.Errorf("dense=%v n=%d: labels %v, want %v", dense, n, v.Labels(), ref.Labels())
			}
			for i := range n {
				if dense {
					if !slices.Equal(v.DenseRow(i), ref.DenseRow(i)) {
						t.Errorf("dense n=%d row %d: %v, want %v", n, i, v.DenseRow(i), ref.DenseRow(i))
					}
				} else {
					vi, vv := v.SparseRow(i)
					ri, rv := ref.SparseRow(i)
					if !slices.Equal(vi, ri) || !slices.Equal(vv, rv) {
						t.Errorf("sparse n=%d row %d: %v %v, want %v %v", n, i, vi, vv, ri, rv)
					}
				}
				// Exact equality: the same values summed in the same order.
				if a, b := v.Dot(i, w), parent.Dot(i, w); a != b {
					t.Errorf("dense=%v n=%d row %d: Dot %v, parent's %v", dense, n, i, a, b)
				}
				if a, b := v.SquaredNorm(i), parent.SquaredNorm(i); a != b {
					t.Errorf("dense=%v n=%d row %d: SquaredNorm %v, parent's %v", dense, n, i, a, b)
				}
			}
		}
		if want := width + 3; parent.NumFeatures() != want {
			t.Errorf("dense=%v: parent NumFeatures %d after taking prefixes, want %d", dense, parent.NumFeatures(), want)
		}
	}
}

// TestPrefixAppendFull checks that a view refuses rows, and that trying
// writes nothing into the parent, whose own spare capacity is still usable.
func TestPrefixAppendFull(t *testing.T) {
	const rows, width = 8, 6
	f := newDeleteRowsFixture(rand.New(rand.NewPCG(3, 9)), rows, width)
	for _, dense := range []bool{false, true} {
		var parent, ref *Dataset
		if dense {
			parent, ref = NewDense(rows+2, width), NewDense(rows+2, width)
		} else {
			parent, ref = NewSparse(rows+2, (rows+2)*width, 0), NewSparse(rows+2, (rows+2)*width, 0)
		}
		all := func(int) bool { return true }
		f.build(t, parent, all)
		f.build(t, ref, all)
		// A view cut before the last rows: a write past its end would
		// land on the parent's rows n..rows-1.
		const n = rows - 3
		v := parent.Prefix(n)
		full := []float32{7, 7, 7, 7, 7, 7}
		if err := v.AppendDense(99, full); !errors.Is(err, ErrFull) {
			t.Errorf("dense=%v: AppendDense on a view: %v, want ErrFull", dense, err)
		}
		if err := v.AppendSparse(99, []int32{0, 5}, []float32{7, 7}); !errors.Is(err, ErrFull) {
			t.Errorf("dense=%v: AppendSparse on a view: %v, want ErrFull", dense, err)
		}
		if v.Len() != n {
			t.Errorf("dense=%v: view holds %d rows after refusing, want %d", dense, v.Len(), n)
		}
		sameRows(t, parent, ref)
		// The parent's capacity is its own: a row still fits after its last.
		if err := parent.AppendDense(99, full); err != nil {
			t.Fatalf("dense=%v: parent append: %v", dense, err)
		}
		if err := ref.AppendDense(99, full); err != nil {
			t.Fatal(err)
		}
		sameRows(t, parent, ref)
	}
}

func TestPrefixPanicsOutOfRange(t *testing.T) {
	d := NewSparse(4, 8, 0)
	if err := d.AppendSparse(1, []int32{0}, []float32{1}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{-1, 2} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Prefix(%d) of 1 row did not panic", n)
				}
			}()
			d.Prefix(n)
		}()
	}
}
