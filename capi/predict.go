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

// stackDecisions bounds the decision values a label prediction keeps in a
// stack array; wider models borrow a pooled buffer. Both allocate nothing.
const stackDecisions = 64

// Pools of scratch buffers for predictions that need one: a float32 copy
// of a float64 row, and the decision values of a model too wide for the
// stack array. Pointers to slices are pooled, so Get and Put allocate
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
func outputWidth(m *core.LinearModel, output int) (int, error) {
	switch output {
	case outputLabel:
		return 1, nil
	case outputDecisionValues:
		return m.NumDecisionValues(), nil
	case outputProbability:
		return 0, errorf(statusUnsupported, "SVMGO_OUTPUT_PROBABILITY: linear models give no probabilities")
	}
	return 0, errorf(statusInvalidArgument, "output is %d, not an svmgo_output value", output)
}

// checkOutput checks the output kind and dst's capacity for rows rows and
// returns the values a row takes.
func checkOutput(m *core.LinearModel, output, dstCap, rows int) (int, error) {
	width, err := outputWidth(m, output)
	if err != nil {
		return 0, err
	}
	if rows > 0 && (dstCap/rows < width || dstCap < rows*width) {
		return 0, errorf(statusCapacity, "dst_cap is %d, %d values needed (%d rows × %d)", dstCap, rows*width, rows, width)
	}
	return width, nil
}

// rowSink takes a row's decision values and writes the row's output.
// Decision values are computed straight into dst when they are the
// output, and into scratch when a label is.
type rowSink struct {
	m       *core.LinearModel
	label   bool
	nrW     int
	scratch []float64
}

// newRowSink prepares the sink for m and output; stack is the caller's
// stack array, used as scratch when it is wide enough. It returns the
// pooled buffer it took otherwise, for the caller to put back. (The sink
// does not hold it: escape analysis would then move the caller's stack
// array to the heap along with it.)
func newRowSink(m *core.LinearModel, output int, stack []float64) (rowSink, *[]float64) {
	s := rowSink{m: m, label: output == outputLabel, nrW: m.NumDecisionValues()}
	var pooled *[]float64
	if s.label {
		if s.nrW <= len(stack) {
			s.scratch = stack[:s.nrW]
		} else {
			pooled = getF64(s.nrW)
			s.scratch = *pooled
		}
	}
	return s, pooled
}

// putF64 returns a buffer newRowSink took, if it took one.
func putF64(p *[]float64) {
	if p != nil {
		f64Pool.Put(p)
	}
}

// decisions returns where row r's decision values go.
func (s *rowSink) decisions(dst []float64, r int) []float64 {
	if s.label {
		return s.scratch
	}
	return dst[r*s.nrW : r*s.nrW+s.nrW]
}

