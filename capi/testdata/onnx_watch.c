/*
 * A C client serving ONNX files dropped into a watched model directory
 * (issue 26): argv: dir good.onnx corrupt.onnx unsupported.onnx rows.f32
 * num_rows num_features labels.f64 export.onnx.
 *
 * dir holds model-1.svmgo. The program watches it, renames good.onnx to
 * model-2.onnx and waits for version 2, predicts the rows into labels.f64;
 * renames corrupt.onnx to model-3.onnx and unsupported.onnx to
 * model-4.onnx, waits for each to be skipped, and checks that version 2
 * keeps serving the same labels; finally exports the served model with
 * svmgo_model_export_onnx (size query, then the bytes) into export.onnx.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

#include "testutil.h"

static void sleep_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

static int64_t version_of(const svmgo_model *m) {
    int64_t v = -1;
    if (svmgo_model_get(m, SVMGO_MODEL_VERSION, &v) != SVMGO_OK) {
        return -1;
    }
    return v;
}

static int wait_version(const svmgo_model *m, int64_t want) {
    for (int i = 0; i < 1000; i++) {
        if (version_of(m) == want) {
            return 1;
        }
        sleep_ms(10);
    }
    return 0;
}

static int wait_skip(const svmgo_model *m, uint64_t want, char *why, size_t why_cap) {
    for (int i = 0; i < 1000; i++) {
        uint64_t v = 0;
        if (svmgo_model_watch_skip(m, &v, why, why_cap, NULL) == SVMGO_OK && v == want) {
            return 1;
        }
        sleep_ms(10);
    }
    return 0;
}

static void drop(const char *from, const char *dir, const char *name) {
    char to[4096];
    snprintf(to, sizeof to, "%s/%s", dir, name);
    if (rename(from, to) != 0) {
        fprintf(stderr, "cannot rename %s to %s\n", from, to);
        exit(2);
    }
}

int main(int argc, char **argv) {
    if (argc != 10) {
        fprintf(stderr, "usage: %s dir good corrupt unsupported rows n nf labels export\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    size_t n = (size_t)strtoul(argv[6], NULL, 10), nf = (size_t)strtoul(argv[7], NULL, 10);
    float *x = (float *)read_array(argv[5], sizeof(float), n * nf);
    double *labels = (double *)calloc(n, sizeof(double));
    double *again = (double *)calloc(n, sizeof(double));
    char why[1024];
    svmgo_model *m = NULL;

    OK(svmgo_model_watch(dir, &m));
    CHECK(wait_version(m, 1), "version 1 not served");

    drop(argv[2], dir, "model-2.onnx");
    CHECK(wait_version(m, 2), "ONNX version 2 not served (version %lld)", (long long)version_of(m));
    OK(svmgo_predict_dense_f32(m, SVMGO_OUTPUT_LABEL, labels, n, x, n, nf));

    drop(argv[3], dir, "model-3.onnx");
    CHECK(wait_skip(m, 3, why, sizeof why), "corrupt version 3 not skipped");
    printf("skipped 3: %s\n", why);
    drop(argv[4], dir, "model-4.onnx");
    CHECK(wait_skip(m, 4, why, sizeof why), "unsupported version 4 not skipped");
    printf("skipped 4: %s\n", why);
    CHECK(strstr(why, "SVMClassifiex") != NULL, "reason does not name the operator: %s", why);
    CHECK(version_of(m) == 2, "serving version %lld after bad files, want 2", (long long)version_of(m));
    OK(svmgo_predict_dense_f32(m, SVMGO_OUTPUT_LABEL, again, n, x, n, nf));
    CHECK(memcmp(labels, again, n * sizeof(double)) == 0, "labels changed after the skipped versions");

    size_t size = 0;
    EXPECT(svmgo_model_export_onnx(m, NULL, 0, &size), SVMGO_E_CAPACITY, "bytes needed");
    void *buf = malloc(size);
    OK(svmgo_model_export_onnx(m, buf, size, &size));
    FILE *f = fopen(argv[9], "wb");
    if (f == NULL || fwrite(buf, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", argv[9]);
        return 2;
    }
    f = fopen(argv[8], "wb");
    if (f == NULL || fwrite(labels, sizeof(double), n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", argv[8]);
        return 2;
    }
    OK(svmgo_model_free(m));
    free(buf);
    free(x);
    free(labels);
    free(again);
    printf("%d checks\n", checks);
    return failures ? 1 : 0;
}
