package core

import (
	"math"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/simd"
)

// The matrices Q the SMO solver minimizes ½αᵀQα + pᵀα over, one per
// formulation (Chang & Lin, "LIBSVM: A Library for Support Vector
// Machines", ACM TIST 2011, Sections 2.1–2.3):
//
//	C-SVC:      Q_ij = y_i y_j K(x_i, x_j)
//	one-class:  Q_ij = K(x_i, x_j)
//	ε-SVR:      2l variables (α, α*); Q_st = z_s z_t K(x_{s mod l}, x_{t mod l})
//	            with z_t = +1 for t < l and −1 for t ≥ l
//
// Columns are float32, filled through the kernel cache; the diagonal QD is
// float64. Each matrix follows the solver's variable swaps (shrinking).
// After construction nothing allocates.

// svcQ is the Q matrix of C-SVC, and (with y nil) of one-class SVM.
type svcQ struct {
	kr    *kernelRows
	cache *kernelCache
	index []int32   // variable t is data row index[t]
	y     []int8    // ±1 per variable; nil: all +1
	qd    []float64 // Q_tt
	cols  columnSplitter
	// rowBuf holds data rows for entries (kernelwarm.go), len(index) long.
	rowBuf []int32
	// split is where the labels change when they are grouped, +1 first
	// (y_t = +1 for t < split, −1 from there), as a one-vs-one pair's are
	// in the identity ordering; −1 when they are not (swapIndex of
	// variables of two labels, or no y). getQ's signs then negate one
	// range (sign).
	split int
	// keptReader reads the kernel columns kept from the last warm Train;
	// kslot is kept in step with the swaps: one load fewer per entry read.
	keptReader
	// across says fill reads a column without a kept one from the other
	// rows' kept columns (keptColumns.fillAcross), and entries what the
	// kept columns hold (keptColumns.entriesKept): rows of at least
	// acrossMinWidth values (keptColumns.wide), where a kernel value costs
	// more than the scattered read.
	across bool

	// kernelEvals counts the kernel values computed (cache misses), the
	// measure of a training run's work.
	kernelEvals int64
	// unkept counts the columns computed since the cache was emptied
	// for variables without a kept column: what keptColumns.capture can
	// copy; none after most warm pairs, whose columns all come from the
	// kept ones.
	unkept int
	// reuse keeps the cache (and Q's diagonal) when reset is given the
	// rows and labels q already holds: set by a caller that trains the same
	// rows with the same kernel again, where only C changes and Q does not
	// (a grid search's C path, grid.go).
	reuse bool
	// stale says assign changed the variables and init has not run.
	stale bool
}

// newSVCQ returns the C-SVC matrix of the variables rows (data rows of
// kr's data set, copied) with labels y (±1, copied), caching columns
// within cacheBytes (see kernelCacheBytes for what is allocated). It
// panics if the lengths of rows and y differ.
func newSVCQ(kr *kernelRows, rows []int32, y []int8, cacheBytes int64) *svcQ {
	q := &svcQ{
		kr:     kr,
		cache:  newKernelCache(len(rows), cacheBytes),
		index:  make([]int32, len(rows)),
		y:      make([]int8, len(rows)),
		qd:     make([]float64, len(rows)),
		rowBuf: make([]int32, len(rows)),
	}
	q.reset(rows, y)
	return q
}

// reset makes q the matrix of another set of variables, at most as many as
// q was built for, reusing its buffers and cache (for the subproblems of
// one-vs-one). It panics if rows and y differ in length or are too long.
func (q *svcQ) reset(rows []int32, y []int8) {
	q.assign(rows, y)
	q.prepare()
}

