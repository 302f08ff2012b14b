/*
 * misuse.c — every way a caller can get it wrong must give the right
 * status code and a message, never a crash.
 *
 * Usage: misuse FIXTURES
 * FIXTURES holds good.svmgo (a binary model of 13 features with labels
 * +1, -1), flipped.svmgo, truncated.svmgo, random.svmgo (damaged copies),
 * major2.svmgo (format version 2), notadir (a plain file) and an empty
 * directory empty/; for the quantized models, q8.svmgo (good.svmgo
 * quantized to int8), rbf_q8.svmgo (an int8 RBF C-SVC of heart_scale
 * without probabilities) and an empty directory qdir/.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdint.h>

#include "testutil.h"

#define NF 13

static const char *fixtures;
static svmgo_model *good;

static void test_version(void) {
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", SVMGO_VERSION_MAJOR, SVMGO_VERSION_MINOR, SVMGO_VERSION_PATCH);
    CHECK(svmgo_version_number() == SVMGO_VERSION_NUMBER, "svmgo_version_number() = %u, header %d",
          svmgo_version_number(), SVMGO_VERSION_NUMBER);
    CHECK(strcmp(svmgo_version_string(), want) == 0, "svmgo_version_string() = %s, want %s", svmgo_version_string(), want);
    CHECK(svmgo_version_string() == svmgo_version_string(), "version string is not static");
}

static void test_status_names(void) {
    static const char *const names[] = {
        "SVMGO_OK", "SVMGO_E_INVALID_ARGUMENT", "SVMGO_E_BAD_HANDLE", "SVMGO_E_DIMENSION",
        "SVMGO_E_CAPACITY", "SVMGO_E_NOT_FINITE", "SVMGO_E_IO", "SVMGO_E_CORRUPT",
        "SVMGO_E_VERSION", "SVMGO_E_FULL", "SVMGO_E_TRAIN", "SVMGO_E_NO_MODEL",
        "SVMGO_E_UNSUPPORTED", "SVMGO_E_INTERNAL",
    };
    int code;
    for (code = 0; code >= SVMGO_E_INTERNAL; code--) {
        CHECK(strcmp(svmgo_status_name(code), names[-code]) == 0, "svmgo_status_name(%d) = %s, want %s", code,
              svmgo_status_name(code), names[-code]);
    }
    CHECK(strcmp(svmgo_status_name(1), "SVMGO_E_UNKNOWN") == 0, "svmgo_status_name(1) = %s", svmgo_status_name(1));
    CHECK(strcmp(svmgo_status_name(-14), "SVMGO_E_UNKNOWN") == 0, "svmgo_status_name(-14) = %s", svmgo_status_name(-14));
    CHECK(strcmp(svmgo_status_name(-2147483647 - 1), "SVMGO_E_UNKNOWN") == 0, "svmgo_status_name(INT_MIN)");
}

static void test_load(void) {
    svmgo_model *m = NULL;
    size_t size;
    void *buf;
    unsigned char junk[64];
    size_t i;

    EXPECT(svmgo_model_load(NULL, &m), SVMGO_E_INVALID_ARGUMENT, "path is NULL");
    EXPECT(svmgo_model_load(path_join(0, fixtures, "good.svmgo"), NULL), SVMGO_E_INVALID_ARGUMENT, "out is NULL");
    EXPECT(svmgo_model_load(path_join(0, fixtures, "missing.svmgo"), &m), SVMGO_E_IO, "missing.svmgo");
    EXPECT(svmgo_model_load(path_join(0, fixtures, "flipped.svmgo"), &m), SVMGO_E_CORRUPT, "checksum");
    EXPECT(svmgo_model_load(path_join(0, fixtures, "truncated.svmgo"), &m), SVMGO_E_CORRUPT, "truncated");
    EXPECT(svmgo_model_load(path_join(0, fixtures, "random.svmgo"), &m), SVMGO_E_CORRUPT, "not a model");
    EXPECT(svmgo_model_load(path_join(0, fixtures, "major2.svmgo"), &m), SVMGO_E_VERSION, "version");
    CHECK(m == NULL, "a failed load wrote *out");

    buf = read_file(path_join(0, fixtures, "good.svmgo"), &size);
    EXPECT(svmgo_model_load_buffer(NULL, size, &m), SVMGO_E_INVALID_ARGUMENT, "buf is NULL");
    EXPECT(svmgo_model_load_buffer(buf, 0, &m), SVMGO_E_INVALID_ARGUMENT, "size is 0");
    EXPECT(svmgo_model_load_buffer(buf, size, NULL), SVMGO_E_INVALID_ARGUMENT, "out is NULL");
    EXPECT(svmgo_model_load_buffer(buf, size - 1, &m), SVMGO_E_CORRUPT, "truncated");
    for (i = 0; i < sizeof junk; i++) {
        junk[i] = (unsigned char)(i * 37 + 11);
    }
    EXPECT(svmgo_model_load_buffer(junk, sizeof junk, &m), SVMGO_E_CORRUPT, "not a model");
    ((unsigned char *)buf)[size - 3] ^= 0x10;
    EXPECT(svmgo_model_load_buffer(buf, size, &m), SVMGO_E_CORRUPT, "checksum");
    ((unsigned char *)buf)[size - 3] ^= 0x10;
    OK(svmgo_model_load_buffer(buf, size, &m));
    CHECK(m != NULL, "load_buffer gave NULL");
    memset(buf, 0, size); /* the model must not depend on buf after the call */
    free(buf);
    {
        int64_t nf = 0;
        OK(svmgo_model_get(m, SVMGO_MODEL_NUM_FEATURES, &nf));
        CHECK(nf == NF, "model from buffer has %lld features", (long long)nf);
    }
    OK(svmgo_model_free(m));
}

