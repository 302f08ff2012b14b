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
// Rows are matched between runs by their hashes (hashRow): the rows a
// run keeps from the last are those of the last run less the removed
// ones, in the same order, then the appended ones. Each row has a slot,
// its entry's position in every column, which it keeps while it stays; a
// row added takes the slot of one removed (its entries marked unset), so
// the columns never move. Moving every column's entries to the new rows'
// order (a memmove of the whole budget per retrain) took an eighth of a
// warm retrain's time on digits. ε-SVR's matrix does not read them.

import (
	"math"
	"sync"
	"sync/atomic"
	"unsafe"
)

// keptUnset marks an entry of a kept column that no run has computed (a
// NaN no kernel computes: an entry that happens to have these bits is
// computed again each time, which costs work, not correctness).
const keptUnset uint32 = 0x7fc0_1a2b

// keptBits returns the bits of a kept entry as an atomic word: pairs
// solved in parallel read and write the same entries (keptColumns.fill).
func keptBits(v *float32) *uint32 { return (*uint32)(unsafe.Pointer(v)) }

// keptColumns holds the kernel columns of the last warm Train's support
// vectors and, during a Train, where the current rows are in them.
type keptColumns struct {
	// budget is KeepMB in bytes.
	budget int64
	// hash holds hashRow of the rows of the run the columns were made
	// in, slot their slots, of their columns (nil for none): each column
	// holds slots entries.
	hash  []uint64
	slot  []int32
	of    [][]float32
	slots int
	// prev maps each row of the current Train's data set to its row in
	// the last run, oldOf to its slot, both −1 for a row the last run
	// lacks; cur maps it to its column, nil for none. They are read only
	// while the pairs are solved.
	prev, oldOf []int32
	cur         [][]float32
	// left holds the columns of the last run's rows this Train's data set
	// lacks (removed since), by the rows' hashes: the removed support
	// vectors' terms are taken out of the stored gradient with their
	// values (KernelGradient.removedColumns). Read only between begin and
	// end.
	left []leftColumn
	// bytes is what the columns take.
	bytes int64
	// seeding is set during a cold Train that fills the columns from its
	// solves' caches (startSeed, seedFrom); mu orders the pairs' seedFrom
	// calls, and maxCols is how many columns fit the budget.
	seeding bool
	mu      sync.Mutex
	maxCols int64
	// used and fresh are end's scratch: the slots taken, the slots given
	// to rows added.
	used  []bool
	fresh []int32
}

// leftColumn is the kept column of a row removed since the last run.
type leftColumn struct {
	hash uint64
	col  []float32
}

// keptColumnsBytes returns the bytes keptColumns may take for a trainer
// of capRows rows with a budget of budget bytes: the columns, at most
// budget, and the per-row maps (twice the slots at most).
func keptColumnsBytes(capRows int, budget int64) int64 {
	if budget <= 0 {
		return 0
	}
	return budget + int64(capRows)*(8+4+24+4+4+24+2*1+2*4) // columns; hash, slot, of, prev, oldOf, cur, used, fresh
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
	unset := math.Float32frombits(keptUnset)
	c.hash = append(c.hash[:0], rowHash...)
	c.slot = make([]int32, n)
	c.of = make([][]float32, n)
	var cols int64
	for i := range n {
		c.slot[i] = int32(i)
		if cols < maxCols && sv(i) {
			col := make([]float32, n, n+n/8)
			for t := range col {
				col[t] = unset
			}
			c.of[i] = col
			cols++
		}
	}
	c.slots = n
	c.bytes = 4 * cols * int64(n)
}

