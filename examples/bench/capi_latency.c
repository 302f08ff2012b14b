/*
 * capi_latency.c — prediction cost through libsvmgo's C interface.
 *
 *   capi_latency OUT_DIR
 *   capi_latency --batch OUT_DIR   (the batch timings again, on OUT_DIR's files,
 *                                   whose model may be any kind: serve.sh's large model)
 *   capi_latency --child OUT_DIR   (one 1000-row call a line of stdin: servetime -capi)
 *
 * Trains a linear SVM (-s 1 -B 1) with 784 features through the ABI on the
 * first 2000 rows of Fashion-MNIST ($SVMGO_DATA/fashion.train) or, when that
 * file is absent, on synthetic 784-feature data of 10 classes; then measures:
 *
 *  - single-row latency of svmgo_predict_dense_f32 (SVMGO_OUTPUT_LABEL, one
 *    dense row of 784 floats), over CALLS calls cycling through the test
 *    rows. The clock is read once per batch of BATCH calls, so its own
 *    cost (reported as timer_ns) is spread thin; each batch gives one
 *    per-call sample (batch time / BATCH), and the median and 99th
 *    percentile are over those samples. The calls cycle through the first
 *    LATENCY_ROWS test rows;
 *  - the same for svmgo_predict_csr_f32 on the rows as sparse rows, for
 *    svmgo_model_get (the cost of crossing the ABI and doing nothing), and
 *    for svmgo_predict_dense_f32 on a two-class model (one dot product);
 *  - batch throughput: one svmgo_predict_dense_f32 call over all the test
 *    rows (10000), REPEATS times; the median gives rows per second; and
 *    calls over SERVED_ROWS (1000) rows, the k-th on rows [1000k, 1000k +
 *    1000) cycling through the test rows (the rows of svmgo serve's batch
 *    requests in examples/bench/servetime), 5 × REPEATS times: the floor
 *    of a 1000-row request, the same model and rows in process.
 *
 * It writes into OUT_DIR the model (model.svmgo), the dense test rows
 * (rows.f32: little-endian float32, row-major, 784 a row) and the batch
 * call's labels (labels.f64), so that examples/bench/capitime can time the
 * Go API on the same model and rows and check it predicts the same labels.
 * It prints one line of key=value fields (see capi.sh).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../c/libsvm_reader.h"
#include "svmgo.h"

#define NUM_FEATURES 784
#define NUM_CLASSES 10
#define TRAIN_ROWS 2000
#define TEST_ROWS 10000
#define CALLS 200000
#define BATCH 16
#define REPEATS 21
#define SERVED_ROWS 1000
/* Single-row calls cycle through the first LATENCY_ROWS rows (300 KB): an
 * application predicts a row it has just built, which is in cache; cycling
 * through all 31 MB of rows would time the memory instead. */
#define LATENCY_ROWS 100

static int check(int status, const char *what)
{
    if (status != SVMGO_OK) {
        fprintf(stderr, "capi_latency: %s: %s: %s\n", what, svmgo_status_name(status), svmgo_last_error());
        exit(1);
    }
    return status;
}
#define CHECK(call) check((call), #call)

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* quantile of sorted v (n values), nearest rank. */
static double quantile(const double *v, size_t n, double q)
{
    size_t k = (size_t)(q * (double)(n - 1) + 0.5);
    return v[k < n ? k : n - 1];
}

/* A small deterministic generator (splitmix64), so runs are repeatable. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static double uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* synthetic fills n rows of 10 noisy class prototypes in [0, 1], 784 pixels
 * each, a fifth of them nonzero, like an image data set. */
static void synthetic(libsvm_data *d, size_t n, const float *prototypes)
{
    size_t r, j;
    int64_t nnz = 0;
    d->num_rows = n;
    d->num_features = NUM_FEATURES;
    d->labels = malloc(n * sizeof *d->labels);
    d->indptr = malloc((n + 1) * sizeof *d->indptr);
    d->indices = malloc(n * NUM_FEATURES * sizeof *d->indices);
    d->values = malloc(n * NUM_FEATURES * sizeof *d->values);
    if (!d->labels || !d->indptr || !d->indices || !d->values) {
        fprintf(stderr, "capi_latency: out of memory\n");
        exit(1);
    }
    d->indptr[0] = 0;
    for (r = 0; r < n; r++) {
        int c = (int)(uniform() * NUM_CLASSES);
        d->labels[r] = c;
        for (j = 0; j < NUM_FEATURES; j++) {
            float v = prototypes[c * NUM_FEATURES + j];
            if (v > 0) {
                v += (float)(0.6 * (uniform() - 0.5));
                d->indices[nnz] = (int32_t)j;
                d->values[nnz] = v < 0 ? 0 : v > 1 ? 1 : v;
                nnz++;
            }
        }
        d->indptr[r + 1] = nnz;
    }
}

