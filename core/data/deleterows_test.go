package data

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// deleteRowsFixture is a small set of rows with distinct labels (the row
// number) and some empty rows, so that any misplaced row shows.
type deleteRowsFixture struct {
	index [][]int32
	value [][]float32
}

func newDeleteRowsFixture(rng *rand.Rand, rows, width int) deleteRowsFixture {
	var f deleteRowsFixture
	for range rows {
		var idx []int32
		var val []float32
		for j := range width {
			if rng.IntN(3) == 0 {
				idx = append(idx, int32(j))
				val = append(val, float32(rng.IntN(9)+1))
			}
		}
		f.index = append(f.index, idx)
		f.value = append(f.value, val)
	}
	return f
}

// build appends the fixture's rows whose positions keep accepts, labelled
// with their position, to d.
func (f deleteRowsFixture) build(t *testing.T, d *Dataset, keep func(int) bool) *Dataset {
	t.Helper()
	for r := range f.index {
		if keep(r) {
			if err := d.AppendSparse(float64(r), f.index[r], f.value[r]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return d
}

// sameRows compares two data sets row by row through their public views.
func sameRows(t *testing.T, got, want *Dataset) {
	t.Helper()
	if got.Len() != want.Len() || got.NumFeatures() != want.NumFeatures() || got.Nonzeros() != want.Nonzeros() {
		t.Fatalf("got %d rows, width %d, %d nonzeros; want %d, %d, %d",
			got.Len(), got.NumFeatures(), got.Nonzeros(), want.Len(), want.NumFeatures(), want.Nonzeros())
	}
	for i := range want.Len() {
		if got.Label(i) != want.Label(i) {
			t.Fatalf("row %d: label %v, want %v", i, got.Label(i), want.Label(i))
		}
		if want.IsDense() {
			if !slices.Equal(got.DenseRow(i), want.DenseRow(i)) {
				t.Fatalf("row %d: %v, want %v", i, got.DenseRow(i), want.DenseRow(i))
			}
			continue
		}
		gi, gv := got.SparseRow(i)
		wi, wv := want.SparseRow(i)
		if !slices.Equal(gi, wi) || !slices.Equal(gv, wv) {
			t.Fatalf("row %d: %v %v, want %v %v", i, gi, gv, wi, wv)
		}
	}
}

// TestDatasetDeleteRows deletes random position sets, in random order, from
// both layouts and compares with a data set built from the kept rows only.
// Appending afterwards must also match: deleted rows leave no trace.
func TestDatasetDeleteRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, width = 40, 12
	f := newDeleteRowsFixture(rng, rows, width)
	extra := []int32{1, width - 1}
	for trial := range 50 {
		count := rng.IntN(rows + 1)
		del := rng.Perm(rows)[:count] // any order, no repeats
		gone := make(map[int]bool)
		for _, r := range del {
			gone[r] = true
		}
		keep := func(r int) bool { return !gone[r] }
		for _, dense := range []bool{false, true} {
			mk := func() *Dataset {
				if dense {
					return NewDense(rows+1, width)
				}
				return NewSparse(rows+1, rows*width+2, width)
			}
			d := f.build(t, mk(), func(int) bool { return true })
			if err := d.DeleteRows(del); err != nil {
				t.Fatalf("trial %d dense=%v: %v", trial, dense, err)
			}
			want := f.build(t, mk(), keep)
			sameRows(t, d, want)
			if err := d.AppendSparse(-1, extra, []float32{3, 4}); err != nil {
				t.Fatal(err)
			}
			if err := want.AppendSparse(-1, extra, []float32{3, 4}); err != nil {
				t.Fatal(err)
			}
			sameRows(t, d, want)
		}
	}
}

// TestDeleteRowsWidth: deleting the only row holding the largest index
// narrows a sparse data set, as Truncate does.
func TestDeleteRowsWidth(t *testing.T) {
	d := NewSparse(3, 10, 0)
	d.AppendSparse(1, []int32{0, 2}, []float32{1, 1})
	d.AppendSparse(2, []int32{9}, []float32{2})
	d.AppendSparse(3, []int32{4}, []float32{3})
	if err := d.DeleteRows([]int{1}); err != nil {
		t.Fatal(err)
	}
	if d.NumFeatures() != 5 || d.Len() != 2 || d.Label(1) != 3 {
		t.Errorf("width %d, %d rows, label[1] %v; want 5, 2, 3", d.NumFeatures(), d.Len(), d.Label(1))
	}
}

// TestDeleteRowsRefuses: bad positions are errors and change nothing.
func TestDeleteRowsRefuses(t *testing.T) {
	f := newDeleteRowsFixture(rand.New(rand.NewPCG(3, 4)), 5, 4)
	all := func(int) bool { return true }
	for _, del := range [][]int{{5}, {-1}, {0, 2, 0}, {4, 1, 4}} {
		d := f.build(t, NewSparse(5, 20, 0), all)
		if err := d.DeleteRows(del); !errors.Is(err, ErrRowPosition) {
			t.Errorf("DeleteRows(%v): %v, want ErrRowPosition", del, err)
		}
		sameRows(t, d, f.build(t, NewSparse(5, 20, 0), all))
	}
}

// TestDeleteRowsAllocs: compaction is in place; only the sorted copy of
// the positions is allocated.
func TestDeleteRowsAllocs(t *testing.T) {
	f := newDeleteRowsFixture(rand.New(rand.NewPCG(5, 6)), 30, 8)
	sparse := f.build(t, NewSparse(30, 240, 0), func(int) bool { return true })
	dense := f.build(t, NewDense(30, 8), func(int) bool { return true })
	del := []int{7, 2}
	row := make([]float32, 8)
	row[3] = 1
	// Each run appends back as many rows as it deletes, so every run
	// deletes from a full set.
	refill := func(d *Dataset) {
		d.AppendDense(1, row)
		d.AppendDense(1, row)
	}
	for name, fn := range map[string]func(){
		"sparse": func() { sparse.DeleteRows(del); refill(sparse) },
		"dense":  func() { dense.DeleteRows(del); refill(dense) },
	} {
		if got := testing.AllocsPerRun(100, fn); got > 1 {
			t.Errorf("%s: %v allocations a call, want at most 1", name, got)
		}
	}
}

// BenchmarkDatasetDeleteRows deletes the oldest 1% of a 45,000-row sparse
// data set of 6 nonzeros a row (the daemon's debdesc_bin window) and
// appends as many rows back.
func BenchmarkDatasetDeleteRows(b *testing.B) {
	const rows, per = 45_000, 450
	d := NewSparse(rows, rows*6, 0)
	idx := []int32{3, 70, 500, 2000, 4000, 9000}
	val := []float32{0.4, 0.4, 0.4, 0.4, 0.4, 0.4}
	for d.Len() < rows {
		if err := d.AppendSparse(1, idx, val); err != nil {
			b.Fatal(err)
		}
	}
	del := make([]int, per)
	for k := range del {
		del[k] = k
	}
	for b.Loop() {
		if err := d.DeleteRows(del); err != nil {
			b.Fatal(err)
		}
		for d.Len() < rows {
			if err := d.AppendSparse(1, idx, val); err != nil {
				b.Fatal(err)
			}
		}
	}
}
