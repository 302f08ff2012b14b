/*
 * svmgo_demo.c — the whole life of a model through libsvmgo's C interface:
 * train, save, load, predict, publish and watch.
 *
 *   svmgo_demo [train_file test_file]
 *
 * The files are LIBSVM text files; the defaults are the bundled heart_scale
 * data (run from the repository root). Build and run, from the root:
 *
 *   make lib/libsvmgo.so
 *   gcc -std=c99 -Wall -Wextra -Wpedantic -Iinclude examples/c/svmgo_demo.c \
 *       examples/c/libsvm_reader.c -Llib -lsvmgo -Wl,-rpath,'$ORIGIN/../lib' \
 *       -o bin/svmgo_demo_c
 *   bin/svmgo_demo_c
 *
 * Every call's status is checked: the first failure is printed with its
 * code's name and the library's message, and the program exits with 1.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, nanosleep, opendir */

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libsvm_reader.h"
#include "svmgo.h"

/* The first rows are added as dense rows, the rest as CSR, to show both. */
#define NUM_DENSE_ROWS 5
/* Retraining for the second published version drops this many rows. */
#define NUM_REMOVED_ROWS 10
/* How long to wait for the watcher to pick up a published version. */
#define WATCH_TIMEOUT_MS 10000

/* check reports a failed libsvmgo call: what was called, the status code's
 * name and the calling thread's last error message. It returns status so
 * that a caller can write `if (check(...)) goto done;`. */
static int check(int status, const char *what)
{
    if (status != SVMGO_OK) {
        fprintf(stderr, "svmgo_demo: %s: %s: %s\n", what, svmgo_status_name(status), svmgo_last_error());
    }
    return status;
}

/* CHECK runs a libsvmgo call and jumps to the clean-up at `done` when it
 * fails; the call's text names it in the message. */
