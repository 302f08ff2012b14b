package main

// #include "capi.h"
import "C"

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"unsafe"

	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// The model exports: file and buffer loading, saving, publishing,
// watching, properties and labels (model.go holds the Go side).

// storeModel gives C a new handle for h in *out.
func storeModel(out **C.svmgo_model, h *modelHandle) {
	C.capi_store_model(out, C.uint64_t(newHandle(h)))
}

//export svmgo_model_load
func svmgo_model_load(path C.capi_cstr, out **C.svmgo_model) (rc C.int) {
	const fn = "svmgo_model_load"
	defer guard(fn, &rc)
	p, err := goString("path", path)
	if err != nil {
		return fail(fn, err)
	}
	if out == nil {
		return fail(fn, errorf(statusInvalidArgument, "out is NULL"))
	}
	m, err := loadFile(p)
	if err != nil {
		return fail(fn, err)
	}
	storeModel(out, &modelHandle{fixed: m})
	return statusOK
}

//export svmgo_model_load_buffer
func svmgo_model_load_buffer(buf C.capi_cvoid, size C.size_t, out **C.svmgo_model) (rc C.int) {
	const fn = "svmgo_model_load_buffer"
	defer guard(fn, &rc)
	n, err := count("size", size, 1)
	if err != nil {
		return fail(fn, err)
	}
	if n == 0 {
		return fail(fn, errorf(statusInvalidArgument, "size is 0"))
	}
	b, err := view[byte]("buf", unsafe.Pointer(buf), n)
	if err != nil {
		return fail(fn, err)
	}
	if out == nil {
		return fail(fn, errorf(statusInvalidArgument, "out is NULL"))
	}
	m, err := loadBuffer(b)
	if err != nil {
		return fail(fn, err)
	}
	storeModel(out, &modelHandle{fixed: m})
	return statusOK
}

//export svmgo_model_save
func svmgo_model_save(model C.capi_cmodel, path C.capi_cstr) (rc C.int) {
	const fn = "svmgo_model_save"
	defer guard(fn, &rc)
	m, err := callModel(model)
	if err != nil {
		return fail(fn, err)
	}
	p, err := goString("path", path)
	if err != nil {
		return fail(fn, err)
	}
	if err := modelfile.WriteFile(p, m); err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_model_publish
func svmgo_model_publish(model C.capi_cmodel, dir C.capi_cstr, version *C.uint64_t) (rc C.int) {
	const fn = "svmgo_model_publish"
	defer guard(fn, &rc)
	m, err := callModel(model)
	if err != nil {
		return fail(fn, err)
	}
	d, err := goString("dir", dir)
	if err != nil {
		return fail(fn, err)
	}
	v, err := modeldir.Publish(d, m)
	if err != nil {
		return fail(fn, err)
	}
	if version != nil {
		*version = C.uint64_t(v)
	}
	return statusOK
}

//export svmgo_model_watch
func svmgo_model_watch(dir C.capi_cstr, out **C.svmgo_model) (rc C.int) {
	const fn = "svmgo_model_watch"
	defer guard(fn, &rc)
	d, err := goString("dir", dir)
	if err != nil {
		return fail(fn, err)
	}
	if out == nil {
		return fail(fn, errorf(statusInvalidArgument, "out is NULL"))
	}
	h, err := watch(d)
	if err != nil {
		return fail(fn, err)
	}
	storeModel(out, h)
	return statusOK
}

//export svmgo_model_free
func svmgo_model_free(model *C.svmgo_model) (rc C.int) {
	const fn = "svmgo_model_free"
	defer guard(fn, &rc)
	if err := freeModel(handleID(unsafe.Pointer(model))); err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_model_get
func svmgo_model_get(model C.capi_cmodel, prop C.int, value *C.int64_t) (rc C.int) {
	const fn = "svmgo_model_get"
	defer guard(fn, &rc)
	h, err := lookupModel(handleID(unsafe.Pointer(model)))
	if err != nil {
		return fail(fn, err)
	}
	if value == nil {
		return fail(fn, errorf(statusInvalidArgument, "value is NULL"))
	}
	v, err := property(h, int(prop))
	if err != nil {
		return fail(fn, err)
	}
	*value = C.int64_t(v)
	return statusOK
}

//export svmgo_model_labels
func svmgo_model_labels(model C.capi_cmodel, dst *C.int32_t, dstCap C.size_t, nLabels *C.size_t) (rc C.int) {
	const fn = "svmgo_model_labels"
	defer guard(fn, &rc)
	m, err := callModel(model)
	if err != nil {
		return fail(fn, err)
	}
	d, err := view[int32]("dst", unsafe.Pointer(dst), int(min(uint64(dstCap), maxElems(4))))
	if err != nil {
		return fail(fn, err)
	}
	n, err := copyLabels(m, d)
	if err != nil {
		return fail(fn, err)
	}
	if nLabels != nil {
		*nLabels = C.size_t(n)
	}
	return statusOK
}

//export svmgo_model_save_buffer
func svmgo_model_save_buffer(model C.capi_cmodel, dst unsafe.Pointer, dstCap C.size_t, size *C.size_t) (rc C.int) {
	const fn = "svmgo_model_save_buffer"
	defer guard(fn, &rc)
	return writeBuffer(fn, model, dst, dstCap, size, saveBuffer)
}

// writeBuffer is the body of the calls that write a model's bytes into a
// caller's buffer (dst, dst_cap, *size): write fills d and returns the
// length, also with SVMGO_E_CAPACITY when it does not fit.
func writeBuffer(fn string, model C.capi_cmodel, dst unsafe.Pointer, dstCap C.size_t, size *C.size_t,
	write func(m core.Model, d []byte) (int, error)) C.int {
	m, err := callModel(model)
	if err != nil {
		return fail(fn, err)
	}
	d, err := view[byte]("dst", dst, int(min(uint64(dstCap), maxElems(1))))
	if err != nil {
		return fail(fn, err)
	}
	n, err := write(m, d)
	if size != nil {
		*size = C.size_t(n)
	}
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_model_watch_skip
func svmgo_model_watch_skip(model C.capi_cmodel, version *C.uint64_t, dst *C.char, dstCap C.size_t, length *C.size_t) (rc C.int) {
	const fn = "svmgo_model_watch_skip"
	defer guard(fn, &rc)
	h, err := lookupModel(handleID(unsafe.Pointer(model)))
	if err != nil {
		return fail(fn, err)
	}
	d, err := view[byte]("dst", unsafe.Pointer(dst), int(min(uint64(dstCap), maxElems(1))))
	if err != nil {
		return fail(fn, err)
	}
	v, reason, err := watchSkip(h)
	if err != nil {
		return fail(fn, err)
	}
	if len(d) > 0 {
		n := copy(d[:len(d)-1], reason)
		d[n] = 0
	}
	if version != nil {
		*version = C.uint64_t(v)
	}
	if length != nil {
		*length = C.size_t(len(reason))
	}
	return statusOK
}
