package data

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestTruncateRestoresWidth: dropping rows drops their features from a
// sparse data set's width, and dense rows are cleared for reuse.
func TestTruncateRestoresWidth(t *testing.T) {
	d := NewSparse(4, 10, 0)
	d.AppendSparse(1, []int32{0, 2}, []float32{1, 1})
	d.AppendSparse(1, nil, nil)
	d.AppendSparse(-1, []int32{7}, []float32{2})
	if d.NumFeatures() != 8 {
		t.Fatalf("width %d, want 8", d.NumFeatures())
	}
	d.Truncate(2)
	if d.Len() != 2 || d.NumFeatures() != 3 || d.Nonzeros() != 2 {
		t.Errorf("after Truncate(2): %d rows, width %d, %d nonzeros; want 2, 3, 2", d.Len(), d.NumFeatures(), d.Nonzeros())
	}
	d.Truncate(0)
	if d.NumFeatures() != 0 {
		t.Errorf("after Truncate(0): width %d", d.NumFeatures())
	}

	dense := NewDense(2, 3)
	dense.AppendDense(1, []float32{1, 2, 3})
	dense.Truncate(0)
	dense.AppendSparse(1, []int32{1}, []float32{5})
	if got := dense.DenseRow(0); got[0] != 0 || got[1] != 5 || got[2] != 0 {
		t.Errorf("reused dense row %v, want [0 5 0]", got)
	}
	dense.AppendDense(1, []float32{1, 1, 1})
	if err := dense.AppendDense(1, []float32{1, 1, 1}); !errors.Is(err, ErrFull) {
		t.Errorf("third row in a 2-row set: %v, want ErrFull", err)
	}
}

// TestResetDense: a dense data set's storage takes rows of another width,
// zeros where the sparse rows appended have none, and refuses to widen
// beyond what it was made with.
func TestResetDense(t *testing.T) {
	d := NewDense(3, 4)
	d.AppendDense(1, []float32{1, 2, 3, 4})
	d.AppendDense(2, []float32{5, 6, 7, 8})
	d.ResetDense(2)
	if d.Len() != 0 || d.NumFeatures() != 2 {
		t.Fatalf("after ResetDense(2): %d rows of width %d", d.Len(), d.NumFeatures())
	}
	d.AppendSparse(-1, []int32{1}, []float32{9})
	d.AppendSparse(1, []int32{0}, []float32{3})
	if err := d.AppendSparse(1, []int32{2}, []float32{1}); !errors.Is(err, ErrBadRow) {
		t.Errorf("index 2 in rows of width 2: %v, want ErrBadRow", err)
	}
	if got := d.DenseMatrix(); !slices.Equal(got, []float32{0, 9, 3, 0}) || d.Label(0) != -1 {
		t.Errorf("rows %v (first label %v), want [0 9 3 0] (-1)", got, d.Label(0))
	}
	d.ResetDense(4) // back to the width it was made with: the old cells are gone
	d.AppendSparse(1, []int32{3}, []float32{1})
	if got := d.DenseRow(0); !slices.Equal(got, []float32{0, 0, 0, 1}) {
		t.Errorf("row %v, want [0 0 0 1]", got)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("ResetDense(5) of a 4-wide data set did not panic")
		}
	}()
	d.ResetDense(5)
}