static void load_data(libsvm_data *train, libsvm_data *test, const char **source)
{
    char err[512], train_path[2048], test_path[2048];
    const char *dir = getenv("SVMGO_DATA");
    if (dir != NULL && *dir != '\0') {
        snprintf(train_path, sizeof train_path, "%s/fashion.train", dir);
        snprintf(test_path, sizeof test_path, "%s/fashion.test", dir);
        if (libsvm_read(train_path, TRAIN_ROWS, train, err, sizeof err) == 0) {
            if (libsvm_read(test_path, TEST_ROWS, test, err, sizeof err) != 0) {
                fprintf(stderr, "capi_latency: %s\n", err);
                exit(1);
            }
            *source = "Fashion-MNIST";
            return;
        }
        fprintf(stderr, "capi_latency: %s; using synthetic data\n", err);
    }
    {
        static float prototypes[NUM_CLASSES * NUM_FEATURES];
        size_t i;
        for (i = 0; i < NUM_CLASSES * NUM_FEATURES; i++) {
            prototypes[i] = uniform() < 0.2 ? (float)uniform() : 0.0f;
        }
        synthetic(train, TRAIN_ROWS, prototypes);
        synthetic(test, TEST_ROWS, prototypes);
        *source = "synthetic";
    }
}

/* The per-call latency of fn over CALLS calls in batches of BATCH: fills
 * median and p99 in nanoseconds. */
typedef int (*call_fn)(const svmgo_model *model, size_t i);

static void latency(const svmgo_model *model, call_fn fn, double *median, double *p99)
{
    static double samples[CALLS / BATCH];
    size_t b, k, i = 0;
    for (k = 0; k < 1000; k++) { /* warm up caches and the branch predictor */
        CHECK(fn(model, k));
    }
    for (b = 0; b < CALLS / BATCH; b++) {
        double t0 = now_ns();
        for (k = 0; k < BATCH; k++, i++) {
            if (fn(model, i) != SVMGO_OK) {
                CHECK(fn(model, i));
            }
        }
        samples[b] = (now_ns() - t0) / BATCH;
    }
    qsort(samples, CALLS / BATCH, sizeof samples[0], cmp_double);
    *median = quantile(samples, CALLS / BATCH, 0.5);
    *p99 = quantile(samples, CALLS / BATCH, 0.99);
}

static float *dense_rows;
static libsvm_data test;
static double sink;

static int call_dense(const svmgo_model *model, size_t i)
{
    double label;
    int st = svmgo_predict_dense_f32(model, SVMGO_OUTPUT_LABEL, &label, 1,
                                     dense_rows + (i % LATENCY_ROWS) * NUM_FEATURES, 1, NUM_FEATURES);
    sink += label;
    return st;
}

static int call_csr(const svmgo_model *model, size_t i)
{
    double label;
    size_t r = i % LATENCY_ROWS;
    int st = svmgo_predict_csr_f32(model, SVMGO_OUTPUT_LABEL, &label, 1, test.indptr + r, test.indices,
                                   test.values, 1);
    sink += label;
    return st;
}

static int call_get(const svmgo_model *model, size_t i)
{
    int64_t v;
    int st = svmgo_model_get(model, SVMGO_MODEL_NUM_FEATURES, &v);
    sink += (double)v + (double)i;
    return st;
}

static void write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "capi_latency: cannot write %s\n", path);
        exit(1);
    }
}

/* batch_median_ns times REPEATS calls of svmgo_predict_dense_f32 over all
 * TEST_ROWS rows of dense_rows, writing the labels, and returns the median. */
static double batch_median_ns(const svmgo_model *model, double *labels)
{
    static double ns[REPEATS];
    size_t rep;
    for (rep = 0; rep < REPEATS; rep++) {
        double t0 = now_ns();
        CHECK(svmgo_predict_dense_f32(model, SVMGO_OUTPUT_LABEL, labels, TEST_ROWS, dense_rows, TEST_ROWS,
                                      NUM_FEATURES));
        ns[rep] = now_ns() - t0;
    }
    qsort(ns, REPEATS, sizeof ns[0], cmp_double);
    return ns[REPEATS / 2];
}

