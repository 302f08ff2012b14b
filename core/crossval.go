package core

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// CrossValidateLinear runs folds-fold cross-validation as LIBLINEAR's -v
// does: the rows are shuffled with p.Seed, split into folds nearly equal
// parts, and each part is predicted by a model trained on the others. It
// returns the prediction of every row of ds, in ds's order.
// More folds than rows run leave-one-out (folds = ds.Len()), as LIBLINEAR
// does (it warns; the command prints its warning, LeaveOneOutWarning).
// It returns an error wrapping ErrParams when folds < 2 or ds has fewer
// than two rows, and one wrapping ErrLabels, naming the row of ds, when a classifier's
// labels are unusable (a fold would fail on them anyway, naming a row of
// its own training part).
func CrossValidateLinear(ds *data.Dataset, p LinearParams, folds int) ([]float64, error) {
	l := ds.Len()
	folds, err := foldCount(folds, l)
	if err != nil {
		return nil, err
	}
	if !p.Solver.IsRegression() {
		if _, err := groupClasses(ds); err != nil {
			return nil, err
		}
	}
	perm := foldPermutation(l, p.Seed)

	nnz := ds.Nonzeros()
	var train *data.Dataset
	if ds.IsDense() {
		train = data.NewDense(l, ds.NumFeatures())
	} else {
		train = data.NewSparse(l, nnz, 0)
	}
	p.Probability = false // the predictions are labels: no sigmoid needed
	t, err := NewLinearTrainer(p, l, ds.NumFeatures())
	if err != nil {
		return nil, err
	}
	pred := make([]float64, l)
	for f := range folds {
		start, end := f*l/folds, (f+1)*l/folds
		train.Reset()
		for _, i := range perm[:start] {
			appendRow(train, ds, i)
		}
		for _, i := range perm[end:] {
			appendRow(train, ds, i)
		}
		m, _, err := t.Train(train, nil)
		if err != nil {
			return nil, fmt.Errorf("core: cross validation fold %d: %w", f+1, err)
		}
		for _, i := range perm[start:end] {
			if ds.IsDense() {
				pred[i] = m.predictAnyWidth(ds.DenseRow(i))
			} else {
				pred[i] = m.PredictSparse(ds.SparseRow(i))
			}
		}
	}
	return pred, nil
}

// LeaveOneOutWarning is LIBSVM's and LIBLINEAR's warning, for a
// command's standard error, when -v asks for more folds than there are
// rows: the cross-validation functions then run leave-one-out.
const LeaveOneOutWarning = "WARNING: # folds > # data. Will use # folds = # data instead (i.e., leave-one-out cross validation)\n"

// foldCount returns the folds a cross-validation of l rows runs: folds,
// or l (leave-one-out) when folds > l, as svm_cross_validation and
// LIBLINEAR's cross_validation and find_parameters do. It refuses folds
// < 2 and fewer than two rows (ErrParams).
func foldCount(folds, l int) (int, error) {
	folds = min(folds, l)
	if folds < 2 {
		return 0, fmt.Errorf("%w: %d-fold cross validation of %d rows", ErrParams, folds, l)
	}
	return folds, nil
}

// appendRow copies row i of src to dst, which has room for it (a panic
// otherwise: callers size dst from src).
func appendRow(dst, src *data.Dataset, i int) {
	var err error
	if src.IsDense() {
		err = dst.AppendDense(src.Label(i), src.DenseRow(i))
	} else {
		idx, val := src.SparseRow(i)
		err = dst.AppendSparse(src.Label(i), idx, val)
	}
	if w := src.Weight(i); err == nil && w != 1 {
		err = dst.SetWeight(dst.Len()-1, w)
	}
	if err != nil {
		panic("core: appendRow: " + err.Error())
	}
}
