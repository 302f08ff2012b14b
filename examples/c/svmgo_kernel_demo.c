/*
 * svmgo_kernel_demo.c — a kernel SVM through libsvmgo's C interface: an RBF
 * C-SVC with probability estimates, trained, saved, loaded, asked for
 * labels, decision values and class probabilities, then grown by more rows
 * and re-fitted warm.
 *
 *   svmgo_kernel_demo [train_file test_file [options]]
 *
 * The files are LIBSVM text files; the defaults are the bundled heart_scale
 * data (run from the repository root). options are svm-train's, by default
 * "-t 2 -c 4 -b 1": RBF kernel exp(-gamma |u - v|^2) with svm-train's gamma
 * (1 / num_features), C = 4, probability estimates. svmgo_trainer_new reads
 * svm-train's syntax as soon as the options hold any of -t -g -d -r -m -h -b;
 * without them it reads LIBLINEAR's and trains a linear model. Build and
 * run, from the root:
 *
 *   make lib/libsvmgo.so
 *   gcc -std=c99 -Wall -Wextra -Wpedantic -Iinclude examples/c/svmgo_kernel_demo.c \
 *       examples/c/libsvm_reader.c -Llib -lsvmgo -Wl,-rpath,'$ORIGIN/../lib' \
 *       -o bin/svmgo_kernel_demo_c
 *   bin/svmgo_kernel_demo_c
 *
 * The two "Accuracy = ..." lines are svm-predict's: `make test-c` checks
 * them against `svmgo train OPTIONS` then `svmgo predict` and `svmgo
 * predict -b 1`, run on the same files in the same invocation.
 *
 * Every call's status is checked: the first failure is printed with its
 * code's name and the library's message, and the program exits with 1.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libsvm_reader.h"
#include "svmgo.h"

/* How many test rows have their outputs printed, and how many values of
 * each output (a 10-class model has 45 decision values a row). */
#define NUM_SHOWN_ROWS 3
#define NUM_SHOWN_VALUES 4
/* A model has at most this many classes here (the labels array). */
#define MAX_CLASSES 64

/* check reports a failed libsvmgo call: what was called, the status code's
 * name and the calling thread's last error message. It returns status so
 * that a caller can write `if (check(...)) goto done;`. */