// assign is reset without its per-variable passes (QD, the kept slots,
// the cache emptied), which prepare makes: entries works after it, getQ
// and QD after prepare. A warm pair that warmSettled finds optimal reads
// no column: on digits (-M 20, nothing changed, 45 settled pairs) those
// passes were a tenth of a retrain's instructions.
func (q *svcQ) assign(rows []int32, y []int8) {
	if len(rows) != len(y) || len(rows) > cap(q.index) {
		panic("core: svcQ.reset: bad sizes")
	}
	q.kernelEvals = 0
	if q.reuse && !q.stale && slices.Equal(q.index, rows) && slices.Equal(q.y, y) {
		q.split = labelSplit(q.y) // a solve leaves Q in its identity ordering
		return
	}
	q.index = append(q.index[:0], rows...)
	q.y = append(q.y[:0], y...)
	q.across = q.kept != nil && q.kept.wide
	q.stale = true
}

// prepare makes what assign left to make.
func (q *svcQ) prepare() {
	if q.stale {
		q.init()
	}
}

// init fills QD and empties the cache for the variables in q.index.
func (q *svcQ) init() {
	l := len(q.index)
	q.qd = q.qd[:l]
	if q.kr.k.Type == RBFKernel && l > 0 {
		// The same value for every row: one exp per subproblem, not one
		// per variable.
		d := q.kr.diag(int(q.index[0]))
		for t := range q.qd {
			q.qd[t] = d
		}
	} else {
		for t, r := range q.index {
			q.qd[t] = q.kr.diag(int(r)) // y_t² = 1
		}
	}
	q.across = q.kept != nil && q.kept.wide
	if q.kept != nil {
		q.kslot = q.kslot[:l]
		simd.GatherInt32(q.kslot, q.kept.oldOf, q.index)
		if q.kept.track {
			for t, s := range q.kslot {
				q.kpos[s] = int32(t)
			}
		}
	}
	q.cache.reset(l)
	q.unkept = 0
	q.split = labelSplit(q.y)
	q.stale = false
}

// labelSplit returns the position of the first −1 in y (len(y) for none)
// when every +1 comes before every −1, else −1; −1 for nil y.
func labelSplit(y []int8) int {
	if y == nil {
		return -1
	}
	s := len(y)
	for t, v := range y {
		if v < 0 {
			s = t
			break
		}
	}
	for _, v := range y[s:] {
		if v > 0 {
			return -1
		}
	}
	return s
}

// getQ returns Q's column i, entries 0..length-1 in the current ordering.
// The slice is valid until the second getQ after this one or the next
// swapIndex.
func (q *svcQ) getQ(i, length int) []float32 {
	data, have := q.cache.get(i, length)
	if have < length && !q.fill(data, i, have, length) && q.y != nil {
		q.sign(data, i, have, length)
	}
	return data
}

// sign turns K's entries data[have:length] of column i into Q's, Q_it =
// y_i y_t K_it: with the labels grouped (split) only the other label's
// range changes sign, a third of signLabels's work a value (a tenth of a
// warm retrain's instructions on digits went to signLabels).
func (q *svcQ) sign(data []float32, i, have, length int) {
	s := q.split
	if s < 0 {
		signLabels(data[have:length], q.y[have:length], q.y[i])
		return
	}
	lo, hi := s, length // y_i = +1: the −1 rows
	if i >= s {
		lo, hi = have, s // y_i = −1: the +1 rows
	}
	if lo, hi = max(lo, have), min(hi, length); lo < hi {
		negate32(data[lo:hi])
	}
}

// negate32 flips the sign bit of every value of v, as signLabels does
// where labels differ.
func negate32(v []float32) { simd.FlipSigns32(v, nil, 0) }

// signLabels negates col[t] where y[t] ≠ yi (Q_it = y_i y_t K_it) by
// flipping its sign bit, without a branch and eight values a step
// (simd.FlipSigns32): a pair's labels come in no order, and the branch,
// mispredicted about every other entry, was 12% of a warm retrain's
// profile on a Fashion-MNIST pair; the branchless loop entry by entry
// was ~8% of a shuttle warm retrain's instructions (-M 400, shrunk
// orderings). It panics if y is shorter than col.
func signLabels(col []float32, y []int8, yi int8) { simd.FlipSigns32(col, y, yi) }