// finish checks row r's decision values and writes its label when that is
// the output. It reports false when a value is not finite: the row holds
// a non-finite input, found by the caller only then, so that valid rows
// are never scanned.
func (s *rowSink) finish(dst []float64, r int, dec []float64) bool {
	for _, v := range dec {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	if s.label {
		dst[r] = labelOf(s.m, dec)
	}
	return true
}

// labelOf turns decision values into a prediction as core's predictors do:
// the value for regression, the sign's class for two classes, the first
// class of largest value otherwise. The parity test holds it to
// core.LinearModel.PredictDense bit for bit.
func labelOf(m *core.LinearModel, dec []float64) float64 {
	switch {
	case m.IsRegression():
		return dec[0]
	case len(dec) == 1:
		if dec[0] > 0 {
			return float64(m.Labels[0])
		}
		return float64(m.Labels[1])
	}
	best := 0
	for k, v := range dec {
		if v > dec[best] {
			best = k
		}
	}
	return float64(m.Labels[best])
}

// checkDense checks a dense call's shape against the model and dst.
func checkDense(m *core.LinearModel, output, dstCap, rows, nf int) error {
	if nf != m.NumFeatures {
		return errorf(statusDimension, "num_features is %d, the model has %d", nf, m.NumFeatures)
	}
	_, err := checkOutput(m, output, dstCap, rows)
	return err
}

// predictDenseF32 writes the output of each of the rows rows of x
// (row-major, nf values a row) to dst. It allocates nothing. On a
// non-finite input dst may hold the outputs of the rows before it.
func predictDenseF32(m *core.LinearModel, output int, dst []float64, x []float32, rows, nf int) error {
	if err := checkDense(m, output, len(dst), rows, nf); err != nil {
		return err
	}
	var stack [stackDecisions]float64
	s, pooled := newRowSink(m, output, stack[:])
	defer putF64(pooled)
	for r := range rows {
		row := x[r*nf : r*nf+nf]
		dec := m.DecisionDense(s.decisions(dst, r), row)
		if !s.finish(dst, r, dec) {
			return notFiniteDense(row, r)
		}
	}
	return nil
}

// predictDenseF64 is predictDenseF32 for float64 rows, each converted to
// float32, the precision of the model, into a pooled row buffer: the
// results are those of the float32 API on the rounded row, bit for bit.
func predictDenseF64(m *core.LinearModel, output int, dst []float64, x []float64, rows, nf int) error {
	if err := checkDense(m, output, len(dst), rows, nf); err != nil {
		return err
	}
	var stack [stackDecisions]float64
	s, pooled := newRowSink(m, output, stack[:])
	defer putF64(pooled)
	buf := getF32(nf)
	defer f32Pool.Put(buf)
	row32 := *buf
	for r := range rows {
		row := x[r*nf : r*nf+nf]
		for j, v := range row {
			row32[j] = float32(v)
		}
		dec := m.DecisionDense(s.decisions(dst, r), row32)
		if !s.finish(dst, r, dec) {
			return notFiniteDense(row, r)
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
// model's are ignored. It allocates nothing.
func predictCSRF32(m *core.LinearModel, output int, dst []float64, indptr []int64, indices []int32, values []float32, rows int) error {
	if _, err := checkOutput(m, output, len(dst), rows); err != nil {
		return err
	}
	if _, err := checkCSR(indptr, indices, values, rows, m.NumFeatures); err != nil {
		return err
	}
	var stack [stackDecisions]float64
	s, pooled := newRowSink(m, output, stack[:])
	defer putF64(pooled)
	for r := range rows {
		st, e := indptr[r], indptr[r+1]
		idx, val := indices[st:e], values[st:e]
		dec := m.DecisionSparse(s.decisions(dst, r), idx, val)
		if !s.finish(dst, r, dec) {
			return notFiniteSparse(idx, val, r)
		}
	}
	return nil
}

// predictCSRF64 is predictCSRF32 for float64 values, converted to float32
// row by row into a pooled buffer.
func predictCSRF64(m *core.LinearModel, output int, dst []float64, indptr []int64, indices []int32, values []float64, rows int) error {
	if _, err := checkOutput(m, output, len(dst), rows); err != nil {
		return err
	}
	longest, err := checkCSR(indptr, indices, values, rows, m.NumFeatures)
	if err != nil {
		return err
	}
	var stack [stackDecisions]float64
	s, pooled := newRowSink(m, output, stack[:])
	defer putF64(pooled)
	buf := getF32(longest)
	defer f32Pool.Put(buf)
	for r := range rows {
		st, e := indptr[r], indptr[r+1]
		idx, val := indices[st:e], values[st:e]
		val32 := (*buf)[:len(val)]
		for k, v := range val {
			val32[k] = float32(v)
		}
		dec := m.DecisionSparse(s.decisions(dst, r), idx, val32)
		if !s.finish(dst, r, dec) {
			return notFiniteSparse(idx, val, r)
		}
	}
	return nil
}

func notFiniteSparse[T float32 | float64](idx []int32, val []T, r int) error {
	for k, v := range val {
		if err := checkFinite(float64(v), r, int(idx[k])); err != nil {
			return err
		}
	}
	return errorf(statusNotFinite, "row %d: a decision value is not finite though every input is: the model holds a non-finite weight", r)
}