static void test_properties(void) {
    int64_t v = -1;
    int32_t labels[4] = {7, 7, 7, 7};
    size_t count = 99;
    static const int props[] = {SVMGO_MODEL_KIND, SVMGO_MODEL_NUM_FEATURES, SVMGO_MODEL_NUM_CLASSES,
                                SVMGO_MODEL_NUM_DECISION_VALUES, SVMGO_MODEL_QUANTIZED,
                                SVMGO_MODEL_HAS_PROBABILITY, SVMGO_MODEL_VERSION};
    static const int64_t want[] = {SVMGO_KIND_LINEAR_SVC, NF, 2, 1, 0, 0, 0};
    size_t i;
    for (i = 0; i < sizeof props / sizeof props[0]; i++) {
        OK(svmgo_model_get(good, props[i], &v));
        CHECK(v == want[i], "property %d is %lld, want %lld", props[i], (long long)v, (long long)want[i]);
    }
    EXPECT(svmgo_model_get(good, 0, &v), SVMGO_E_INVALID_ARGUMENT, "property is 0");
    EXPECT(svmgo_model_get(good, 8, &v), SVMGO_E_INVALID_ARGUMENT, "property is 8");
    EXPECT(svmgo_model_get(good, SVMGO_MODEL_KIND, NULL), SVMGO_E_INVALID_ARGUMENT, "value is NULL");
    EXPECT(svmgo_model_get(NULL, SVMGO_MODEL_KIND, &v), SVMGO_E_INVALID_ARGUMENT, "model is NULL");

    EXPECT(svmgo_model_labels(good, labels, 1, &count), SVMGO_E_CAPACITY, "2 labels needed");
    CHECK(labels[0] == 7 && count == 99, "a call that did not fit wrote its outputs");
    EXPECT(svmgo_model_labels(good, NULL, 2, &count), SVMGO_E_INVALID_ARGUMENT, "dst is NULL");
    EXPECT(svmgo_model_labels(good, NULL, 0, &count), SVMGO_E_CAPACITY, "dst_cap is 0, 2 labels needed");
    OK(svmgo_model_labels(good, labels, 4, &count));
    CHECK(count == 2 && labels[0] == 1 && labels[1] == -1 && labels[2] == 7, "labels %d %d %d, count %lu",
          labels[0], labels[1], labels[2], (unsigned long)count);
    OK(svmgo_model_labels(good, labels, 2, NULL));
}

static void fill(double *dst, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        dst[i] = -12345.0;
    }
}

static int untouched(const double *dst, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        if (dst[i] != -12345.0) {
            return 0;
        }
    }
    return 1;
}

