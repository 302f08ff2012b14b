/*
 * parity.c — predicts the same rows through every input layout and writes
 * the outputs as raw doubles, for the Go test to compare bit for bit with
 * the Go API.
 *
 * Usage: parity MODEL DATA ROWS NF NNZ OUT
 * DATA.f32 and DATA.f64 hold ROWS dense rows of NF values; DATA.indptr
 * (ROWS + 1 int64), DATA.indices (NNZ int32), DATA.v32 and DATA.v64 (NNZ
 * values) the same rows as CSR. Writes OUT.<layout>.<output> for layouts
 * dense_f32, dense_f64, csr_f32, csr_f64 and outputs label, dec, and prob
 * when the model has probabilities (else it checks that they are refused
 * with SVMGO_E_UNSUPPORTED). Writes OUT.props, the model's properties
 * KIND, NUM_FEATURES, NUM_CLASSES, NUM_DECISION_VALUES, QUANTIZED,
 * HAS_PROBABILITY and VERSION as int64.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "testutil.h"

static size_t rows, nf, nnz, ndec, nclass;
static float *x32;
static double *x64;
static int64_t *indptr;
static int32_t *indices;
static float *v32;
static double *v64;

/* predict runs one layout with one output over all rows, or over one row
 * at a time when single is set. */
static int predict(svmgo_model *m, int layout, int output, double *dst, size_t cap, int single) {
    size_t per = output == SVMGO_OUTPUT_LABEL ? 1 : output == SVMGO_OUTPUT_DECISION_VALUES ? ndec : nclass;
    size_t r, n = single ? 1 : rows;
    int rc = SVMGO_OK;
    for (r = 0; r < rows && rc == SVMGO_OK; r += n) {
        double *d = dst + r * per;
        size_t c = cap - r * per;
        switch (layout) {
        case 0: rc = svmgo_predict_dense_f32(m, output, d, c, x32 + r * nf, n, nf); break;
        case 1: rc = svmgo_predict_dense_f64(m, output, d, c, x64 + r * nf, n, nf); break;
        case 2: rc = svmgo_predict_csr_f32(m, output, d, c, indptr + r, indices, v32, n); break;
        default: rc = svmgo_predict_csr_f64(m, output, d, c, indptr + r, indices, v64, n); break;
        }
    }
    return rc;
}

int main(int argc, char **argv) {
    static const char *const layouts[] = {"dense_f32", "dense_f64", "csr_f32", "csr_f64"};
    static const char *const outputs[] = {"label", "dec", "prob"};
    svmgo_model *file_model = NULL, *buf_model = NULL;
    char path[4096];
    void *buf;
    size_t size, cap;
    int64_t v, props[7], has_prob;
    double *out, *again;
    int layout, o, p, rc;

    if (argc != 7) {
        fprintf(stderr, "usage: parity MODEL DATA ROWS NF NNZ OUT\n");
        return 2;
    }
    rows = (size_t)strtoull(argv[3], NULL, 10);
    nf = (size_t)strtoull(argv[4], NULL, 10);
    nnz = (size_t)strtoull(argv[5], NULL, 10);
#define LOAD(var, type, ext, count)                          \
    snprintf(path, sizeof path, "%s.%s", argv[2], ext);      \
    var = (type *)read_array(path, sizeof(type), count)
    LOAD(x32, float, "f32", rows * nf);
    LOAD(x64, double, "f64", rows * nf);
    LOAD(indptr, int64_t, "indptr", rows + 1);
    LOAD(indices, int32_t, "indices", nnz);
    LOAD(v32, float, "v32", nnz);
    LOAD(v64, double, "v64", nnz);

    OK(svmgo_model_load(argv[1], &file_model));
    buf = read_file(argv[1], &size);
    OK(svmgo_model_load_buffer(buf, size, &buf_model));
    free(buf);
    if (failures > 0) {
        return finish("parity");
    }
    for (p = 0; p < 7; p++) {
        OK(svmgo_model_get(file_model, p + 1, &props[p]));
        OK(svmgo_model_get(buf_model, p + 1, &v));
        CHECK(v == props[p], "property %d: %lld from the file, %lld from the buffer", p + 1, (long long)props[p], (long long)v);
    }
    snprintf(path, sizeof path, "%s.props", argv[6]);
    write_file(path, props, sizeof props);
    ndec = (size_t)props[SVMGO_MODEL_NUM_DECISION_VALUES - 1];
    nclass = (size_t)props[SVMGO_MODEL_NUM_CLASSES - 1];
    has_prob = props[SVMGO_MODEL_HAS_PROBABILITY - 1];
    v = props[SVMGO_MODEL_NUM_FEATURES - 1];
    CHECK((size_t)v == nf, "model has %lld features, data %lu", (long long)v, (unsigned long)nf);

    cap = rows * (ndec > nclass ? ndec : nclass);
    if (cap == 0) {
        cap = rows;
    }
    out = (double *)malloc(cap * sizeof(double));
    again = (double *)malloc(cap * sizeof(double));
    for (layout = 0; layout < 4; layout++) {
        for (o = 0; o < 3; o++) {
            int output = o + 1; /* SVMGO_OUTPUT_LABEL, _DECISION_VALUES, _PROBABILITY */
            size_t n = rows * (o == 0 ? 1 : o == 1 ? ndec : nclass);
            if (output == SVMGO_OUTPUT_PROBABILITY && !has_prob) {
                rc = predict(file_model, layout, output, out, cap, 0);
                CHECK(rc == SVMGO_E_UNSUPPORTED, "%s: probabilities of a model without them: %d, want SVMGO_E_UNSUPPORTED",
                      layouts[layout], rc);
                continue;
            }
            memset(out, 0, cap * sizeof(double));
            OK(predict(file_model, layout, output, out, cap, 0));
            snprintf(path, sizeof path, "%s.%s.%s", argv[6], layouts[layout], outputs[o]);
            write_file(path, out, n * sizeof(double));
            /* The same model from a buffer, and one row a call, agree. */
            memset(again, 0, cap * sizeof(double));
            OK(predict(buf_model, layout, output, again, cap, 0));
            CHECK(memcmp(out, again, n * sizeof(double)) == 0, "%s %s: buffer-loaded model differs", layouts[layout], outputs[o]);
            memset(again, 0, cap * sizeof(double));
            OK(predict(file_model, layout, output, again, cap, 1));
            CHECK(memcmp(out, again, n * sizeof(double)) == 0, "%s %s: one row a call differs", layouts[layout], outputs[o]);
        }
    }
    free(out);
    free(again);
    OK(svmgo_model_free(file_model));
    OK(svmgo_model_free(buf_model));
    return finish("parity");
}
