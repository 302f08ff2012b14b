package main

// #include "capi.h"
import "C"

import (
	"fmt"
	"unicode/utf8"
	"unsafe"
)

// maxErrorBytes is what the C buffer holds before its terminating NUL.
const maxErrorBytes = C.CAPI_ERROR_SIZE - 1

// setLastError stores msg as the calling thread's last error, cut at a
// rune boundary when it does not fit.
func setLastError(msg string) {
	if len(msg) > maxErrorBytes {
		cut := maxErrorBytes
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut]
	}
	// The bytes are copied before the call returns; C keeps no pointer.
	C.capi_set_last_error((*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)))
}

// fail records err, prefixed with the name of the export that failed, as
// the calling thread's last error, and returns its status code.
func fail(fn string, err error) C.int {
	setLastError(fn + ": " + err.Error())
	return C.int(statusOf(err))
}

// guard is deferred by every export: a Go panic must not cross into C
// (it would abort the host process), so it becomes SVMGO_E_INTERNAL with
// the panic's text as the message.
func guard(fn string, rc *C.int) {
	if r := recover(); r != nil {
		setLastError(fmt.Sprintf("%s: internal error (please report): %v", fn, r))
		*rc = statusInternal
	}
}
