package solve

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestDeleteAlignedRows checks the compaction against keeping, value by
// value, the rows not named, for random deletions (unsorted, at the ends,
// adjacent, all rows) over vectors of one length; and that a bad position
// removes nothing.
func TestDeleteAlignedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for trial := range 300 {
		n := 1 + rng.IntN(60)
		vecs := make([][]float64, 1+rng.IntN(3))
		for k := range vecs {
			vecs[k] = make([]float64, n)
			for i := range n {
				vecs[k][i] = float64(k*1000 + i)
			}
		}
		rows := rng.Perm(n)[:rng.IntN(n+1)]
		gone := map[int]bool{}
		for _, r := range rows {
			gone[r] = true
		}
		want := make([][]float64, len(vecs))
		for k, a := range vecs {
			for i, v := range a {
				if !gone[i] {
					want[k] = append(want[k], v)
				}
			}
		}
		removed, err := DeleteAlignedRows(vecs, slices.Clone(rows))
		if err != nil || removed != (len(rows) > 0) {
			t.Fatalf("trial %d: removed %v, err %v for %d rows", trial, removed, err, len(rows))
		}
		for k := range vecs {
			if len(want[k]) == 0 && len(vecs[k]) == 0 {
				continue
			}
			if !slices.Equal(vecs[k], want[k]) {
				t.Fatalf("trial %d (n %d, rows %v): vector %d is %v, want %v", trial, n, rows, k, vecs[k], want[k])
			}
		}
	}
	vecs := [][]float64{{1, 2, 3}, {4, 5, 6}}
	for _, rows := range [][]int{{3}, {1, 1}, {-1}} {
		if _, err := DeleteAlignedRows(vecs, rows); !errors.Is(err, data.ErrRowPosition) {
			t.Errorf("rows %v: err %v, want ErrRowPosition", rows, err)
		}
	}
	if !slices.Equal(vecs[0], []float64{1, 2, 3}) || !slices.Equal(vecs[1], []float64{4, 5, 6}) {
		t.Errorf("a refused deletion changed the vectors: %v", vecs)
	}
}

// BenchmarkDeleteAlignedRows: a daemon window's deletion, the oldest 1%
// of the rows of a 21-pair dual.
func BenchmarkDeleteAlignedRows(b *testing.B) {
	for _, n := range []int{10_000, 160_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			vecs := make([][]float64, 21)
			for k := range vecs {
				vecs[k] = make([]float64, n)
			}
			rows := make([]int, n/100)
			for i := range rows {
				rows[i] = i
			}
			b.SetBytes(int64(21 * n * 8))
			b.ReportAllocs()
			for range b.N {
				for k := range vecs {
					vecs[k] = vecs[k][:n]
				}
				if _, err := DeleteAlignedRows(vecs, rows); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
