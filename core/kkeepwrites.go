package core

// Exact kernel evaluation counts with kept columns when pairs run at once.
//
// One-vs-one pairs solved in parallel share the kept columns of their
// common class's rows (kkeep.go): an entry one pair computes and keeps,
// another reads. Which of them computes it depends on timing, and so did
// each pair's KernelEvals, which the model file records ("ke"): same data
// and parameters gave model files of other bytes from run to run on two
// or more cores (digits, 45 pairs, -M). The solution never depended on it
// (the kept values are the kernels' own, bit for bit).
//
// So when pairs run at once (track), each pair counts the entries it
// needed that no kept column held at the Train's start: those it computes,
// and those it reads that this Train wrote (written marks them, a bit a
// slot of every kept column, set before the value is stored). Each pair's
// reads and its cache's misses follow from its own solve alone, so the
// count does too. A pair that reads an entry back after its cache dropped
// the column counts it again, which a Train on one worker (track unset,
// the count as before) does not.
//
// The next Train's counts start from what this one leaves in the columns,
// so that must not depend on timing either:
//   - an entry computed for a kept column is stored in both kept columns it
//     belongs to (K(x_i, x_r) in i's at r's slot, in r's at i's: keep,
//     keepEntries), so whether a pair that reads it from one side or the
//     other came first leaves the same entries;
//   - a column read from the other rows' kept columns counts as one to
//     capture (svcQ.unkept) whether or not they held some of its entries;
//   - when the budget runs out while the pairs capture columns, the columns
//     made go to the lowest rows that asked for one (madeFor evicts the
//     highest), not to the first pairs to finish; end keeps columns in row
//     order too.

import (
	"math"
	"math/bits"
	"runtime"
	"sync/atomic"
)

// keptWrites is what keptColumns tracks of the entries a Train writes
// when pairs run at once.
type keptWrites struct {
	// track is set for a trainer whose pairs may run at once (C-SVC on
	// more than one worker).
	track bool
	// written holds, by row like keptColumns.cur, a bit per slot of the
	// row's kept column: set for the entries this Train stored there.
	// wmem holds them all.
	written [][]uint64
	wmem    []uint64
	// capt holds the rows whose column madeFor made this Train, a
	// max-heap (the highest row first).
	capt []int32
}

// keptWritesBytes is what keptWrites may take for capRows rows and kept
// columns of budget bytes: a bit an entry; a slice header and a heap
// entry a row.
func keptWritesBytes(capRows int, budget int64) int64 {
	return budget/32 + int64(capRows)*(24+4)
}

// loadsInOrder says this processor keeps loads in program order (x86's
// total store order), so that fill's plain loads of a column's entries
// come before its loads of the column's marks: an entry another pair
// stored is seen with its mark (keptWrites.store sets the mark first).
const loadsInOrder = runtime.GOARCH == "amd64" || runtime.GOARCH == "386"

// startWrites clears the marks for a Train whose kept columns are cur (by
// row), slots entries each, and empties the heap of made columns.
func (w *keptWrites) startWrites(cur [][]float32, slots int) {
	w.capt = w.capt[:0]
	w.written = w.written[:0]
	if !w.track {
		return
	}
	words := (slots + 63) / 64
	n := 0
	for _, col := range cur {
		if col != nil {
			n++
		}
	}
	if cap(w.wmem) < n*words {
		w.wmem = make([]uint64, n*words)
	}
	mem := w.wmem[:n*words]
	clear(mem)
	for _, col := range cur {
		var m []uint64
		if col != nil {
			m, mem = mem[:words:words], mem[words:]
		}
		w.written = append(w.written, m)
	}
}

// wrote reports whether this Train stored the entry at slot s of row r's
// kept column. The caller has read the entry set with an atomic load
// before, which orders this load after it: a value another pair stored
// is seen with its mark.
func (w *keptWrites) wrote(r, s int32) bool {
	return atomic.LoadUint64(&w.written[r][s>>6])>>(s&63)&1 != 0
}

// writtenFound counts the entries data[k] that fill read set from row
// r's kept column src, at slots kslot[k] (variables have+k), and this
// Train stored. Where loads stay in program order (loadsInOrder) it walks
// the column's marks, a word per 64 slots and a step per mark, and finds
// each marked slot's variable through kpos (kslot's inverse): a pass over
// every entry read, which the marks of most columns leave unset, was 6%
// of the instructions of warm retrains on two workers (digits, 45 pairs,
// 1100 rows, 12 in and out a retrain; 27 M of 473 M). Elsewhere it checks
// each entry read, its value loaded again atomically before its mark.
func (w *keptWrites) writtenFound(r int32, data, src []float32, kslot, kpos []int32, have int) int64 {
	marks := w.written[r]
	kslot = kslot[:len(data)] // equal lengths: no bounds checks on kslot
	var n int64
	if !loadsInOrder {
		for k, v := range data {
			s := kslot[k]
			if math.Float32bits(v)&^(1<<31) != keptUnset && atomic.LoadUint32(keptBits(&src[s])) != keptUnset &&
				atomic.LoadUint64(&marks[s>>6])>>(s&63)&1 != 0 {
				n++
			}
		}
		return n
	}
	for wi := range marks {
		m := atomic.LoadUint64(&marks[wi])
		for m != 0 {
			s := int32(wi<<6 + bits.TrailingZeros64(m))
			m &= m - 1
			// The variable at slot s, if it is one of data's: kpos
			// holds stale positions for the slots of rows not in
			// this matrix, which kslot tells.
			k := int(kpos[s]) - have
			if uint(k) < uint(len(kslot)) && kslot[k] == s && math.Float32bits(data[k])&^(1<<31) != keptUnset {
				n++
			}
		}
	}
	return n
}

// store writes the entry bits b at slot s of col, row r's kept column,
// unless it is set: marked first (track), so a pair that reads the value
// sees the mark. An entry set at the Train's start is never marked.
func (w *keptWrites) store(col []float32, r, s int32, b uint32) {
	p := keptBits(&col[s])
	if atomic.LoadUint32(p) != keptUnset {
		return
	}
	atomic.OrUint64(&w.written[r][s>>6], 1<<(s&63))
	atomic.StoreUint32(p, b)
}

// evictFor gives row the column madeFor made for the highest row above
// it, unset again, when there is one (the budget is spent); nil otherwise.
// Called under keptColumns.mu.
func (c *keptColumns) evictFor(row int32) []float32 {
	h := c.capt
	if len(h) == 0 || h[0] < row {
		return nil
	}
	top := h[0]
	col := c.made[top]
	c.made[top] = nil
	unset := math.Float32frombits(keptUnset)
	for t := range col {
		col[t] = unset
	}
	c.made[row] = col
	h[0] = row
	siftDown(h)
	return col
}

// madeTracked records that madeFor made row's column (a heap push).
func (w *keptWrites) madeTracked(row int32) {
	h := append(w.capt, row)
	for k := len(h) - 1; k > 0; {
		p := (k - 1) / 2
		if h[p] >= h[k] {
			break
		}
		h[p], h[k] = h[k], h[p]
		k = p
	}
	w.capt = h
}

// siftDown restores the max-heap h after its root changed.
func siftDown(h []int32) {
	for k := 0; ; {
		c := 2*k + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[k] >= h[c] {
			return
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
}
