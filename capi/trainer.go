package main

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// maxCells bounds the storage a trainer may ask for (rows × features for
// dense rows, nonzeros for sparse): Go cannot recover from running out of
// memory, so a size that cannot be right is refused before it is tried.
const maxCells = 1 << 40

// trainerHandle is what an svmgo_trainer * stands for: the rows, the
// trainer's buffers and the dual variables of the last fit. mu serializes
// the calls on one trainer (svmgo.h: a trainer is not shared).
type trainerHandle struct {
	mu          sync.Mutex
	numFeatures int
	ds          *data.Dataset
	// trainer is linear or kernel as the options chose LIBLINEAR's or
	// LIBSVM's syntax (options.ParseTrain).
	trainer core.Trainer
	// dual holds the last fit's dual state for the rows then held: a
	// prefix of the rows now held, since rows are appended at the end and
	// removed from both alike. Rows added since start at zero
	// (core.Dual.ExtendInPlace: nobody else holds it).
	dual *core.Dual
	// batch[i] numbers the add call that added row i (1 for the first
	// call that added rows, one more for each call after), so that a
	// caller can forget the rows of one call (svmgo_trainer_forget);
	// lastBatch is the newest number given, 0 before any.
	batch     []uint64
	lastBatch uint64
	// last is what the last fit reported (svmgo_trainer_fit_info); valid
	// when fitted.
	last   core.FitSummary
	fitted bool
	// bytes is what the trainer's buffers and rows take (the size
	// queries), besides the dense copy of wide rows a kernel trainer
	// makes when a fit first needs it (core.Trainer.DenseCopyBytes):
	// freeTrainer returns a large trainer's pages to the system.
	bytes int64
}

// newTrainer parses opts (the command line's train options, split at
// white space) and allocates a trainer for the given capacity: dense rows
// when capNonzeros is 0, sparse ones otherwise.
func newTrainer(opts string, capRows, numFeatures, capNonzeros uint64) (*trainerHandle, error) {
	fields, progress := takeProgress(strings.Fields(opts))
	o, rest, err := options.ParseTrain(fields, options.SyntaxAuto)
	switch {
	case err != nil:
		return nil, errorf(statusInvalidArgument, "options %q: %w", opts, err)
	case o.CrossValidation() != 0:
		return nil, errorf(statusInvalidArgument, "options %q: -v (cross-validation) is a command-line option, not a trainer's", opts)
	case len(rest) > 0:
		return nil, errorf(statusInvalidArgument, "options %q: %q is not an option", opts, rest[0])
	case capRows == 0:
		return nil, errorf(statusInvalidArgument, "capacity_rows is 0")
	case numFeatures == 0:
		return nil, errorf(statusInvalidArgument, "num_features is 0")
	case numFeatures > math.MaxInt32:
		return nil, errorf(statusInvalidArgument, "num_features is %d, more than the %d an int32_t index reaches", numFeatures, int64(math.MaxInt32))
	case capRows > maxCells:
		return nil, errorf(statusInvalidArgument, "capacity_rows is %d, more than %d", capRows, uint64(maxCells))
	case capNonzeros > maxCells:
		return nil, errorf(statusInvalidArgument, "capacity_nonzeros is %d, more than %d", capNonzeros, uint64(maxCells))
	case capNonzeros == 0 && capRows > maxCells/numFeatures:
		return nil, errorf(statusInvalidArgument, "capacity_rows × num_features is %d × %d, more than %d values", capRows, numFeatures, uint64(maxCells))
	}
	// The rows' own storage and batch numbers; the trainer checks its
	// buffers itself.
	rowBytes := 16*capRows + 8*capNonzeros // labels, batches; indices and values
	if capNonzeros == 0 {
		rowBytes = 16*capRows + 4*capRows*numFeatures
	}
	if err := core.CheckMemory("the trainer's rows", int64(rowBytes)); err != nil {
		return nil, errorf(statusInvalidArgument, "%w", err)
	}
	h := &trainerHandle{numFeatures: int(numFeatures), batch: make([]uint64, 0, capRows)}
	if capNonzeros == 0 {
		h.ds = data.NewDense(int(capRows), int(numFeatures))
	} else {
		h.ds = data.NewSparse(int(capRows), int(capNonzeros), int(numFeatures))
	}
	if o.IsKernel() {
		// A warm kernel retrain reads the rows' hashes instead of hashing
		// every row (8 bytes a row of capacity).
		h.ds.KeepRowHashes()
	}
	if o.IsKernel() {
		// The support vectors' kernel columns kept between retrains,
		// within -m unless -M says otherwise or the rows are narrow.
		width := int(numFeatures)
		if capNonzeros > 0 {
			width = core.KernelRowWidth(int(numFeatures), int(max(capNonzeros/capRows, 1)))
		}
		o.Kernel.Params = o.Kernel.Incremental(width)
	} else {
		// -s 1 and -s 12 retrain through their primal twins (-twin 0
		// opts out): a warm-started Newton method is what pays here.
		o.Linear.Params = o.Linear.Incremental()
	}
	if capNonzeros == 0 {
		// Dense rows: a kernel trainer needs no dense copy of them.
		h.trainer, err = core.NewDenseTrainer(o.Params(), int(capRows), int(numFeatures))
	} else {
		h.trainer, err = core.NewSparseTrainer(o.Params(), int(capRows), int(numFeatures), int(capNonzeros))
	}
	if err != nil {
		return nil, errorf(statusInvalidArgument, "options %q: %w", opts, err)
	}
	if progress {
		h.trainer.SetProgress(printProgress)
	}
	h.bytes = int64(capRows) * 8 // labels
	if capNonzeros == 0 {
		h.bytes += int64(capRows) * int64(numFeatures) * 4
	} else {
		h.bytes += int64(capNonzeros) * 8
	}
	if o.IsKernel() {
		h.bytes += core.KernelTrainerBytes(o.Kernel.Params, int(capRows), int(numFeatures))
	} else {
		h.bytes += int64(linear.LinearTrainerBytes(o.Linear.Params, int(capRows), int(numFeatures)))
	}
	return h, nil
}

