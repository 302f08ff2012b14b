package main

import (
	"math"
	"sync"

	"github.com/libsvmgo/libsvmgo/core"
)

// Output kinds, svmgo.h's enum svmgo_output.
const (
	outputLabel          = 1
	outputDecisionValues = 2
	outputProbability    = 3
)

// Pools of scratch buffers for predictions that need one: a float32 copy
// of a float64 row, and the decision values a label is derived from (not
// a stack array: passed to a predictor, an interface, it would escape to
// the heap on every call). Pointers to slices are pooled, so Get and Put allocate
// nothing once the pool holds a buffer.
var (
	f32Pool = sync.Pool{New: func() any { return new([]float32) }}
	f64Pool = sync.Pool{New: func() any { return new([]float64) }}
)

func getF32(n int) *[]float32 {
	p := f32Pool.Get().(*[]float32)
	if cap(*p) < n {
		*p = make([]float32, n)
	}
	*p = (*p)[:n]
	return p
}

func getF64(n int) *[]float64 {
	p := f64Pool.Get().(*[]float64)
	if cap(*p) < n {
		*p = make([]float64, n)
	}
	*p = (*p)[:n]
	return p
}

// outputWidth returns the values a row's output takes in dst.
func outputWidth(info *core.ModelInfo, output int) (int, error) {
	switch output {
	case outputLabel:
		return 1, nil
	case outputDecisionValues:
		return info.NumDecisionValues, nil
	case outputProbability:
		if !info.Probability {
			return 0, errorf(statusUnsupported, "SVMGO_OUTPUT_PROBABILITY: %s", noProbability(*info))
		}
		return len(info.Labels), nil
	}
	return 0, errorf(statusInvalidArgument, "output is %d, not an svmgo_output value", output)
}

// checkOutput checks the output kind and dst's capacity for rows rows and
// returns the values a row takes.
func checkOutput(info *core.ModelInfo, output, dstCap, rows int) (int, error) {
	width, err := outputWidth(info, output)
	if err != nil {
		return 0, err
	}
	if rows > 0 && (dstCap/rows < width || dstCap < rows*width) {
		return 0, errorf(statusCapacity, "dst_cap is %d, %d values needed (%d rows × %d)", dstCap, rows*width, rows, width)
	}
	return width, nil
}

// rowSink writes rows' outputs to dst. Decision values are computed
// straight into dst when they are the output, and into scratch when a
// label is derived from them.
//
// A linear model's decision values turn any non-finite input into a
// non-finite value, so its rows are checked only after a bad value shows
// (its label is derived from the decision values by LabelOf, which lets
// the check see them); a kernel model (ModelInfo.Kernel) maps an infinite
// distance to 0, a quantized one quantizes the row against its largest
// value, and a label or probability shows nothing, so those inputs are
// checked first (scan).
type rowSink struct {
	m       core.Model
	nf      int                   // the model's features
	prob    core.ProbabilityModel // set for SVMGO_OUTPUT_PROBABILITY
	output  int
	width   int // values a row's output takes in dst
	scan    bool
	scratch []float64
}

// csrRows is prepare's nf for CSR rows, which may be of any width.
const csrRows = -1

// prepare checks a call's shape against p and dst (nf, the dense row
// width, must be the model's; csrRows skips that check) and sets the sink
// up for p and output. It returns the pooled buffer it took, if any, for
// the caller to put back with putF64. The model's description is read
// once, into a local the checks see by pointer: the sink is set up in
// place, not returned, since copying it and the description would cost
// single-row calls a measurable part of their time.
func (s *rowSink) prepare(p core.Model, output int, dst []float64, rows, nf int) (*[]float64, error) {
	info := p.Info()
	if nf != csrRows && nf != info.NumFeatures {
		return nil, errorf(statusDimension, "num_features is %d, the model has %d", nf, info.NumFeatures)
	}
	width, err := checkOutput(&info, output, len(dst), rows)
	if err != nil {
		return nil, err
	}
	s.m, s.nf, s.output, s.width = p, info.NumFeatures, output, width
	s.scan = info.Kernel || output == outputProbability
	if output == outputProbability {
		s.prob = p.(core.ProbabilityModel) // checkOutput checked info.Probability
	}
	if output == outputLabel && !info.Kernel {
		pooled := getF64(info.NumDecisionValues)
		s.scratch = *pooled
		return pooled, nil
	}
	return nil, nil
}

