package main

// #include "capi.h"
import "C"

import (
	"math"
	"unsafe"
)

// Views of C arrays as Go slices, for the duration of one call. Sizes are
// checked first: a count whose bytes overflow the address space is the
// caller's error, and unsafe.Slice would panic on it.

// maxElems returns the largest element count of size-byte elements that a
// slice may have.
func maxElems(size uintptr) uint64 { return uint64(math.MaxInt / size) }

// handleID is the number an opaque handle carries.
func handleID(p unsafe.Pointer) uint64 { return uint64(uintptr(p)) }

// count converts a size_t count of size-byte elements to an int.
func count(name string, n C.size_t, size uintptr) (int, error) {
	if uint64(n) > maxElems(size) {
		return 0, errorf(statusInvalidArgument, "%s is %d, beyond any array's size", name, uint64(n))
	}
	return int(n), nil
}

// product returns a × b elements of size bytes, refusing overflow.
func product(name string, a, b int, size uintptr) (int, error) {
	if b != 0 && uint64(a) > maxElems(size)/uint64(b) {
		return 0, errorf(statusInvalidArgument, "%s is %d × %d, beyond any array's size", name, a, b)
	}
	return a * b, nil
}

// view returns the n elements at p as a slice; p may be NULL only when n
// is 0.
func view[T any](name string, p unsafe.Pointer, n int) ([]T, error) {
	if n == 0 {
		return nil, nil
	}
	if p == nil {
		return nil, errorf(statusInvalidArgument, "%s is NULL", name)
	}
	return unsafe.Slice((*T)(p), n), nil
}

// outView returns dst as a slice of at most its capacity, clamped to what
// a slice may hold (the capacity check compares the need with the
// clamped length). dst may be NULL only when dstCap is 0.
func outView(dst *C.double, dstCap C.size_t) ([]float64, error) {
	n := min(uint64(dstCap), maxElems(8))
	return view[float64]("dst", unsafe.Pointer(dst), int(n))
}

// goString copies a NUL-terminated C string; NULL is an error.
func goString(name string, s C.capi_cstr) (string, error) {
	if s == nil {
		return "", errorf(statusInvalidArgument, "%s is NULL", name)
	}
	return C.GoString(s), nil
}

// csrViews returns views of a CSR input's arrays: indptr's rows + 1
// entries, and the indices and values up to indptr[rows].
func csrViews[T any](indptr C.capi_ci64, indices C.capi_ci32, values unsafe.Pointer, numRows C.size_t) ([]int64, []int32, []T, int, error) {
	// indptr has num_rows + 1 entries.
	if uint64(numRows) >= maxElems(8) {
		return nil, nil, nil, 0, errorf(statusInvalidArgument, "num_rows is %d, beyond any array's size", uint64(numRows))
	}
	rows := int(numRows)
	if indptr == nil {
		return nil, nil, nil, 0, errorf(statusInvalidArgument, "indptr is NULL")
	}
	ip := unsafe.Slice((*int64)(unsafe.Pointer(indptr)), rows+1)
	end := ip[rows]
	if end < 0 || uint64(end) > maxElems(8) {
		return nil, nil, nil, 0, errorf(statusInvalidArgument, "indptr[%d] is %d", rows, end)
	}
	idx, err := view[int32]("indices", unsafe.Pointer(indices), int(end))
	if err != nil {
		return nil, nil, nil, 0, err
	}
	val, err := view[T]("values", values, int(end))
	if err != nil {
		return nil, nil, nil, 0, err
	}
	return ip, idx, val, rows, nil
}
