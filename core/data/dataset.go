package data

import (
	"errors"
	"fmt"
	"math"
)

// ErrFull is returned when appending a row would exceed a data set's
// capacity. Data sets never grow: capacity is fixed at construction.
var ErrFull = errors.New("core: data set is full")

// ErrBadRow is wrapped by the errors Append returns for a row that is not
// valid (indices not strictly increasing, out of range, non-finite values).
var ErrBadRow = errors.New("core: bad row")

// Dataset is a fixed-capacity set of labelled rows, stored either sparse
// (CSR: int32 indices and float32 values, 8 bytes a nonzero) or dense
// (row-major float32, 4 bytes a feature). The layout is chosen at
// construction; both accept sparse and dense rows on Append.
//
// Solvers read rows through Dot, AddScaledTo and SquaredNorm, so the same
// solver code runs over both layouts.
type Dataset struct {
	dense       bool
	numFeatures int // dense: the row width; sparse: 1 + largest index stored
	maxFeatures int // sparse: indices must be below this (0 = no limit)
	rows        int

	y []float64 // labels or targets, len = row capacity

	// sparse (CSR)
	rowStart []int // len = row capacity + 1; row i is [rowStart[i], rowStart[i+1])
	index    []int32
	value    []float32

	// dense
	x []float32 // row capacity × numFeatures

	// weight holds each row's instance weight (weights.go); nil while
	// every row weighs 1, else len = row capacity.
	weight []float64

	// hashes holds RowHash of each row (rowhash.go); nil unless
	// KeepRowHashes, else len = row capacity.
	hashes []uint64
}

// NewSparse returns an empty sparse data set that holds up to capRows rows
// and capNonzeros nonzeros in all. maxFeatures, when positive, bounds the
// feature indices accepted (index < maxFeatures); 0 accepts any int32.
// It panics if a capacity is negative.
func NewSparse(capRows, capNonzeros, maxFeatures int) *Dataset {
	if capRows < 0 || capNonzeros < 0 || maxFeatures < 0 {
		panic("core: NewSparse: negative capacity")
	}
	return &Dataset{
		maxFeatures: maxFeatures,
		y:           make([]float64, capRows),
		rowStart:    make([]int, capRows+1),
		index:       make([]int32, capNonzeros),
		value:       make([]float32, capNonzeros),
	}
}

// NewDense returns an empty dense data set of up to capRows rows, each of
// numFeatures float32 values. It panics if a size is negative or their
// product overflows an int (on a 32-bit platform, past 2³¹ values):
// callers size data sets from checked counts (core.CheckMemory).
func NewDense(capRows, numFeatures int) *Dataset {
	if capRows < 0 || numFeatures < 0 {
		panic("core: NewDense: negative size")
	}
	if numFeatures > 0 && capRows > math.MaxInt/numFeatures {
		panic("core: NewDense: capRows × numFeatures overflows int")
	}
	return &Dataset{
		dense:       true,
		numFeatures: numFeatures,
		maxFeatures: numFeatures,
		y:           make([]float64, capRows),
		x:           make([]float32, capRows*numFeatures),
	}
}

// PreferDense reports whether rows × numFeatures with nonzeros entries are
// better stored dense: when dense costs at most 25% more memory than CSR
// (4 bytes a cell against 8 a nonzero, so density ≥ 40%). Contiguous rows
// run dot products without CSR's index loads and gathers: on Fashion-MNIST
// (49.8% dense) a DCD coordinate update took 863 ns dense against 1423 ns
// sparse. The readers use this rule to pick a layout.
func PreferDense(rows, numFeatures, nonzeros int) bool {
	return 4*rows*numFeatures <= 10*nonzeros
}

// Len returns the number of rows stored.
func (d *Dataset) Len() int { return d.rows }

// CapRows returns the row capacity.
func (d *Dataset) CapRows() int { return len(d.y) }

// CapNonzeros returns the nonzero capacity of a sparse data set, and the
// cell count (rows × features) of a dense one.
func (d *Dataset) CapNonzeros() int {
	if d.dense {
		return len(d.x)
	}
	return len(d.index)
}

// Nonzeros returns the number of stored entries: nonzeros for a sparse data
// set, rows × features for a dense one.
func (d *Dataset) Nonzeros() int {
	if d.dense {
		return d.rows * d.numFeatures
	}
	return d.rowStart[d.rows]
}