// fill computes K's entries data[have:length] of column i, reading those
// of a kept column where there is one (kkeep.go). It reports whether it
// wrote Q's entries (signed by the labels, as the kept column's gather
// does) rather than K's.
func (q *svcQ) fill(data []float32, i, have, length int) bool {
	if q.readKept(&q.kernelEvals, &q.cols, q.kr, data, q.index, q.y, i, have, length, q.rowBuf) {
		return true
	}
	if q.across {
		// No kept column of i's row: the kept columns of the other rows
		// may hold their entries against it (a new row's, from the warm
		// start's gradient: kernelwarm.go's entries keeps them).
		var rows []int32
		var written int64
		q.missing, rows, written = q.kept.fillAcross(data, q.index, q.kslot[i], have, length, q.missing, q.rowBuf)
		q.kernelEvals += written
		if n := len(rows); n < length-have {
			if n > 0 {
				q.computeMissing(data, i, rows)
			}
			if q.kept.track {
				// A column to capture however many entries the
				// others held: how many did depends on timing when
				// pairs run at once (kkeepwrites.go).
				q.unkept++
			}
			return false
		}
	}
	q.cols.column(q.kr, data[have:length], int(q.index[i]), q.index[have:length])
	q.kernelEvals += int64(length - have)
	q.unkept++
	return false
}

// keptReader is what a matrix reads kernel columns kept from the last
// warm Train with (kkeep.go): kept, when not nil, holds them; kslot
// holds each variable's slot in them (keptColumns.oldOf of its row, for
// svrQ of its sample's); missing and keptBuf hold the positions and values
// of the entries a kept column lacks.
type keptReader struct {
	kept    *keptColumns
	missing []int32
	keptBuf []float32
	kslot   []int32
	// kpos maps a slot to its variable (kslot's inverse, for the
	// variables' slots; the others' entries are stale) when the kept
	// columns track their writes (kkeepwrites.go): 2·capRows long.
	kpos []int32
}

// readKept sets data[have:length] of the column of row index[i] against
// the rows index[have:length] from its kept column, computing (through
// rowBuf, counted in evals) and keeping the entries it lacks. With labels
// y (±1 a variable) it writes Q's entries y_i y_t K_it, K's without. It
// reports whether there is such a column.
func (k *keptReader) readKept(evals *int64, cols *columnSplitter, kr *kernelRows, data []float32, index []int32, y []int8, i, have, length int, rowBuf []int32) bool {
	if k.kept == nil {
		return false
	}
	ok, missing, rows, written := k.kept.fill(data, index, k.kslot, k.kpos, y, i, have, length, k.missing, rowBuf)
	k.missing = missing
	*evals += written
	if ok && len(rows) > 0 {
		buf := k.keptBuf[:len(rows)]
		*evals += computeMissing(cols, kr, data, buf, index[i], rows, missing)
		k.kept.keep(index[i], rows, buf)
		if y != nil {
			yi := y[i]
			for _, t := range missing {
				if y[t] != yi {
					data[t] = math.Float32frombits(math.Float32bits(data[t]) ^ (1 << 31))
				}
			}
		}
	}
	return ok
}

// computeMissing computes the entries K(x_{index[i]}, x_r) of the rows r
// in rows into data at the positions q.missing lists (one each), counts
// them, and returns them in q.keptBuf for the caller to keep.
func (q *svcQ) computeMissing(data []float32, i int, rows []int32) []float32 {
	buf := q.keptBuf[:len(rows)]
	q.kernelEvals += computeMissing(&q.cols, q.kr, data, buf, q.index[i], rows, q.missing)
	return buf
}

// computeMissing sets buf[k] = K(x_row, x_rows[k]) and data[missing[k]]
// to it, and returns the kernel values computed (len(rows)).
func computeMissing(cols *columnSplitter, kr *kernelRows, data, buf []float32, row int32, rows, missing []int32) int64 {
	cols.column(kr, buf, int(row), rows)
	for k, t := range missing {
		data[t] = buf[k]
	}
	return int64(len(rows))
}