static void test_predict(void) {
    float x[3 * NF];
    double x64[3 * NF];
    double dst[8];
    int64_t indptr[4] = {0, 2, 3, 5};
    int32_t indices[5] = {0, 4, 12, 1, 100};
    float values[5] = {0.5f, -1, 0.25f, 1, 2};
    double values64[5] = {0.5, -1, 0.25, 1, 2};
    int i;
    for (i = 0; i < 3 * NF; i++) {
        x[i] = (float)((i % 7) - 3) / 4;
        x64[i] = x[i];
    }

    OK(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, x, 3, NF));
    CHECK(dst[0] == 1 || dst[0] == -1, "label %g", dst[0]);
    OK(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, x, 0, NF));
    OK(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, NULL, 0, NULL, 0, NF));

    EXPECT(svmgo_predict_dense_f32(NULL, SVMGO_OUTPUT_LABEL, dst, 8, x, 3, NF), SVMGO_E_INVALID_ARGUMENT, "model is NULL");
    EXPECT(svmgo_predict_dense_f32(good, 0, dst, 8, x, 3, NF), SVMGO_E_INVALID_ARGUMENT, "output is 0");
    EXPECT(svmgo_predict_dense_f32(good, 4, dst, 8, x, 3, NF), SVMGO_E_INVALID_ARGUMENT, "output is 4");
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_PROBABILITY, dst, 8, x, 3, NF), SVMGO_E_UNSUPPORTED, "PROBABILITY");
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, x, 3, NF - 1), SVMGO_E_DIMENSION,
           "num_features is 12, the model has 13");
    EXPECT(svmgo_predict_dense_f64(good, SVMGO_OUTPUT_LABEL, dst, 8, x64, 3, NF + 1), SVMGO_E_DIMENSION,
           "num_features is 14, the model has 13");
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, NULL, 3, NF), SVMGO_E_INVALID_ARGUMENT, "x is NULL");
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, NULL, 8, x, 3, NF), SVMGO_E_INVALID_ARGUMENT, "dst is NULL");
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, x, (size_t)-1, NF), SVMGO_E_INVALID_ARGUMENT,
           "num_rows");

    fill(dst, 8);
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 2, x, 3, NF), SVMGO_E_CAPACITY,
           "dst_cap is 2, 3 values needed");
    EXPECT(svmgo_predict_dense_f64(good, SVMGO_OUTPUT_DECISION_VALUES, dst, 0, x64, 3, NF), SVMGO_E_CAPACITY,
           "3 values needed");
    EXPECT(svmgo_predict_csr_f32(good, SVMGO_OUTPUT_LABEL, dst, 2, indptr, indices, values, 3), SVMGO_E_CAPACITY,
           "3 values needed");
    CHECK(untouched(dst, 8), "a call whose output did not fit wrote to dst");

    /* Non-finite inputs name the row and the feature. */
    x[1 * NF + 3] = NAN;
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, x, 3, NF), SVMGO_E_NOT_FINITE, "row 1, feature 3");
    x[1 * NF + 3] = 0;
    x[2 * NF + 12] = -INFINITY;
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_DECISION_VALUES, dst, 8, x, 3, NF), SVMGO_E_NOT_FINITE,
           "row 2, feature 12 is -Inf");
    x[2 * NF + 12] = 0;
    x64[5] = 1e300;
    EXPECT(svmgo_predict_dense_f64(good, SVMGO_OUTPUT_LABEL, dst, 8, x64, 3, NF), SVMGO_E_NOT_FINITE,
           "row 0, feature 5 is 1e+300, beyond float's range");
    x64[5] = NAN;
    EXPECT(svmgo_predict_dense_f64(good, SVMGO_OUTPUT_LABEL, dst, 8, x64, 3, NF), SVMGO_E_NOT_FINITE, "row 0, feature 5 is NaN");
    x64[5] = 0;

    /* CSR: structure, then values. Index 100 is past the model's features
     * and ignored, but its value must still be finite. */
    OK(svmgo_predict_csr_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, indptr, indices, values, 3));
    OK(svmgo_predict_csr_f64(good, SVMGO_OUTPUT_DECISION_VALUES, dst, 8, indptr, indices, values64, 3));
    EXPECT(svmgo_predict_csr_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, NULL, indices, values, 3), SVMGO_E_INVALID_ARGUMENT,
           "indptr is NULL");
    EXPECT(svmgo_predict_csr_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, indptr, NULL, values, 3), SVMGO_E_INVALID_ARGUMENT,
           "indices is NULL");
    EXPECT(svmgo_predict_csr_f64(good, SVMGO_OUTPUT_LABEL, dst, 8, indptr, indices, NULL, 3), SVMGO_E_INVALID_ARGUMENT,
           "values is NULL");
    indptr[2] = 1;
    indptr[1] = 3;
    fill(dst, 8);
    EXPECT(svmgo_predict_csr_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, indptr, indices, values, 3), SVMGO_E_INVALID_ARGUMENT,
           "indptr[1] = 3 and indptr[2] = 1");
    CHECK(untouched(dst, 8), "a malformed CSR call wrote to dst");
    indptr[1] = 2;
    indptr[2] = 3;
    indptr[0] = -1;
    EXPECT(svmgo_predict_csr_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, indptr, indices, values, 3), SVMGO_E_INVALID_ARGUMENT,
           "indptr[0] = -1");
    indptr[0] = 0;
    indices[1] = 0;
    EXPECT(svmgo_predict_csr_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, indptr, indices, values, 3), SVMGO_E_INVALID_ARGUMENT,
           "row 0: index 0 after 0");
    indices[1] = 4;
    indices[2] = -3;
    EXPECT(svmgo_predict_csr_f64(good, SVMGO_OUTPUT_LABEL, dst, 8, indptr, indices, values64, 3), SVMGO_E_INVALID_ARGUMENT,
           "row 1: index -3 is negative");
    indices[2] = 12;
    values[4] = NAN;
    EXPECT(svmgo_predict_csr_f32(good, SVMGO_OUTPUT_LABEL, dst, 8, indptr, indices, values, 3), SVMGO_E_NOT_FINITE,
           "row 2, feature 100 is NaN");
    values[4] = 2;
    values[0] = INFINITY;
    EXPECT(svmgo_predict_csr_f32(good, SVMGO_OUTPUT_DECISION_VALUES, dst, 8, indptr, indices, values, 3),
           SVMGO_E_NOT_FINITE, "row 0, feature 0 is +Inf");
    values[0] = 0.5f;
    values64[3] = -1e39;
    EXPECT(svmgo_predict_csr_f64(good, SVMGO_OUTPUT_LABEL, dst, 8, indptr, indices, values64, 3), SVMGO_E_NOT_FINITE,
           "row 2, feature 1 is -1e+39, beyond float's range");
    values64[3] = 1;
}

