package core

// The kernel cache: Q columns kept as float32 in one arena allocated once,
// least recently used out (Chang & Lin, "LIBSVM: A Library for Support
// Vector Machines", ACM TIST 2011, Section 4.1.5 and its cache; the
// shrinking solver asks for columns of the active length only, and for
// longer ones again after unshrinking, so a column's cached prefix can be
// extended).
//
// LIBSVM mallocs each column and counts only the column bytes against its
// budget. Here the budget is one []float32, allocated once and carved into
// blocks by a small allocator: a new or extended column takes the lowest
// free run that fits (first fit in address order), else evicts least
// recently used columns until the hole one leaves (merged with its free
// neighbours) is large enough. Columns never move, so a column handed out
// stays valid while the solver uses it.
//
// Memory by need: the arena is never longer than the l² entries all l
// columns take, so a budget is a ceiling, not a target; and since the
// lowest fitting run is taken, the arena's pages are touched (become
// resident) only as far as the live columns ever reached, as LIBSVM's
// malloc'd columns are.
//
// The solver holds two columns at once (Q_i and Q_j): the column returned
// by the previous get is pinned through the next get. That is why the
// arena holds at least three full columns, where LIBSVM's minimum is two:
// with the pinned column (≤ l entries) anywhere in an arena of 3l, the
// free space on one side of it is at least l, so every request can be met
// without moving the pinned column.

// kernelCache is the cache of the l columns of an l×l matrix. Columns are
// identified by their position in the solver's current ordering; swapIndex
// follows the solver's swaps. It is used by one goroutine at a time.
type kernelCache struct {
	arena []float32
	free  int // arena entries held by no column

	slotOf []int32 // column → slot; slots carry the data, so swaps are O(1) bookkeeping

	// Per slot, with slot l the sentinel (head and tail) of both lists:
	off     []int   // start of the slot's block in arena
	n       []int32 // entries cached, 0 when not cached
	lruPrev []int32 // cached slots, least recently used first
	lruNext []int32
	adrPrev []int32 // cached slots in arena order
	adrNext []int32

	pin int32 // the slot the previous get returned; -1 when none
	// pending holds the swaps (i < j) whose exchanges of entries inside
	// the cached columns are not made yet (swapIndex, applySwaps).
	pending []swapPair
	// src and cut are pendingPermutation's: where each entry comes from,
	// which column lengths a swap splits.
	src []int32
	cut []int32
	// packed is a cached slot (or the sentinel) such that the blocks up
	// to it in arena order fill the arena from 0 without a gap: firstFit
	// starts there. Without it, a cache that never evicts (every column
	// fits) walked every cached column for each new one, quadratic in l
	// (a tenth of a small ε-SVR's training).
	packed int32
}

// swapPair is a swap of positions i < j.
type swapPair struct{ i, j int32 }

// cacheMinColumns is the number of full columns the arena can always hold;
// see the file comment.
const cacheMinColumns = 3

// kernelCacheBookBytes is the bookkeeping a cache of l columns needs:
// slotOf, off, n, the four links, the pending swaps and
// pendingPermutation's src and cut.
func kernelCacheBookBytes(l int) int64 {
	return 4*int64(l) + int64(l+1)*(8+4+4*4) + 8*int64(l) + 4*int64(l) + 4*int64(l+1)
}

// kernelCacheEntries is the arena length, in float32 entries, of a cache
// of l columns with the given byte budget: what the budget leaves after the
// bookkeeping, at most the l² entries of every column, at least three
// columns.
func kernelCacheEntries(l int, budget int64) int64 {
	e := (budget - kernelCacheBookBytes(l)) / 4
	e = min(e, int64(l)*int64(l))
	return max(e, cacheMinColumns*int64(l))
}

// kernelCacheBytes returns the bytes newKernelCache(l, budget) allocates:
// the arena plus the bookkeeping (about 32 bytes a column). It is at most
// budget unless budget is below the bookkeeping plus three full columns of
// l float32 entries, the least the cache works with; and at most l² float32
// entries plus the bookkeeping, what the cache can use.
func kernelCacheBytes(l int, budget int64) int64 {
	return 4*kernelCacheEntries(l, budget) + kernelCacheBookBytes(l)
}