// startSeed starts the kept columns of a trainer that has none at a
// cold Train on the rows whose hashes are rowHash, one slot a row, with
// no column yet: each subproblem's solve then gives its support vectors'
// columns the entries its kernel cache holds at the end (seedFrom), as
// many columns as fit in the budget. The first warm retrain otherwise
// computed again what the cold run had computed: on digits its kernel
// work was three times a later retrain's.
func (c *keptColumns) startSeed(rowHash []uint64) {
	n := len(rowHash)
	c.hash = append(c.hash[:0], rowHash...)
	c.slot = make([]int32, n)
	for i := range c.slot {
		c.slot[i] = int32(i)
	}
	c.of = make([][]float32, n)
	c.slots, c.bytes = n, 0
	c.maxCols = c.budget / (4 * int64(max(n, 1)))
	c.seeding = true
}

// seedFrom copies into the kept columns what q's cache holds, after a
// cold solve on q's variables (identity ordering) whose solution is
// alpha: for each variable with α > 0, the entries of its cached column,
// as kernel values K (Q_it times y_i y_t), into its row's column, which it
// makes (all entries unset) while the budget allows. Pairs solved in
// parallel call it in turn.
func (c *keptColumns) seedFrom(q *svcQ, alpha []float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	unset := math.Float32frombits(keptUnset)
	for i, a := range alpha {
		if a == 0 {
			continue
		}
		src := q.cache.cached(i)
		if len(src) == 0 {
			continue
		}
		row := q.index[i]
		dst := c.of[row]
		if dst == nil {
			if c.bytes/(4*int64(c.slots)) >= c.maxCols {
				continue
			}
			dst = make([]float32, c.slots, c.slots+c.slots/8)
			for t := range dst {
				dst[t] = unset
			}
			c.of[row] = dst
			c.bytes += 4 * int64(c.slots)
		}
		index := q.index[:len(src)]
		if q.y == nil {
			for t, r := range index {
				dst[r] = src[t]
			}
			continue
		}
		yi := q.y[i]
		y := q.y[:len(src)]
		for t, r := range index {
			v := src[t]
			if y[t] != yi {
				v = -v
			}
			dst[r] = v
		}
	}
}

// begin maps the rows of ds (hashes rowHash, the first l) to the kept
// columns, for rows below covered only (the rows a warm gradient covers;
// rows past it were appended since), and reports whether any kept column
// can serve this Train.
func (c *keptColumns) begin(rowHash []uint64, l, covered int) bool {
	c.prev, c.oldOf, c.cur, c.left = c.prev[:0], c.oldOf[:0], c.cur[:0], c.left[:0]
	if c.of == nil {
		return false
	}
	p, n0 := 0, len(c.hash)
	useful := false
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
		var col []float32
		s := int32(-1)
		if o >= 0 {
			col, s = c.of[o], c.slot[o]
			useful = useful || col != nil
		}
		c.oldOf = append(c.oldOf, s)
		c.cur = append(c.cur, col)
	}
	for ; p < n0; p++ {
		c.leave(p)
	}
	return useful
}

// leave records the column of the last run's row o, which this Train's
// rows lack, in left.
func (c *keptColumns) leave(o int) {
	if col := c.of[o]; col != nil {
		c.left = append(c.left, leftColumn{c.hash[o], col})
	}
}

// removedColumn sets dst[t] = K(x, x_t) for the rows t < len(dst) of
// this Train whose entry the kept column of the removed row x (hash h)
// holds, and reports whether there is such a column; the rows it lacks
// are appended to missing[:0], which it returns.
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
	for t, o := range oldOf {
		if o >= 0 {
			if v := atomic.LoadUint32(keptBits(&src[o])); v != keptUnset {
				dst[t] = math.Float32frombits(v)
				continue
			}
		}
		missing = append(missing, int32(t))
	}
	return missing, true
}

