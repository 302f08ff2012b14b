/*
 * kernel_trainer.c — a kernel trainer with probability estimates through
 * the C ABI, and a kernel option the ABI must refuse.
 *
 * Usage: kernel_trainer OPTIONS DATA N NF TEST TROWS OUT
 * DATA.labels and DATA.f32 hold N dense rows of NF values; TEST.f32 holds
 * TROWS dense rows. Writes OUT.prob (TROWS × classes probabilities) and
 * OUT.dec (TROWS decision values).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "testutil.h"

int main(int argc, char **argv) {
    char path[4096];
    size_t n, nf, trows;
    double *labels, *prob, *dec;
    float *x, *test;
    int64_t v = -1;
    svmgo_trainer *t = NULL, *bad = NULL;
    svmgo_model *m = NULL;

    if (argc != 8) {
        fprintf(stderr, "usage: kernel_trainer OPTIONS DATA N NF TEST TROWS OUT\n");
        return 2;
    }
    n = (size_t)strtoull(argv[3], NULL, 10);
    nf = (size_t)strtoull(argv[4], NULL, 10);
    trows = (size_t)strtoull(argv[6], NULL, 10);
    snprintf(path, sizeof path, "%s.labels", argv[2]);
    labels = (double *)read_array(path, sizeof(double), n);
    snprintf(path, sizeof path, "%s.f32", argv[2]);
    x = (float *)read_array(path, sizeof(float), n * nf);
    snprintf(path, sizeof path, "%s.f32", argv[5]);
    test = (float *)read_array(path, sizeof(float), trows * nf);

    /* A kernel type LIBSVM does not have. */
    EXPECT(svmgo_trainer_new("-t 9 -c 10", n, nf, 0, &bad), SVMGO_E_INVALID_ARGUMENT, "-t");
    CHECK(bad == NULL, "a refused trainer_new wrote *out");

    OK(svmgo_trainer_new(argv[1], n, nf, 0, &t));
    if (t == NULL) {
        return finish("kernel_trainer");
    }
    OK(svmgo_trainer_add_dense_f32(t, labels, x, n, nf));
    OK(svmgo_trainer_fit(t, &m));
    if (m == NULL) {
        return finish("kernel_trainer");
    }
    OK(svmgo_model_get(m, SVMGO_MODEL_KIND, &v));
    CHECK(v == SVMGO_KIND_KERNEL_SVC, "model kind %lld, want SVMGO_KIND_KERNEL_SVC", (long long)v);
    OK(svmgo_model_get(m, SVMGO_MODEL_HAS_PROBABILITY, &v));
    CHECK(v == 1, "SVMGO_MODEL_HAS_PROBABILITY is %lld, want 1", (long long)v);

    prob = (double *)malloc((trows > 0 ? trows : 1) * 2 * sizeof(double));
    dec = (double *)malloc((trows > 0 ? trows : 1) * sizeof(double));
    OK(svmgo_predict_dense_f32(m, SVMGO_OUTPUT_PROBABILITY, prob, trows * 2, test, trows, nf));
    OK(svmgo_predict_dense_f32(m, SVMGO_OUTPUT_DECISION_VALUES, dec, trows, test, trows, nf));
    snprintf(path, sizeof path, "%s.prob", argv[7]);
    write_file(path, prob, trows * 2 * sizeof(double));
    snprintf(path, sizeof path, "%s.dec", argv[7]);
    write_file(path, dec, trows * sizeof(double));

    OK(svmgo_model_free(m));
    OK(svmgo_trainer_free(t));
    return finish("kernel_trainer");
}
