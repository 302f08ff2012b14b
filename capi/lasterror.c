/*
 * The per-thread last error, and the status names: plain C, because a
 * thread-local buffer is the one place a message can live that belongs to
 * the calling thread and outlives the call. cgo runs an exported Go
 * function on the C thread that called it, so the Go side's setter writes
 * the caller's buffer.
 */
#include <string.h>

#include "capi.h"

static _Thread_local char last_error[CAPI_ERROR_SIZE];

void capi_set_last_error(const char *msg, size_t len) {
    if (len > sizeof last_error - 1) {
        len = sizeof last_error - 1;
    }
    if (len > 0) {
        memcpy(last_error, msg, len);
    }
    last_error[len] = '\0';
}

const char *svmgo_last_error(void) {
    return last_error;
}

const char *svmgo_status_name(int status) {
    switch (status) {
    case SVMGO_OK: return "SVMGO_OK";
    case SVMGO_E_INVALID_ARGUMENT: return "SVMGO_E_INVALID_ARGUMENT";
    case SVMGO_E_BAD_HANDLE: return "SVMGO_E_BAD_HANDLE";
    case SVMGO_E_DIMENSION: return "SVMGO_E_DIMENSION";
    case SVMGO_E_CAPACITY: return "SVMGO_E_CAPACITY";
    case SVMGO_E_NOT_FINITE: return "SVMGO_E_NOT_FINITE";
    case SVMGO_E_IO: return "SVMGO_E_IO";
    case SVMGO_E_CORRUPT: return "SVMGO_E_CORRUPT";
    case SVMGO_E_VERSION: return "SVMGO_E_VERSION";
    case SVMGO_E_FULL: return "SVMGO_E_FULL";
    case SVMGO_E_TRAIN: return "SVMGO_E_TRAIN";
    case SVMGO_E_NO_MODEL: return "SVMGO_E_NO_MODEL";
    case SVMGO_E_UNSUPPORTED: return "SVMGO_E_UNSUPPORTED";
    case SVMGO_E_INTERNAL: return "SVMGO_E_INTERNAL";
    }
    return "SVMGO_E_UNKNOWN";
}