// IsDense reports whether the data set is stored row-major dense.
func (d *Dataset) IsDense() bool { return d.dense }

// NumFeatures returns the number of features: the row width of a dense data
// set, 1 + the largest index stored in a sparse one.
func (d *Dataset) NumFeatures() int { return d.numFeatures }

// Label returns the label (or regression target) of row i.
func (d *Dataset) Label(i int) float64 { return d.y[:d.rows][i] }

// Labels returns the labels of the stored rows. The slice aliases the data
// set's storage and is valid until the next Append, Truncate or Reset.
func (d *Dataset) Labels() []float64 { return d.y[:d.rows] }

// SparseRow returns row i of a sparse data set as views into its storage.
// It panics if the data set is dense.
func (d *Dataset) SparseRow(i int) (index []int32, value []float32) {
	if d.dense {
		panic("core: SparseRow on a dense data set")
	}
	_ = d.y[:d.rows][i]
	s, e := d.rowStart[i], d.rowStart[i+1]
	return d.index[s:e:e], d.value[s:e:e]
}

// DenseRow returns row i of a dense data set as a view into its storage.
// It panics if the data set is sparse.
func (d *Dataset) DenseRow(i int) []float32 {
	if !d.dense {
		panic("core: DenseRow on a sparse data set")
	}
	_ = d.y[:d.rows][i]
	n := d.numFeatures
	return d.x[i*n : i*n+n : i*n+n]
}

// Reset removes every row; capacity is kept.
func (d *Dataset) Reset() { d.Truncate(0) }

// Truncate keeps the first n rows and drops the rest, leaving no trace of
// them: a sparse data set's NumFeatures becomes that of the rows kept (found
// from each kept row's last index, so Truncate costs O(n) there). It panics
// if n is negative or above Len.
func (d *Dataset) Truncate(n int) {
	if n < 0 || n > d.rows {
		panic("core: Truncate out of range")
	}
	if d.dense {
		clear(d.x[n*d.numFeatures : d.rows*d.numFeatures])
	} else {
		d.numFeatures = 0
		for i := range n {
			if e := d.rowStart[i+1]; e > d.rowStart[i] {
				d.numFeatures = max(d.numFeatures, int(d.index[e-1])+1)
			}
		}
	}
	d.rows = n
}

// ResetDense empties a dense data set and makes its rows numFeatures wide,
// within the storage it was made with: a dense copy of rows of varying
// width kept in one buffer (the kernel trainer's view of a sparse data set
// whose rows are mostly nonzero). It panics if the data set is sparse or
// numFeatures is negative or wider than NewDense's.
func (d *Dataset) ResetDense(numFeatures int) {
	if !d.dense || numFeatures < 0 || numFeatures*len(d.y) > len(d.x) {
		panic("core: ResetDense: sparse data set or width beyond its storage")
	}
	d.Truncate(0)
	d.numFeatures, d.maxFeatures = numFeatures, numFeatures
}

// ResetDenseFrom empties the dense d, makes its rows as wide as src's and
// fills them with src's rows (labels and values; weights 1): the kernel
// trainer's dense view of a sparse data set, rebuilt at every Train. The
// rows passed Append's checks when they were stored in src, so they are
// scattered without them, where AppendSparse's checks on a dense data set
// were two thirds of the copy (10,000 rows of 9 features). It panics if d
// is sparse or cannot hold src's rows at src's width.
func (d *Dataset) ResetDenseFrom(src *Dataset) {
	n, l := src.NumFeatures(), src.Len()
	if !d.dense || l > len(d.y) || l*n > len(d.x) {
		panic("core: ResetDenseFrom: sparse data set, or src's rows beyond its storage")
	}
	// Storage past the last row reads as zero (AppendSparse's
	// invariant): what the old rows used beyond the new ones is cleared,
	// the new ones are written whole.
	if used := d.rows * d.numFeatures; used > l*n {
		clear(d.x[l*n : used])
	}
	d.numFeatures, d.maxFeatures = n, n
	x := d.x[:l*n]
	switch {
	case src.dense:
		copy(x, src.x[:l*n])
	case src.rowStart[l] == l*n:
		// Every row full (indices 0 to n−1): the values are the matrix.
		copy(x, src.value[:l*n])
	default:
		for i := range l {
			row := x[i*n : i*n+n]
			a, b := src.rowStart[i], src.rowStart[i+1]
			if b-a == n {
				// n increasing indices below n: 0 to n−1.
				copy(row, src.value[a:b])
				continue
			}
			clear(row)
			for p, j := range src.index[a:b] {
				row[j] = src.value[a+p]
			}
		}
	}
	copy(d.y, src.y[:l])
	if d.weight != nil {
		for i := range l {
			d.weight[i] = 1
		}
	}
	d.rows = l
	for i := range l {
		d.rehash(i)
	}
}

