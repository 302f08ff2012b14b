package main

// #include "capi.h"
import "C"

import "unsafe"

//export svmgo_model_export_onnx
func svmgo_model_export_onnx(model C.capi_cmodel, dst unsafe.Pointer, dstCap C.size_t, size *C.size_t) (rc C.int) {
	const fn = "svmgo_model_export_onnx"
	defer guard(fn, &rc)
	m, err := callModel(model)
	if err != nil {
		return fail(fn, err)
	}
	d, err := view[byte]("dst", dst, int(min(uint64(dstCap), maxElems(1))))
	if err != nil {
		return fail(fn, err)
	}
	n, err := exportONNX(m, d)
	if size != nil {
		*size = C.size_t(n)
	}
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}