// newKernelCache returns an empty cache for l columns of up to l entries
// that holds at most kernelCacheBytes(l, budget) bytes, all allocated
// here. It panics if l is negative.
func newKernelCache(l int, budget int64) *kernelCache {
	if l < 0 {
		panic("core: newKernelCache: negative size")
	}
	return newKernelCacheIn(l, make([]float32, kernelCacheEntries(l, budget)))
}

// newKernelCacheIn is newKernelCache over a caller's arena (at least three
// columns of l entries), which it does not clear: a trainer lays two
// workers' arenas out back to back, so that one subproblem alone can have
// both (KernelTrainer.shareArena).
func newKernelCacheIn(l int, arena []float32) *kernelCache {
	c := &kernelCache{
		arena:   arena,
		slotOf:  make([]int32, l),
		off:     make([]int, l+1),
		n:       make([]int32, l+1),
		lruPrev: make([]int32, l+1),
		lruNext: make([]int32, l+1),
		adrPrev: make([]int32, l+1),
		adrNext: make([]int32, l+1),
		pending: make([]swapPair, 0, l),
		src:     make([]int32, l),
		cut:     make([]int32, l+1),
	}
	c.reset(l)
	return c
}

// reset empties the cache and makes it a cache of l columns, so one arena
// serves the subproblems of a one-vs-one training in turn. It panics if l
// exceeds the size the cache was built for or the arena cannot hold three
// columns of l entries.
func (c *kernelCache) reset(l int) {
	if l < 0 || l > cap(c.slotOf) || len(c.arena) < cacheMinColumns*l {
		panic("core: kernelCache.reset: larger than the cache was built for")
	}
	c.slotOf = c.slotOf[:l]
	for i := range c.slotOf {
		c.slotOf[i] = int32(i)
	}
	c.off, c.n = c.off[:l+1], c.n[:l+1]
	c.lruPrev, c.lruNext = c.lruPrev[:l+1], c.lruNext[:l+1]
	c.adrPrev, c.adrNext = c.adrPrev[:l+1], c.adrNext[:l+1]
	clear(c.n)
	clear(c.off)
	s := int32(l)
	c.lruPrev[s], c.lruNext[s] = s, s
	c.adrPrev[s], c.adrNext[s] = s, s
	c.free = len(c.arena)
	c.pin = -1
	c.packed = s
	c.pending = c.pending[:0]
}

// sentinel returns the head/tail slot of both lists.
func (c *kernelCache) sentinel() int32 { return int32(len(c.slotOf)) }

// get returns the storage of column i with room for length entries, and
// how many leading entries already hold the column's values; the caller
// fills data[have:length]. Column i becomes the most recently used. The
// slice stays valid until the second get after this one or the next
// swapIndex or reset (the solver may hold the columns of two successive
// gets at once). get may evict least recently used columns; it allocates
// nothing. It panics if length is negative or above l.
func (c *kernelCache) get(i, length int) (data []float32, have int) {
	if length < 0 || length > len(c.slotOf) {
		panic("core: kernelCache.get: length out of range")
	}
	c.applySwaps()
	s := c.slotOf[i]
	cached := int(c.n[s])
	if cached > 0 {
		c.lruUnlink(s)
	}
	switch {
	case length == 0:
	case cached >= length:
		have = length
	case cached > 0 && c.gapAfter(s) >= length:
		// the block can grow in place
		c.free -= length - cached
		c.n[s] = int32(length)
		have = cached
	default:
		have = c.place(s, cached, length)
	}
	if c.n[s] > 0 {
		c.lruPushBack(s)
	}
	c.pin = s
	o := c.off[s]
	return c.arena[o : o+length : o+length], have
}

