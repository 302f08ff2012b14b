/*
 * capi.h — internal to libsvmgo's capi package; not installed.
 *
 * It includes the public header, so that the C compiler checks every Go
 * export against the prototype the header declares: cgo writes its own
 * prototypes without const, which would conflict, so the exports take the
 * const-qualified typedefs below and cgo's prototypes then match the
 * header's exactly.
 */
#ifndef CAPI_H
#define CAPI_H

#include <stddef.h>
#include <stdint.h>

#include "../include/svmgo.h"

typedef const char *capi_cstr;
typedef const void *capi_cvoid;
typedef const float *capi_cf32;
typedef const double *capi_cf64;
typedef const int32_t *capi_ci32;
typedef const int64_t *capi_ci64;
typedef const size_t *capi_csize;
typedef const svmgo_model *capi_cmodel;
typedef const svmgo_trainer *capi_ctrainer;

/* Bytes of the per-thread message buffer, terminating NUL included. */
#define CAPI_ERROR_SIZE 1024

#define CAPI_HIDDEN __attribute__((visibility("hidden")))

/* Copies the len bytes at msg (at most CAPI_ERROR_SIZE - 1) into the
 * calling thread's last-error buffer. Hidden: only the header's names are
 * exported. */
CAPI_HIDDEN void capi_set_last_error(const char *msg, size_t len);

/* Handles are numbers, never Go pointers (DESIGN §7). Converting the
 * number to the opaque pointer type happens here, in C, so that Go never
 * holds a pointer-typed value that points nowhere. */
static inline void capi_store_model(svmgo_model **out, uint64_t id) {
    *out = (svmgo_model *)(uintptr_t)id;
}

static inline void capi_store_trainer(svmgo_trainer **out, uint64_t id) {
    *out = (svmgo_trainer *)(uintptr_t)id;
}

#endif /* CAPI_H */