// AppendSparse appends a row given by its nonzeros: 0-based indices, strictly
// increasing, with their values. Zero values are accepted and dropped.
// It returns ErrFull when the row does not fit, and an error wrapping
// ErrBadRow when an index is out of order or range or a value is not
// finite; the data set is unchanged on error. It panics if the slices'
// lengths differ.
func (d *Dataset) AppendSparse(label float64, index []int32, value []float32) error {
	if len(index) != len(value) {
		panic("core: AppendSparse: index and value lengths differ")
	}
	if d.dense || d.rows == len(d.y) {
		if err := d.checkSparse(label, index, value); err != nil {
			return err
		}
		if d.rows == len(d.y) {
			return ErrFull
		}
		row := d.x[d.rows*d.numFeatures : (d.rows+1)*d.numFeatures]
		for k, j := range index {
			row[j] = value[k]
		}
	} else {
		// One pass checks and copies: the copy lands past the last row
		// and counts only once rowStart[rows+1] is set.
		if math.IsNaN(label) || math.IsInf(label, 0) {
			return d.rowError(label, index, value)
		}
		p := d.rowStart[d.rows]
		prev := int32(-1)
		for k, j := range index {
			v := value[k]
			if j <= prev || v-v != 0 || (d.maxFeatures > 0 && int(j) >= d.maxFeatures) {
				return d.rowError(label, index, value) // v-v != 0: NaN or ±Inf
			}
			prev = j
			if v != 0 {
				if p == len(d.index) {
					if err := d.checkSparse(label, index, value); err != nil {
						return err
					}
					return ErrFull
				}
				d.index[p], d.value[p] = j, v
				p++
			}
		}
		if p > d.rowStart[d.rows] && int(d.index[p-1])+1 > d.numFeatures {
			// the last stored index is the largest; an explicit zero past
			// it does not widen the data set.
			d.numFeatures = int(d.index[p-1]) + 1
		}
		d.rowStart[d.rows+1] = p
	}
	d.y[d.rows] = label
	d.appended()
	return nil
}

// appendParsedDense is AppendSparse for a dense data set with room for a
// row that a LIBSVM line was parsed into, partly in place: the next row
// holds the features the parser wrote there, index and value the rest of
// the line's, and label is finite (lineParser). Only what the parser
// cannot know is checked, that index fits the data set, as AppendSparse
// checks it; on error the data set is unchanged but for that row, which
// the caller clears.
func (d *Dataset) appendParsedDense(label float64, index []int32, value []float32) error {
	if n := len(index); n > 0 && (index[0] < 0 || int(index[n-1]) >= d.maxFeatures) {
		return d.checkSparse(label, index, value)
	}
	row := d.x[d.rows*d.numFeatures : (d.rows+1)*d.numFeatures]
	for k, j := range index {
		row[j] = value[k]
	}
	d.y[d.rows] = label
	d.appended()
	return nil
}

// rowError names what is wrong with a row AppendSparse's fast loop refused.
func (d *Dataset) rowError(label float64, index []int32, value []float32) error {
	if err := d.checkSparse(label, index, value); err != nil {
		return err
	}
	panic("core: AppendSparse and checkSparse disagree on a row")
}

func (d *Dataset) checkSparse(label float64, index []int32, value []float32) error {
	if math.IsNaN(label) || math.IsInf(label, 0) {
		return fmt.Errorf("%w: label %v is not finite", ErrBadRow, label)
	}
	// A dense data set's rows hold maxFeatures (= numFeatures) values, so
	// its limit holds even at 0; a sparse one's 0 means no limit.
	limit, limited := d.maxFeatures, d.maxFeatures > 0 || d.dense
	prev := int32(-1)
	for k, j := range index {
		if j <= prev {
			if j < 0 {
				return fmt.Errorf("%w: index %d is negative", ErrBadRow, j)
			}
			return fmt.Errorf("%w: index %d after %d: indices must increase", ErrBadRow, j, prev)
		}
		if limited && int(j) >= limit {
			return fmt.Errorf("%w: index %d beyond the %d features allowed", ErrBadRow, j, limit)
		}
		if v := float64(value[k]); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: value %v at index %d is not finite", ErrBadRow, v, j)
		}
		prev = j
	}
	return nil
}

