/*
 * libsvm_reader.h — a small reader of LIBSVM text files for the examples.
 *
 * A LIBSVM file holds one row a line: "label index:value index:value ...",
 * with 1-based, strictly increasing feature indices; missing features are 0.
 * libsvm_read turns a file into the CSR arrays that libsvmgo's
 * svmgo_trainer_add_csr_f32 and svmgo_predict_csr_f32 take, with 0-based
 * indices (feature "1:" of the file is index 0).
 *
 * It is example code: plain C99, no dependencies, the whole file in memory.
 * It refuses malformed lines with "file:line: what was wrong" rather than
 * guessing, but leaves value checks (NaN, Inf) to the library.
 */
#ifndef LIBSVM_READER_H
#define LIBSVM_READER_H

#include <stddef.h>
#include <stdint.h>

/* A data set in CSR form: row r is indices/values[indptr[r] .. indptr[r+1]). */
typedef struct libsvm_data {
    size_t num_rows;
    size_t num_features; /* the largest 1-based index seen: features per dense row */
    double *labels;      /* num_rows labels */
    int64_t *indptr;     /* num_rows + 1 offsets, indptr[0] = 0 */
    int32_t *indices;    /* indptr[num_rows] 0-based feature indices */
    float *values;       /* indptr[num_rows] values */
} libsvm_data;

/* Reads the first max_rows rows of the file at path (all rows when max_rows
 * is 0) into *out, which the caller frees with libsvm_free. Returns 0, or -1
 * with a message of at most err_cap bytes in err (and *out left empty). */
int libsvm_read(const char *path, size_t max_rows, libsvm_data *out, char *err, size_t err_cap);

/* Frees the arrays of d and empties it. Safe on an empty or freed d. */
void libsvm_free(libsvm_data *d);

/* Writes row r of d into dst as a dense row of num_features floats: zeros,
 * then the row's values at their indices (indices >= num_features are
 * dropped). */
void libsvm_dense_row(const libsvm_data *d, size_t r, float *dst, size_t num_features);

#endif /* LIBSVM_READER_H */