#define CHECK(call)                   \
    do {                              \
        if (check((call), #call)) {   \
            goto done;                \
        }                             \
    } while (0)

/* kind_name names an svmgo_model_kind value. */
static const char *kind_name(int64_t kind)
{
    switch (kind) {
    case SVMGO_KIND_LINEAR_SVC:
        return "linear SVC";
    case SVMGO_KIND_LINEAR_SVR:
        return "linear SVR";
    case SVMGO_KIND_KERNEL_SVC:
        return "kernel SVC";
    case SVMGO_KIND_KERNEL_SVR:
        return "kernel SVR";
    case SVMGO_KIND_ONE_CLASS:
        return "one-class";
    }
    return "unknown kind";
}

static void sleep_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* wait_for_version polls a watched model until it serves version want (or
 * a newer one). The watcher loads new versions in the background, so the
 * version changes some time after svmgo_model_publish returns; until the
 * first model has loaded, svmgo_model_get reports SVMGO_E_NO_MODEL.
 * Returns SVMGO_OK, the first unexpected error, or SVMGO_E_NO_MODEL on
 * timeout. */
static int wait_for_version(const svmgo_model *watched, uint64_t want, int64_t *got)
{
    long waited;
    int status = SVMGO_E_NO_MODEL;
    for (waited = 0; waited <= WATCH_TIMEOUT_MS; waited += 10) {
        status = svmgo_model_get(watched, SVMGO_MODEL_VERSION, got);
        if (status == SVMGO_OK && *got >= 0 && (uint64_t)*got >= want) {
            return SVMGO_OK;
        }
        if (status != SVMGO_OK && status != SVMGO_E_NO_MODEL) {
            return status;
        }
        sleep_ms(10);
    }
    return status == SVMGO_OK ? SVMGO_E_NO_MODEL : status;
}

/* remove_tree removes dir and the files in it (the demo's temporary
 * directory holds one level of files and the models/ folder). */
static void remove_tree(const char *dir)
{
    char path[4096];
    struct dirent *e;
    struct stat st;
    DIR *d = opendir(dir);
    if (d == NULL) {
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            remove_tree(path);
        } else {
            remove(path);
        }
    }
    closedir(d);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    const char *train_path = "examples/data/heart_scale.train";
    const char *test_path = "examples/data/heart_scale.test";
    char err[512];
    char tmpdir[1024], model_path[1100], models_dir[1100];
    libsvm_data train, test;
    svmgo_trainer *trainer = NULL;
    svmgo_model *model = NULL, *loaded = NULL, *retrained = NULL, *watched = NULL;
    float *dense = NULL;
    double *pred = NULL, *pred_loaded = NULL;
    int32_t labels[16];
    size_t num_labels = 0, num_rows = 0, nf, i, correct = 0;
    size_t removed[NUM_REMOVED_ROWS];
    int64_t kind = 0, num_features = 0, num_classes = 0, version = 0;
    uint64_t v1 = 0, v2 = 0;
    double accuracy, label;
    int ok = 0;

    memset(&train, 0, sizeof train);
    memset(&test, 0, sizeof test);
    tmpdir[0] = '\0';
    if (argc == 3) {
        train_path = argv[1];
        test_path = argv[2];
    } else if (argc != 1) {
        fprintf(stderr, "usage: svmgo_demo [train_file test_file]\n");
        return 2;
    }

    /* A program built against one header must run with a library of the
     * same version: the numbers tell a stale libsvmgo.so apart. */
    if (svmgo_version_number() != SVMGO_VERSION_NUMBER) {
        fprintf(stderr, "svmgo_demo: libsvmgo.so is version %s, svmgo.h is %d.%d.%d\n",
                svmgo_version_string(), SVMGO_VERSION_MAJOR, SVMGO_VERSION_MINOR, SVMGO_VERSION_PATCH);
        return 1;
    }
    printf("libsvmgo %s\n", svmgo_version_string());

    if (libsvm_read(train_path, 0, &train, err, sizeof err) != 0 ||
        libsvm_read(test_path, 0, &test, err, sizeof err) != 0) {
        fprintf(stderr, "svmgo_demo: %s\n", err);
        goto done;
    }
    nf = train.num_features;
    if (train.num_rows <= NUM_DENSE_ROWS + NUM_REMOVED_ROWS) {
        fprintf(stderr, "svmgo_demo: %s: %zu rows; the demo needs more than %d\n", train_path, train.num_rows,
                NUM_DENSE_ROWS + NUM_REMOVED_ROWS);
        goto done;
    }

    /* Scratch directory for the model file and the published versions. */
    {
        const char *t = getenv("TMPDIR");
        int n = snprintf(tmpdir, sizeof tmpdir, "%s/svmgo_demo.XXXXXX", t != NULL && *t != '\0' ? t : "/tmp");
        if (n < 0 || (size_t)n >= sizeof tmpdir || mkdtemp(tmpdir) == NULL) {
            fprintf(stderr, "svmgo_demo: cannot create a temporary directory (TMPDIR=%s)\n", t ? t : "");
            tmpdir[0] = '\0';
            goto done;
        }
        snprintf(model_path, sizeof model_path, "%s/heart.svmgo", tmpdir);
        snprintf(models_dir, sizeof models_dir, "%s/models", tmpdir);
        if (mkdir(models_dir, 0755) != 0) {
            perror("svmgo_demo: mkdir");
            goto done;
        }
    }

    /* 1. A trainer with LIBLINEAR's options: L2-loss SVC (-s 1) with a bias
     *    feature (-B 1). capacity_nonzeros > 0 stores the rows sparse, with
     *    room for every nonzero of the file; the capacity is fixed here. */
    CHECK(svmgo_trainer_new("-s 1 -B 1", train.num_rows, nf, (size_t)train.indptr[train.num_rows], &trainer));

    /* 2. Rows in: the first few as a dense row-major matrix... */
    dense = malloc(NUM_DENSE_ROWS * nf * sizeof *dense);
    if (dense == NULL) {
        fprintf(stderr, "svmgo_demo: out of memory\n");
        goto done;
    }
    for (i = 0; i < NUM_DENSE_ROWS; i++) {
        libsvm_dense_row(&train, i, dense + i * nf, nf);
    }
    CHECK(svmgo_trainer_add_dense_f32(trainer, train.labels, dense, NUM_DENSE_ROWS, nf));
    /* ...and the rest as CSR. indptr need not start at 0: passing
     * &indptr[NUM_DENSE_ROWS] with the whole index and value arrays adds
     * rows NUM_DENSE_ROWS.. without copying. */
    CHECK(svmgo_trainer_add_csr_f32(trainer, train.labels + NUM_DENSE_ROWS, train.indptr + NUM_DENSE_ROWS,
                                    train.indices, train.values, train.num_rows - NUM_DENSE_ROWS));
    CHECK(svmgo_trainer_num_rows(trainer, &num_rows));
    printf("trainer holds %zu rows of %zu features\n", num_rows, nf);

    /* 3. Fit. The model is a new handle, independent of the trainer. */
    CHECK(svmgo_trainer_fit(trainer, &model));
    CHECK(svmgo_model_get(model, SVMGO_MODEL_KIND, &kind));
    CHECK(svmgo_model_get(model, SVMGO_MODEL_NUM_FEATURES, &num_features));
    CHECK(svmgo_model_get(model, SVMGO_MODEL_NUM_CLASSES, &num_classes));
    CHECK(svmgo_model_labels(model, labels, sizeof labels / sizeof labels[0], &num_labels));
    printf("model: %s, %" PRId64 " features, %" PRId64 " classes, labels", kind_name(kind), num_features,
           num_classes);
    for (i = 0; i < num_labels; i++) {
        printf(" %" PRId32, labels[i]);
    }
    printf("\n");

    /* 4. Save it and load it back. */
    CHECK(svmgo_model_save(model, model_path));
    CHECK(svmgo_model_load(model_path, &loaded));

    /* 5. Predict the test rows with both handles: one call for all rows. */
    pred = malloc(test.num_rows * sizeof *pred);
    pred_loaded = malloc(test.num_rows * sizeof *pred_loaded);
    if (pred == NULL || pred_loaded == NULL) {
        fprintf(stderr, "svmgo_demo: out of memory\n");
        goto done;
    }
    CHECK(svmgo_predict_csr_f32(model, SVMGO_OUTPUT_LABEL, pred, test.num_rows, test.indptr, test.indices,
                                test.values, test.num_rows));
    CHECK(svmgo_predict_csr_f32(loaded, SVMGO_OUTPUT_LABEL, pred_loaded, test.num_rows, test.indptr,
                                test.indices, test.values, test.num_rows));
    for (i = 0; i < test.num_rows; i++) {
        if (pred[i] != pred_loaded[i]) {
            fprintf(stderr, "svmgo_demo: row %zu: trained model says %g, loaded model %g\n", i, pred[i],
                    pred_loaded[i]);
            goto done;
        }
        correct += pred[i] == test.labels[i];
    }
    accuracy = (double)correct / (double)test.num_rows;
    printf("test accuracy %.2f%% (%zu/%zu), loaded model agrees on every row\n", 100 * accuracy, correct,
           test.num_rows);
    if (accuracy < 0.80) {
        fprintf(stderr, "svmgo_demo: accuracy %.2f%% is below 80%%\n", 100 * accuracy);
        goto done;
    }

    /* 6. Publish version 1 and follow the directory with a watched handle. */
    CHECK(svmgo_model_publish(model, models_dir, &v1));
    CHECK(svmgo_model_watch(models_dir, &watched));
    CHECK(wait_for_version(watched, v1, &version));
    printf("published version %" PRIu64 "; the watched handle serves version %" PRId64 "\n", v1, version);

    /* 7. Retrain without the first rows (a warm start from the previous
     *    fit's dual variables) and publish that as the next version; the
     *    watched handle swaps it in while it keeps serving. */
    for (i = 0; i < NUM_REMOVED_ROWS; i++) {
        removed[i] = i;
    }
    CHECK(svmgo_trainer_remove(trainer, removed, NUM_REMOVED_ROWS));
    CHECK(svmgo_trainer_fit(trainer, &retrained));
    CHECK(svmgo_model_publish(retrained, models_dir, &v2));
    CHECK(wait_for_version(watched, v2, &version));
    CHECK(svmgo_predict_csr_f32(watched, SVMGO_OUTPUT_LABEL, &label, 1, test.indptr, test.indices, test.values, 1));
    printf("published version %" PRIu64 "; the watched handle serves version %" PRId64
           " and predicts %g for the first test row\n",
           v2, version, label);

    /* 8. A failed call returns a negative status and leaves a message for
     *    this thread: here a dense row one feature short. */
    {
        int status = svmgo_predict_dense_f32(model, SVMGO_OUTPUT_LABEL, &label, 1, dense, 1, nf - 1);
        if (status != SVMGO_E_DIMENSION) {
            fprintf(stderr, "svmgo_demo: a short row gave %s, want SVMGO_E_DIMENSION\n", svmgo_status_name(status));
            goto done;
        }
        printf("a short row is refused: %s: %s\n", svmgo_status_name(status), svmgo_last_error());
    }
    ok = 1;

done:
    /* Every free function accepts NULL, so one clean-up path serves all. */
    svmgo_model_free(watched);
    svmgo_model_free(retrained);
    svmgo_model_free(loaded);
    svmgo_model_free(model);
    svmgo_trainer_free(trainer);
    free(pred_loaded);
    free(pred);
    free(dense);
    libsvm_free(&test);
    libsvm_free(&train);
    if (tmpdir[0] != '\0') {
        remove_tree(tmpdir);
    }
    return ok ? 0 : 1;
}
