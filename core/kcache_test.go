package core

import (
	"math/rand/v2"
	"testing"
)

// checkCache verifies the cache's invariants: blocks in arena order,
// inside the arena and not overlapping; the same cached slots in both
// lists; the free count matching; no more bytes live than the budget
// allows. It returns the live entries.
func checkCache(t *testing.T, c *kernelCache, budget int64) int {
	t.Helper()
	L := c.sentinel()
	live, count := 0, 0
	prevEnd := 0
	for s := c.adrNext[L]; s != L; s = c.adrNext[s] {
		if c.n[s] <= 0 {
			t.Fatalf("slot %d in the arena list with length %d", s, c.n[s])
		}
		if c.off[s] < prevEnd || c.end(s) > len(c.arena) {
			t.Fatalf("slot %d block [%d,%d) overlaps or leaves the arena (previous end %d, arena %d)",
				s, c.off[s], c.end(s), prevEnd, len(c.arena))
		}
		if c.adrPrev[c.adrNext[s]] != s {
			t.Fatalf("arena list broken at slot %d", s)
		}
		prevEnd = c.end(s)
		live += int(c.n[s])
		count++
	}
	// The gapless run firstFit starts after.
	end := 0
	for s := c.adrNext[L]; c.packed != L; s = c.adrNext[s] {
		if s == L {
			t.Fatalf("packed slot %d not in the arena list", c.packed)
		}
		if c.off[s] != end {
			t.Fatalf("gap before slot %d at %d, before packed slot %d", s, end, c.packed)
		}
		end = c.end(s)
		if s == c.packed {
			break
		}
	}
	lru := 0
	for s := c.lruNext[L]; s != L; s = c.lruNext[s] {
		if c.n[s] <= 0 || c.lruPrev[c.lruNext[s]] != s {
			t.Fatalf("LRU list broken at slot %d", s)
		}
		lru++
	}
	cached := 0
	for s := range L {
		if c.n[s] > 0 {
			cached++
		}
	}
	if lru != count || cached != count {
		t.Fatalf("%d slots in the arena list, %d in the LRU list, %d cached", count, lru, cached)
	}
	if live != len(c.arena)-c.free {
		t.Fatalf("live entries %d, arena %d, free %d", live, len(c.arena), c.free)
	}
	if b := 4*int64(live) + kernelCacheBookBytes(len(c.slotOf)); b > kernelCacheBytes(len(c.slotOf), budget) {
		t.Fatalf("%d bytes live, more than %d", b, kernelCacheBytes(len(c.slotOf), budget))
	}
	return live
}

func TestKernelCacheBytes(t *testing.T) {
	for _, c := range []struct {
		l      int
		budget int64
	}{{100, 100 << 20}, {1000, 1 << 20}, {5000, 1 << 20}, {10, 0}, {0, 0}, {2000, 100 << 20}} {
		got := kernelCacheBytes(c.l, c.budget)
		floor := 4*int64(cacheMinColumns*c.l) + kernelCacheBookBytes(c.l)
		ceiling := 4*int64(c.l)*int64(c.l) + kernelCacheBookBytes(c.l) // every column cached
		if want := max(min(c.budget, ceiling), floor); got > want || (c.budget >= floor && got < min(c.budget, ceiling)-3) {
			t.Errorf("kernelCacheBytes(%d, %d) = %d, want %d", c.l, c.budget, got, want)
		}
		cc := newKernelCache(c.l, c.budget)
		if n := 4*int64(len(cc.arena)) + kernelCacheBookBytes(c.l); n != got {
			t.Errorf("l=%d: arena and bookkeeping %d bytes, size query %d", c.l, n, got)
		}
	}
}