// AppendDense appends a row given by all its values. On a sparse data set
// only the nonzeros are stored. Errors are as for AppendSparse. It panics if
// the data set is dense and len(x) differs from NumFeatures.
func (d *Dataset) AppendDense(label float64, x []float32) error {
	if math.IsNaN(label) || math.IsInf(label, 0) {
		return fmt.Errorf("%w: label %v is not finite", ErrBadRow, label)
	}
	for j, v := range x {
		// All exponent bits set: an infinity or a NaN (one test a value,
		// not math.IsNaN and IsInf on a float64: a decoded 10 MB model's
		// support vectors all pass here).
		if math.Float32bits(v)&0x7f800000 == 0x7f800000 {
			return fmt.Errorf("%w: value %v at index %d is not finite", ErrBadRow, v, j)
		}
	}
	if d.dense {
		if len(x) != d.numFeatures {
			panic("core: AppendDense: row length differs from NumFeatures")
		}
		if d.rows == len(d.y) {
			return ErrFull
		}
		copy(d.x[d.rows*d.numFeatures:], x)
		d.y[d.rows] = label
		d.appended()
		return nil
	}
	if d.maxFeatures > 0 && len(x) > d.maxFeatures {
		for j := d.maxFeatures; j < len(x); j++ {
			if x[j] != 0 {
				return fmt.Errorf("%w: index %d beyond the %d features allowed", ErrBadRow, j, d.maxFeatures)
			}
		}
	}
	if d.rows == len(d.y) {
		return ErrFull
	}
	p := d.rowStart[d.rows]
	nz := 0
	for _, v := range x {
		if v != 0 {
			nz++
		}
	}
	if p+nz > len(d.index) {
		return ErrFull
	}
	for j, v := range x {
		if v != 0 {
			d.index[p], d.value[p] = int32(j), v
			p++
			d.numFeatures = max(d.numFeatures, j+1)
		}
	}
	d.rowStart[d.rows+1] = p
	d.y[d.rows] = label
	d.appended()
	return nil
}

// Dot returns x_i · w over the first min(NumFeatures, len(w)) features; w
// entries past the data set's features are ignored, and so are features
// past len(w).
func (d *Dataset) Dot(i int, w []float64) float64 {
	if d.dense {
		return dotDense(d.DenseRow(i), w)
	}
	idx, val := d.SparseRow(i)
	return dotSparse(idx, val, w)
}

// AddScaledTo adds a·x_i to dst (dst += a·x_i). Features at or past len(dst)
// are skipped.
func (d *Dataset) AddScaledTo(dst []float64, a float64, i int) {
	if d.dense {
		axpyDense(dst, a, d.DenseRow(i))
		return
	}
	idx, val := d.SparseRow(i)
	axpySparse(dst, a, idx, val)
}

// SquaredNorm returns x_i · x_i.
func (d *Dataset) SquaredNorm(i int) float64 {
	var s float64
	if d.dense {
		for _, v := range d.DenseRow(i) {
			s += float64(v) * float64(v)
		}
		return s
	}
	_, val := d.SparseRow(i)
	for _, v := range val {
		s += float64(v) * float64(v)
	}
	return s
}

// TouchRow reads one value per 64-byte cache line of row i and returns
// their sum. Solvers visit rows in random order, so each row's first reads
// would wait out a memory miss; touching the next row while the current one
// is processed lets those misses overlap with useful work (Go has no
// prefetch instruction, but these independent loads act as one). The
// caller keeps the sum so the loads are not optimized away.
func (d *Dataset) TouchRow(i int) float32 {
	var s float32
	if d.dense {
		x := d.DenseRow(i)
		for k := 0; k < len(x); k += 16 {
			s += x[k]
		}
		return s
	}
	idx, val := d.SparseRow(i)
	for k := 0; k < len(val); k += 16 {
		s += val[k] + float32(idx[k])
	}
	return s
}