static int check(int status, const char *what)
{
    if (status != SVMGO_OK) {
        fprintf(stderr, "svmgo_kernel_demo: %s: %s: %s\n", what, svmgo_status_name(status), svmgo_last_error());
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

/* count_equal counts the rows i < n with a[i] == b[i]. */
static size_t count_equal(const double *a, const double *b, size_t n)
{
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        k += a[i] == b[i];
    }
    return k;
}

/* print_values prints the first NUM_SHOWN_VALUES of the n values v, as
 * "P(label) = value" when labels is not NULL, then how many there are in
 * all if some were left out. */
static void print_values(const double *v, size_t n, const int32_t *labels)
{
    size_t j;
    for (j = 0; j < n && j < NUM_SHOWN_VALUES; j++) {
        if (labels != NULL) {
            printf(" P(%d) = %g", (int)labels[j], v[j]);
        } else {
            printf(" %g", v[j]);
        }
    }
    if (n > NUM_SHOWN_VALUES) {
        printf(" ... (%zu in all)", n);
    }
}

int main(int argc, char **argv)
{
    const char *train_path = "examples/data/heart_scale.train";
    const char *test_path = "examples/data/heart_scale.test";
    const char *options = "-t 2 -c 4 -b 1";
    char err[512];
    char tmpdir[1024], model_path[1100];
    libsvm_data train, test;
    svmgo_trainer *trainer = NULL;
    svmgo_model *model = NULL, *loaded = NULL, *retrained = NULL;
    double *pred = NULL, *pred_loaded = NULL, *dec = NULL, *prob = NULL, *prob_label = NULL;
    int32_t labels[MAX_CLASSES];
    size_t num_labels = 0, num_rows = 0, nf, n, i, j, correct;
    int64_t kind = 0, num_classes = 0, num_dec = 0, has_prob = 0;
    int ok = 0;

    memset(&train, 0, sizeof train);
    memset(&test, 0, sizeof test);
    tmpdir[0] = '\0';
    if (argc == 3 || argc == 4) {
        train_path = argv[1];
        test_path = argv[2];
        options = argc == 4 ? argv[3] : options;
    } else if (argc != 1) {
        fprintf(stderr, "usage: svmgo_kernel_demo [train_file test_file [svm-train options]]\n");
        return 2;
    }
    if (svmgo_version_number() != SVMGO_VERSION_NUMBER) {
        fprintf(stderr, "svmgo_kernel_demo: libsvmgo.so is version %s, svmgo.h is %d.%d.%d\n",
                svmgo_version_string(), SVMGO_VERSION_MAJOR, SVMGO_VERSION_MINOR, SVMGO_VERSION_PATCH);
        return 1;
    }

    if (libsvm_read(train_path, 0, &train, err, sizeof err) != 0 ||
        libsvm_read(test_path, 0, &test, err, sizeof err) != 0) {
        fprintf(stderr, "svmgo_kernel_demo: %s\n", err);
        goto done;
    }
    /* Rows of both files go into the trainer (step 6): it needs room for
     * the larger feature indices of the two. */
    nf = train.num_features > test.num_features ? train.num_features : test.num_features;
    n = test.num_rows;
    {
        const char *t = getenv("TMPDIR");
        int k = snprintf(tmpdir, sizeof tmpdir, "%s/svmgo_kernel_demo.XXXXXX", t != NULL && *t != '\0' ? t : "/tmp");
        if (k < 0 || (size_t)k >= sizeof tmpdir || mkdtemp(tmpdir) == NULL) {
            fprintf(stderr, "svmgo_kernel_demo: cannot create a temporary directory (TMPDIR=%s)\n", t ? t : "");
            tmpdir[0] = '\0';
            goto done;
        }
        snprintf(model_path, sizeof model_path, "%s/heart.svmgo", tmpdir);
    }
    pred = malloc(n * sizeof *pred);
    pred_loaded = malloc(n * sizeof *pred_loaded);
    if (pred == NULL || pred_loaded == NULL) {
        fprintf(stderr, "svmgo_kernel_demo: out of memory\n");
        goto done;
    }

    /* 1. A kernel trainer: svm-train's options and a fixed capacity, here
     *    room for the training rows and, for step 6, the test rows; rows
     *    stored sparse (capacity_nonzeros > 0). Gamma, when the options
     *    leave it out, is 1 / the number of features of the rows held, as
     *    svm-train computes it from its file. */
    CHECK(svmgo_trainer_new(options, train.num_rows + n, nf,
                            (size_t)train.indptr[train.num_rows] + (size_t)test.indptr[n], &trainer));

    /* 2. The training rows in (CSR, one call) and a fit: the model is a new
     *    handle, independent of the trainer. */
    CHECK(svmgo_trainer_add_csr_f32(trainer, train.labels, train.indptr, train.indices, train.values,
                                    train.num_rows));
    CHECK(svmgo_trainer_fit(trainer, &model));

    /* 3. What the model is: a kernel C-SVC gives one label per row, one
     *    decision value per pair of classes (one in all for two classes:
     *    positive means the first label) and, trained with -b 1, one
     *    probability per class; both in the order of svmgo_model_labels. */
    CHECK(svmgo_model_get(model, SVMGO_MODEL_KIND, &kind));
    CHECK(svmgo_model_get(model, SVMGO_MODEL_NUM_CLASSES, &num_classes));
    CHECK(svmgo_model_get(model, SVMGO_MODEL_NUM_DECISION_VALUES, &num_dec));
    CHECK(svmgo_model_get(model, SVMGO_MODEL_HAS_PROBABILITY, &has_prob));
    CHECK(svmgo_model_labels(model, labels, MAX_CLASSES, &num_labels));
    if (kind != SVMGO_KIND_KERNEL_SVC) {
        fprintf(stderr, "svmgo_kernel_demo: options \"%s\" train no kernel classifier (svmgo_model_kind %d); "
                        "give svm-train's -s 0 and a kernel (-t)\n",
                options, (int)kind);
        goto done;
    }
    printf("options \"%s\": kernel SVC on %zu rows, %d classes (labels", options, train.num_rows,
           (int)num_classes);
    for (i = 0; i < num_labels; i++) {
        printf(" %d", (int)labels[i]);
    }
    printf("), %d decision value(s) a row, probabilities: %s\n", (int)num_dec, has_prob ? "yes" : "no");

    /* 4. Save it and load it back; both handles give the same labels. */
    CHECK(svmgo_model_save(model, model_path));
    CHECK(svmgo_model_load(model_path, &loaded));
    CHECK(svmgo_predict_csr_f32(model, SVMGO_OUTPUT_LABEL, pred, n, test.indptr, test.indices, test.values, n));
    CHECK(svmgo_predict_csr_f32(loaded, SVMGO_OUTPUT_LABEL, pred_loaded, n, test.indptr, test.indices,
                                test.values, n));
    if (count_equal(pred, pred_loaded, n) != n) {
        fprintf(stderr, "svmgo_kernel_demo: the saved and loaded models predict different labels\n");
        goto done;
    }

    /* 5. Decision values and probabilities of all test rows, one call each:
     *    dst holds num_dec (or num_classes) values a row, row after row.
     *    Probabilities need a model trained with -b 1; others refuse them
     *    with SVMGO_E_UNSUPPORTED. */
    dec = malloc(n * (size_t)num_dec * sizeof *dec);
    prob = malloc(n * (size_t)num_classes * sizeof *prob);
    prob_label = malloc(n * sizeof *prob_label);
    if (dec == NULL || prob == NULL || prob_label == NULL) {
        fprintf(stderr, "svmgo_kernel_demo: out of memory\n");
        goto done;
    }
    CHECK(svmgo_predict_csr_f32(loaded, SVMGO_OUTPUT_DECISION_VALUES, dec, n * (size_t)num_dec, test.indptr,
                                test.indices, test.values, n));
    if (has_prob) {
        CHECK(svmgo_predict_csr_f32(loaded, SVMGO_OUTPUT_PROBABILITY, prob, n * (size_t)num_classes,
                                    test.indptr, test.indices, test.values, n));
        /* svm-predict -b 1 labels a row with its most probable class, which
         * can differ from the label of the decision values (the votes). */
        for (i = 0; i < n; i++) {
            const double *p = prob + i * (size_t)num_classes;
            size_t best = 0;
            for (j = 1; j < (size_t)num_classes; j++) {
                best = p[j] > p[best] ? j : best;
            }
            prob_label[i] = labels[best];
        }
    }
    for (i = 0; i < n && i < NUM_SHOWN_ROWS; i++) {
        printf("test row %zu: class %g, predicted %g, decision value(s)", i + 1, test.labels[i], pred[i]);
        print_values(dec + i * (size_t)num_dec, (size_t)num_dec, NULL);
        if (has_prob) {
            printf(", probabilities");
            print_values(prob + i * (size_t)num_classes, (size_t)num_classes, labels);
        }
        printf("\n");
    }
    correct = count_equal(pred, test.labels, n);
    printf("Accuracy = %g%% (%zu/%zu) of the labels\n", 100.0 * (double)correct / (double)n, correct, n);
    if (has_prob) {
        correct = count_equal(prob_label, test.labels, n);
        printf("Accuracy = %g%% (%zu/%zu) of the most probable classes\n", 100.0 * (double)correct / (double)n,
               correct, n);
    }

    /* 6. The true classes of predicted rows often become known later: add
     *    those rows and re-fit. The fit starts from the previous solution
     *    (its dual variables; the new rows' start at 0) and reaches the
     *    optimum a cold start would, to the solver's tolerance, with less
     *    work. */
    CHECK(svmgo_trainer_add_csr_f32(trainer, test.labels, test.indptr, test.indices, test.values, n));
    CHECK(svmgo_trainer_num_rows(trainer, &num_rows));
    CHECK(svmgo_trainer_fit(trainer, &retrained));
    CHECK(svmgo_predict_csr_f32(retrained, SVMGO_OUTPUT_LABEL, pred, n, test.indptr, test.indices, test.values,
                                n));
    printf("warm re-fit on %zu rows, the test rows included: it classifies %zu of these %zu correctly\n", num_rows,
           count_equal(pred, test.labels, n), n);
    ok = 1;

done:
    /* Every free function accepts NULL, so one clean-up path serves all. */
    svmgo_model_free(retrained);
    svmgo_model_free(loaded);
    svmgo_model_free(model);
    svmgo_trainer_free(trainer);
    free(prob_label);
    free(prob);
    free(dec);
    free(pred_loaded);
    free(pred);
    libsvm_free(&test);
    libsvm_free(&train);
    if (tmpdir[0] != '\0') {
        remove(model_path);
        rmdir(tmpdir);
    }
    return ok ? 0 : 1;
}
