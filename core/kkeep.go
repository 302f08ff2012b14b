package core

// Kernel columns kept from one warm Train to the next.
//
// A warm retrain after a small batch changes the α of a pair's support
// vectors a little and takes a few dozen iterations; each changed α and
// each working-set variable needs its column of Q over the pair's rows,
// and the solver's cache starts empty every Train. Those columns are
// almost all the warm run's kernel work (on digits, 0.15 of a cold run's
// after 1% of the rows were replaced), and the next retrain needs the
// same ones again. So a KernelTrainer with KernelParams.KeepMB > 0 keeps,
// after each warm Train, a kernel column K(x_j, ·) over all rows for every
// support vector j it can fit in that budget, and the next Train's
// matrices read their columns' entries for the rows both runs share from
// there (svcQ.getQ). The values are the kernels' own, bit for bit, so a
// run reads the same Q with or without them.
//
// The columns are filled as the runs compute entries, not ahead: an entry
// no run has computed yet holds keptUnset, and the matrix that computes
// it writes it back (keptColumns.fill, keep). Computing every support
// vector's whole column at the end of a run cost more than the run
// itself the first time (Fashion-MNIST pair, 3,000 support vectors of
// 4,950 rows: 15 M kernel evaluations against 9 M for a cold solve),
// though most entries (the rows of other pairs, the bounded variables'
// columns) are never read. Pairs solved in parallel share the columns of
// their common class's rows and may compute the same entry at once; they
// write the same bits, through atomic loads and stores.
//
// Rows are matched between runs by their hashes (RowHash): the rows a
// run keeps from the last are those of the last run less the removed
// ones, in the same order, then the appended ones. Each row has a slot,
// its entry's position in every column, which it keeps while it stays; a
// row added takes the slot of one removed at the start of the run (its
// entries marked unset), so the columns never move and the run keeps the
// entries it computes for the new rows. Moving every column's entries to
// the new rows' order (a memmove of the whole budget per retrain) took an
// eighth of a warm retrain's time on digits. ε-SVR's matrix reads them by
// sample (svrQ.fill).
//
// The solves' caches hold more: the columns of support vectors that have
// no kept column yet (new rows, or rows that became support vectors), and
// at a cold Train every column. After each subproblem's solve its support
// vectors' cached columns are copied into columns made for them (capture)
// while the budget allows, which the end of the run keeps: no kernel
// evaluation, where the next run computed them again. A trainer's first
// cold Train (with the dual wanted) so fills its columns before the
// first warm one (startSeed).

import (
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core/simd"
)

// keptUnset marks an entry of a kept column that no run has computed (a
// NaN no kernel computes: an entry that happens to have these bits is
// computed again each time, which costs work, not correctness).
const keptUnset uint32 = 0x7fc0_1a2b

// keptBits returns the bits of a kept entry as an atomic word: pairs
// solved in parallel read and write the same entries (keptColumns.fill).
func keptBits(v *float32) *uint32 { return (*uint32)(unsafe.Pointer(v)) }

