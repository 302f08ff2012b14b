package rowscale

import (
	"fmt"
	"math"
	"sync"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// FitScale returns svm-scale's ranges for the rows of ds onto [lower,
// upper]: each feature's minimum and maximum over the rows, a row that
// does not store a feature counting as 0. A feature whose range cannot
// scale finitely onto [lower, upper] (scale.Scalable: a range a denormal
// wide) is dropped, as a constant one is, so the model predicts finite
// values. It returns an error wrapping scale.ErrRanges unless lower <
// upper within ±scale.MaxLimit, and ErrTooLarge when the ranges of
// NumFeatures features exceed the machine's memory.
func FitScale(ds *data.Dataset, lower, upper float64) (*scale.Ranges, error) {
	n := ds.NumFeatures()
	if err := (&scale.Ranges{Lower: lower, Upper: upper}).Validate(); err != nil {
		return nil, err
	}
	if err := model.CheckMemory("scaling ranges", 24*int64(n)); err != nil {
		return nil, err
	}
	r := &scale.Ranges{Lower: lower, Upper: upper, Min: make([]float64, n), Max: make([]float64, n)}
	defer dropUnscalable(r)
	rows := ds.Len()
	if rows == 0 {
		return r, nil
	}
	for j := range n {
		r.Min[j], r.Max[j] = math.Inf(1), math.Inf(-1)
	}
	if ds.IsDense() {
		for i := range rows {
			for j, v := range ds.DenseRow(i) {
				f := float64(v)
				r.Min[j], r.Max[j] = min(r.Min[j], f), max(r.Max[j], f)
			}
		}
		return r, nil
	}
	seen := make([]int, n)
	for i := range rows {
		idx, val := ds.SparseRow(i)
		for k, j := range idx {
			f := float64(val[k])
			r.Min[j], r.Max[j] = min(r.Min[j], f), max(r.Max[j], f)
			seen[j]++
		}
	}
	for j := range n {
		if seen[j] < rows {
			r.Min[j], r.Max[j] = min(r.Min[j], 0), max(r.Max[j], 0)
		}
	}
	return r, nil
}

// dropUnscalable drops the features of r whose ranges cannot scale
// finitely.
func dropUnscalable(r *scale.Ranges) {
	for j := range r.Min {
		if !scale.Scalable(r.Lower, r.Upper, r.Min[j], r.Max[j]) {
			r.Max[j] = r.Min[j]
		}
	}
}

// ScaleDataset returns a new data set holding the rows of ds scaled by r
// (svm-scale's formula, rounded to float32), with their labels and
// instance weights. Features past r.NumFeatures() are dropped. The result
// is dense when scaling makes
// most entries nonzero (always when some feature's 0 maps to a nonzero
// value), sparse otherwise.
func ScaleDataset(ds *data.Dataset, r *scale.Ranges) (*data.Dataset, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	n := r.NumFeatures()
	rows := ds.Len()
	if err := model.CheckMemory("a scaled row", 8*int64(n)); err != nil {
		return nil, err
	}
	row := make([]float32, n)
	// scaled zero of each feature, the value of every absent entry
	zero := make([]float32, n)
	zeroNonzero := false
	for j := range zero {
		zero[j] = float32(r.Value(j, 0))
		zeroNonzero = zeroNonzero || zero[j] != 0
	}
	fill := func(i int) {
		copy(row, zero)
		if ds.IsDense() {
			x := ds.DenseRow(i)
			for j := range min(len(x), n) {
				row[j] = float32(r.Value(j, float64(x[j])))
			}
			return
		}
		idx, val := ds.SparseRow(i)
		for k, j := range idx {
			if int(j) < n {
				row[j] = float32(r.Value(int(j), float64(val[k])))
			}
		}
	}
	nnz := 0
	if !zeroNonzero {
		for i := range rows {
			fill(i)
			for _, v := range row {
				if v != 0 {
					nnz++
				}
			}
		}
	}
	var out *data.Dataset
	if zeroNonzero || data.PreferDense(rows, n, nnz) {
		if err := model.CheckMemory("dense scaled rows", 4*int64(rows)*int64(n)); err != nil {
			return nil, err
		}
		out = data.NewDense(rows, n)
		for i := range rows {
			fill(i)
			if err := out.AppendDense(ds.Label(i), row); err != nil {
				return nil, fmt.Errorf("core: ScaleDataset: row %d: %w", i+1, err)
			}
		}
		return out, keepWeights(out, ds)
	}
	out = data.NewSparse(rows, nnz, n)
	idx := make([]int32, 0, n)
	val := make([]float32, 0, n)
	for i := range rows {
		fill(i)
		idx, val = idx[:0], val[:0]
		for j, v := range row {
			if v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
		if err := out.AppendSparse(ds.Label(i), idx, val); err != nil {
			return nil, fmt.Errorf("core: ScaleDataset: row %d: %w", i+1, err)
		}
	}
	return out, keepWeights(out, ds)
}

// keepWeights gives the scaled rows out the instance weights of their
// source rows ds: scaling changes the features, not what a row weighs.
func keepWeights(out, ds *data.Dataset) error {
	if w := ds.Weights(); w != nil {
		return out.SetWeights(w)
	}
	return nil
}

// rowScaler applies a model's ranges to raw rows, writing scaled dense
// float32 rows into scratch it pools: Scaled's machinery. It is safe for
// concurrent use and allocates nothing once warm.
type rowScaler struct {
	factor, offset []float64 // x'_j = offset[j] + factor[j]·x_j
	rows           int       // rows of a batch buffer
	one, block     sync.Pool // *[]float32 of n and rows·n entries
}

// ScalerBatchRows is the number of rows Scaled's batch calls scale at a
// time: a caller sharing rows among goroutines (Scaled.PredictRows) hands
// out multiples of it.
const ScalerBatchRows = 64

// newRowScaler returns the scaler of r (r.NumFeatures() features, by
// scale.Ranges.Affine). It panics if r is nil.
func newRowScaler(r *scale.Ranges) *rowScaler {
	n := r.NumFeatures()
	s := &rowScaler{factor: make([]float64, n), offset: make([]float64, n), rows: ScalerBatchRows}
	for j := range n {
		s.factor[j], s.offset[j] = r.Affine(j)
	}
	s.one.New = func() any { b := make([]float32, n); return &b }
	s.block.New = func() any { b := make([]float32, n*ScalerBatchRows); return &b }
	return s
}

// numFeatures returns the width of the rows the scaler writes.
func (s *rowScaler) numFeatures() int { return len(s.factor) }

// dense returns a pooled row holding x scaled; x may be narrower (missing
// features are 0) or wider (extra features are dropped, as svm-scale drops
// features its ranges do not know). Give the row back with put.
func (s *rowScaler) dense(x []float32) *[]float32 {
	b := s.one.Get().(*[]float32)
	s.denseInto(*b, x)
	return b
}

// sparse is dense for a sparse row (0-based strictly increasing indices
// and their values); the result is dense.
func (s *rowScaler) sparse(index []int32, value []float32) *[]float32 {
	b := s.one.Get().(*[]float32)
	s.sparseInto(*b, index, value)
	return b
}

// put returns a row from dense or sparse to the pool.
func (s *rowScaler) put(b *[]float32) { s.one.Put(b) }

func (s *rowScaler) denseInto(dst, x []float32) {
	f, o := s.factor, s.offset[:len(s.factor)]
	dst = dst[:len(f)]
	m := min(len(x), len(f))
	for j, v := range x[:m] {
		dst[j] = float32(o[j] + f[j]*float64(v))
	}
	for j := m; j < len(dst); j++ {
		dst[j] = float32(o[j])
	}
}

func (s *rowScaler) sparseInto(dst []float32, index []int32, value []float32) {
	dst = dst[:len(s.factor)]
	for j, o := range s.offset {
		dst[j] = float32(o)
	}
	n := uint(len(dst))
	value = value[:len(index)]
	for k, j := range index {
		if uint(j) < n {
			dst[j] = float32(s.offset[j] + s.factor[j]*float64(value[k]))
		}
	}
}

// batch predicts rows [0, rows) whose raw rows row(r, dst) writes scaled
// into dst (by denseInto, sparseInto or datasetRowInto), ScalerBatchRows
// at a time, with predict called on each block of scaled rows (row-major,
// NumFeatures wide) and its part of out.
func (s *rowScaler) batch(out []float64, rows int, row func(r int, dst []float32), predict func(out []float64, x []float32)) {
	n := len(s.factor)
	b := s.block.Get().(*[]float32)
	buf := *b
	for r0 := 0; r0 < rows; r0 += s.rows {
		k := min(s.rows, rows-r0)
		for r := range k {
			row(r0+r, buf[r*n:r*n+n])
		}
		predict(out[r0:r0+k], buf[:k*n])
	}
	s.block.Put(b)
}

// datasetRowInto writes row i of ds scaled into dst, dense or sparse.
func (s *rowScaler) datasetRowInto(dst []float32, ds *data.Dataset, i int) {
	if ds.IsDense() {
		s.denseInto(dst, ds.DenseRow(i))
	} else {
		idx, val := ds.SparseRow(i)
		s.sparseInto(dst, idx, val)
	}
}
