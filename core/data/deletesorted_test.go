package data

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDeleteSorted checks DeleteSorted against a filter that keeps the
// entries at positions not in del, on random position sets (empty,
// first, last, neighbours and runs included).
func TestDeleteSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 500 {
		n := r.IntN(40)
		s := make([]int, n)
		for i := range s {
			s[i] = 100 + i
		}
		var del []int
		for i := range n {
			if r.IntN(3) == 0 {
				del = append(del, i)
			}
		}
		var want []int
		for i, v := range s {
			if !slices.Contains(del, i) {
				want = append(want, v)
			}
		}
		if got := DeleteSorted(s, del); !slices.Equal(got, want) {
			t.Fatalf("trial %d: deleting %v of %d gave %v, want %v", trial, del, n, got, want)
		}
	}
}