// keptColumns holds the kernel columns of the last Train's support
// vectors and, during a Train, where the current rows are in them.
type keptColumns struct {
	// budget is KeepMB in bytes.
	budget int64
	// hash holds RowHash of the rows of the run the columns were made
	// in, slot their slots, of their columns (nil for none): each column
	// holds slots entries.
	hash  []uint64
	slot  []int32
	of    [][]float32
	slots int
	// prev maps each row of the current Train's data set to its row in
	// the last run, −1 for a row the last run lacks; oldOf maps it to
	// its slot (begin gives added rows one); cur maps it to its kept
	// column, nil for none. They are read only while the pairs are
	// solved.
	prev, oldOf []int32
	cur         [][]float32
	// made maps each row of the current Train to the column capture made
	// for it in this Train (rows without a kept column), nil for none;
	// written under mu only, never read by the solves.
	made [][]float32
	// madeOwn holds, for each row with a column in made, the rows of its
	// own class whose entries a capture has already copied whole into
	// it, as (first row+1)<<32 | count (0: none): the next pair of that
	// class copies only the other class's entries, which are all that
	// differ (capture). Reset when madeFor makes the column.
	madeOwn []uint64
	// left holds the columns of the last run's rows this Train's data set
	// lacks (removed since), by the rows' hashes: the removed support
	// vectors' terms are taken out of the stored gradient with their
	// values (KernelGradient.removedColumns). Read only between begin and
	// end.
	left []leftColumn
	// bytes is what the columns take; cols counts them during a Train,
	// at most maxCols (the budget over slots).
	bytes         int64
	cols, maxCols int64
	// capturing is set while a Train's solves copy their caches into
	// columns (capture): from begin or startSeed to end; mu orders the
	// pairs' captures.
	capturing bool
	// wide says this Train's rows are wide enough (KernelRowWidth at
	// least acrossMinWidth) that a kernel value costs more than making and
	// reading a kept one: rows added get a column of their own (begin),
	// and a column without a kept one is read from the other rows' kept
	// columns (svcQ.across). Set by begin.
	wide bool
	mu   sync.Mutex
	// used and fresh are begin's scratch: the slots taken, the slots
	// given to rows added.
	used  []bool
	fresh []int32
	// spare holds columns no row has (dropped by end, or made and not
	// kept), for madeFor, begin and end to take before they allocate;
	// counted in bytes and in the budget (cols plus them at most
	// maxCols). Without them every retrain allocated (and zeroed) a
	// column per support vector captured, which end then let go: on
	// digits -M 20 capture and madeFor's mallocgc were ~7% of a warm
	// retrain's instructions.
	spare [][]float32
	// slotNext and ofNext are end's next slot and of, the memory of the
	// ones before the last (end swaps them): no per-row allocation a
	// retrain.
	slotNext []int32
	ofNext   [][]float32
	// keptWrites makes the kernel evaluation counts exact when pairs run
	// at once (kkeepwrites.go).
	keptWrites
}

// leftColumn is the kept column of a row removed since the last run.
type leftColumn struct {
	hash uint64
	col  []float32
	slot int32 // the removed row's slot in the last run
}

// keptColumnsBytes returns the bytes keptColumns may take for a trainer
// of capRows rows with a budget of budget bytes: the columns, at most
// budget, and the per-row maps (twice the slots at most).
func keptColumnsBytes(capRows int, budget int64) int64 {
	if budget <= 0 {
		return 0
	}
	return budget + int64(capRows)*(8+4+24+4+4+24+24+2*1+2*4) // columns; hash, slot, of, prev, oldOf, cur, made, used, fresh
}

// newColumn returns a column of n unset entries, in free's last column
// when there is one long enough (which it takes off free).
func newColumn(n int, free *[][]float32) []float32 {
	var col []float32
	if free != nil && len(*free) > 0 {
		k := len(*free) - 1
		col, *free = (*free)[k], (*free)[:k]
	}
	if cap(col) < n {
		col = make([]float32, n, n+n/8)
	}
	col = col[:n]
	unsetAll(col)
	return col
}

// unsetAll sets every entry of col to keptUnset: the first one, then
// copies of what is set doubling in length (memmove's wide stores, where
// a loop stored an entry at a time: a shuttle column is 43,065 entries).
func unsetAll(col []float32) {
	if len(col) == 0 {
		return
	}
	col[0] = math.Float32frombits(keptUnset)
	for k := 1; k < len(col); k *= 2 {
		copy(col[k:], col[:k])
	}
}

// takeSpare returns a column of n unset entries from the spare ones, or
// a new one when there are none.
func (c *keptColumns) takeSpare(n int) []float32 {
	return newColumn(n, &c.spare)
}

// trimSpare lets the spare columns go past the first keep ones.
func (c *keptColumns) trimSpare(keep int64) {
	keep = max(keep, 0)
	if int64(len(c.spare)) > keep {
		clear(c.spare[keep:])
		c.spare = c.spare[:keep]
	}
}