// all-or-none appending: each add function appends row by row and, on a
// failing row, truncates back to the rows held before the call.

// addDense appends rows dense rows of x with their labels.
func addDense[T float32 | float64](h *trainerHandle, labels []float64, x []T, rows, nf int) error {
	if nf != h.numFeatures {
		return errorf(statusDimension, "num_features is %d, the trainer's is %d", nf, h.numFeatures)
	}
	// Non-finite inputs are found before anything is appended, so that
	// they are reported as such (core calls them bad rows) with where.
	if err := checkLabels(labels); err != nil {
		return err
	}
	for r := range rows {
		for j, v := range x[r*nf : r*nf+nf] {
			if err := checkFinite(float64(v), r, j); err != nil {
				return err
			}
		}
	}
	row32, _ := any(x).([]float32)
	var buf []float32
	if row32 == nil {
		buf = make([]float32, nf)
	}
	n0 := h.ds.Len()
	for r := range rows {
		var row []float32
		if buf == nil {
			row = row32[r*nf : r*nf+nf]
		} else {
			for j, v := range x[r*nf : r*nf+nf] {
				buf[j] = float32(v)
			}
			row = buf
		}
		if err := h.ds.AppendDense(labels[r], row); err != nil {
			h.ds.Truncate(n0)
			return appendError(h, err, r, rows)
		}
	}
	h.addedBatch(rows)
	return nil
}

// addCSR appends rows CSR rows with their labels; indices and values hold
// the nonzeros up to indptr[rows].
func addCSR[T float32 | float64](h *trainerHandle, labels []float64, indptr []int64, indices []int32, values []T, rows int) error {
	longest, err := checkCSR(indptr, indices, values, rows, -1)
	if err != nil {
		return err
	}
	if err := checkLabels(labels); err != nil {
		return err
	}
	for r := range rows {
		for k := indptr[r]; k < indptr[r+1]; k++ {
			if err := checkFinite(float64(values[k]), r, int(indices[k])); err != nil {
				return err
			}
			if j := int(indices[k]); j >= h.numFeatures {
				return errorf(statusInvalidArgument, "row %d: index %d, the trainer has %d features", r, j, h.numFeatures)
			}
		}
	}
	vals32, _ := any(values).([]float32)
	var buf []float32
	if vals32 == nil {
		buf = make([]float32, longest)
	}
	n0 := h.ds.Len()
	for r := range rows {
		s, e := indptr[r], indptr[r+1]
		var val []float32
		if buf == nil {
			val = vals32[s:e]
		} else {
			val = buf[:e-s]
			for k, v := range values[s:e] {
				val[k] = float32(v)
			}
		}
		if err := h.ds.AppendSparse(labels[r], indices[s:e], val); err != nil {
			h.ds.Truncate(n0)
			return appendError(h, err, r, rows)
		}
	}
	h.addedBatch(rows)
	return nil
}

// addedBatch numbers the rows rows an add call appended as the next batch;
// a call that added no rows takes no number.
func (h *trainerHandle) addedBatch(rows int) {
	if rows == 0 {
		return
	}
	h.lastBatch++
	for range rows {
		h.batch = append(h.batch, h.lastBatch)
	}
}

func checkLabels(labels []float64) error {
	for r, y := range labels {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return errorf(statusNotFinite, "row %d: label %v", r, y)
		}
	}
	return nil
}

