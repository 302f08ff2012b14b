/*
 * trainer.c — trains through the C ABI: adds rows in all four layouts,
 * fits, removes rows, adds rows again, fits warm twice, and writes each
 * model and the last model's predictions for the Go test to compare with
 * the Go API.
 *
 * Usage: trainer OPTIONS CAP_ROWS NF CAP_NNZ DATA N REMOVE K TEST TROWS OUT
 * DATA.labels, DATA.f32, DATA.f64 (N dense rows of NF values) and
 * DATA.indptr, DATA.indices, DATA.v32, DATA.v64 (the same rows as CSR);
 * REMOVE holds K size_t positions; TEST.f32 holds TROWS dense rows.
 * Writes OUT.m1.svmgo, OUT.m2.svmgo, OUT.m3.svmgo, OUT.pred and OUT.info
 * (the last fit's svmgo_fit_info as six doubles: iterations, work,
 * objective, num_sv, converged, work_unit).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "testutil.h"

int main(int argc, char **argv) {
    char path[4096];
    size_t cap_rows, nf, cap_nnz, n, k, trows, q, held = 0;
    double *labels, *x64, *v64, *pred;
    float *x32, *v32, *test;
    int64_t *indptr;
    int32_t *indices;
    size_t *remove_rows, again[2];
    svmgo_trainer *t = NULL;
    svmgo_model *m1 = NULL, *m2 = NULL, *m3 = NULL;
    svmgo_fit_info info;
    double info_out[6];

    if (argc != 12) {
        fprintf(stderr, "usage: trainer OPTIONS CAP_ROWS NF CAP_NNZ DATA N REMOVE K TEST TROWS OUT\n");
        return 2;
    }
    cap_rows = (size_t)strtoull(argv[2], NULL, 10);
    nf = (size_t)strtoull(argv[3], NULL, 10);
    cap_nnz = (size_t)strtoull(argv[4], NULL, 10);
    n = (size_t)strtoull(argv[6], NULL, 10);
    k = (size_t)strtoull(argv[8], NULL, 10);
    trows = (size_t)strtoull(argv[10], NULL, 10);
#define LOAD(var, type, ext, count)                          \
    snprintf(path, sizeof path, "%s.%s", argv[5], ext);      \
    var = (type *)read_array(path, sizeof(type), count)
    LOAD(labels, double, "labels", n);
    LOAD(x32, float, "f32", n * nf);
    LOAD(x64, double, "f64", n * nf);
    LOAD(indptr, int64_t, "indptr", n + 1);
    LOAD(indices, int32_t, "indices", (size_t)indptr[n]);
    LOAD(v32, float, "v32", (size_t)indptr[n]);
    LOAD(v64, double, "v64", (size_t)indptr[n]);
    remove_rows = (size_t *)read_array(argv[7], sizeof(size_t), k);
    snprintf(path, sizeof path, "%s.f32", argv[9]);
    test = (float *)read_array(path, sizeof(float), trows * nf);

    OK(svmgo_trainer_new(argv[1], cap_rows, nf, cap_nnz, &t));
    if (t == NULL) {
        return finish("trainer");
    }
    /* Four quarters, four layouts. CSR calls pass indptr from the row on:
     * its offsets stay absolute. */
    q = n / 4;
    OK(svmgo_trainer_add_dense_f32(t, labels, x32, q, nf));
    OK(svmgo_trainer_add_dense_f64(t, labels + q, x64 + q * nf, q, nf));
    OK(svmgo_trainer_add_csr_f32(t, labels + 2 * q, indptr + 2 * q, indices, v32, q));
    OK(svmgo_trainer_add_csr_f64(t, labels + 3 * q, indptr + 3 * q, indices, v64, n - 3 * q));
    OK(svmgo_trainer_num_rows(t, &held));
    CHECK(held == n, "trainer holds %lu rows, want %lu", (unsigned long)held, (unsigned long)n);

    CHECK(svmgo_trainer_fit_info(t, &info) == SVMGO_E_NO_MODEL, "fit_info before a fit: want SVMGO_E_NO_MODEL");
    OK(svmgo_trainer_fit(t, &m1));
    snprintf(path, sizeof path, "%s.m1.svmgo", argv[11]);
    OK(svmgo_model_save(m1, path));

    /* Remove K rows, add the first 5 again, fit warm. */
    OK(svmgo_trainer_remove(t, remove_rows, k));
    OK(svmgo_trainer_add_csr_f32(t, labels, indptr, indices, v32, 5));
    OK(svmgo_trainer_num_rows(t, &held));
    CHECK(held == n - k + 5, "trainer holds %lu rows, want %lu", (unsigned long)held, (unsigned long)(n - k + 5));
    OK(svmgo_trainer_fit(t, &m2));
    snprintf(path, sizeof path, "%s.m2.svmgo", argv[11]);
    OK(svmgo_model_save(m2, path));

    /* Add rows 5..7 again, then remove the first row held (which has a
     * dual variable) and the last (which has none yet); fit warm. */
    OK(svmgo_trainer_add_dense_f32(t, labels + 5, x32 + 5 * nf, 3, nf));
    again[0] = held + 2;
    again[1] = 0;
    OK(svmgo_trainer_remove(t, again, 2));
    OK(svmgo_trainer_fit(t, &m3));
    OK(svmgo_trainer_fit_info(t, &info));
    info_out[0] = (double)info.iterations;
    info_out[1] = (double)info.work;
    info_out[2] = info.objective;
    info_out[3] = (double)info.num_sv;
    info_out[4] = (double)info.converged;
    info_out[5] = (double)info.work_unit;
    snprintf(path, sizeof path, "%s.info", argv[11]);
    write_file(path, info_out, sizeof info_out);
    snprintf(path, sizeof path, "%s.m3.svmgo", argv[11]);
    OK(svmgo_model_save(m3, path));

    /* The models do not change with the trainer: m1 still loads and
     * predicts after two more fits. */
    pred = (double *)malloc((trows > 0 ? trows : 1) * sizeof(double));
    OK(svmgo_predict_dense_f32(m1, SVMGO_OUTPUT_LABEL, pred, trows, test, trows, nf));
    OK(svmgo_predict_dense_f32(m3, SVMGO_OUTPUT_LABEL, pred, trows, test, trows, nf));
    snprintf(path, sizeof path, "%s.pred", argv[11]);
    write_file(path, pred, trows * sizeof(double));

    OK(svmgo_model_free(m1));
    OK(svmgo_model_free(m2));
    OK(svmgo_model_free(m3));
    OK(svmgo_trainer_free(t));
    return finish("trainer");
}
