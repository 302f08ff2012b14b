/*
 * forget.c — forgets a batch through the C ABI: adds three batches (dense
 * float, CSR double, dense double), fits, forgets the second, fits warm,
 * and checks the batch numbers, the rows removed and the errors.
 *
 * Usage: forget OPTIONS NF DATA N1 N2 N3 OUT
 * DATA.labels, DATA.f32, DATA.f64 (N1+N2+N3 dense rows of NF values) and
 * DATA.indptr, DATA.indices, DATA.v64 (the same rows as CSR). Writes
 * OUT.m1.svmgo (the fit on all rows), OUT.m2.svmgo (the warm fit after the
 * second batch was forgotten) and OUT.info (that fit's work and objective
 * as two doubles).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>

#include "testutil.h"

int main(int argc, char **argv) {
    char path[4096];
    size_t nf, n1, n2, n3, n, held = 0, removed = 99, first = 0;
    uint64_t batch = 99;
    double *labels, *x64, *v64, info_out[2];
    float *x32;
    int64_t *indptr;
    int32_t *indices;
    svmgo_trainer *t = NULL;
    svmgo_model *m1 = NULL, *m2 = NULL;
    svmgo_fit_info info;

    if (argc != 8) {
        fprintf(stderr, "usage: forget OPTIONS NF DATA N1 N2 N3 OUT\n");
        return 2;
    }
    nf = (size_t)strtoull(argv[2], NULL, 10);
    n1 = (size_t)strtoull(argv[4], NULL, 10);
    n2 = (size_t)strtoull(argv[5], NULL, 10);
    n3 = (size_t)strtoull(argv[6], NULL, 10);
    n = n1 + n2 + n3;
#define LOAD(var, type, ext, count)                          \
    snprintf(path, sizeof path, "%s.%s", argv[3], ext);      \
    var = (type *)read_array(path, sizeof(type), count)
    LOAD(labels, double, "labels", n);
    LOAD(x32, float, "f32", n * nf);
    LOAD(x64, double, "f64", n * nf);
    LOAD(indptr, int64_t, "indptr", n + 1);
    LOAD(indices, int32_t, "indices", (size_t)indptr[n]);
    LOAD(v64, double, "v64", (size_t)indptr[n]);

    OK(svmgo_trainer_new(argv[1], n + 10, nf, 0, &t));
    if (t == NULL) {
        return finish("forget");
    }
    OK(svmgo_trainer_last_batch(t, &batch));
    CHECK(batch == 0, "last batch %lu before any add, want 0", (unsigned long)batch);
    EXPECT(svmgo_trainer_forget(t, 1, &removed), SVMGO_E_INVALID_ARGUMENT, "no rows were added");

    OK(svmgo_trainer_add_dense_f32(t, labels, x32, n1, nf));
    OK(svmgo_trainer_last_batch(t, &batch));
    CHECK(batch == 1, "last batch %lu, want 1", (unsigned long)batch);
    /* A failed add takes no number: a NaN label. */
    {
        double bad = NAN;
        EXPECT(svmgo_trainer_add_dense_f32(t, &bad, x32, 1, nf), SVMGO_E_NOT_FINITE, NULL);
    }
    OK(svmgo_trainer_add_csr_f64(t, labels + n1, indptr + n1, indices, v64, n2));
    OK(svmgo_trainer_last_batch(t, &batch));
    CHECK(batch == 2, "last batch %lu, want 2", (unsigned long)batch);
    OK(svmgo_trainer_add_dense_f64(t, labels + n1 + n2, x64 + (n1 + n2) * nf, n3, nf));
    OK(svmgo_trainer_last_batch(t, &batch));
    CHECK(batch == 3, "last batch %lu, want 3", (unsigned long)batch);
    OK(svmgo_trainer_fit(t, &m1));
    snprintf(path, sizeof path, "%s.m1.svmgo", argv[7]);
    OK(svmgo_model_save(m1, path));

    /* Forget batch 2: its rows go; again: none. */
    OK(svmgo_trainer_forget(t, 2, &removed));
    CHECK(removed == n2, "forget 2 removed %lu rows, want %lu", (unsigned long)removed, (unsigned long)n2);
    OK(svmgo_trainer_num_rows(t, &held));
    CHECK(held == n1 + n3, "trainer holds %lu rows, want %lu", (unsigned long)held, (unsigned long)(n1 + n3));
    OK(svmgo_trainer_forget(t, 2, &removed));
    CHECK(removed == 0, "forget 2 again removed %lu rows, want 0", (unsigned long)removed);
    OK(svmgo_trainer_forget(t, 2, NULL));
    EXPECT(svmgo_trainer_forget(t, 0, &removed), SVMGO_E_INVALID_ARGUMENT, "batch 0");
    EXPECT(svmgo_trainer_forget(t, 4, &removed), SVMGO_E_INVALID_ARGUMENT, "batch 4");
    EXPECT(svmgo_trainer_last_batch(t, NULL), SVMGO_E_INVALID_ARGUMENT, "NULL");
    OK(svmgo_trainer_fit(t, &m2));
    OK(svmgo_trainer_fit_info(t, &info));
    info_out[0] = (double)info.work;
    info_out[1] = info.objective;
    snprintf(path, sizeof path, "%s.info", argv[7]);
    write_file(path, info_out, sizeof info_out);
    snprintf(path, sizeof path, "%s.m2.svmgo", argv[7]);
    OK(svmgo_model_save(m2, path));

    /* Rows removed by position leave their batch too: remove the first row
     * held (batch 1's), then forget batch 1: one row fewer. */
    OK(svmgo_trainer_remove(t, &first, 1));
    OK(svmgo_trainer_forget(t, 1, &removed));
    CHECK(removed == n1 - 1, "forget 1 removed %lu rows, want %lu", (unsigned long)removed, (unsigned long)(n1 - 1));
    OK(svmgo_trainer_num_rows(t, &held));
    CHECK(held == n3, "trainer holds %lu rows, want %lu", (unsigned long)held, (unsigned long)n3);

    OK(svmgo_model_free(m1));
    OK(svmgo_model_free(m2));
    OK(svmgo_trainer_free(t));
    EXPECT(svmgo_trainer_forget(t, 3, &removed), SVMGO_E_BAD_HANDLE, NULL);
    return finish("forget");
}