// appendError reports the failure of row r of a call adding rows rows.
func appendError(h *trainerHandle, err error, r, rows int) error {
	return errorf(statusOf(err), "row %d of the call's %d: %w (nothing added; the trainer holds %d of %d rows, %d of %d values)",
		r, rows, err, h.ds.Len(), h.ds.CapRows(), h.ds.Nonzeros(), h.ds.CapNonzeros())
}

// remove removes the rows at the given positions from the rows, their
// batch numbers and the last fit's dual variables.
func remove(h *trainerHandle, rows []int) error {
	held := h.dual.Rows()
	if err := h.ds.DeleteRows(rows); err != nil {
		return err
	}
	// DeleteRows checked the positions (distinct, held), so this cannot fail.
	gone, _ := data.SortedPositions(rows, len(h.batch))
	h.batch = data.DeleteSorted(h.batch, gone)
	if held == 0 {
		return nil
	}
	// Rows added since the last fit have no dual variables yet.
	inDual := make([]int, 0, len(rows))
	for _, r := range rows {
		if r < held {
			inDual = append(inDual, r)
		}
	}
	return h.dual.DeleteRows(inDual)
}

// forget removes the rows batch number batch added that are still held
// (remove) and returns how many; 0 when they are gone already. A number no
// add call was given is an invalid argument.
func forget(h *trainerHandle, batch uint64) (int, error) {
	switch {
	case h.lastBatch == 0:
		return 0, errorf(statusInvalidArgument, "batch %d: no rows were added yet", batch)
	case batch == 0 || batch > h.lastBatch:
		return 0, errorf(statusInvalidArgument, "batch %d: the trainer has numbered batches 1 to %d", batch, h.lastBatch)
	}
	var rows []int
	for i, b := range h.batch {
		if b == batch {
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 {
		return 0, nil
	}
	return len(rows), remove(h, rows)
}

// fit trains on the rows held, warm-started from the last fit (its α
// extended to the rows added since, a linear model's w and primal Newton
// state, a kernel run's gradient, which remove cuts to the rows that
// stay), and keeps the new dual state for the next. The model takes the
// trainer's width (widen).
func fit(h *trainerHandle) (core.Model, error) {
	var warm *core.Dual
	if h.dual != nil {
		warm = h.dual.ExtendInPlace(h.ds.Len())
	}
	m, dual, err := h.trainer.Train(h.ds, warm)
	if err != nil {
		return nil, err
	}
	h.dual = dual
	h.last, h.fitted = core.SummaryOf(m)
	// The model takes the trainer's width: a sparse data set is as wide
	// as its largest index.
	if err := core.Widen(m, h.numFeatures); err != nil {
		return nil, err
	}
	return m, nil
}

// setWeights sets the instance weights of rows first .. first+len(w)−1,
// all or none: every weight is checked (positive and finite) and the rows
// must be held before any is set. The next fit's warm start clips the dual
// variables of reweighted rows into their new boxes (core).
func setWeights(h *trainerHandle, first uint64, w []float64) error {
	n := uint64(h.ds.Len())
	if first > n || uint64(len(w)) > n-first {
		return errorf(statusInvalidArgument, "rows %d to %d: the trainer holds %d rows", first, first+uint64(len(w)), n)
	}
	for i, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errorf(statusNotFinite, "weights[%d] is %v", i, v)
		}
		if !(v > 0) {
			return errorf(statusInvalidArgument, "weights[%d] is %v: a weight must be positive (remove the row instead of weighting it 0)", i, v)
		}
	}
	for i, v := range w {
		if err := h.ds.SetWeight(int(first)+i, v); err != nil {
			return errorf(statusInternal, "weights[%d]: %w", i, err) // checked above
		}
	}
	return nil
}

// progressOption in a trainer's options makes its fits print the solvers'
// progress to standard error as they run (svmgo.h: the only output the
// library writes, and only when asked; Python's verbose=True).
const progressOption = "--progress"

// takeProgress removes progressOption from fields and reports whether it
// was there.
func takeProgress(fields []string) ([]string, bool) {
	out, found := fields[:0:0], false
	for _, f := range fields {
		if f == progressOption {
			found = true
			continue
		}
		out = append(out, f)
	}
	return out, found
}

// printProgress writes one line for e to standard error, in one write so
// that the lines of subproblems training at once do not interleave.
func printProgress(e core.ProgressEvent) {
	var b []byte
	b = append(b, "svmgo: progress"...)
	switch e.Classes {
	case 1:
		b = fmt.Appendf(b, " class %d", e.Subproblem)
	case 2:
		b = fmt.Appendf(b, " classes %d vs %d", e.Subproblem, e.Second)
	}
	b = fmt.Appendf(b, ": iter %d", e.Iteration)
	if !math.IsNaN(e.Objective) {
		b = fmt.Appendf(b, ", objective %.6g", e.Objective)
	}
	b = fmt.Appendf(b, ", violation %.3g\n", e.Violation)
	os.Stderr.Write(b)
}
