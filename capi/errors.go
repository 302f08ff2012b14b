package main

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// Status codes, the values of svmgo.h's enum svmgo_status.
const (
	statusOK              = 0
	statusInvalidArgument = -1
	statusBadHandle       = -2
	statusDimension       = -3
	statusCapacity        = -4
	statusNotFinite       = -5
	statusIO              = -6
	statusCorrupt         = -7
	statusVersion         = -8
	statusFull            = -9
	statusTrain           = -10
	statusNoModel         = -11
	statusUnsupported     = -12
	statusInternal        = -13
)

// apiError is a failure with its status code decided where it was found,
// for the checks this package makes itself. It may wrap the error it
// reports.
type apiError struct {
	code int
	msg  string
	err  error
}

func (e *apiError) Error() string { return e.msg }
func (e *apiError) Unwrap() error { return e.err }

// errorf returns an apiError with code and a formatted message; a %w verb
// makes it wrap that error too.
func errorf(code int, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &apiError{code: code, msg: err.Error(), err: errors.Unwrap(err)}
}

// statusOf maps an error to a status code: the code of an apiError, else
// the code of the sentinel it wraps. Anything unrecognized is a bug in
// this library, so it is SVMGO_E_INTERNAL.
func statusOf(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.code
	}
	var errno syscall.Errno
	var pathErr *fs.PathError
	switch {
	case err == nil:
		return statusOK
	case errors.Is(err, modelfile.ErrVersion):
		return statusVersion
	case errors.Is(err, modelfile.ErrNotModel), errors.Is(err, modelfile.ErrTruncated),
		errors.Is(err, modelfile.ErrChecksum), errors.Is(err, modelfile.ErrCorrupt):
		return statusCorrupt
	case errors.Is(err, data.ErrFull):
		return statusFull
	case errors.Is(err, data.ErrLabels):
		return statusTrain
	case errors.Is(err, core.ErrParams), errors.Is(err, core.ErrTooLarge), errors.Is(err, data.ErrBadRow), errors.Is(err, data.ErrRowPosition):
		return statusInvalidArgument
	case errors.As(err, &pathErr), errors.As(err, &errno), errors.Is(err, fs.ErrNotExist),
		errors.Is(err, fs.ErrPermission), errors.Is(err, fs.ErrExist):
		return statusIO
	}
	return statusInternal
}
