package main

// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core"
)

// The trainer exports (trainer.go holds the Go side). Each locks its
// trainer for the whole call.

//export svmgo_trainer_new
func svmgo_trainer_new(options C.capi_cstr, capacityRows, numFeatures, capacityNonzeros C.size_t, out **C.svmgo_trainer) (rc C.int) {
	const fn = "svmgo_trainer_new"
	defer guard(fn, &rc)
	o, err := goString("options", options)
	if err != nil {
		return fail(fn, err)
	}
	if out == nil {
		return fail(fn, errorf(statusInvalidArgument, "out is NULL"))
	}
	h, err := newTrainer(o, uint64(capacityRows), uint64(numFeatures), uint64(capacityNonzeros))
	if err != nil {
		return fail(fn, err)
	}
	C.capi_store_trainer(out, C.uint64_t(newHandle(h)))
	return statusOK
}

//export svmgo_trainer_free
func svmgo_trainer_free(trainer *C.svmgo_trainer) (rc C.int) {
	const fn = "svmgo_trainer_free"
	defer guard(fn, &rc)
	if err := freeTrainer(handleID(unsafe.Pointer(trainer))); err != nil {
		return fail(fn, err)
	}
	return statusOK
}

// withTrainer runs f on the trainer numbered id, holding its lock.
func withTrainer(id uint64, f func(h *trainerHandle) error) error {
	h, err := lookupTrainer(id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return f(h)
}

// addDenseCall is the body of the two add_dense exports.
func addDenseCall[T float32 | float64](trainer *C.svmgo_trainer, labels C.capi_cf64, x unsafe.Pointer, numRows, numFeatures C.size_t) error {
	return withTrainer(handleID(unsafe.Pointer(trainer)), func(h *trainerHandle) error {
		rows, err := count("num_rows", numRows, 8)
		if err != nil {
			return err
		}
		nf, err := count("num_features", numFeatures, 8)
		if err != nil {
			return err
		}
		cells, err := product("num_rows × num_features", rows, nf, 8)
		if err != nil {
			return err
		}
		ys, err := view[float64]("labels", unsafe.Pointer(labels), rows)
		if err != nil {
			return err
		}
		xs, err := view[T]("x", x, cells)
		if err != nil {
			return err
		}
		return addDense(h, ys, xs, rows, nf)
	})
}

// addCSRCall is the body of the two add_csr exports.
func addCSRCall[T float32 | float64](trainer *C.svmgo_trainer, labels C.capi_cf64, indptr C.capi_ci64, indices C.capi_ci32, values unsafe.Pointer, numRows C.size_t) error {
	return withTrainer(handleID(unsafe.Pointer(trainer)), func(h *trainerHandle) error {
		ip, idx, val, rows, err := csrViews[T](indptr, indices, values, numRows)
		if err != nil {
			return err
		}
		ys, err := view[float64]("labels", unsafe.Pointer(labels), rows)
		if err != nil {
			return err
		}
		return addCSR(h, ys, ip, idx, val, rows)
	})
}

//export svmgo_trainer_add_dense_f32
func svmgo_trainer_add_dense_f32(trainer *C.svmgo_trainer, labels C.capi_cf64, x C.capi_cf32, numRows C.size_t, numFeatures C.size_t) (rc C.int) {
	const fn = "svmgo_trainer_add_dense_f32"
	defer guard(fn, &rc)
	if err := addDenseCall[float32](trainer, labels, unsafe.Pointer(x), numRows, numFeatures); err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_add_dense_f64
func svmgo_trainer_add_dense_f64(trainer *C.svmgo_trainer, labels C.capi_cf64, x C.capi_cf64, numRows C.size_t, numFeatures C.size_t) (rc C.int) {
	const fn = "svmgo_trainer_add_dense_f64"
	defer guard(fn, &rc)
	if err := addDenseCall[float64](trainer, labels, unsafe.Pointer(x), numRows, numFeatures); err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_add_csr_f32
func svmgo_trainer_add_csr_f32(trainer *C.svmgo_trainer, labels C.capi_cf64, indptr C.capi_ci64, indices C.capi_ci32, values C.capi_cf32, numRows C.size_t) (rc C.int) {
	const fn = "svmgo_trainer_add_csr_f32"
	defer guard(fn, &rc)
	if err := addCSRCall[float32](trainer, labels, indptr, indices, unsafe.Pointer(values), numRows); err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_add_csr_f64
func svmgo_trainer_add_csr_f64(trainer *C.svmgo_trainer, labels C.capi_cf64, indptr C.capi_ci64, indices C.capi_ci32, values C.capi_cf64, numRows C.size_t) (rc C.int) {
	const fn = "svmgo_trainer_add_csr_f64"
	defer guard(fn, &rc)
	if err := addCSRCall[float64](trainer, labels, indptr, indices, unsafe.Pointer(values), numRows); err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_remove
func svmgo_trainer_remove(trainer *C.svmgo_trainer, rows C.capi_csize, n C.size_t) (rc C.int) {
	const fn = "svmgo_trainer_remove"
	defer guard(fn, &rc)
	err := withTrainer(handleID(unsafe.Pointer(trainer)), func(h *trainerHandle) error {
		k, err := count("count", n, 8)
		if err != nil {
			return err
		}
		pos, err := view[C.size_t]("rows", unsafe.Pointer(rows), k)
		if err != nil {
			return err
		}
		del := make([]int, k)
		for i, r := range pos {
			if uint64(r) >= uint64(h.ds.Len()) {
				return errorf(statusInvalidArgument, "rows[%d] is %d, the trainer holds %d rows", i, uint64(r), h.ds.Len())
			}
			del[i] = int(r)
		}
		return remove(h, del)
	})
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_last_batch
func svmgo_trainer_last_batch(trainer C.capi_ctrainer, batch *C.uint64_t) (rc C.int) {
	const fn = "svmgo_trainer_last_batch"
	defer guard(fn, &rc)
	err := withTrainer(handleID(unsafe.Pointer(trainer)), func(h *trainerHandle) error {
		if batch == nil {
			return errorf(statusInvalidArgument, "batch is NULL")
		}
		*batch = C.uint64_t(h.lastBatch)
		return nil
	})
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_forget
func svmgo_trainer_forget(trainer *C.svmgo_trainer, batch C.uint64_t, removed *C.size_t) (rc C.int) {
	const fn = "svmgo_trainer_forget"
	defer guard(fn, &rc)
	err := withTrainer(handleID(unsafe.Pointer(trainer)), func(h *trainerHandle) error {
		n, err := forget(h, uint64(batch))
		if err != nil {
			return err
		}
		if removed != nil {
			*removed = C.size_t(n)
		}
		return nil
	})
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_num_rows
func svmgo_trainer_num_rows(trainer C.capi_ctrainer, n *C.size_t) (rc C.int) {
	const fn = "svmgo_trainer_num_rows"
	defer guard(fn, &rc)
	err := withTrainer(handleID(unsafe.Pointer(trainer)), func(h *trainerHandle) error {
		if n == nil {
			return errorf(statusInvalidArgument, "count is NULL")
		}
		*n = C.size_t(h.ds.Len())
		return nil
	})
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_fit
func svmgo_trainer_fit(trainer *C.svmgo_trainer, out **C.svmgo_model) (rc C.int) {
	const fn = "svmgo_trainer_fit"
	defer guard(fn, &rc)
	err := withTrainer(handleID(unsafe.Pointer(trainer)), func(h *trainerHandle) error {
		if out == nil {
			return errorf(statusInvalidArgument, "out is NULL")
		}
		m, err := fit(h)
		if err != nil {
			return err
		}
		storeModel(out, &modelHandle{fixed: m})
		return nil
	})
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_set_weights
func svmgo_trainer_set_weights(trainer *C.svmgo_trainer, firstRow C.size_t, weights C.capi_cf64, n C.size_t) (rc C.int) {
	const fn = "svmgo_trainer_set_weights"
	defer guard(fn, &rc)
	err := withTrainer(handleID(unsafe.Pointer(trainer)), func(h *trainerHandle) error {
		k, err := count("count", n, 8)
		if err != nil {
			return err
		}
		w, err := view[float64]("weights", unsafe.Pointer(weights), k)
		if err != nil {
			return err
		}
		return setWeights(h, uint64(firstRow), w)
	})
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

//export svmgo_trainer_fit_info
func svmgo_trainer_fit_info(trainer C.capi_ctrainer, out *C.svmgo_fit_info) (rc C.int) {
	const fn = "svmgo_trainer_fit_info"
	defer guard(fn, &rc)
	err := withTrainer(handleID(unsafe.Pointer(trainer)), func(h *trainerHandle) error {
		if out == nil {
			return errorf(statusInvalidArgument, "out is NULL")
		}
		if !h.fitted {
			return errorf(statusNoModel, "the trainer has not fitted a model yet")
		}
		s := h.last
		unit := C.int32_t(C.SVMGO_WORK_ROWS_READ)
		if s.WorkUnit == core.WorkKernelEvals {
			unit = C.SVMGO_WORK_KERNEL_EVALS
		}
		*out = C.svmgo_fit_info{
			iterations: C.uint64_t(s.Iterations),
			work:       C.uint64_t(s.Work),
			objective:  C.double(s.Objective),
			num_sv:     C.uint64_t(s.NumSV),
			converged:  C.int32_t(boolInt(s.Converged)),
			work_unit:  unit,
		}
		return nil
	})
	if err != nil {
		return fail(fn, err)
	}
	return statusOK
}

// boolInt is 1 for true, 0 for false: a C boolean.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