// end replaces the kept columns by those of the support vectors of the
// Train that just ran (on l rows, hashes rowHash; sv reports whether a row
// is one), as many as fit in the budget, in data order: a row kept from
// the last run keeps its slot, a row added takes a slot no kept row holds
// (or a new one), and every column has that slot unset; a new column
// starts unset. It computes no kernel value: the next runs fill the
// columns as they read them (fill, keep). The slots of columns not kept
// again are reused for new ones. When the slots come to more than twice
// the rows (the store shrank), every column starts again, unset, with one
// slot a row.
func (c *keptColumns) end(l int, rowHash []uint64, sv func(i int) bool) {
	matched := len(c.prev) == l && c.of != nil
	if !matched {
		// No begin for these rows (a cold run before), or nothing kept:
		// nothing carries over.
		c.prev = c.prev[:0]
		for range l {
			c.prev = append(c.prev, -1)
		}
	}
	slots := c.slots
	used := append(c.used[:0], make([]bool, slots)...)
	for _, o := range c.prev {
		if o >= 0 {
			used[c.slot[o]] = true
		}
	}
	restart := false
	slot := make([]int32, l)
	fresh := c.fresh[:0]
	next := 0 // the first slot that may be free
	for i, o := range c.prev {
		if o >= 0 {
			slot[i] = c.slot[o]
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
		slot[i] = int32(next)
		fresh = append(fresh, int32(next))
	}
	if slots > 2*max(l, 1) {
		restart, slots = true, l
		for i := range slot {
			slot[i] = int32(i)
		}
	}
	c.used, c.fresh = used, fresh
	maxCols := c.budget / (4 * int64(max(slots, 1)))
	keep := make([]bool, len(c.of)) // old columns taken again
	var taken int64
	for j := 0; j < l && taken < maxCols && !restart; j++ {
		if o := c.prev[j]; o >= 0 && sv(j) && c.of[o] != nil {
			keep[o] = true
			taken++
		}
	}
	var free [][]float32
	for o, col := range c.of {
		if col != nil && !keep[o] {
			free = append(free, col)
		}
	}
	unset := math.Float32frombits(keptUnset)
	of := make([][]float32, l)
	var n int64
	for j := 0; j < l && n < maxCols; j++ {
		if !sv(j) {
			continue
		}
		var col []float32
		whole := true
		if o := c.prev[j]; o >= 0 && keep[o] {
			col, whole = c.of[o], false
		} else if k := len(free) - 1; k >= 0 {
			col, free = free[k], free[:k]
		}
		if cap(col) < slots {
			grown := make([]float32, slots, slots+slots/8)
			copy(grown, col)
			col = grown
		}
		col = col[:slots]
		if whole {
			for t := range col {
				col[t] = unset
			}
		} else {
			for _, t := range fresh {
				col[t] = unset
			}
		}
		of[j] = col
		n++
	}
	c.hash = append(c.hash[:0], rowHash[:l]...)
	c.slot, c.of, c.slots = slot, of, slots
	c.bytes = 4 * n * int64(slots)
	c.prev, c.oldOf, c.cur, c.left = c.prev[:0], c.oldOf[:0], c.cur[:0], c.left[:0]
}

// fill sets data[t] = K(x_{index[i]}, x_{index[t]}) for t in [have,
// length) from the kept column of variable i's row where it has the row
// and the entry is set, and reports whether it had a column; the entries
// it lacks are listed in missing (positions t), their rows in rows, for
// the caller to compute and give to keep.
func (c *keptColumns) fill(data []float32, index []int32, i, have, length int, missing, rows []int32) (bool, []int32, []int32) {
	src := c.cur[index[i]]
	if src == nil {
		return false, missing, rows
	}
	missing, rows = missing[:0], rows[:0]
	for t := have; t < length; t++ {
		if o := c.oldOf[index[t]]; o >= 0 {
			if v := atomic.LoadUint32(keptBits(&src[o])); v != keptUnset {
				data[t] = math.Float32frombits(v)
				continue
			}
		}
		missing = append(missing, int32(t))
		rows = append(rows, index[t])
	}
	return true, missing, rows
}

// keep writes the entries vals of the rows rows (which fill listed as
// missing) into the kept column of row i, where the column has the row.
func (c *keptColumns) keep(i int32, rows []int32, vals []float32) {
	dst := c.cur[i]
	for k, r := range rows {
		if o := c.oldOf[r]; o >= 0 {
			atomic.StoreUint32(keptBits(&dst[o]), math.Float32bits(vals[k]))
		}
	}
}
