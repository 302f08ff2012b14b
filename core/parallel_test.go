package core

import (
	"sync/atomic"
	"testing"
)

// TestParallelChunks: every row is visited exactly once, in chunks that
// tile [0, n), for sizes around the chunk and worker counts.
func TestParallelChunks(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 1000} {
		for _, workers := range []int{0, 1, 3} {
			seen := make([]atomic.Int32, n)
			var calls atomic.Int32
			ParallelChunks(n, 64, workers, func(from, to int) {
				calls.Add(1)
				if from%64 != 0 || to-from > 64 || to <= from {
					t.Errorf("n=%d: chunk [%d, %d)", n, from, to)
				}
				for i := from; i < to; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n=%d workers=%d: row %d visited %d times", n, workers, i, c)
				}
			}
			if want := int32((n + 63) / 64); calls.Load() != want {
				t.Errorf("n=%d workers=%d: %d calls, want %d", n, workers, calls.Load(), want)
			}
		}
	}
}