/* served_median_ns times 5 × REPEATS calls of svmgo_predict_dense_f32 over
 * SERVED_ROWS rows of dense_rows each, the k-th call on the k-th block of
 * SERVED_ROWS rows (cycling), and returns the median. */
static double served_median_ns(const svmgo_model *model, double *labels)
{
    static double ns[5 * REPEATS];
    size_t rep, blocks = TEST_ROWS / SERVED_ROWS;
    for (rep = 0; rep < 5 * REPEATS; rep++) {
        const float *x = dense_rows + (rep % blocks) * SERVED_ROWS * NUM_FEATURES;
        double t0 = now_ns();
        CHECK(svmgo_predict_dense_f32(model, SVMGO_OUTPUT_LABEL, labels, SERVED_ROWS, x, SERVED_ROWS, NUM_FEATURES));
        ns[rep] = now_ns() - t0;
    }
    qsort(ns, 5 * REPEATS, sizeof ns[0], cmp_double);
    return ns[5 * REPEATS / 2];
}

/* load_dir loads the model and rows that a full run wrote into dir (or
 * that servetime -write-big put there) into *model and dense_rows. */
static void load_dir(const char *dir, svmgo_model **model)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof path, "%s/model.svmgo", dir);
    CHECK(svmgo_model_load(path, model));
    snprintf(path, sizeof path, "%s/rows.f32", dir);
    dense_rows = malloc((size_t)TEST_ROWS * NUM_FEATURES * sizeof *dense_rows);
    f = fopen(path, "rb");
    if (dense_rows == NULL || f == NULL ||
        fread(dense_rows, sizeof *dense_rows, (size_t)TEST_ROWS * NUM_FEATURES, f) !=
            (size_t)TEST_ROWS * NUM_FEATURES) {
        fprintf(stderr, "capi_latency: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* batch_only times the batch calls again on the model and rows of dir:
 * capi.sh alternates it with the Go benchmark, so that both see the same
 * machine load. */
static int batch_only(const char *dir)
{
    static double labels[TEST_ROWS];
    svmgo_model *model = NULL;
    double ns, served;

    load_dir(dir, &model);
    served = served_median_ns(model, labels);
    ns = batch_median_ns(model, labels);
    printf("batch_median_ms=%.3f batch_rows_per_s=%.0f batch1000_rows_per_s=%.0f\n", ns / 1e6,
           TEST_ROWS / (ns / 1e9), SERVED_ROWS / (served / 1e9));
    svmgo_model_free(model);
    free(dense_rows);
    return 0;
}

/* child answers each first row r read from stdin (one a line) with the
 * nanoseconds of one svmgo_predict_dense_f32 call over rows [r, r +
 * SERVED_ROWS) of dir's rows: examples/bench/servetime -capi times it just
 * before each batch request it sends with the same rows, so that the two
 * share the machine's load. */
static int child(const char *dir)
{
    static double labels[SERVED_ROWS];
    svmgo_model *model = NULL;
    size_t r;

    load_dir(dir, &model);
    while (scanf("%zu", &r) == 1 && r + SERVED_ROWS <= TEST_ROWS) {
        double t0 = now_ns();
        CHECK(svmgo_predict_dense_f32(model, SVMGO_OUTPUT_LABEL, labels, SERVED_ROWS,
                                      dense_rows + r * NUM_FEATURES, SERVED_ROWS, NUM_FEATURES));
        printf("%.0f\n", now_ns() - t0);
        fflush(stdout);
    }
    svmgo_model_free(model);
    free(dense_rows);
    return 0;
}

int main(int argc, char **argv)
{
    libsvm_data train;
    svmgo_trainer *trainer = NULL;
    svmgo_model *model = NULL, *binary = NULL;
    double *binary_labels;
    const char *source = "";
    static double labels[TEST_ROWS];
    double med, p99, csr_med, csr_p99, floor_med, floor_p99, bin_med, bin_p99, timer, t0, train_s, batch, served;
    size_t r, nnz_test;
    char path[4096];

    if (argc == 3 && strcmp(argv[1], "--batch") == 0) {
        return batch_only(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "--child") == 0) {
        return child(argv[2]);
    }
    if (argc != 2) {
        fprintf(stderr, "usage: capi_latency OUT_DIR | capi_latency --batch OUT_DIR | capi_latency --child OUT_DIR\n");
        return 2;
    }
    memset(&train, 0, sizeof train);
    load_data(&train, &test, &source);
    if (test.num_rows != TEST_ROWS) {
        fprintf(stderr, "capi_latency: %zu test rows, want %d\n", test.num_rows, TEST_ROWS);
        return 1;
    }

    /* Train through the ABI, as an application would. */
    t0 = now_ns();
    CHECK(svmgo_trainer_new("-s 1 -B 1", train.num_rows, NUM_FEATURES, (size_t)train.indptr[train.num_rows],
                            &trainer));
    CHECK(svmgo_trainer_add_csr_f32(trainer, train.labels, train.indptr, train.indices, train.values,
                                    train.num_rows));
    CHECK(svmgo_trainer_fit(trainer, &model));
    train_s = (now_ns() - t0) / 1e9;
    snprintf(path, sizeof path, "%s/model.svmgo", argv[1]);
    CHECK(svmgo_model_save(model, path));
    svmgo_trainer_free(trainer);

    /* A two-class model (classes 0-4 against 5-9): one dot product a row,
     * for the cost of the call itself next to the work. */
    binary_labels = malloc(train.num_rows * sizeof *binary_labels);
    if (binary_labels == NULL) {
        fprintf(stderr, "capi_latency: out of memory\n");
        return 1;
    }
    for (r = 0; r < train.num_rows; r++) {
        binary_labels[r] = train.labels[r] < 5 ? 1 : -1;
    }
    CHECK(svmgo_trainer_new("-s 1 -B 1", train.num_rows, NUM_FEATURES, (size_t)train.indptr[train.num_rows],
                            &trainer));
    CHECK(svmgo_trainer_add_csr_f32(trainer, binary_labels, train.indptr, train.indices, train.values,
                                    train.num_rows));
    CHECK(svmgo_trainer_fit(trainer, &binary));
    free(binary_labels);

    dense_rows = malloc((size_t)TEST_ROWS * NUM_FEATURES * sizeof *dense_rows);
    if (dense_rows == NULL) {
        fprintf(stderr, "capi_latency: out of memory\n");
        return 1;
    }
    for (r = 0; r < TEST_ROWS; r++) {
        libsvm_dense_row(&test, r, dense_rows + r * NUM_FEATURES, NUM_FEATURES);
    }
    nnz_test = (size_t)test.indptr[test.num_rows];

    /* The clock's own cost, for reading the numbers below. */
    t0 = now_ns();
    for (r = 0; r < 100000; r++) {
        sink += now_ns();
    }
    timer = (now_ns() - t0) / 100000;

    latency(model, call_dense, &med, &p99);
    latency(model, call_csr, &csr_med, &csr_p99);
    latency(model, call_get, &floor_med, &floor_p99);
    latency(binary, call_dense, &bin_med, &bin_p99);

    /* Batch: 1000-row calls, then all test rows in one call. */
    served = served_median_ns(model, labels);
    batch = batch_median_ns(model, labels);

    write_file(argv[1], "rows.f32", dense_rows, (size_t)TEST_ROWS * NUM_FEATURES * sizeof *dense_rows);
    write_file(argv[1], "labels.f64", labels, sizeof labels);
    {
        size_t correct = 0;
        for (r = 0; r < TEST_ROWS; r++) {
            correct += labels[r] == test.labels[r];
        }
        printf("data=%s train_rows=%zu features=%d classes=%d train_s=%.3f test_rows=%d test_nnz_per_row=%.1f "
               "accuracy=%.4f calls=%d batch=%d timer_ns=%.1f "
               "dense_median_ns=%.1f dense_p99_ns=%.1f csr_median_ns=%.1f csr_p99_ns=%.1f "
               "get_median_ns=%.1f get_p99_ns=%.1f binary_median_ns=%.1f binary_p99_ns=%.1f "
               "batch_median_ms=%.3f batch_rows_per_s=%.0f batch1000_rows_per_s=%.0f\n",
               source, train.num_rows, NUM_FEATURES, NUM_CLASSES, train_s, TEST_ROWS,
               (double)nnz_test / TEST_ROWS, (double)correct / TEST_ROWS, CALLS, BATCH, timer, med, p99, csr_med,
               csr_p99, floor_med, floor_p99, bin_med, bin_p99, batch / 1e6, TEST_ROWS / (batch / 1e9),
               SERVED_ROWS / (served / 1e9));
    }
    if (sink == 12345.678) { /* keeps the calls' results alive */
        printf("\n");
    }
    svmgo_model_free(binary);
    svmgo_model_free(model);
    svmgo_trainer_free(trainer);
    free(dense_rows);
    libsvm_free(&train);
    libsvm_free(&test);
    return 0;
}