static void test_handles(void) {
    svmgo_model *m = NULL;
    svmgo_trainer *t = NULL;
    svmgo_model *fake = (svmgo_model *)(uintptr_t)0x123456789;
    double dst[1];
    float x[NF] = {0};
    size_t n;
    int64_t v;

    OK(svmgo_model_free(NULL));
    OK(svmgo_trainer_free(NULL));
    OK(svmgo_model_load(path_join(0, fixtures, "good.svmgo"), &m));
    OK(svmgo_model_free(m));
    EXPECT(svmgo_model_free(m), SVMGO_E_BAD_HANDLE, "freed");
    EXPECT(svmgo_predict_dense_f32(m, SVMGO_OUTPUT_LABEL, dst, 1, x, 1, NF), SVMGO_E_BAD_HANDLE, "freed");
    EXPECT(svmgo_model_get(m, SVMGO_MODEL_KIND, &v), SVMGO_E_BAD_HANDLE, "freed");
    EXPECT(svmgo_model_get(fake, SVMGO_MODEL_KIND, &v), SVMGO_E_BAD_HANDLE, "not a model handle");
    EXPECT(svmgo_model_free(fake), SVMGO_E_BAD_HANDLE, "not a model handle");
    EXPECT(svmgo_model_free((svmgo_model *)(uintptr_t)-1), SVMGO_E_BAD_HANDLE, NULL);

    /* A handle of one kind where the other is expected. */
    OK(svmgo_trainer_new("", 4, 2, 0, &t));
    EXPECT(svmgo_trainer_num_rows((svmgo_trainer *)good, &n), SVMGO_E_BAD_HANDLE, "a model, not a trainer");
    EXPECT(svmgo_trainer_free((svmgo_trainer *)good), SVMGO_E_BAD_HANDLE, "a model, not a trainer");
    EXPECT(svmgo_model_free((svmgo_model *)t), SVMGO_E_BAD_HANDLE, "a trainer, not a model");
    EXPECT(svmgo_predict_dense_f32((svmgo_model *)t, SVMGO_OUTPUT_LABEL, dst, 1, x, 1, NF), SVMGO_E_BAD_HANDLE,
           "a trainer, not a model");
    OK(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 1, x, 1, NF)); /* good survived */
    OK(svmgo_trainer_free(t));
    EXPECT(svmgo_trainer_free(t), SVMGO_E_BAD_HANDLE, "freed");
    EXPECT(svmgo_trainer_fit(t, &m), SVMGO_E_BAD_HANDLE, "freed");
}

static void test_files(void) {
    svmgo_model *w = NULL;
    uint64_t version = 0;
    double dst[1];
    float x[NF] = {0};
    int64_t v;

    EXPECT(svmgo_model_save(good, path_join(0, fixtures, "no/such/dir/m.svmgo")), SVMGO_E_IO, "no/such/dir");
    EXPECT(svmgo_model_save(good, NULL), SVMGO_E_INVALID_ARGUMENT, "path is NULL");
    EXPECT(svmgo_model_save(NULL, path_join(0, fixtures, "m.svmgo")), SVMGO_E_INVALID_ARGUMENT, "model is NULL");
    EXPECT(svmgo_model_publish(good, path_join(0, fixtures, "no-such-dir"), &version), SVMGO_E_IO, "no-such-dir");
    EXPECT(svmgo_model_publish(good, NULL, &version), SVMGO_E_INVALID_ARGUMENT, "dir is NULL");

    EXPECT(svmgo_model_watch(path_join(0, fixtures, "no-such-dir"), &w), SVMGO_E_IO, "no-such-dir");
    EXPECT(svmgo_model_watch(path_join(0, fixtures, "notadir"), &w), SVMGO_E_IO, "notadir");
    EXPECT(svmgo_model_watch(NULL, &w), SVMGO_E_INVALID_ARGUMENT, "dir is NULL");
    EXPECT(svmgo_model_watch(path_join(0, fixtures, "empty"), NULL), SVMGO_E_INVALID_ARGUMENT, "out is NULL");
    OK(svmgo_model_watch(path_join(0, fixtures, "empty"), &w));
    EXPECT(svmgo_predict_dense_f32(w, SVMGO_OUTPUT_LABEL, dst, 1, x, 1, NF), SVMGO_E_NO_MODEL, "no valid model yet");
    EXPECT(svmgo_model_get(w, SVMGO_MODEL_VERSION, &v), SVMGO_E_NO_MODEL, "no valid model yet");
    EXPECT(svmgo_model_save(w, path_join(0, fixtures, "m.svmgo")), SVMGO_E_NO_MODEL, "no valid model yet");
    OK(svmgo_model_free(w));
    EXPECT(svmgo_model_free(w), SVMGO_E_BAD_HANDLE, "freed");
}

/* svmgo_model_save_buffer gives the bytes svmgo_model_save writes (a size
 * query first, a capacity error that writes nothing, then the bytes, which
 * load back); svmgo_model_watch_skip says why a watched directory's newest
 * file is not served. */
