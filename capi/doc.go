// Command capi is libsvmgo's C ABI: built with
//
//	go build -buildmode=c-shared -o lib/libsvmgo.so ./capi
//
// it exports exactly the functions include/svmgo.h declares (DESIGN.md §7).
// The package holds no algorithm: each export checks its arguments, maps
// handles to the Go values they stand for, calls core (training,
// prediction, model files) or daemon/modeldir (publishing, watching), and
// maps errors to the header's status codes with a message in the calling
// thread's last-error buffer.
//
// The export wrappers (the *_export.go files and version.go) are the only
// code that sees C types; they make zero-copy views of the caller's arrays
// with unsafe.Slice for the duration of the call and pass them to plain Go
// functions (predict.go, trainer.go, model.go), which the tests call
// directly, since a _test.go file cannot use cgo.
//
// # Imports
//
// It may import core and its sub-packages, quantize and daemon/modeldir (the
// directory watcher behind svmgo_model_watch); nothing imports it; imports
// point down the package table of DESIGN.md §2, never sideways.
package main