// acrossMinWidth is the narrowest rows (values a row) for which svcQ.fill
// reads a column without a kept one from the other rows' kept columns.
// On shuttle's 9 features that read was 6% of a warm retrain's profile
// (-M 400) for 0.7% fewer kernel values; on Fashion-MNIST's 784 it took
// a quarter of the pair's kernel values away. The trainers keep columns
// by default on rows of every width (options.KeepMinRowWidth), and read
// them across from this one.
const acrossMinWidth = 64

// QD returns Q's diagonal in the current ordering.
func (q *svcQ) QD() []float64 { return q.qd }

// swapIndex exchanges variables i and j.
func (q *svcQ) swapIndex(i, j int) {
	q.cache.swapIndex(i, j)
	q.index[i], q.index[j] = q.index[j], q.index[i]
	if q.kept != nil {
		q.kslot[i], q.kslot[j] = q.kslot[j], q.kslot[i]
		if q.kept.track {
			q.kpos[q.kslot[i]], q.kpos[q.kslot[j]] = int32(i), int32(j)
		}
	}
	if q.y != nil {
		if q.y[i] != q.y[j] {
			q.split = -1
		}
		q.y[i], q.y[j] = q.y[j], q.y[i]
	}
	q.qd[i], q.qd[j] = q.qd[j], q.qd[i]
}

// oneClassQ is the Q matrix of one-class SVM: the kernel matrix itself.
type oneClassQ struct{ *svcQ }

// newOneClassQ returns the one-class matrix of the variables rows (data
// rows of kr's data set, copied), caching columns within cacheBytes.
func newOneClassQ(kr *kernelRows, rows []int32, cacheBytes int64) oneClassQ {
	q := &svcQ{
		kr:     kr,
		cache:  newKernelCache(len(rows), cacheBytes),
		index:  append([]int32(nil), rows...),
		qd:     make([]float64, len(rows)),
		rowBuf: make([]int32, len(rows)),
	}
	q.init()
	return oneClassQ{q}
}

// svrQ is the Q matrix of ε-SVR over 2l variables: variable t < l is α_t
// (sign +1), variable t ≥ l is α*_{t−l} (sign −1). The cache holds kernel
// columns of the l samples, in their original order (they are not swapped:
// a swap moves variables, and each sample appears twice); getQ builds the
// signed 2l-entry column in one of two buffers, used in turn so that the
// two columns the solver holds at once stay valid.
type svrQ struct {
	kr    *kernelRows
	cache *kernelCache
	rows  []int32   // sample r is data row rows[r]
	index []int32   // variable t is sample index[t]
	sign  []int8    // ±1 per variable
	qd    []float64 // Q_tt = K(x_r, x_r)
	buf   [2][]float32
	next  int // the buffer the next getQ fills
	cols  columnSplitter
	// identity says index and sign are as newSVRQ made them (α_t then
	// α*_t, in sample order): no swapIndex since.
	identity bool
	// rowBuf holds data rows for entries (kernelwarm.go), 2·len(rows) long.
	rowBuf []int32
	// keptReader reads the kernel columns kept from the last warm Train
	// by sample (the cache's order, which swaps do not change).
	keptReader

	// kernelEvals counts the kernel values computed (cache misses);
	// unkept the columns computed for samples without a kept column
	// (svcQ's).
	kernelEvals int64
	unkept      int
}

// newSVRQ returns the ε-SVR matrix of the samples rows (data rows of kr's
// data set, copied), caching kernel columns within cacheBytes; it also
// allocates two buffers of 2·len(rows) float32 for the signed columns.
func newSVRQ(kr *kernelRows, rows []int32, cacheBytes int64) *svrQ {
	l := len(rows)
	q := &svrQ{
		kr:       kr,
		cache:    newKernelCache(l, cacheBytes),
		rows:     append([]int32(nil), rows...),
		index:    make([]int32, 2*l),
		sign:     make([]int8, 2*l),
		qd:       make([]float64, 2*l),
		buf:      [2][]float32{make([]float32, 2*l), make([]float32, 2*l)},
		rowBuf:   make([]int32, 2*l),
		identity: true,
	}
	for r, d := range q.rows {
		k := q.kr.diag(int(d))
		q.index[r], q.sign[r], q.qd[r] = int32(r), 1, k
		q.index[r+l], q.sign[r+l], q.qd[r+l] = int32(r), -1, k
	}
	return q
}