// seed starts the kept columns of a trainer that has none, as if the last
// run had been on the rows whose hashes are rowHash, one slot a row, with
// an unset column for each row sv reports (a support vector of the warm
// start), as many as fit in the budget: the first warm run then fills
// them as it computes them, where it otherwise kept nothing for the
// second.
func (c *keptColumns) seed(rowHash []uint64, sv func(i int) bool) {
	n := len(rowHash)
	maxCols := c.budget / (4 * int64(max(n, 1)))
	c.hash = append(c.hash[:0], rowHash...)
	c.slot = make([]int32, n)
	c.of = make([][]float32, n)
	var cols int64
	for i := range n {
		c.slot[i] = int32(i)
		if cols < maxCols && sv(i) {
			c.of[i] = newColumn(n, nil)
			cols++
		}
	}
	c.slots = n
	c.bytes = 4 * cols * int64(n)
}

// startSeed starts the kept columns of a trainer that has none at a cold
// Train on the rows whose hashes are rowHash: one slot a row and no
// column, for the solves to capture theirs and end to keep. The first
// warm retrain otherwise computed again what the cold run had computed:
// on digits its kernel work was three times a later retrain's.
func (c *keptColumns) startSeed(rowHash []uint64) {
	n := len(rowHash)
	c.hash = append(c.hash[:0], rowHash...)
	c.slot = make([]int32, n)
	c.of = make([][]float32, n)
	c.prev, c.oldOf, c.cur, c.made, c.left = c.prev[:0], c.oldOf[:0], c.cur[:0], c.made[:0], c.left[:0]
	for i := range n {
		c.slot[i] = int32(i)
		c.prev, c.oldOf = append(c.prev, int32(i)), append(c.oldOf, int32(i))
		c.cur, c.made = append(c.cur, nil), append(c.made, nil)
	}
	c.slots, c.bytes, c.cols = n, 0, 0
	c.maxCols = c.budget / (4 * int64(max(n, 1)))
	c.startWrites(c.cur, n)
	c.capturing = true
}

// begin maps the rows of ds (hashes rowHash, the first l) to the kept
// columns, for rows below covered only (the rows a warm gradient covers;
// rows past it were appended since), gives each row the last run lacks a
// slot (one a removed row left, its entries unset in every column, or a
// new one), and starts capturing. It reports whether there are kept
// columns for this Train; when the slots would come to more than twice
// the rows (the store shrank), it drops them all instead. wide (kept in
// c.wide) gives each row added a column of its own from the start (see
// below): only for rows wide enough that a kernel value costs more than
// making and reading the column (acrossMinWidth): on shuttle's 9 features
// (-M 400, 10 batches of 431 rows, each a column of 43,065 entries) the
// warm retrains took 0.88–1.12 s of CPU with them, 0.57–0.68 s without
// (three alternated runs, one core, quiet), for 1.5% fewer kernel values.
func (c *keptColumns) begin(rowHash []uint64, l, covered int, wide bool) bool {
	c.prev, c.oldOf, c.cur, c.made, c.left = c.prev[:0], c.oldOf[:0], c.cur[:0], c.made[:0], c.left[:0]
	c.capturing, c.wide = false, wide
	if c.of == nil {
		return false
	}
	p, n0 := 0, len(c.hash)
	for i := range l {
		o := int32(-1)
		if i < covered {
			for p < n0 && c.hash[p] != rowHash[i] {
				c.leave(p)
				p++
			}
			if p < n0 {
				o = int32(p)
				p++
			}
		}
		c.prev = append(c.prev, o)
	}
	for ; p < n0; p++ {
		c.leave(p)
	}
	c.completeLeft()
	// Slots: a row kept keeps its own, a row added takes the first one
	// no kept row holds.
	slots := c.slots
	used := append(c.used[:0], make([]bool, slots)...)
	for _, o := range c.prev {
		if o >= 0 {
			used[c.slot[o]] = true
		}
	}
	fresh := c.fresh[:0]
	next := 0
	for _, o := range c.prev {
		if o >= 0 {
			c.oldOf = append(c.oldOf, c.slot[o])
			continue
		}
		for next < slots && used[next] {
			next++
		}
		if next == slots {
			slots++
			used = append(used, false)
		}
		used[next] = true
		c.oldOf = append(c.oldOf, int32(next))
		fresh = append(fresh, int32(next))
	}
	c.used, c.fresh = used, fresh
	if slots > 2*max(l, 1) {
		c.drop()
		return false
	}
	// Every column as long as the slots, within the budget (the last
	// ones in row order go when the slots grew past it), its entries of
	// the rows added unset.
	c.maxCols = c.budget / (4 * int64(slots))
	c.cols = 0
	unset := math.Float32frombits(keptUnset)
	for o, col := range c.of {
		if col == nil {
			continue
		}
		if c.cols >= c.maxCols {
			c.of[o] = nil
			continue
		}
		c.cols++
		if cap(col) < slots {
			grown := make([]float32, slots, slots+slots/8)
			copy(grown, col)
			for t := len(col); t < slots; t++ {
				grown[t] = unset
			}
			col = grown
		}
		col = col[:slots]
		for _, t := range fresh {
			col[t] = unset
		}
		c.of[o] = col
	}
	c.slots = slots
	c.trimSpare(c.maxCols - c.cols)
	for _, o := range c.prev {
		var col, made []float32
		if o >= 0 {
			col = c.of[o]
		} else if wide && c.cols < c.maxCols {
			// A row added: a column of its own from the start, which
			// the warm start's entries against the support vectors
			// begin to fill (keepEntries) and every pair that solves
			// it shares. Each of the pairs of its class computed its
			// column again (Fashion-MNIST, 10 classes); end keeps it
			// if the row is a support vector.
			col = c.takeSpare(slots)
			made = col
			c.cols++
		}
		c.cur, c.made = append(c.cur, col), append(c.made, made)
	}
	c.bytes = 4 * (c.cols + int64(len(c.spare))) * int64(slots)
	c.startWrites(c.cur, slots)
	c.capturing = true
	return true
}