// TestResetDenseFrom: the dense copy ResetDenseFrom makes of a sparse (or
// dense) data set is the one AppendSparse (AppendDense) makes row by row:
// width, labels, values, row hashes and weights 1, over storage that held
// wider, weighted rows before; for rows of every density (some, all
// nonzero, dense).
func TestResetDenseFrom(t *testing.T) {
	src, full := NewSparse(50, 500, 0), NewSparse(50, 500, 0)
	dsrc := NewDense(50, 7)
	for i := range 40 {
		if err := full.AppendSparse(float64(i%2), []int32{0, 1, 2}, []float32{float32(i), 1, -float32(i)}); err != nil {
			t.Fatal(err)
		}
		var idx []int32
		var val []float32
		row := make([]float32, 7)
		for j := range 7 {
			if (i*7+j)%3 != 0 {
				idx, val = append(idx, int32(j)), append(val, float32(i*7+j)/10)
				row[j] = float32(i*7+j) / 10
			}
		}
		if err := src.AppendSparse(float64(i%3), idx, val); err != nil {
			t.Fatal(err)
		}
		if err := dsrc.AppendDense(float64(i%3), row); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*Dataset{src, full, dsrc} {
		got, want := NewDense(45, 9), NewDense(45, 9)
		for _, d := range []*Dataset{got, want} {
			d.KeepRowHashes()
			for range 45 {
				if err := d.AppendDense(5, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.SetWeight(3, 2); err != nil {
				t.Fatal(err)
			}
		}
		got.ResetDenseFrom(s)
		want.ResetDense(s.NumFeatures())
		for i := range s.Len() {
			var idx []int32
			var val []float32
			if s.IsDense() {
				val = s.DenseRow(i)
				for j := range val {
					idx = append(idx, int32(j))
				}
			} else {
				idx, val = s.SparseRow(i)
			}
			if err := want.AppendSparse(s.Label(i), idx, val); err != nil {
				t.Fatal(err)
			}
		}
		if got.Len() != want.Len() || got.NumFeatures() != want.NumFeatures() || !slices.Equal(got.DenseMatrix(), want.DenseMatrix()) ||
			!slices.Equal(got.Labels(), want.Labels()) {
			t.Fatalf("dense %v source: %d rows of width %d, want %d of %d, or other values or labels", s.IsDense(), got.Len(), got.NumFeatures(), want.Len(), want.NumFeatures())
		}
		for i := range want.Len() {
			if got.RowHash(i) != want.RowHash(i) || got.RowHashes()[i] != want.RowHashes()[i] || got.Weight(i) != 1 {
				t.Fatalf("dense %v source, row %d: hash, kept hash or weight %v differ", s.IsDense(), i, got.Weight(i))
			}
		}
	}
}

// BenchmarkDenseView times the kernel trainer's dense view of a sparse
// data set of 10,000 rows of 9 features (the daemon's shuttle store),
// made by ResetDenseFrom and, as before it, by AppendSparse row by row.
func BenchmarkDenseView(b *testing.B) {
	const rows, nf = 10000, 9
	src := NewSparse(rows, rows*nf, 0)
	idx := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8}
	val := make([]float32, nf)
	for i := range rows {
		for j := range val {
			val[j] = float32(i%97+j) / 100
		}
		if err := src.AppendSparse(float64(i%7), idx, val); err != nil {
			b.Fatal(err)
		}
	}
	v := NewDense(rows, nf)
	b.Run("ResetDenseFrom", func(b *testing.B) {
		for b.Loop() {
			v.ResetDenseFrom(src)
		}
	})
	b.Run("AppendSparse", func(b *testing.B) {
		for b.Loop() {
			v.ResetDense(nf)
			for i := range rows {
				ix, vs := src.SparseRow(i)
				if err := v.AppendSparse(src.Label(i), ix, vs); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkAppendSparse appends Fashion-MNIST-like rows (390 nonzeros of
// 784) to a sparse data set, the trainer's and the C API's add path.
func BenchmarkAppendSparse(b *testing.B) {
	const nnz, rows = 390, 1024
	index := make([]int32, nnz)
	value := make([]float32, nnz)
	for k := range index {
		index[k] = int32(2 * k)
		value[k] = float32(k%255+1) / 255
	}
	ds := NewSparse(rows, rows*nnz, 784)
	b.SetBytes(nnz * 8)
	for i := 0; b.Loop(); i++ {
		if i%rows == 0 {
			ds.Reset()
		}
		if err := ds.AppendSparse(1, index, value); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAppendSparseRefusesBadRows: every bad row is refused with the right
// error and leaves the data set as it was, even when the refusal comes
// after part of the row was copied; the next good row then reads back.
func TestAppendSparseRefusesBadRows(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := []struct {
		name  string
		label float64
		index []int32
		value []float32
		want  error
	}{
		{"label NaN", math.NaN(), []int32{0}, []float32{1}, ErrBadRow},
		{"negative index", 1, []int32{-1}, []float32{1}, ErrBadRow},
		{"decreasing", 1, []int32{0, 3, 2}, []float32{1, 1, 1}, ErrBadRow},
		{"repeated", 1, []int32{0, 3, 3}, []float32{1, 1, 1}, ErrBadRow},
		{"beyond max", 1, []int32{0, 8}, []float32{1, 1}, ErrBadRow},
		{"NaN value late", 1, []int32{0, 1, 2}, []float32{1, 1, nan}, ErrBadRow},
		{"Inf value", 1, []int32{0, 1}, []float32{1, -inf}, ErrBadRow},
		{"nonzeros past capacity", 1, []int32{0, 1, 2, 3, 4}, []float32{1, 2, 3, 4, 5}, ErrFull},
		{"bad row past capacity", 1, []int32{0, 1, 2, 3, 2}, []float32{1, 2, 3, 4, 5}, ErrBadRow},
	}
	ds := NewSparse(3, 5, 8)
	if err := ds.AppendSparse(-1, []int32{1, 2}, []float32{0.5, 0}); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		err := ds.AppendSparse(c.label, c.index, c.value)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
		if ds.Len() != 1 || ds.Nonzeros() != 1 || ds.NumFeatures() != 2 {
			t.Errorf("%s: set changed: %d rows, %d nonzeros, %d features", c.name, ds.Len(), ds.Nonzeros(), ds.NumFeatures())
		}
	}
	if err := ds.AppendSparse(1, []int32{0, 6}, []float32{2, -3}); err != nil {
		t.Fatal(err)
	}
	index, value := ds.SparseRow(1)
	if !slices.Equal(index, []int32{0, 6}) || !slices.Equal(value, []float32{2, -3}) || ds.NumFeatures() != 7 {
		t.Errorf("row after refusals: %v %v, %d features", index, value, ds.NumFeatures())
	}
	if err := ds.AppendSparse(1, []int32{7}, []float32{1}); err != nil {
		t.Fatal(err)
	}
	if err := ds.AppendSparse(1, []int32{0}, []float32{1}); !errors.Is(err, ErrFull) {
		t.Errorf("fourth row in a 3-row set: %v, want ErrFull", err)
	}
}

// TestZeroWidthDenseRefusesFeatures: a dense data set of 0 features holds
// rows of labels only; a row with a feature is refused (it has nowhere to
// go), by AppendSparse and by ReadInto, which names the line. A sparse
// data set's limit 0 means none: there the same row is taken.
func TestZeroWidthDenseRefusesFeatures(t *testing.T) {
	d := NewDense(2, 0)
	if err := d.AppendSparse(1, []int32{0}, []float32{0.5}); !errors.Is(err, ErrBadRow) {
		t.Errorf("AppendSparse: err = %v, want ErrBadRow", err)
	}
	if err := d.AppendSparse(1, nil, nil); err != nil || d.Len() != 1 {
		t.Fatalf("label-only row: err %v, %d rows", err, d.Len())
	}
	n, err := ReadInto(d, strings.NewReader("-1\n+1 1:0.5\n"), "b.libsvm", ReadOptions{})
	var pe *ParseError
	if n != 0 || !errors.Is(err, ErrBadRow) || !errors.As(err, &pe) || pe.Line != 2 {
		t.Errorf("ReadInto: %d rows, err %v; want 0 rows and ErrBadRow at line 2", n, err)
	}
	if d.Len() != 1 {
		t.Errorf("ReadInto left %d rows, want the 1 it found", d.Len())
	}
	s := NewSparse(1, 1, 0)
	if err := s.AppendSparse(1, []int32{5}, []float32{0.5}); err != nil || s.NumFeatures() != 6 {
		t.Errorf("sparse, no limit: err %v, width %d", err, s.NumFeatures())
	}
}