// getQ returns Q's column i, entries 0..length-1 in the current ordering.
// The slice is valid until the second getQ after this one.
func (q *svrQ) getQ(i, length int) []float32 {
	l := len(q.rows)
	r := q.index[i]
	data, have := q.cache.get(int(r), l)
	if have < l {
		q.fill(data, int(r), have, l)
	}
	buf := q.buf[q.next][:length]
	q.next ^= 1
	si := q.sign[i]
	if q.identity {
		// Variables in the order newSVRQ made (no swap yet: every warm
		// start of up to 1000 samples, which shrinks late or never):
		// the column, then its negation, each times y_i. The loop below
		// took a seventh of a warm retrain's instructions on diabetes.
		n := min(length, l)
		copy(buf[:n], data[:n])
		if si < 0 {
			negate32(buf[:n])
		}
		if length > l {
			rest := buf[l:length]
			copy(rest, data[:length-l])
			if si > 0 {
				negate32(rest)
			}
		}
		return buf
	}
	index, sign := q.index[:length], q.sign[:length]
	for t, s := range index {
		// The sign flip without a branch (the signs of the shrunk
		// ordering do not predict): ±1 XOR ±1 is 0 when equal, −2 when
		// not, whose int32 form has the sign bit set.
		flip := uint32(int32(sign[t]^si)) & (1 << 31)
		buf[t] = math.Float32frombits(math.Float32bits(data[s]) ^ flip)
	}
	return buf
}

// fill computes K's entries data[have:l] of sample r's column, reading
// those of a kept column where there is one (kkeep.go). Without it a warm
// retrain computed again the columns of the variables it works on and of
// the α it changes, which the last retrain had computed: on diabetes's
// stream (-M 20, 3 of 349 rows in and out) 0.53 of the kernel values, on
// digits's values (-s 3, 64 features) 0.39 and 0.72 of the instructions.
// Narrow rows gain no CPU (diabetes's 8 features: 1.2 times, the kept
// columns' bookkeeping costing what the values saved did; 1.13 with
// kkeep.go's spare columns and plain stores), which is why
// options.Incremental keeps none for regression.
func (q *svrQ) fill(data []float32, r, have, l int) {
	if q.readKept(&q.kernelEvals, &q.cols, q.kr, data, q.rows, nil, r, have, l, q.rowBuf) {
		return
	}
	q.cols.column(q.kr, data[have:l], int(q.rows[r]), q.rows[have:l])
	q.kernelEvals += int64(l - have)
	q.unkept++
}

// QD returns Q's diagonal in the current ordering.
func (q *svrQ) QD() []float64 { return q.qd }

// twin returns the variable of the same sample with the other sign (α*_t
// for α_t and back), whose row of Q is the negation of i's, when it is
// where the identity ordering puts it (l away); −1 otherwise (qTwins).
func (q *svrQ) twin(i int) int {
	l := len(q.rows)
	u := i + l
	if i >= l {
		u = i - l
	}
	if u >= 0 && u < len(q.index) && q.index[u] == q.index[i] && q.sign[u] == -q.sign[i] {
		return u
	}
	return -1
}

// swapIndex exchanges variables i and j.
func (q *svrQ) swapIndex(i, j int) {
	q.identity = q.identity && i == j
	q.index[i], q.index[j] = q.index[j], q.index[i]
	q.sign[i], q.sign[j] = q.sign[j], q.sign[i]
	q.qd[i], q.qd[j] = q.qd[j], q.qd[i]
}