static void test_buffers_and_skips(void) {
    size_t need = 0, got = 0, fsize = 0, len = 99;
    unsigned char *b, *file;
    unsigned char small[8] = {0};
    svmgo_model *m = NULL, *w = NULL;
    uint64_t version = 99;
    char reason[256], tiny[8];
#ifdef __cplusplus
#define SKIPDIR "skipdir-cxx" /* each build its own */
#else
#define SKIPDIR "skipdir-c"
#endif
    const char *dir = path_join(1, fixtures, SKIPDIR);
    int64_t nf = 0;

    EXPECT(svmgo_model_save_buffer(good, NULL, 0, &need), SVMGO_E_CAPACITY, "bytes needed");
    CHECK(need > 24, "size query gave %zu bytes", need);
    EXPECT(svmgo_model_save_buffer(good, small, sizeof small, &got), SVMGO_E_CAPACITY, "dst_cap is 8");
    CHECK(got == need && small[0] == 0, "a capacity error gave %zu and wrote dst", got);
    EXPECT(svmgo_model_save_buffer(NULL, small, sizeof small, &got), SVMGO_E_INVALID_ARGUMENT, "model is NULL");
    EXPECT(svmgo_model_save_buffer(good, NULL, 16, &got), SVMGO_E_INVALID_ARGUMENT, "dst is NULL");
    b = (unsigned char *)malloc(need);
    OK(svmgo_model_save_buffer(good, b, need, NULL));
    OK(svmgo_model_save(good, path_join(0, fixtures, "saved.svmgo")));
    file = (unsigned char *)read_file(path_join(0, fixtures, "saved.svmgo"), &fsize);
    CHECK(fsize == need && memcmp(file, b, need) == 0, "save_buffer's %zu bytes differ from save's %zu", need, fsize);
    OK(svmgo_model_load_buffer(b, need, &m));
    OK(svmgo_model_get(m, SVMGO_MODEL_NUM_FEATURES, &nf));
    CHECK(nf == NF, "saved buffer loads with %lld features", (long long)nf);
    OK(svmgo_model_free(m));
    free(file);

    EXPECT(svmgo_model_watch_skip(good, &version, reason, sizeof reason, &len), SVMGO_E_UNSUPPORTED,
           "does not watch");
    CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
    {
        FILE *f = fopen(path_join(2, fixtures, SKIPDIR "/model-1.svmgo"), "wb");
        fwrite(b, 1, need, f);
        fclose(f);
    }
    OK(svmgo_model_watch(dir, &w));
    OK(svmgo_model_watch_skip(w, &version, reason, sizeof reason, &len));
    CHECK(version == 0 && len == 0 && reason[0] == 0, "nothing skipped: version %llu, \"%s\"",
          (unsigned long long)version, reason);
    OK(svmgo_model_free(w));
    {
        FILE *f = fopen(path_join(2, fixtures, SKIPDIR "/model-2.svmgo"), "wb");
        b[need - 3] ^= 0x10; /* a payload byte: the checksum fails */
        fwrite(b, 1, need, f);
        fclose(f);
    }
    OK(svmgo_model_watch(dir, &w));
    OK(svmgo_model_watch_skip(w, &version, reason, sizeof reason, &len));
    CHECK(version == 2 && len == strlen(reason) && strstr(reason, "model-2.svmgo") && strstr(reason, "checksum"),
          "skipped: version %llu, \"%s\" (%zu)", (unsigned long long)version, reason, len);
    OK(svmgo_model_watch_skip(w, NULL, tiny, sizeof tiny, NULL));
    CHECK(strlen(tiny) == sizeof tiny - 1 && strncmp(tiny, reason, sizeof tiny - 1) == 0, "truncated: \"%s\"", tiny);
    OK(svmgo_model_watch_skip(w, NULL, NULL, 0, &len));
    OK(svmgo_model_free(w));
    free(b);
}

