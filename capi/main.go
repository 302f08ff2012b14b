package main

// lasterror.c needs C11's _Thread_local. Warnings are not errors here,
// so that a newer compiler's opinion of cgo's generated code cannot break
// a build; TestInternalCIsStrict holds the hand-written C to -Werror.

// #cgo CFLAGS: -std=gnu11
import "C"

// main is never called: a c-shared library has no entry point.
func main() {}
