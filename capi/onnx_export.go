package main

// #include "capi.h"
import "C"

import "unsafe"

//export svmgo_model_export_onnx
func svmgo_model_export_onnx(model C.capi_cmodel, dst unsafe.Pointer, dstCap C.size_t, size *C.size_t) (rc C.int) {
	const fn = "svmgo_model_export_onnx"
	defer guard(fn, &rc)
	return writeBuffer(fn, model, dst, dstCap, size, exportONNX)
}
