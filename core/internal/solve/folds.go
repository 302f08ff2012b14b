package solve

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// FoldCount returns the folds a cross-validation of l rows runs: folds,
// or l (leave-one-out) when folds > l, as svm_cross_validation and
// LIBLINEAR's cross_validation and find_parameters do. It refuses folds
// < 2 and fewer than two rows (model.ErrParams).
func FoldCount(folds, l int) (int, error) {
	folds = min(folds, l)
	if folds < 2 {
		return 0, fmt.Errorf("%w: %d-fold cross validation of %d rows", model.ErrParams, folds, l)
	}
	return folds, nil
}

// AppendRow copies row i of src to dst, which has room for it (a panic
// otherwise: callers size dst from src).
func AppendRow(dst, src *data.Dataset, i int) {
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
		panic("core: AppendRow: " + err.Error())
	}
}
