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

// AppendRow copies row i of src to dst (data.Dataset.AppendRowOf), which
// has room for it (a panic otherwise: callers size dst from src).
func AppendRow(dst, src *data.Dataset, i int) {
	if err := dst.AppendRowOf(src, i); err != nil {
		panic("core: AppendRow: " + err.Error())
	}
}
