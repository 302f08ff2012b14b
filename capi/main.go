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
package main

// lasterror.c needs C11's _Thread_local. Warnings are not errors here,
// so that a newer compiler's opinion of cgo's generated code cannot break
// a build; TestInternalCIsStrict holds the hand-written C to -Werror.

// #cgo CFLAGS: -std=gnu11
import "C"

// main is never called: a c-shared library has no entry point.
func main() {}