func TestKernelCacheLRU(t *testing.T) {
	const l = 10
	c := newKernelCache(l, 0) // three columns of 10
	fill := func(i, length int) []float32 {
		d, have := c.get(i, length)
		for k := have; k < length; k++ {
			d[k] = float32(100*i + k)
		}
		return d
	}
	wantHave := func(i, length, want int) {
		t.Helper()
		d, have := c.get(i, length)
		if have != want {
			t.Fatalf("get(%d, %d): have %d, want %d", i, length, have, want)
		}
		for k := range have {
			if d[k] != float32(100*i+k) {
				t.Fatalf("get(%d): entry %d = %v", i, k, d[k])
			}
		}
		for k := have; k < length; k++ {
			d[k] = float32(100*i + k)
		}
	}
	fill(0, l)
	fill(1, l)
	fill(2, l)
	wantHave(0, l, l) // order now 1, 2, 0
	fill(3, l)        // evicts 1
	wantHave(2, l, l)
	wantHave(1, l, 0) // evicts 0 (order was 0, 3, 2)
	wantHave(3, l, l)
	wantHave(0, l, 0)
	checkCache(t, c, 0)

	// Extension: a short prefix survives and is extended.
	c.reset(l)
	fill(4, 3)
	wantHave(4, 3, 3)
	wantHave(4, 8, 3)
	wantHave(4, l, 8)
	wantHave(4, 5, 5) // a shorter request is a hit
	checkCache(t, c, 0)
}

// TestKernelCacheAgainstMatrix runs random get, fill and swap sequences
// against a full matrix permuted alongside: every cached entry must be the
// matrix entry of the current ordering, the column of the previous get must
// survive the next one, and the budget must hold throughout.
func TestKernelCacheAgainstMatrix(t *testing.T) {
	const l = 60
	value := func(a, b int32) float32 { return float32(a)*1000 + float32(b) }
	for _, budget := range []int64{0, kernelCacheBookBytes(l) + 4*7*l, 1 << 20} {
		r := rand.New(rand.NewPCG(3, uint64(budget)))
		c := newKernelCache(l, budget)
		perm := make([]int32, l)
		for v := range perm {
			perm[v] = int32(v)
		}
		var prev []float32
		prevCol := -1
		hits, gets := 0, 0
		for op := range 4000 {
			if r.IntN(10) == 0 {
				i, j := r.IntN(l), r.IntN(l)
				c.swapIndex(i, j)
				perm[i], perm[j] = perm[j], perm[i]
				prev = nil
				continue
			}
			// lengths cluster like a shrinking solver's active sizes
			length := l
			if r.IntN(2) == 0 {
				length = 1 + r.IntN(l)
			}
			i := r.IntN(l)
			if r.IntN(3) == 0 {
				i = r.IntN(8) // a hot set, so some gets hit
			}
			d, have := c.get(i, length)
			gets++
			if have == length {
				hits++
			}
			if len(d) != length || have > length {
				t.Fatalf("op %d: get(%d, %d) returned %d entries, have %d", op, i, length, len(d), have)
			}
			for k := range have {
				if d[k] != value(perm[i], perm[k]) {
					t.Fatalf("op %d budget %d: column %d entry %d = %v, want %v", op, budget, i, k, d[k], value(perm[i], perm[k]))
				}
			}
			for k := have; k < length; k++ {
				d[k] = value(perm[i], perm[k])
			}
			if prev != nil && prevCol != i {
				for k := range prev {
					if prev[k] != value(perm[prevCol], perm[k]) {
						t.Fatalf("op %d: the previous column %d lost entry %d", op, prevCol, k)
					}
				}
			}
			prev, prevCol = d, i
			checkCache(t, c, budget)
		}
		if hits == 0 || hits == gets {
			t.Errorf("budget %d: %d hits in %d gets: the test does not exercise the cache", budget, hits, gets)
		}
	}
}

func TestKernelCacheNoAllocs(t *testing.T) {
	const l = 200
	c := newKernelCache(l, kernelCacheBookBytes(l)+4*10*l)
	i := 0
	a := testing.AllocsPerRun(500, func() {
		d, have := c.get(i%l, l-i%7)
		for k := have; k < len(d); k++ {
			d[k] = 1
		}
		if i%13 == 0 {
			c.swapIndex(i%l, (i*7)%l)
		}
		i++
	})
	if a != 0 {
		t.Errorf("get allocates %v times a call", a)
	}
}