// drop forgets every kept column.
func (c *keptColumns) drop() {
	c.hash, c.slot, c.of, c.slots, c.bytes = c.hash[:0], nil, nil, 0, 0
	c.spare, c.slotNext, c.ofNext = nil, nil, nil
	c.prev, c.oldOf, c.cur, c.made, c.left = c.prev[:0], c.oldOf[:0], c.cur[:0], c.made[:0], c.left[:0]
	c.capturing = false
}

// leave records the column of the last run's row o, which this Train's
// rows lack, in left.
func (c *keptColumns) leave(o int) {
	if col := c.of[o]; col != nil {
		c.left = append(c.left, leftColumn{c.hash[o], col, c.slot[o]})
	}
}

// completeLeft fills the entries the removed rows' columns (left) lack
// from the kept rows' columns at the removed rows' slots (K is symmetric,
// bit for bit), before begin gives those slots to rows added and unsets
// them: KernelGradient.removedColumns computed them again (12% of a warm
// retrain's profile on Fashion-MNIST's 10 classes, where a column holds
// only the entries of the pairs' active rows its runs computed).
func (c *keptColumns) completeLeft() {
	if len(c.left) == 0 {
		return
	}
	for _, o := range c.prev {
		if o < 0 || c.of[o] == nil {
			continue
		}
		col, s := c.of[o], c.slot[o]
		for _, lc := range c.left {
			if int(s) >= len(lc.col) || int(lc.slot) >= len(col) {
				continue
			}
			if math.Float32bits(lc.col[s]) == keptUnset {
				lc.col[s] = col[lc.slot] // unset too, at worst
			}
		}
	}
}

