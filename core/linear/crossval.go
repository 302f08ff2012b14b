package linear

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
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
	folds, err := solve.FoldCount(folds, l)
	if err != nil {
		return nil, err
	}
	if !p.Solver.IsRegression() {
		if _, err := solve.GroupClasses(ds); err != nil {
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
			solve.AppendRow(train, ds, i)
		}
		for _, i := range perm[end:] {
			solve.AppendRow(train, ds, i)
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