// place gives slot s a new block of length entries, moving its cached
// prefix of cached entries there, and returns how many entries survived:
// cached, or 0 when the prefix had to be dropped to make room.
func (c *kernelCache) place(s int32, cached, length int) int {
	if cached > 0 {
		if o, after, ok := c.alloc(length); ok && after == s {
			// evictions freed the run after s's own block: grow in place
			c.free -= length - cached
			c.n[s] = int32(length)
			return cached
		} else if ok {
			copy(c.arena[o:o+cached], c.arena[c.off[s]:c.off[s]+cached])
			c.adrUnlink(s)
			c.free += cached
			c.link(s, o, after, length)
			return cached
		}
		// Only s and the pinned column are left and no hole fits both
		// blocks; without s's old block, one does.
		c.adrUnlink(s)
		c.free += cached
		c.n[s] = 0
	}
	o, after, ok := c.alloc(length)
	if !ok {
		panic("core: kernelCache: no room for a column (bookkeeping broken)")
	}
	c.link(s, o, after, length)
	return 0
}

// link records slot s's block of length entries at o, after slot after in
// arena order.
func (c *kernelCache) link(s int32, o int, after int32, length int) {
	c.off[s], c.n[s] = o, int32(length)
	c.free -= length
	nx := c.adrNext[after]
	c.adrPrev[s], c.adrNext[s] = after, nx
	c.adrNext[after], c.adrPrev[nx] = s, s
}

// alloc finds a free run of need entries and returns its start and the
// slot that precedes it in arena order (the sentinel for none), evicting
// least recently used columns as needed; the pinned column and columns
// not in the LRU list are never evicted. ok is false when no run can be
// found without them.
func (c *kernelCache) alloc(need int) (o int, after int32, ok bool) {
	L := c.sentinel()
	if c.free >= need {
		// Lowest address first keeps the touched part of the arena as
		// small as the live columns allow. The walk is over the cached
		// columns, cheap next to the kernel column a miss computes.
		if o, after, ok := c.firstFit(need); ok {
			return o, after, true
		}
	}
	for {
		v := c.lruNext[L]
		if v == L || v == c.pin {
			break
		}
		p, nx := c.adrPrev[v], c.adrNext[v]
		c.evict(v)
		if c.start(nx)-c.end(p) >= need {
			return c.end(p), p, true
		}
	}
	return c.firstFit(need)
}

// firstFit returns the first free run of need entries in arena order.
func (c *kernelCache) firstFit(need int) (int, int32, bool) {
	L := c.sentinel()
	// No free entry lies before the end of c.packed; move it over the
	// blocks that follow it without a gap.
	p := c.packed
	for s := c.adrNext[p]; s != L && c.off[s] == c.end(p); s = c.adrNext[s] {
		p = s
	}
	c.packed = p
	for {
		s := c.adrNext[p]
		if c.start(s)-c.end(p) >= need {
			return c.end(p), p, true
		}
		if s == L {
			return 0, 0, false
		}
		p = s
	}
}

// gapAfter returns how many entries slot s's block can grow to without
// overlapping the next block.
func (c *kernelCache) gapAfter(s int32) int { return c.start(c.adrNext[s]) - c.off[s] }

// start returns where slot s's block starts; the sentinel marks the end of
// the arena.
func (c *kernelCache) start(s int32) int {
	if s == c.sentinel() {
		return len(c.arena)
	}
	return c.off[s]
}

// end returns where slot s's block ends; the sentinel marks the start of
// the arena.
func (c *kernelCache) end(s int32) int {
	if s == c.sentinel() {
		return 0
	}
	return c.off[s] + int(c.n[s])
}

// evict drops cached slot v.
func (c *kernelCache) evict(v int32) {
	c.lruUnlink(v)
	c.adrUnlink(v)
	c.free += int(c.n[v])
	c.n[v] = 0
}

func (c *kernelCache) lruUnlink(s int32) {
	p, nx := c.lruPrev[s], c.lruNext[s]
	c.lruNext[p], c.lruPrev[nx] = nx, p
}