// Swaps wait for the next get; more of them than the cache has columns (its
// room for pending swaps) are made along the way, and the columns still
// hold the matrix of the current ordering.
func TestKernelCacheManySwapsBetweenGets(t *testing.T) {
	const l = 40
	value := func(a, b int32) float32 { return float32(a)*1000 + float32(b) }
	c := newKernelCache(l, 1<<20)
	perm := make([]int32, l)
	for v := range perm {
		perm[v] = int32(v)
	}
	fill := func(i, length int) {
		d, have := c.get(i, length)
		for k := have; k < length; k++ {
			d[k] = value(perm[i], perm[k])
		}
	}
	for i := range l {
		fill(i, l-i%3) // some columns short of l: swaps into their tail evict them
	}
	r := rand.New(rand.NewPCG(9, 9))
	for range 3 * l {
		i, j := r.IntN(l), r.IntN(l)
		c.swapIndex(i, j)
		perm[i], perm[j] = perm[j], perm[i]
	}
	if len(c.pending) == 0 || len(c.pending) > l {
		t.Fatalf("%d swaps pending after %d swaps, room for %d", len(c.pending), 3*l, l)
	}
	kept := 0
	for i := range l {
		d, have := c.get(i, l)
		if have > 0 {
			kept++
		}
		for k := range have {
			if d[k] != value(perm[i], perm[k]) {
				t.Fatalf("column %d entry %d = %v, want %v", i, k, d[k], value(perm[i], perm[k]))
			}
		}
		for k := have; k < l; k++ {
			d[k] = value(perm[i], perm[k])
		}
	}
	if kept == 0 {
		t.Errorf("every column was dropped: the test checks nothing")
	}
	checkCache(t, c, 1<<20)
}

// TestKernelCachePendingView reads cached columns through the pending
// swaps (stored, pendingPermutation) and then makes the swaps
// (applySwaps): both must give the matrix of the new ordering, the view
// must report split exactly the columns the swaps drop (those at least as
// long as a swap's lower position and shorter than its upper one), and
// the others must survive.
func TestKernelCachePendingView(t *testing.T) {
	const l = 300
	value := func(a, b int32) float32 { return float32(a)*1000 + float32(b) }
	r := rand.New(rand.NewPCG(21, 21))
	kepts, dropped := 0, 0
	for round := range 20 {
		c := newKernelCache(l, 1<<22)
		perm := make([]int32, l)
		for v := range perm {
			perm[v] = int32(v)
		}
		for i := range l {
			length := l
			if r.IntN(3) == 0 {
				length = 1 + r.IntN(l)
			}
			d, _ := c.get(i, length)
			for k := range d {
				d[k] = value(perm[i], perm[k])
			}
		}
		swaps := 1 + r.IntN(l-1) // fewer than the room for pending swaps
		near := round%2 == 0     // or a few near the top of the ordering
		if near {
			swaps = 1 + r.IntN(20)
		}
		for range swaps {
			i, j := r.IntN(l), r.IntN(l)
			if near {
				i, j = l-1-r.IntN(40), l-1-r.IntN(40)
			}
			c.swapIndex(i, j)
			perm[i], perm[j] = perm[j], perm[i]
		}
		src, cut := c.pendingPermutation()
		view := make([][]float32, l)
		for i := range l {
			col := c.stored(i)
			if len(col) == 0 || cut[len(col)] > 0 {
				continue
			}
			view[i] = make([]float32, len(col))
			for k := range col {
				view[i][k] = col[src[k]]
			}
		}
		c.applySwaps()
		for i := range l {
			got := c.stored(i)
			if len(got) != len(view[i]) {
				t.Fatalf("round %d: column %d holds %d entries after the swaps, %d through the view", round, i, len(got), len(view[i]))
			}
			if len(got) > 0 {
				kepts++
			} else {
				dropped++
			}
			for k := range got {
				if want := value(perm[i], perm[k]); got[k] != want || view[i][k] != want {
					t.Fatalf("round %d: column %d entry %d = %v after the swaps, %v through the view, want %v", round, i, k, got[k], view[i][k], want)
				}
			}
		}
		checkCache(t, c, 1<<22)
	}
	if kepts == 0 || dropped == 0 {
		t.Errorf("%d columns kept, %d dropped: the test does not exercise both", kepts, dropped)
	}
}
