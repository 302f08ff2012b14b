package core

// Scaling carried inside a model (issue 16 item 2): training with a scale
// fits svm-scale's per-feature ranges on the training rows (FitScale),
// trains on the scaled rows (ScaleDataset), and stores the ranges in the
// model (LinearModel.Scale, KernelModel.Scale, and the quantized kinds),
// whose predict paths then take raw rows:
//
//   - a linear model folds the affine map into its weights once: with
//     x'_j = o_j + s_j·x_j, w·x' + b = Σ_j (w_j·s_j)·x_j + (b + Σ_j w_j·o_j),
//     so it predicts raw dense and sparse rows at the cost of an unscaled
//     model (a sparse row's absent features are in the constant term);
//   - a kernel model scales each row into a pooled float32 row (dense,
//     since scaling maps 0 to o_j ≠ 0 in general) and predicts that with
//     the unscaled model it wraps (RowScaler), an O(NumFeatures) step in
//     front of O(nSV·NumFeatures) kernel work.

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core/data"
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
	if err := CheckMemory("scaling ranges", 24*int64(n)); err != nil {
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
	if err := CheckMemory("a scaled row", 8*int64(n)); err != nil {
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
		if err := CheckMemory("dense scaled rows", 4*int64(rows)*int64(n)); err != nil {
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

// checkModelScale is the check every model kind makes of its ranges: valid,
// without target scaling, dense (no Index), and covering exactly the
// model's features.
func checkModelScale(r *scale.Ranges, numFeatures int) error {
	if r == nil {
		return nil
	}
	if err := r.Validate(); err != nil {
		return err
	}
	if r.Y != nil {
		return fmt.Errorf("%w: a model's scaling has no target range", scale.ErrRanges)
	}
	if r.Index != nil {
		return fmt.Errorf("%w: a model's scaling has a range for every feature, not sparse ones", scale.ErrRanges)
	}
	if r.NumFeatures() != numFeatures {
		return fmt.Errorf("%w: %d feature ranges for %d features", scale.ErrRanges, r.NumFeatures(), numFeatures)
	}
	return nil
}

// CheckModelScale checks the ranges r a model of numFeatures features
// carries (nil for none): Validate's checks, no target scaling, and
// exactly numFeatures ranges. Package quantize checks its models' ranges
// with it.
func CheckModelScale(r *scale.Ranges, numFeatures int) error {
	return checkModelScale(r, numFeatures)
}

// RowScaler applies a model's ranges to raw rows, writing scaled dense
// float32 rows into scratch it pools, for the model kinds that cannot fold
// the scaling into their parameters (kernel and quantized models). It is
// safe for concurrent use and allocates nothing once warm.
type RowScaler struct {
	factor, offset []float64 // x'_j = offset[j] + factor[j]·x_j
	rows           int       // rows of a batch buffer
	one, batch     sync.Pool // *[]float32 of n and rows·n entries
}

// ScalerBatchRows is the number of rows RowScaler's batch calls scale at
// a time.
const ScalerBatchRows = 64

// NewRowScaler returns the scaler of r (r.NumFeatures() features, by
// scale.Ranges.Affine). It panics if r is nil.
func NewRowScaler(r *scale.Ranges) *RowScaler {
	n := r.NumFeatures()
	s := &RowScaler{factor: make([]float64, n), offset: make([]float64, n), rows: ScalerBatchRows}
	for j := range n {
		s.factor[j], s.offset[j] = r.Affine(j)
	}
	s.one.New = func() any { b := make([]float32, n); return &b }
	s.batch.New = func() any { b := make([]float32, n*ScalerBatchRows); return &b }
	return s
}

// NumFeatures returns the width of the rows the scaler writes.
func (s *RowScaler) NumFeatures() int { return len(s.factor) }

// Dense returns a pooled row holding x scaled; x may be narrower (missing
// features are 0) or wider (extra features are dropped, as svm-scale drops
// features its ranges do not know). Give the row back with Put.
func (s *RowScaler) Dense(x []float32) *[]float32 {
	b := s.one.Get().(*[]float32)
	s.denseInto(*b, x)
	return b
}

// Sparse is Dense for a sparse row (0-based strictly increasing indices
// and their values); the result is dense.
func (s *RowScaler) Sparse(index []int32, value []float32) *[]float32 {
	b := s.one.Get().(*[]float32)
	s.sparseInto(*b, index, value)
	return b
}

// Put returns a row from Dense or Sparse to the pool.
func (s *RowScaler) Put(b *[]float32) { s.one.Put(b) }

func (s *RowScaler) denseInto(dst, x []float32) {
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

func (s *RowScaler) sparseInto(dst []float32, index []int32, value []float32) {
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

// Batch predicts rows [0, rows) whose raw rows row(r, dst) writes scaled
// into dst (by ScaleDenseInto or ScaleSparseInto), ScalerBatchRows at a
// time, with predict called on each block of scaled rows (row-major,
// NumFeatures wide) and its part of out.
func (s *RowScaler) Batch(out []float64, rows int, row func(r int, dst []float32), predict func(out []float64, x []float32)) {
	n := len(s.factor)
	b := s.batch.Get().(*[]float32)
	buf := *b
	for r0 := 0; r0 < rows; r0 += s.rows {
		k := min(s.rows, rows-r0)
		for r := range k {
			row(r0+r, buf[r*n:r*n+n])
		}
		predict(out[r0:r0+k], buf[:k*n])
	}
	s.batch.Put(b)
}

// ScaleDenseInto writes the raw dense row x scaled into dst
// (len NumFeatures), as Dense does.
func (s *RowScaler) ScaleDenseInto(dst, x []float32) { s.denseInto(dst, x) }

// ScaleSparseInto writes the raw sparse row scaled into dst
// (len NumFeatures), as Sparse does.
func (s *RowScaler) ScaleSparseInto(dst []float32, index []int32, value []float32) {
	s.sparseInto(dst, index, value)
}

// ScaleDatasetRow writes row i of ds scaled into dst, dense or sparse.
func (s *RowScaler) ScaleDatasetRow(dst []float32, ds *data.Dataset, i int) {
	if ds.IsDense() {
		s.denseInto(dst, ds.DenseRow(i))
	} else {
		idx, val := ds.SparseRow(i)
		s.sparseInto(dst, idx, val)
	}
}

// foldScale returns the unscaled linear model equivalent to m (m.Scale
// set): W'_j = W_j·s_j and a bias row (Bias 1) holding b_k + Σ_j W_jk·o_j,
// in float32. Its decision values equal m's on scaled rows up to float32
// rounding of W' and of the constant: about 6e-8·(Σ_j|W'_jk·x_j| + |b'_k|).
func (m *LinearModel) foldScale() *LinearModel {
	nrW := m.NrW()
	n := m.NumFeatures
	w := make([]float32, (n+1)*nrW)
	c := make([]float64, nrW)
	for k := range c {
		c[k] = m.biasTerm(k)
	}
	for j := range n {
		s, o := m.Scale.Affine(j)
		for k := range nrW {
			wj := float64(m.W[j*nrW+k])
			w[j*nrW+k] = float32(wj * s)
			c[k] += wj * o
		}
	}
	for k := range c {
		w[n*nrW+k] = float32(c[k])
	}
	f := *m
	f.Scale, f.Bias, f.W = nil, 1, w
	f.fold = nil
	return &f
}

// folded returns the folded model of a scaled model, building it on the
// first call (the one allocation; racing first calls each build one and
// the first stored wins), and nil for an unscaled model. The pointer is
// an unsafe.Pointer read atomically rather than an atomic.Pointer, whose
// no-copy marker would forbid copying a LinearModel value.
func (m *LinearModel) folded() *LinearModel {
	if m.Scale == nil {
		return nil
	}
	if p := atomic.LoadPointer(&m.fold); p != nil {
		return (*LinearModel)(p)
	}
	atomic.CompareAndSwapPointer(&m.fold, nil, unsafe.Pointer(m.foldScale()))
	return (*LinearModel)(atomic.LoadPointer(&m.fold))
}

// SetScale sets the scaling m was trained behind (m's W applies to rows
// scaled by r; nil for none) and checks it. Call it before the model is
// shared or predicts.
func (m *LinearModel) SetScale(r *scale.Ranges) error {
	if err := checkModelScale(r, m.NumFeatures); err != nil {
		return fmt.Errorf("core: linear model: %w", err)
	}
	m.Scale, m.fold = r, nil
	return nil
}

// SetScale sets the scaling m was trained behind (its support vectors are
// rows scaled by r; nil for none) and initialises m again (Init). Call it
// before the model is shared or predicts.
func (m *KernelModel) SetScale(r *scale.Ranges) error {
	m.Scale = r
	return m.Init()
}

// SetModelScale sets the scaling of a model of a kind that takes one (the
// float kinds, by their SetScale method); it returns an error for another
// kind.
func SetModelScale(m Model, r *scale.Ranges) error {
	if s, ok := m.(interface{ SetScale(*scale.Ranges) error }); ok {
		return s.SetScale(r)
	}
	return fmt.Errorf("core: SetModelScale: a %s model cannot take a scaling", m.Info().Kind)
}

// ScaleTrainingRows fits o's ranges on ds and returns them with ds scaled,
// for a training run with --scale; it returns nil ranges and ds itself
// when o is not enabled.
func ScaleTrainingRows(ds *data.Dataset, o ScaleParams) (*scale.Ranges, *data.Dataset, error) {
	if !o.Enabled {
		return nil, ds, nil
	}
	r, err := FitScale(ds, o.Lower, o.Upper)
	if err != nil {
		return nil, nil, err
	}
	sds, err := ScaleDataset(ds, r)
	if err != nil {
		return nil, nil, err
	}
	return r, sds, nil
}

// scaledTrainer is a Trainer with --scale: every run fits the ranges on
// the rows it trains on, so the model's scaling always matches its data.
// A warm start is used only when the ranges are those of the run that
// left it (Dual.Scale): α and a kernel gradient belong to the scaled rows
// they were computed on. While new rows stay inside the ranges (the usual
// case once the first batches have set them) every retrain is warm; a row
// beyond a range refits it and that retrain starts cold. Fixing the ranges
// at the first fit instead would keep every retrain warm but scale later
// rows by the first batch's extremes, however unrepresentative.
//
// The ranges cover the features of the rows trained on (the width of ds),
// so its models are as wide as an unscaled trainer's on the same rows, and
// the automatic γ is 1/that width: covering the trainer's capacity instead
// made the daemon's models as wide as --store.max-features (16 MB, γ 10⁻⁶
// and 24% accuracy where svmgo train --scale has 84%). A caller that wants
// its own width (the C ABI's trainer) widens the model.
type scaledTrainer struct {
	inner Trainer
	opt   ScaleParams
}

func (t scaledTrainer) Family() Family { return t.inner.Family() }

func (t scaledTrainer) SetProgress(fn ProgressFunc) { t.inner.SetProgress(fn) }

func (t scaledTrainer) KeptBytes() (kept, budget int64) { return t.inner.KeptBytes() }

func (t scaledTrainer) WarmStart(stored, last *Dual, rows int) (*Dual, error) {
	return t.inner.WarmStart(stored, last, rows)
}

func (t scaledTrainer) Train(ds *data.Dataset, warm *Dual) (Model, *Dual, error) {
	r, err := FitScale(ds, t.opt.Lower, t.opt.Upper)
	if err != nil {
		return nil, nil, err
	}
	sds, err := ScaleDataset(ds, r)
	if err != nil {
		return nil, nil, err
	}
	if warm != nil && !SameScale(warm.Scale, r) {
		warm = nil
	}
	m, d, err := t.inner.Train(sds, warm)
	if err != nil {
		return nil, nil, err
	}
	if err := SetModelScale(m, r); err != nil {
		return nil, nil, err
	}
	d.Scale = r
	return m, d, nil
}

// SameScale reports whether a and b scale every row alike (both nil, or
// equal intervals and ranges): a trainer with --scale starts warm from a
// Dual only when its Scale and the run's ranges are the same.
func SameScale(a, b *scale.Ranges) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Lower == b.Lower && a.Upper == b.Upper && slices.Equal(a.Min, b.Min) && slices.Equal(a.Max, b.Max)
}
