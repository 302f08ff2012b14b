package main

// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core"
)

// The predict exports make views of the caller's arrays and call the Go
// functions of predict.go. A watched model is read once per call.

// callModel returns the model a call on handle p uses.
func callModel(p C.capi_cmodel) (core.Model, error) {
	h, err := lookupModel(handleID(unsafe.Pointer(p)))
	if err != nil {
		return nil, err
	}
	m, _, err := h.current()
	return m, err
}

// denseArgs checks a dense predict call's handle and sizes and returns the
// model, dst's view, the row count, the row width and the cell count.
func denseArgs(model C.capi_cmodel, dst *C.double, dstCap, numRows, numFeatures C.size_t) (core.Model, []float64, int, int, int, error) {
	m, err := callModel(model)
	if err != nil {
		return nil, nil, 0, 0, 0, err
	}
	rows, err := count("num_rows", numRows, 8)
	if err != nil {
		return nil, nil, 0, 0, 0, err
	}
	nf, err := count("num_features", numFeatures, 8)
	if err != nil {
		return nil, nil, 0, 0, 0, err
	}
	cells, err := product("num_rows × num_features", rows, nf, 8)
	if err != nil {
		return nil, nil, 0, 0, 0, err
	}
	d, err := outView(dst, dstCap)
	return m, d, rows, nf, cells, err
}

//export svmgo_predict_dense_f32
func svmgo_predict_dense_f32(model C.capi_cmodel, output C.int, dst *C.double, dstCap C.size_t,
	x C.capi_cf32, numRows C.size_t, numFeatures C.size_t) (rc C.int) {
	const fn = "svmgo_predict_dense_f32"
	defer guard(fn, &rc)
	m, d, rows, nf, cells, err := denseArgs(model, dst, dstCap, numRows, numFeatures)
	if err == nil {
		var xs []float32
		if xs, err = view[float32]("x", unsafe.Pointer(x), cells); err == nil {
			err = predictDenseF32(m, int(output), d, xs, rows, nf)
		}
	}
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_predict_dense_f64
func svmgo_predict_dense_f64(model C.capi_cmodel, output C.int, dst *C.double, dstCap C.size_t,
	x C.capi_cf64, numRows C.size_t, numFeatures C.size_t) (rc C.int) {
	const fn = "svmgo_predict_dense_f64"
	defer guard(fn, &rc)
	m, d, rows, nf, cells, err := denseArgs(model, dst, dstCap, numRows, numFeatures)
	if err == nil {
		var xs []float64
		if xs, err = view[float64]("x", unsafe.Pointer(x), cells); err == nil {
			err = predictDenseF64(m, int(output), d, xs, rows, nf)
		}
	}
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_predict_csr_f32
func svmgo_predict_csr_f32(model C.capi_cmodel, output C.int, dst *C.double, dstCap C.size_t,
	indptr C.capi_ci64, indices C.capi_ci32, values C.capi_cf32, numRows C.size_t) (rc C.int) {
	const fn = "svmgo_predict_csr_f32"
	defer guard(fn, &rc)
	m, err := callModel(model)
	if err == nil {
		var d []float64
		if d, err = outView(dst, dstCap); err == nil {
			ip, idx, val, rows, verr := csrViews[float32](indptr, indices, unsafe.Pointer(values), numRows)
			if err = verr; err == nil {
				err = predictCSRF32(m, int(output), d, ip, idx, val, rows)
			}
		}
	}
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_predict_csr_f64
func svmgo_predict_csr_f64(model C.capi_cmodel, output C.int, dst *C.double, dstCap C.size_t,
	indptr C.capi_ci64, indices C.capi_ci32, values C.capi_cf64, numRows C.size_t) (rc C.int) {
	const fn = "svmgo_predict_csr_f64"
	defer guard(fn, &rc)
	m, err := callModel(model)
	if err == nil {
		var d []float64
		if d, err = outView(dst, dstCap); err == nil {
			ip, idx, val, rows, verr := csrViews[float64](indptr, indices, unsafe.Pointer(values), numRows)
			if err = verr; err == nil {
				err = predictCSRF64(m, int(output), d, ip, idx, val, rows)
			}
		}
	}
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}