// putF64 returns a buffer prepare took, if it took one.
func putF64(p *[]float64) {
	if p != nil {
		f64Pool.Put(p)
	}
}

// dense writes the output of row r, the dense row x. It reports false
// when a decision value is not finite, which the caller then explains.
func (s *rowSink) dense(dst []float64, r int, x []float32) bool {
	switch s.output {
	case outputProbability:
		s.prob.ProbabilityDense(dst[r*s.width:r*s.width+s.width], x)
		return true
	case outputLabel:
		if s.scan { // inputs checked: the model's own predictor decides
			dst[r] = s.m.PredictDense(x)
			return true
		}
		return s.finish(dst, r, s.m.DecisionDense(s.scratch, x))
	}
	return s.finish(dst, r, s.m.DecisionDense(dst[r*s.width:r*s.width+s.width], x))
}

// sparse is dense for a sparse row.
func (s *rowSink) sparse(dst []float64, r int, idx []int32, val []float32) bool {
	switch s.output {
	case outputProbability:
		s.prob.ProbabilitySparse(dst[r*s.width:r*s.width+s.width], idx, val)
		return true
	case outputLabel:
		if s.scan {
			dst[r] = s.m.PredictSparse(idx, val)
			return true
		}
		return s.finish(dst, r, s.m.DecisionSparse(s.scratch, idx, val))
	}
	return s.finish(dst, r, s.m.DecisionSparse(dst[r*s.width:r*s.width+s.width], idx, val))
}

// finish checks row r's decision values and writes its label when that is
// the output. It reports false when a value is not finite: for a linear
// model the row then holds a non-finite input, found by the caller only
// then, so that valid rows are never scanned.
func (s *rowSink) finish(dst []float64, r int, dec []float64) bool {
	for _, v := range dec {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	if s.output == outputLabel {
		dst[r] = s.m.LabelOf(dec)
	}
	return true
}

// predictDenseF32 writes the output of each of the rows rows of x
// (row-major, nf values a row) to dst. It allocates nothing. On a
// non-finite input dst may hold the outputs of the rows before it.
func predictDenseF32(p core.Model, output int, dst []float64, x []float32, rows, nf int) error {
	var s rowSink
	pooled, err := s.prepare(p, output, dst, rows, nf)
	if err != nil {
		return err
	}
	if done, err := s.denseBatch(dst, x, rows); done {
		putF64(pooled)
		return err
	}
	defer putF64(pooled)
	if db, ok := s.decisionBatcher(rows); ok {
		return s.decisionRowsF32(db, dst, x, rows)
	}
	for r := range rows {
		row := x[r*nf : r*nf+nf]
		if s.scan {
			if err := scanDense(row, r); err != nil {
				return err
			}
		}
		if !s.dense(dst, r, row) {
			return notFiniteDense(row, r)
		}
	}
	return nil
}

// predictDenseF64 is predictDenseF32 for float64 rows, each converted to
// float32, the precision of the model, into a pooled row buffer: the
// results are those of the float32 API on the rounded row, bit for bit.
func predictDenseF64(p core.Model, output int, dst []float64, x []float64, rows, nf int) error {
	var s rowSink
	pooled, err := s.prepare(p, output, dst, rows, nf)
	if err != nil {
		return err
	}
	defer putF64(pooled)
	if db, ok := s.decisionBatcher(rows); ok {
		return s.decisionRowsF64(db, dst, x, rows)
	}
	buf := getF32(nf)
	defer f32Pool.Put(buf)
	row32 := *buf
	for r := range rows {
		row := x[r*nf : r*nf+nf]
		if s.scan {
			if err := scanDense(row, r); err != nil {
				return err
			}
		}
		for j, v := range row {
			row32[j] = float32(v)
		}
		if !s.dense(dst, r, row32) {
			return notFiniteDense(row, r)
		}
	}
	return nil
}

// scanDense refuses a row holding a value that is not finite as a float32.
func scanDense[T float32 | float64](row []T, r int) error {
	for j, v := range row {
		if err := checkFinite(float64(v), r, j); err != nil {
			return err
		}
	}
	return nil
}

// notFiniteDense names the value that made row r's decision values not
// finite.
func notFiniteDense[T float32 | float64](row []T, r int) error {
	for j, v := range row {
		if err := checkFinite(float64(v), r, j); err != nil {
			return err
		}
	}
	return errorf(statusNotFinite, "row %d: a decision value is not finite though every input is: the model holds a non-finite weight", r)
}

// checkFinite refuses a value that is not finite as a float32: NaN, ±Inf,
// or a double beyond float's range.
func checkFinite(v float64, r, j int) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return errorf(statusNotFinite, "row %d, feature %d is %v", r, j, v)
	}
	if math.IsInf(float64(float32(v)), 0) {
		return errorf(statusNotFinite, "row %d, feature %d is %v, beyond float's range", r, j, v)
	}
	return nil
}

