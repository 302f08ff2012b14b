package data

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/internal/hashword"
)

// Row hashes. A warm kernel Train checks that the rows its stored
// gradient was computed on are still the data set's first rows, and
// matches kept kernel columns and row norms to rows, by a hash of each
// row (RowHash). Hashing every row each Train was a tenth of a warm
// retrain with nothing changed on digits; a data set that keeps its rows'
// hashes (KeepRowHashes) hashes each row once, when it is appended, and
// the trainer reads them (RowHashes).

// RowHash returns the hash of row i alone: its label, nonzero features
// and weight. Feature j goes into lane j mod 4 of four hashword.Word
// chains, which the processor overlaps; a zero (±0) leaves its lane as it
// was (by a mask, not a branch), so dense and sparse rows hash alike. A
// weight of 1 hashes as no weight. It panics if i is not a stored row.
func (d *Dataset) RowHash(i int) uint64 {
	h := [4]uint64{hashword.Word(hashword.Seed, math.Float64bits(d.Label(i))), hashword.Seed ^ 1, hashword.Seed ^ 2, hashword.Seed ^ 3}
	if d.dense {
		x := d.DenseRow(i)
		// Four locals, not h's elements: the compiler keeps them in
		// registers, so the chains overlap (40% less time than one).
		h0, h1, h2, h3 := h[0], h[1], h[2], h[3]
		j := 0
		for ; j+4 <= len(x); j += 4 {
			h0 = hashEntry(h0, j, x[j])
			h1 = hashEntry(h1, j+1, x[j+1])
			h2 = hashEntry(h2, j+2, x[j+2])
			h3 = hashEntry(h3, j+3, x[j+3])
		}
		h = [4]uint64{h0, h1, h2, h3}
		for ; j < len(x); j++ {
			h[j&3] = hashEntry(h[j&3], j, x[j])
		}
	} else {
		idx, val := d.SparseRow(i)
		for k, j := range idx {
			h[j&3] = hashEntry(h[j&3], int(j), val[k])
		}
	}
	r := hashword.Word(hashword.Word(hashword.Word(h[0], h[1]), h[2]), h[3])
	if w := d.Weight(i); w != 1 {
		// Bounds of α depend on the weight; weight 1 hashes as a data
		// set without weights, whose gradients stay usable.
		r = hashword.Word(r, math.Float64bits(w))
	}
	return r
}

// hashEntry folds feature j's value v into lane h, or returns h when v is
// ±0, without a branch.
func hashEntry(h uint64, j int, v float32) uint64 {
	b := math.Float32bits(v)
	keep := -((uint64(b&0x7fff_ffff) + 0x7fff_ffff) >> 31) // all ones unless v is ±0
	return h ^ (hashword.Word(h, uint64(j)<<32|uint64(b))^h)&keep
}

// KeepRowHashes makes d keep the hash of each of its rows (RowHash) from
// now on: those of the rows stored are computed here, each row appended
// later is hashed as it is appended, and DeleteRows, SetWeight and
// SetWeights keep them current, so RowHashes returns them without reading
// the rows. It allocates 8 bytes a row of capacity, once; calling it again
// does nothing. For a data set a trainer retrains on after small changes
// (the C ABI trainer's, the daemon's store); the rows must change only
// through d's methods, never by writing into the slices DenseRow,
// SparseRow or Labels return.
func (d *Dataset) KeepRowHashes() {
	if d.hashes != nil {
		return
	}
	d.hashes = make([]uint64, len(d.y))
	for i := range d.rows {
		d.hashes[i] = d.RowHash(i)
	}
}

// RowHashes returns RowHash of every stored row when d keeps them
// (KeepRowHashes; a Prefix or RowRange view of such a data set shows its
// rows' part), nil otherwise. The slice aliases d's storage: read only,
// valid until d changes.
func (d *Dataset) RowHashes() []uint64 {
	if d.hashes == nil {
		return nil
	}
	return d.hashes[:d.rows]
}

// rehash recomputes the kept hash of row i (after its weight changed).
func (d *Dataset) rehash(i int) {
	if d.hashes != nil {
		d.hashes[i] = d.RowHash(i)
	}
}