// removedColumn sets dst[t] = K(x, x_t) for the rows t < len(dst) of
// this Train whose entry the kept column of the removed row x (hash h)
// holds, and 0 for the others, and reports whether there is such a
// column; the rows it lacks are appended to missing[:0], which it
// returns.
func (c *keptColumns) removedColumn(h uint64, dst []float32, missing []int32) ([]int32, bool) {
	missing = missing[:0]
	var src []float32
	for _, lc := range c.left {
		if lc.hash == h {
			src = lc.col
			break
		}
	}
	if src == nil || len(c.oldOf) < len(dst) {
		return missing, false
	}
	oldOf := c.oldOf[:len(dst)]
	if c.slots <= len(src) {
		// Every slot inside src: one gather, then a pass for the unset
		// entries only when there are some (the entry-by-entry loop was
		// ~1% of a shuttle warm retrain's instructions, -M 400).
		if !simd.GatherMarked32(dst, src, oldOf, keptUnset) {
			return missing, true
		}
		for t, v := range dst {
			if math.Float32bits(v) == keptUnset {
				dst[t] = 0
				missing = append(missing, int32(t))
			}
		}
		return missing, true
	}
	for t, o := range oldOf {
		if int(o) < len(src) {
			if v := atomic.LoadUint32(keptBits(&src[o])); v != keptUnset {
				dst[t] = math.Float32frombits(v)
				continue
			}
		}
		dst[t] = 0
		missing = append(missing, int32(t))
	}
	return missing, true
}