func (c *kernelCache) lruPushBack(s int32) {
	L := c.sentinel()
	p := c.lruPrev[L]
	c.lruPrev[s], c.lruNext[s] = p, L
	c.lruNext[p], c.lruPrev[L] = s, s
}

func (c *kernelCache) adrUnlink(s int32) {
	p, nx := c.adrPrev[s], c.adrNext[s]
	if k := c.packed; k != c.sentinel() && c.off[s] <= c.off[k] {
		c.packed = p // a hole opens at s: the gapless run ends before it
	}
	c.adrNext[p], c.adrPrev[nx] = nx, p
}

// swapIndex follows the solver's swap of variables i and j: columns i and j
// trade places, and so do entries i and j inside every cached column. A
// column that holds entry min(i, j) but not max(i, j) cannot be kept
// consistent and is dropped, as LIBSVM's cache does.
//
// The exchanges inside the columns wait for the next get (applySwaps):
// LIBSVM walks every cached column at each swap, and a shrinking round
// or the restoring of the caller's order after a solve (thousands of
// swaps, hundreds of columns) cost a fifth of a warm retrain on shuttle.
// Made a column at a time they touch one column's memory, and the swaps
// before a reset (the next subproblem's) are never made.
func (c *kernelCache) swapIndex(i, j int) {
	if i == j {
		return
	}
	c.slotOf[i], c.slotOf[j] = c.slotOf[j], c.slotOf[i]
	if i > j {
		i, j = j, i
	}
	if len(c.pending) == cap(c.pending) {
		c.applySwaps()
	}
	c.pending = append(c.pending, swapPair{int32(i), int32(j)})
	c.pin = -1
}

// applySwaps makes the pending swaps' exchanges (swapIndex) in every
// cached column, in order, one column at a time: the same columns and
// evictions as made at each swap, since a column's fate depends only on
// its length and the swaps.
func (c *kernelCache) applySwaps() {
	if len(c.pending) == 0 {
		return
	}
	L := c.sentinel()
	for s := c.lruNext[L]; s != L; {
		nx := c.lruNext[s]
		n := int32(c.n[s])
		o := c.off[s]
		col := c.arena[o : o+int(n)]
		for _, p := range c.pending {
			if n > p.i {
				if n <= p.j {
					c.evict(s)
					break
				}
				col[p.i], col[p.j] = col[p.j], col[p.i]
			}
		}
		s = nx
	}
	c.pending = c.pending[:0]
}

// pendingPermutation returns what the pending swaps (swapIndex) do to the
// cached columns, for a caller that reads a few of them (stored) without
// making the swaps in all (applySwaps: a pass over the swaps per column;
// after a solve has restored the caller's order, reading its support
// vectors' columns that way was a sixth of a warm retrain on a
// Fashion-MNIST pair). Entry t of a column after the swaps is entry
// src[t] of what it stores; a column of n stored entries with cut[n] > 0
// is dropped by them: some swap (i, j) has i < n ≤ j and moves entries
// across its end. Other columns' first n entries map onto themselves.
// Both slices are valid until the next call; neither allocates.
func (c *kernelCache) pendingPermutation() (src, cut []int32) {
	l := len(c.slotOf)
	src, cut = c.src[:l], c.cut[:l+1]
	for t := range src {
		src[t] = int32(t)
	}
	clear(cut)
	for _, p := range c.pending {
		src[p.i], src[p.j] = src[p.j], src[p.i]
		cut[p.i+1]++ // lengths i+1..j: +1 from i+1, −1 from j+1 (≤ l)
		cut[p.j+1]--
	}
	for n := 1; n <= l; n++ {
		cut[n] += cut[n-1]
	}
	return src, cut
}

// stored returns the entries column i stores, in the order before the
// pending swaps (pendingPermutation), without making it the most recently
// used; empty when it holds none. The slice is valid until the next get,
// swapIndex or reset.
func (c *kernelCache) stored(i int) []float32 {
	s := c.slotOf[i]
	o, n := c.off[s], int(c.n[s])
	return c.arena[o : o+n : o+n]
}
