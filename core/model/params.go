package model

import (
	"errors"
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/scale"
)

// ClassWeight scales C for the samples of one class (LIBLINEAR's -wi).
type ClassWeight struct {
	Label  int32
	Weight float64
}

// ErrParams is wrapped by the errors that report invalid training parameters.
var ErrParams = errors.New("core: invalid parameters")

// CheckScale checks the ranges r a model of numFeatures features carries
// (nil for none), as every model kind does: valid, without target scaling,
// dense (no Index), and covering exactly the model's features.
func CheckScale(r *scale.Ranges, numFeatures int) error {
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

// LeaveOneOutWarning is LIBSVM's and LIBLINEAR's warning, for a
// command's standard error, when -v asks for more folds than there are
// rows: the cross-validation functions then run leave-one-out.
const LeaveOneOutWarning = "WARNING: # folds > # data. Will use # folds = # data instead (i.e., leave-one-out cross validation)\n"