// capture copies into columns made for them what q's cache holds after a
// solve on q's variables (identity ordering) whose solution is alpha: for
// each variable with α > 0 whose row has no kept column, the entries of
// its cached column, as kernel values K (Q_it times y_i y_t), into the
// row's made column, which it makes (all entries unset) while the budget
// allows. Pairs solved in parallel call it in turn; the solves never read
// the made columns.
func (c *keptColumns) capture(q *svcQ, alpha []float64) {
	if q.unkept == 0 {
		return // every cached column is a kept one's
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// The columns as the cache stores them, through the swaps still
	// pending (the solve's restoring of q's order): reading a few columns
	// need not make those swaps in every cached one.
	var from, cut []int32
	swapped := len(q.cache.pending) > 0
	if swapped {
		from, cut = q.cache.pendingPermutation()
	}
	// Each variable's slot: q's own (kslot) when it reads these columns;
	// at a cold run's (startSeed) every row's slot is the row.
	slotOf := q.index
	if q.kept == c {
		slotOf = q.kslot
	}
	split := -2 // labelSplit(q.y) once needed
	for i, a := range alpha {
		row := q.index[i]
		if a == 0 || c.cur[row] != nil {
			continue
		}
		src := q.cache.stored(i)
		if len(src) == 0 || swapped && cut[len(src)] > 0 {
			continue
		}
		dst := c.madeFor(row)
		if dst == nil {
			continue
		}
		var perm []int32
		if swapped {
			perm = from
		}
		var y []int8
		if q.y != nil {
			y = q.y
		}
		// The rows of i's own class are the same in each of its class's
		// pairs, and so are the kernel values against them: the first
		// capture that covers them whole copies them, the others skip
		// them. On shuttle (-M 400) a support vector of the largest class
		// (78% of the rows) was copied whole by each of its 6 pairs.
		n := len(src)
		skipLo, skipHi := n, n
		if y != nil {
			if split == -2 {
				split = labelSplit(y)
			}
			if split > 0 && split < len(y) {
				lo, hi := 0, split
				if i >= split {
					lo, hi = split, len(y)
				}
				own := uint64(q.index[lo]+1)<<32 | uint64(hi-lo)
				switch {
				case c.madeOwn[row] == own:
					skipLo, skipHi = min(lo, n), min(hi, n)
				case hi <= n:
					c.madeOwn[row] = own
				}
			}
		}
		captureColumn(dst, src, slotOf, perm, y, i, 0, skipLo)
		captureColumn(dst, src, slotOf, perm, y, i, skipHi, n)
	}
}

// captureColumn sets dst[slot[t]] = y_i y_t src[perm[t]] for t in
// [from, to) (perm nil: the identity; y nil: all +1): a cached column of
// Q back to K's values at the rows' slots. The sign is flipped without a
// branch, as signLabels flips it, and the pending swaps are followed only
// when there are some: the entry-by-entry loop with both was 7% of a
// warm retrain's instructions on shuttle (-M 400).
func captureColumn(dst, src []float32, slot, perm []int32, y []int8, i, from, to int) {
	if from >= to {
		return
	}
	slot = slot[from:to] // equal lengths: no bounds checks
	switch {
	case y == nil && perm == nil:
		src = src[from:to]
		for t, s := range slot {
			dst[s] = src[t]
		}
	case perm == nil:
		yi := y[i]
		src, y = src[from:to], y[from:to]
		for t, s := range slot {
			flip := uint32(uint8(y[t]^yi)) << 24 & (1 << 31)
			dst[s] = math.Float32frombits(math.Float32bits(src[t]) ^ flip)
		}
	default:
		perm = perm[from:to]
		var yi int8
		if y != nil {
			yi = y[i]
			y = y[from:to]
		}
		for t, s := range slot {
			b := math.Float32bits(src[perm[t]])
			if y != nil {
				b ^= uint32(uint8(y[t]^yi)) << 24 & (1 << 31)
			}
			dst[s] = math.Float32frombits(b)
		}
	}
}

// madeFor returns the column capture made for row in this Train, making
// it (all entries unset, a spare one's memory when there is one) while
// the budget allows; nil when it does not.
func (c *keptColumns) madeFor(row int32) []float32 {
	dst := c.made[row]
	if dst == nil && c.cols < c.maxCols { // cols + spares ≤ maxCols
		dst = c.takeSpare(c.slots)
		c.made[row] = dst
		if int(row) >= len(c.madeOwn) {
			c.madeOwn = append(c.madeOwn, make([]uint64, len(c.made)-len(c.madeOwn))...)
		}
		c.madeOwn[row] = 0
		c.cols++
		c.bytes = 4 * (c.cols + int64(len(c.spare))) * int64(c.slots)
		if c.track {
			c.madeTracked(row)
		}
	} else if dst == nil && c.track {
		dst = c.evictFor(row) // the lowest rows' columns, whoever asks first
	}
	return dst
}

// captureSVR is capture for the ε-SVR (or ν-SVR) matrix q after a solve
// whose solution is alpha (α then α*): for each sample with α or α* > 0
// whose row has no kept column, the entries of its cached column, which
// are kernel values in sample order (q's cache is never swapped).
func (c *keptColumns) captureSVR(q *svrQ, alpha []float64) {
	if q.unkept == 0 {
		return
	}
	l := len(q.rows)
	for r, row := range q.rows {
		if alpha[r] == 0 && alpha[r+l] == 0 || c.cur[row] != nil {
			continue
		}
		src := q.cache.stored(r)
		if len(src) == 0 {
			continue
		}
		dst := c.madeFor(row)
		if dst == nil {
			continue
		}
		for t, d := range q.rows[:len(src)] {
			dst[c.oldOf[d]] = src[t]
		}
	}
}

// end replaces the kept columns by those of the support vectors of the
// Train that just ran (on l rows, hashes rowHash; sv reports whether a row
// is one), as many as fit in the budget, in data order: a row's kept
// column, or the one capture made for it, or else a new one, all unset
// (in the memory of a column not kept again, or a spare one). The
// columns left over stay spare within the budget. It computes no kernel
// value and, once the store's size is steady, allocates nothing. Without
// a begin or startSeed for these rows, every column starts again, unset,
// with one slot a row.
func (c *keptColumns) end(l int, rowHash []uint64, sv func(i int) bool) {
	matched := c.capturing && len(c.oldOf) == l
	c.capturing = false
	slot := c.slotNext[:0]
	if cap(slot) < l {
		slot = make([]int32, l)
	}
	slot = slot[:l]
	slots := l
	if matched {
		copy(slot, c.oldOf)
		slots = c.slots
	} else {
		for i := range slot {
			slot[i] = int32(i)
		}
	}
	maxCols := c.budget / (4 * int64(max(slots, 1)))
	// The columns taken again (taken marks the last run's rows whose
	// column is); the others' memory serves the new ones.
	of := c.ofNext[:0]
	if cap(of) < l {
		of = make([][]float32, l)
	}
	of = of[:l]
	clear(of)
	taken := append(c.used[:0], make([]bool, len(c.of))...)
	need := c.fresh[:0] // rows that get a new column
	var n int64
	for j := 0; j < l && n < maxCols; j++ {
		if !sv(j) {
			continue
		}
		switch {
		case matched && c.cur[j] != nil:
			of[j] = c.cur[j]
			if c.prev[j] >= 0 { // a row added has its column in made too
				taken[c.prev[j]] = true
			}
		case matched && c.made[j] != nil:
			of[j] = c.made[j]
		default:
			need = append(need, int32(j))
		}
		n++
	}
	for o, col := range c.of {
		if col != nil && !taken[o] {
			c.spare = append(c.spare, col)
		}
	}
	for j := 0; j < l && matched; j++ {
		if col := c.made[j]; col != nil && of[j] == nil {
			c.spare = append(c.spare, col)
		}
	}
	for _, j := range need {
		of[j] = c.takeSpare(slots)
	}
	c.trimSpare(maxCols - n)
	c.used, c.fresh = taken, need
	c.hash = append(c.hash[:0], rowHash[:l]...)
	// The last run's slot and of serve the next end; of's columns are
	// in the new of or spare, or let go.
	clear(c.of)
	c.slotNext, c.ofNext = c.slot, c.of
	c.slot, c.of, c.slots = slot, of, slots
	c.bytes = 4 * (n + int64(len(c.spare))) * int64(slots)
	// No column held past the budget through the Train's maps.
	clear(c.cur)
	clear(c.made)
	clear(c.left)
	c.prev, c.oldOf, c.cur, c.made, c.left = c.prev[:0], c.oldOf[:0], c.cur[:0], c.made[:0], c.left[:0]
}

// fill sets data[t] = K(x_{index[i]}, x_{index[t]}) for t in [have,
// length) from the kept column of variable i's row where the entry is
// set (kslot[t] is variable t's slot), times y_i y_t when there are labels
// y (Q's entries: the gather flips the signs, where a pass after it took
// ~8% of a shuttle warm retrain's instructions), and reports whether it
// had a column; the entries it lacks (unset, of either sign) are listed
// in missing (positions t), their rows in rows, for the caller to compute
// and give to keep. written counts the entries it read that this Train
// stored (track only, kpos the inverse of kslot: kkeepwrites.go).
func (c *keptColumns) fill(data []float32, index, kslot, kpos []int32, y []int8, i, have, length int, missing, rows []int32) (ok bool, _, _ []int32, written int64) {
	src := c.cur[index[i]]
	if src == nil {
		return false, missing, rows, 0
	}
	missing, rows = missing[:0], rows[:0]
	data, kslot = data[have:length], kslot[have:length]
	// One gather of every entry, then a pass for the unset ones only
	// when there are some: the entry-by-entry loop was a tenth of a warm
	// retrain on digits (45 pairs of ~290 rows, ~25 iterations each).
	var marked bool
	if y == nil {
		marked = simd.GatherMarked32(data, src, kslot, keptUnset)
	} else {
		marked = simd.GatherMarkedSigned32(data, src, kslot, y[have:length], y[i], keptUnset)
	}
	if c.track {
		written = c.writtenFound(index[i], data, src, kslot, kpos, have)
	}
	if !marked {
		return true, missing, rows, written
	}
	for k, v := range data {
		if math.Float32bits(v)&^(1<<31) == keptUnset {
			missing = append(missing, int32(have+k))
			rows = append(rows, index[have+k])
		}
	}
	return true, missing, rows, written
}

// fillAcross sets data[t] = K(x_{index[t]}, x_i) for t in [have, length)
// from the kept columns of the rows index[t], at slot si (row i's), where
// there are such columns and the entry is set: they stand in for the
// column row i lacks (K is symmetric, bit for bit: keepEntries writes
// both). The entries it lacks are listed in missing (positions t), their
// rows in rows, for the caller to compute; written counts those it read
// that this Train stored (track only, kkeepwrites.go).
func (c *keptColumns) fillAcross(data []float32, index []int32, si int32, have, length int, missing, rows []int32) (_, _ []int32, written int64) {
	missing, rows = missing[:0], rows[:0]
	cur := c.cur
	for t := have; t < length; t++ {
		r := index[t]
		if col := cur[r]; int(si) < len(col) {
			if v := atomic.LoadUint32(keptBits(&col[si])); v != keptUnset {
				data[t] = math.Float32frombits(v)
				if c.track && c.wrote(r, si) {
					written++
				}
				continue
			}
		}
		missing, rows = append(missing, int32(t)), append(rows, r)
	}
	return missing, rows, written
}

// entriesKept sets dst[k] = K(x_i, x_rows[k]) from the kept column of row
// i, at rows[k]'s slot, or else from that of rows[k], at i's slot, where
// one holds it. It moves the rows whose entry neither holds to the front
// of rows and returns them and their positions k (in missing[:0]), for
// the caller to compute and keep (keepEntries). written counts the
// entries it read that neither column held at the Train's start (track
// only, kkeepwrites.go).
func (c *keptColumns) entriesKept(dst []float32, i int32, rows, missing []int32) (_, _ []int32, written int64) {
	missing = missing[:0]
	oldOf, cur := c.oldOf, c.cur
	si := oldOf[i]
	ci := cur[i]
	n := 0
	for k, r := range rows {
		b := keptUnset
		kept := false // read from an entry set at the Train's start
		if ci != nil {
			b = atomic.LoadUint32(keptBits(&ci[oldOf[r]]))
			kept = b != keptUnset && !(c.track && c.wrote(i, oldOf[r]))
		}
		if col := cur[r]; !kept && int(si) < len(col) && (b == keptUnset || c.track) {
			if v := atomic.LoadUint32(keptBits(&col[si])); v != keptUnset {
				b, kept = v, !(c.track && c.wrote(r, si))
			}
		}
		if b != keptUnset {
			dst[k] = math.Float32frombits(b)
			if !kept {
				written++
			}
			continue
		}
		rows[n] = r
		missing = append(missing, int32(k))
		n++
	}
	return rows[:n], missing, written
}

// keep writes the entries vals of the rows rows (which fill listed as
// missing) into the kept column of row i; when pairs run at once (track),
// into the kept columns of rows too, as keepEntries does (kkeepwrites.go).
func (c *keptColumns) keep(i int32, rows []int32, vals []float32) {
	if c.track {
		c.keepEntries(i, rows, vals)
		return
	}
	dst := c.cur[i]
	for k, r := range rows {
		c.store(dst, c.oldOf[r], vals[k])
	}
}

// keepEntries writes the kernel values vals = K(x_i, x_rows[k]) of row i
// against rows into the kept columns of i (at the slots of rows) and of
// each of rows (at i's slot), where there are such columns.
func (c *keptColumns) keepEntries(i int32, rows []int32, vals []float32) {
	oldOf := c.oldOf
	si := oldOf[i]
	col := c.cur[i]
	if c.track {
		for k, r := range rows {
			b := math.Float32bits(vals[k])
			if col != nil {
				c.keptWrites.store(col, i, oldOf[r], b)
			}
			if dst := c.cur[r]; dst != nil {
				c.keptWrites.store(dst, r, si, b)
			}
		}
		return
	}
	for k, r := range rows {
		if col != nil {
			c.store(col, oldOf[r], vals[k])
		}
		if dst := c.cur[r]; dst != nil {
			c.store(dst, si, vals[k])
		}
	}
}

// store sets col[s] = v, atomically when pairs may be solved at once
// (track). One worker stores plainly: an atomic store is a locked
// exchange on amd64, and keep's took 4.7% of shuttle's warm retrains
// (-M 100, one core) where a plain store takes ~0.5%.
func (c *keptColumns) store(col []float32, s int32, v float32) {
	if c.track {
		atomic.StoreUint32(keptBits(&col[s]), math.Float32bits(v))
		return
	}
	col[s] = v
}