static void test_trainer(void) {
    svmgo_trainer *t = NULL, *s = NULL;
    svmgo_model *m = NULL;
    double labels[3] = {1, -1, 1};
    float x[6] = {1, 0, -1, 0.5f, 0.25f, 1};
    double x64[6] = {1, 0, -1, 0.5, 0.25, 1};
    int64_t indptr[3] = {0, 2, 3};
    int32_t indices[3] = {0, 1, 1};
    float values[3] = {1, 2, 3};
    size_t rows[3];
    size_t n = 0;

    EXPECT(svmgo_trainer_new(NULL, 4, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, "options is NULL");
    EXPECT(svmgo_trainer_new("", 4, 2, 0, NULL), SVMGO_E_INVALID_ARGUMENT, "out is NULL");
    EXPECT(svmgo_trainer_new("-s 99", 4, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, "99");
    EXPECT(svmgo_trainer_new("-c", 4, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, "-c needs a value");
    EXPECT(svmgo_trainer_new("-c -1", 4, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, NULL);
    EXPECT(svmgo_trainer_new("-c x", 4, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, "not a number");
    EXPECT(svmgo_trainer_new("-v 5", 4, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, "-v");
    EXPECT(svmgo_trainer_new("-x 1", 4, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, "unknown option -x");
    EXPECT(svmgo_trainer_new("-c 1 data.txt", 4, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, "\"data.txt\" is not an option");
    EXPECT(svmgo_trainer_new("", 0, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, "capacity_rows is 0");
    EXPECT(svmgo_trainer_new("", 4, 0, 0, &t), SVMGO_E_INVALID_ARGUMENT, "num_features is 0");
    EXPECT(svmgo_trainer_new("", SIZE_MAX, (size_t)1 << 30, 0, &t), SVMGO_E_INVALID_ARGUMENT, "capacity_rows"); /* 2^64 - 1 or, 32-bit, 2^32 - 1 rows */
    CHECK(t == NULL, "a failed svmgo_trainer_new wrote *out");

    OK(svmgo_trainer_new(" -s 3\t-c 2 -B 1 -w1 2 -q ", 4, 2, 0, &t));
    EXPECT(svmgo_trainer_add_dense_f32(t, labels, x, 3, 3), SVMGO_E_DIMENSION, "num_features is 3, the trainer's is 2");
    EXPECT(svmgo_trainer_add_dense_f32(t, NULL, x, 3, 2), SVMGO_E_INVALID_ARGUMENT, "labels is NULL");
    EXPECT(svmgo_trainer_add_dense_f32(t, labels, NULL, 3, 2), SVMGO_E_INVALID_ARGUMENT, "x is NULL");
    EXPECT(svmgo_trainer_add_dense_f32(NULL, labels, x, 3, 2), SVMGO_E_INVALID_ARGUMENT, "trainer is NULL");
    labels[2] = NAN;
    EXPECT(svmgo_trainer_add_dense_f32(t, labels, x, 3, 2), SVMGO_E_NOT_FINITE, "row 2: label NaN");
    labels[2] = 1;
    x64[3] = INFINITY;
    EXPECT(svmgo_trainer_add_dense_f64(t, labels, x64, 3, 2), SVMGO_E_NOT_FINITE, "row 1, feature 1 is +Inf");
    x64[3] = 1e40;
    EXPECT(svmgo_trainer_add_dense_f64(t, labels, x64, 3, 2), SVMGO_E_NOT_FINITE, "beyond float's range");
    x64[3] = 0.5;
    OK(svmgo_trainer_num_rows(t, &n));
    CHECK(n == 0, "failed adds left %lu rows", (unsigned long)n);

    OK(svmgo_trainer_add_dense_f32(t, labels, x, 3, 2));
    EXPECT(svmgo_trainer_add_dense_f64(t, labels, x64, 2, 2), SVMGO_E_FULL, "row 1 of the call's 2");
    OK(svmgo_trainer_num_rows(t, &n));
    CHECK(n == 3, "a call that did not fit left %lu rows, want 3 (all or none)", (unsigned long)n);
    EXPECT(svmgo_trainer_num_rows(t, NULL), SVMGO_E_INVALID_ARGUMENT, "count is NULL");

    indices[2] = 2;
    EXPECT(svmgo_trainer_add_csr_f32(t, labels, indptr, indices, values, 2), SVMGO_E_INVALID_ARGUMENT,
           "index 2, the trainer has 2 features");
    indices[2] = 1;
    indices[1] = 0;
    EXPECT(svmgo_trainer_add_csr_f32(t, labels, indptr, indices, values, 2), SVMGO_E_INVALID_ARGUMENT, "indices must increase");
    indices[1] = 1;

    rows[0] = 3;
    EXPECT(svmgo_trainer_remove(t, rows, 1), SVMGO_E_INVALID_ARGUMENT, "rows[0] is 3, the trainer holds 3 rows");
    rows[0] = 1;
    rows[1] = 1;
    EXPECT(svmgo_trainer_remove(t, rows, 2), SVMGO_E_INVALID_ARGUMENT, "position 1 given twice");
    EXPECT(svmgo_trainer_remove(t, NULL, 2), SVMGO_E_INVALID_ARGUMENT, "rows is NULL");
    OK(svmgo_trainer_remove(t, NULL, 0));
    OK(svmgo_trainer_num_rows(t, &n));
    CHECK(n == 3, "failed removes left %lu rows, want 3", (unsigned long)n);

    /* Training errors: one class, then a non-integer class. */
    rows[0] = 1;
    OK(svmgo_trainer_remove(t, rows, 1));
    EXPECT(svmgo_trainer_fit(t, &m), SVMGO_E_TRAIN, "single class");
    EXPECT(svmgo_trainer_fit(t, NULL), SVMGO_E_INVALID_ARGUMENT, "out is NULL");
    labels[0] = 0.5;
    OK(svmgo_trainer_add_dense_f32(t, labels, x, 1, 2));
    EXPECT(svmgo_trainer_fit(t, &m), SVMGO_E_TRAIN, "not an integer");
    CHECK(m == NULL, "a failed fit wrote *out");
    OK(svmgo_trainer_free(t));

    /* A sparse trainer full of nonzeros, not of rows. */
    labels[0] = 1;
    OK(svmgo_trainer_new("", 10, 2, 2, &s));
    OK(svmgo_trainer_add_csr_f32(s, labels, indptr, indices, values, 1));
    EXPECT(svmgo_trainer_add_csr_f32(s, labels, indptr, indices, values, 2), SVMGO_E_FULL, "row 0 of the call's 2");
    OK(svmgo_trainer_num_rows(s, &n));
    CHECK(n == 1, "sparse trainer holds %lu rows, want 1", (unsigned long)n);
    OK(svmgo_trainer_free(s));
}

/* decisions writes the decision values of n dense rows of NF features. */
static int decisions(svmgo_model *m, const float *x, size_t n, double *dst) {
    return svmgo_predict_dense_f32(m, SVMGO_OUTPUT_DECISION_VALUES, dst, n, x, n, NF);
}

/* Quantized models take the same calls, with the same checks: properties,
 * refused probabilities, non-finite inputs (scanned first for the kernel
 * model, found from the outputs for the linear one), damaged files, and
 * save, publish and watch writing and reading them back quantized. */
static void test_quantized(void) {
    static const char *const names[] = {"q8.svmgo", "rbf_q8.svmgo"};
    static const int64_t kinds[] = {SVMGO_KIND_LINEAR_SVC, SVMGO_KIND_KERNEL_SVC};
    float x[2 * NF];
    double dst[4], again[4];
    int64_t indptr[3] = {0, 1, 2};
    int32_t indices[2] = {2, 100};
    float values[2] = {0.5f, NAN};
    void *buf, *resaved;
    size_t size, resaved_size;
    uint64_t version = 0;
    int64_t v;
    int i, k;
    for (i = 0; i < 2 * NF; i++) {
        x[i] = (float)((i % 5) - 2) / 4;
    }
    for (k = 0; k < 2; k++) {
        svmgo_model *q = NULL, *back = NULL, *w = NULL;
        OK(svmgo_model_load(path_join(1, fixtures, names[k]), &q));
        if (q == NULL) {
            return;
        }
        OK(svmgo_model_get(q, SVMGO_MODEL_KIND, &v));
        CHECK(v == kinds[k], "%s: kind %lld, want %lld", names[k], (long long)v, (long long)kinds[k]);
        OK(svmgo_model_get(q, SVMGO_MODEL_QUANTIZED, &v));
        CHECK(v == 8, "%s: SVMGO_MODEL_QUANTIZED is %lld, want 8", names[k], (long long)v);
        OK(svmgo_model_get(q, SVMGO_MODEL_HAS_PROBABILITY, &v));
        CHECK(v == 0, "%s: SVMGO_MODEL_HAS_PROBABILITY is %lld", names[k], (long long)v);
        EXPECT(svmgo_predict_dense_f32(q, SVMGO_OUTPUT_PROBABILITY, dst, 4, x, 2, NF), SVMGO_E_UNSUPPORTED,
               k == 0 ? "linear SVC model gives them only when trained with -b 1" : "-b 1");
        EXPECT(svmgo_predict_dense_f32(q, SVMGO_OUTPUT_LABEL, dst, 4, x, 2, NF + 1), SVMGO_E_DIMENSION,
               "num_features is 14, the model has 13");

        x[NF + 3] = NAN;
        EXPECT(svmgo_predict_dense_f32(q, SVMGO_OUTPUT_LABEL, dst, 4, x, 2, NF), SVMGO_E_NOT_FINITE, "row 1, feature 3 is NaN");
        x[NF + 3] = INFINITY;
        EXPECT(svmgo_predict_dense_f32(q, SVMGO_OUTPUT_DECISION_VALUES, dst, 4, x, 2, NF), SVMGO_E_NOT_FINITE,
               "row 1, feature 3 is +Inf");
        x[NF + 3] = 0.25f;
        EXPECT(svmgo_predict_csr_f32(q, SVMGO_OUTPUT_LABEL, dst, 4, indptr, indices, values, 2), SVMGO_E_NOT_FINITE,
               "row 1, feature 100 is NaN");

        /* Saved and published, the model is written back quantized: the
         * same bytes, the same decision values. */
        OK(decisions(q, x, 2, dst));
        OK(svmgo_model_save(q, path_join(2, fixtures, "resaved.svmgo")));
        buf = read_file(path_join(1, fixtures, names[k]), &size);
        resaved = read_file(path_join(2, fixtures, "resaved.svmgo"), &resaved_size);
        CHECK(size == resaved_size && memcmp(buf, resaved, size) == 0, "%s: saved again, %lu bytes differ from the %lu read",
              names[k], (unsigned long)resaved_size, (unsigned long)size);
        free(resaved);
        OK(svmgo_model_load(path_join(2, fixtures, "resaved.svmgo"), &back));
        OK(decisions(back, x, 2, again));
        CHECK(memcmp(dst, again, 2 * sizeof(double)) == 0, "%s: the saved model decides otherwise", names[k]);
        OK(svmgo_model_free(back));

        /* The C and C++ builds share qdir/: the version is whatever is next. */
        OK(svmgo_model_publish(q, path_join(3, fixtures, "qdir"), &version));
        CHECK(version > 0, "%s: published as version 0", names[k]);
        OK(svmgo_model_watch(path_join(3, fixtures, "qdir"), &w));
        OK(svmgo_model_get(w, SVMGO_MODEL_VERSION, &v));
        CHECK((uint64_t)v == version, "%s: the watcher serves version %lld, want %llu", names[k], (long long)v,
              (unsigned long long)version);
        OK(svmgo_model_get(w, SVMGO_MODEL_QUANTIZED, &v));
        CHECK(v == 8, "%s: the watched model has SVMGO_MODEL_QUANTIZED %lld", names[k], (long long)v);
        OK(decisions(w, x, 2, again));
        CHECK(memcmp(dst, again, 2 * sizeof(double)) == 0, "%s: the watched model decides otherwise", names[k]);
        OK(svmgo_model_free(w));

        /* Damaged quantized files are refused as float ones are. */
        back = NULL;
        EXPECT(svmgo_model_load_buffer(buf, size - 1, &back), SVMGO_E_CORRUPT, "truncated");
        ((unsigned char *)buf)[size / 2] ^= 0x20;
        EXPECT(svmgo_model_load_buffer(buf, size, &back), SVMGO_E_CORRUPT, "checksum");
        CHECK(back == NULL, "a failed load wrote *out");
        free(buf);
        OK(svmgo_model_free(q));
    }
}

/* utf8_complete reports whether s is valid UTF-8 (no sequence cut). */
static int utf8_complete(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
        int i;
        if (n < 0) {
            return 0;
        }
        for (i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80) {
                return 0;
            }
        }
        p += n + 1;
    }
    return 1;
}

static void test_internal(void) {
    float x[NF] = {0};
    double dst[1];
    char options[2048];
    size_t i;
    svmgo_trainer *t = NULL;

    /* Pointers no caller should pass: the fault happens in Go code, which
     * turns it into a panic, which comes back as SVMGO_E_INTERNAL instead
     * of ending the process. */
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, (double *)(uintptr_t)8, 1, x, 1, NF), SVMGO_E_INTERNAL,
           "internal error");
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 1, (const float *)(uintptr_t)16, 1, NF),
           SVMGO_E_INTERNAL, "invalid memory address");
    OK(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 1, x, 1, NF));

    /* A message longer than the buffer is cut at a character boundary. */
    strcpy(options, "-c ");
    for (i = 0; i < 600; i++) {
        strcat(options, "\xc3\xa9"); /* é */
    }
    EXPECT(svmgo_trainer_new(options, 4, 2, 0, &t), SVMGO_E_INVALID_ARGUMENT, "svmgo_trainer_new: options \"-c \xc3\xa9");
    CHECK(strlen(svmgo_last_error()) <= 1023 && strlen(svmgo_last_error()) > 1000, "long message of %lu bytes",
          (unsigned long)strlen(svmgo_last_error()));
    CHECK(utf8_complete(svmgo_last_error()), "a long message was cut inside a character");
}

/* Per-thread messages: a failure on one thread leaves another's alone. */
static char thread_seen_before[256];
static char thread_seen_after[256];

static void *other_thread(void *arg) {
    double dst[1];
    float x[NF] = {0};
    (void)arg;
    snprintf(thread_seen_before, sizeof thread_seen_before, "%s", svmgo_last_error());
    (void)svmgo_predict_dense_f32((svmgo_model *)(uintptr_t)0x7777777, SVMGO_OUTPUT_LABEL, dst, 1, x, 1, NF);
    snprintf(thread_seen_after, sizeof thread_seen_after, "%s", svmgo_last_error());
    return NULL;
}

static void test_threads(void) {
    pthread_t th;
    char mine[1024];
    double dst[2];
    float x[NF] = {0};
    EXPECT(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 2, x, 1, NF - 1), SVMGO_E_DIMENSION, "num_features is 12");
    snprintf(mine, sizeof mine, "%s", svmgo_last_error());
    OK(svmgo_predict_dense_f32(good, SVMGO_OUTPUT_LABEL, dst, 2, x, 1, NF));
    CHECK(strcmp(svmgo_last_error(), mine) == 0, "a successful call changed the message to \"%s\"", svmgo_last_error());
    CHECK(pthread_create(&th, NULL, other_thread, NULL) == 0, "pthread_create");
    pthread_join(th, NULL);
    CHECK(thread_seen_before[0] == '\0', "a new thread starts with message \"%s\"", thread_seen_before);
    CHECK(strstr(thread_seen_after, "not a model handle") != NULL, "other thread's message \"%s\"", thread_seen_after);
    CHECK(strcmp(svmgo_last_error(), mine) == 0, "another thread's failure changed this thread's message to \"%s\"",
          svmgo_last_error());
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: misuse FIXTURES\n");
        return 2;
    }
    fixtures = argv[1];
    CHECK(strcmp(svmgo_last_error(), "") == 0, "last error before any call: \"%s\"", svmgo_last_error());
    test_version();
    test_status_names();
    OK(svmgo_model_load(path_join(0, fixtures, "good.svmgo"), &good));
    if (good == NULL) {
        return finish("misuse");
    }
    test_load();
    test_properties();
    test_predict();
    test_handles();
    test_files();
    test_buffers_and_skips();
    test_trainer();
    test_quantized();
    test_threads();
    test_internal();
    OK(svmgo_model_free(good));
    return finish("misuse");
}