// checkCSR validates CSR rows before anything is predicted or added, so
// that a malformed call writes nothing: indptr nondecreasing within
// [0, len(indices)], and each row's indices nonnegative and strictly
// increasing. Values at indices ≥ ignoreFrom (features a model ignores,
// which cannot show in a decision value) must be finite too; pass
// ignoreFrom = -1 to check none. It returns the longest row's length.
func checkCSR[T float32 | float64](indptr []int64, indices []int32, values []T, rows, ignoreFrom int) (int, error) {
	longest := 0
	n := int64(len(indices))
	for r := range rows {
		s, e := indptr[r], indptr[r+1]
		if s < 0 || e < s || e > n {
			return 0, errorf(statusInvalidArgument, "indptr[%d] = %d and indptr[%d] = %d do not bound a row of the %d nonzeros from indptr[0] to indptr[%d]",
				r, s, r+1, e, n, rows)
		}
		longest = max(longest, int(e-s))
		prev := int32(-1)
		for k := s; k < e; k++ {
			j := indices[k]
			if j <= prev {
				if j < 0 {
					return 0, errorf(statusInvalidArgument, "row %d: index %d is negative", r, j)
				}
				return 0, errorf(statusInvalidArgument, "row %d: index %d after %d: indices must increase within a row", r, j, prev)
			}
			prev = j
			if ignoreFrom >= 0 && int(j) >= ignoreFrom {
				if err := checkFinite(float64(values[k]), r, int(j)); err != nil {
					return 0, err
				}
			}
		}
	}
	return longest, nil
}

// predictCSRF32 writes the output of each CSR row to dst; indices and
// values hold the nonzeros up to indptr[rows]. Features at or past the
// model's are ignored by linear models, and count only in the norm of an
// RBF kernel's distance. It allocates nothing.
func predictCSRF32(p core.Model, output int, dst []float64, indptr []int64, indices []int32, values []float32, rows int) error {
	var s rowSink
	pooled, err := s.prepare(p, output, dst, rows, csrRows)
	if err != nil {
		return err
	}
	defer putF64(pooled)
	if _, err := checkCSR(indptr, indices, values, rows, s.checkFrom()); err != nil {
		return err
	}
	if s.csrBatch(dst, indptr, indices, values, rows) {
		return nil
	}
	for r := range rows {
		st, e := indptr[r], indptr[r+1]
		idx, val := indices[st:e], values[st:e]
		if !s.sparse(dst, r, idx, val) {
			return notFiniteSparse(idx, val, r)
		}
	}
	return nil
}

// predictCSRF64 is predictCSRF32 for float64 values, converted to float32
// row by row into a pooled buffer.
func predictCSRF64(p core.Model, output int, dst []float64, indptr []int64, indices []int32, values []float64, rows int) error {
	var s rowSink
	pooled, err := s.prepare(p, output, dst, rows, csrRows)
	if err != nil {
		return err
	}
	defer putF64(pooled)
	longest, err := checkCSR(indptr, indices, values, rows, s.checkFrom())
	if err != nil {
		return err
	}
	buf := getF32(longest)
	defer f32Pool.Put(buf)
	for r := range rows {
		st, e := indptr[r], indptr[r+1]
		idx, val := indices[st:e], values[st:e]
		val32 := (*buf)[:len(val)]
		for k, v := range val {
			val32[k] = float32(v)
		}
		if !s.sparse(dst, r, idx, val32) {
			return notFiniteSparse(idx, val, r)
		}
	}
	return nil
}

// checkFrom returns the first feature whose values checkCSR must check
// before predicting: all of them when the sink scans inputs, else only
// those the model ignores, which cannot show in a decision value.
func (s *rowSink) checkFrom() int {
	if s.scan {
		return 0
	}
	return s.nf
}

func notFiniteSparse[T float32 | float64](idx []int32, val []T, r int) error {
	for k, v := range val {
		if err := checkFinite(float64(v), r, int(idx[k])); err != nil {
			return err
		}
	}
	return errorf(statusNotFinite, "row %d: a decision value is not finite though every input is: the model holds a non-finite weight", r)
}
