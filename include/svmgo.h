/*
 * svmgo.h — the C interface of libsvmgo.so.
 *
 * libsvmgo trains and runs support vector machines on small machines. This
 * header is the whole contract of the shared library: every symbol it
 * declares is exported, and nothing else is (a test compares the two).
 *
 * Conventions (the same for every function below):
 *
 *  - Every function returns an svmgo_status: SVMGO_OK (0) on success, a
 *    negative code on failure. After a failure, svmgo_last_error() returns a
 *    message naming what was wrong, for the calling thread only.
 *  - Handles (svmgo_model *, svmgo_trainer *) are opaque tokens, not
 *    pointers to memory: never dereference them. Each *_free function
 *    accepts NULL as a no-op; a handle that was already freed, or was never
 *    returned by this library, gives SVMGO_E_BAD_HANDLE, never a crash.
 *  - Inputs are caller-owned arrays, read only during the call; the library
 *    keeps no pointer to them. Outputs go into caller-owned arrays whose
 *    capacity, in elements, is passed beside them (dst, dst_cap); a call
 *    whose output does not fit writes nothing and returns
 *    SVMGO_E_CAPACITY with the size needed in the message.
 *  - Dense rows are row-major: row r, feature j is x[r * num_features + j].
 *    Sparse rows are CSR with 0-based feature indices, strictly increasing
 *    within a row: row r is indices/values[indptr[r] .. indptr[r+1]).
 *    Feature j of a sparse row is feature j + 1 of a LIBSVM text file.
 *  - Non-finite inputs (NaN, ±Inf) are refused with SVMGO_E_NOT_FINITE.
 *  - A Go panic never crosses this interface (it becomes SVMGO_E_INTERNAL),
 *    and the library never writes to stdout or stderr.
 */
#ifndef SVMGO_H
#define SVMGO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define SVMGO_API __declspec(dllimport)
#elif defined(__GNUC__)
#define SVMGO_API __attribute__((visibility("default")))
#else
#define SVMGO_API
#endif

/* ---- Version ------------------------------------------------------------ */

#define SVMGO_VERSION_MAJOR 0
#define SVMGO_VERSION_MINOR 6
#define SVMGO_VERSION_PATCH 0
/* One number for comparisons: major * 10000 + minor * 100 + patch. */
#define SVMGO_VERSION_NUMBER \
    (SVMGO_VERSION_MAJOR * 10000 + SVMGO_VERSION_MINOR * 100 + SVMGO_VERSION_PATCH)

/* The SVMGO_VERSION_NUMBER the library was built with; compare it with the
 * header's to detect a mismatched libsvmgo.so. Thread-safe. */
SVMGO_API unsigned svmgo_version_number(void);

/* The library version as "major.minor.patch", a static string owned by the
 * library. Thread-safe. */
SVMGO_API const char *svmgo_version_string(void);

/* ---- Status codes --------------------------------------------------------- */

/* Status codes. The values are pinned: they will not change meaning. */
typedef enum svmgo_status {
    SVMGO_OK = 0,
    SVMGO_E_INVALID_ARGUMENT = -1, /* NULL pointer, zero size, bad option string */
    SVMGO_E_BAD_HANDLE = -2,       /* freed, foreign or wrong-kind handle */
    SVMGO_E_DIMENSION = -3,        /* input has the wrong number of features */
    SVMGO_E_CAPACITY = -4,         /* output array too small (message: size needed) */
    SVMGO_E_NOT_FINITE = -5,       /* NaN or infinite input value */
    SVMGO_E_IO = -6,               /* file or directory could not be read or written */
    SVMGO_E_CORRUPT = -7,          /* not a model file, truncated, or checksum mismatch */
    SVMGO_E_VERSION = -8,          /* model file from a newer, unknown format version */
    SVMGO_E_FULL = -9,             /* trainer holds as many rows as its capacity */
    SVMGO_E_TRAIN = -10,           /* training impossible (for example a single class) */
    SVMGO_E_NO_MODEL = -11,        /* watched directory has no valid model yet */
    SVMGO_E_UNSUPPORTED = -12,     /* not available for this model (e.g. probabilities) */
    SVMGO_E_INTERNAL = -13         /* a bug in libsvmgo; please report the message */
} svmgo_status;

/* The enumerator's name for a status code ("SVMGO_E_CAPACITY"), or
 * "SVMGO_E_UNKNOWN" for a value outside the enum. A static string owned by
 * the library. Thread-safe. */
SVMGO_API const char *svmgo_status_name(int status);

/* The message of the last failed call made by the calling thread, or "" if
 * none failed yet. Owned by the library; valid until the calling thread's
 * next failed call. Thread-safe (each thread has its own message). */
SVMGO_API const char *svmgo_last_error(void);

/* ---- Models --------------------------------------------------------------- */

/* A trained model. Models are immutable: one handle can be used by any
 * number of threads at once. A watched model (svmgo_model_watch) follows
 * its directory; each call uses the version current when the call began. */
typedef struct svmgo_model svmgo_model;

/* What svmgo_model_get reports. Values are pinned. */
typedef enum svmgo_model_property {
    SVMGO_MODEL_KIND = 1,                /* an svmgo_model_kind value */
    SVMGO_MODEL_NUM_FEATURES = 2,        /* features a dense row must have */
    SVMGO_MODEL_NUM_CLASSES = 3,         /* classes; 0 for regression */
    SVMGO_MODEL_NUM_DECISION_VALUES = 4, /* decision values per row */
    SVMGO_MODEL_QUANTIZED = 5,           /* code width of a quantized model, 8 or 16; 0 if float */
    SVMGO_MODEL_HAS_PROBABILITY = 6,     /* 1 if SVMGO_OUTPUT_PROBABILITY works */
    SVMGO_MODEL_VERSION = 7              /* version in use (watched), else 0 */
} svmgo_model_property;

/* Model kinds (SVMGO_MODEL_KIND). Values are pinned. A quantized model
 * (int8 or int16 weights or support vectors, SVMGO_MODEL_QUANTIZED != 0)
 * has the kind of the float model it was made from, and the same calls
 * serve it. */
typedef enum svmgo_model_kind {
    SVMGO_KIND_LINEAR_SVC = 1, /* linear classifier (LIBLINEAR -s 1, 3) */
    SVMGO_KIND_LINEAR_SVR = 2, /* linear regression (LIBLINEAR -s 12, 13) */
    SVMGO_KIND_KERNEL_SVC = 3, /* kernel classifier (LIBSVM -s 0, 1) */
    SVMGO_KIND_KERNEL_SVR = 4, /* kernel regression (LIBSVM -s 3, 4) */
    SVMGO_KIND_ONE_CLASS = 5   /* kernel one-class (LIBSVM -s 2) */
} svmgo_model_kind;

/* Loads the model file at path into *out: a linear or kernel model, float
 * or quantized ("svmgo quantize", "svmgo watch --quantize"). The caller
 * owns *out and frees it with svmgo_model_free. Errors: SVMGO_E_IO (missing
 * or unreadable, or not a regular file: a directory or a FIFO is refused
 * at once, never waited on), SVMGO_E_CORRUPT (not a model file, damaged,
 * or a model no training gives, such as non-finite weights: every loader
 * and watcher refuses the same files), SVMGO_E_VERSION. A large file that
 * is not a model costs its first 24 bytes to refuse. Thread-safe. */
SVMGO_API int svmgo_model_load(const char *path, svmgo_model **out);

/* Loads a model from the size bytes at buf (the contents of a model file)
 * into *out. buf is read during the call only. Thread-safe. */
SVMGO_API int svmgo_model_load_buffer(const void *buf, size_t size, svmgo_model **out);

/* Writes model to path atomically: a reader sees the old file or the whole
 * new one, never a part. A quantized model is written quantized.
 * Thread-safe. */
SVMGO_API int svmgo_model_save(const svmgo_model *model, const char *path);

/* Writes the bytes of model's file, as svmgo_model_save writes them, into
 * dst, which holds dst_cap bytes, and stores their number in *size (may be
 * NULL). When they do not fit it writes nothing to dst, stores the number
 * needed in *size and returns SVMGO_E_CAPACITY, so a call with dst NULL
 * and dst_cap 0 asks for the size. svmgo_model_load_buffer reads the bytes
 * back. A watched handle writes the version in use at the call, which may
 * differ from one call to the next. Thread-safe. (Since 0.4.) */
SVMGO_API int svmgo_model_save_buffer(const svmgo_model *model, void *dst, size_t dst_cap, size_t *size);

/* Writes model as an ONNX-ML graph (the file "svmgo export --format onnx"
 * writes: a Scaler when the model scales its input, then LinearClassifier,
 * LinearRegressor, SVMClassifier or SVMRegressor; ONNX Runtime and
 * svmgo_model_load read it) into dst, which holds dst_cap bytes, and
 * stores its length in *size (may be NULL). When it does not fit it writes
 * nothing to dst, stores the length needed in *size and returns
 * SVMGO_E_CAPACITY, so a call with dst NULL and dst_cap 0 asks for the
 * size. A quantized model is refused with SVMGO_E_UNSUPPORTED: export its
 * float model. Thread-safe. */
SVMGO_API int svmgo_model_export_onnx(const svmgo_model *model, void *dst, size_t dst_cap, size_t *size);

/* Publishes model into dir as the next version, model-<version>.svmgo,
 * atomically, and stores that version in *version (may be NULL). Every
 * svmgo_model_watch of dir picks it up. Publishers of one directory must
 * not run at the same time. */
SVMGO_API int svmgo_model_publish(const svmgo_model *model, const char *dir, uint64_t *version);

/* Opens a handle on the newest valid model in dir, following new versions
 * as they are published: a new version is loaded and checked completely,
 * then swapped in without blocking predictions; an invalid file is skipped
 * and the current model keeps serving. Until a first model has loaded,
 * predictions return SVMGO_E_NO_MODEL. Errors: SVMGO_E_IO when dir is not a
 * readable directory. Free with svmgo_model_free, which stops watching. */
SVMGO_API int svmgo_model_watch(const char *dir, svmgo_model **out);

/* Tells why a watched handle does not serve the newest file in its
 * directory: stores in *version (may be NULL) the newest version newer than
 * the one in use that failed to load and was skipped, 0 when there is none,
 * and copies the reason (for example "model-7.svmgo: modelfile: checksum
 * mismatch: ...") into dst as a NUL-terminated string, truncated to
 * dst_cap - 1 bytes; *length (may be NULL) gets the reason's full length
 * without the NUL, 0 when nothing was skipped. dst may be NULL when
 * dst_cap is 0. A truncated reason is not an error. A record goes when a
 * version at least as new loads or the file is removed. Errors:
 * SVMGO_E_UNSUPPORTED for a handle that does not watch a directory.
 * Thread-safe. (Since 0.4.) */
SVMGO_API int svmgo_model_watch_skip(const svmgo_model *model, uint64_t *version,
                                     char *dst, size_t dst_cap, size_t *length);

/* Frees model. NULL is a no-op. A handle must not be used after it is
 * freed, and must not be freed while another thread uses it. */
SVMGO_API int svmgo_model_free(svmgo_model *model);

/* Stores a property of model (svmgo_model_property) in *value.
 * Thread-safe. */
SVMGO_API int svmgo_model_get(const svmgo_model *model, int property, int64_t *value);

/* Copies the class labels, in decision-value order, into dst and stores
 * their number in *count (may be NULL). Regression models have none.
 * Thread-safe. */
SVMGO_API int svmgo_model_labels(const svmgo_model *model, int32_t *dst, size_t dst_cap, size_t *count);

/* ---- Prediction ------------------------------------------------------------ */

/* What a predict call writes per row. Values are pinned. */
typedef enum svmgo_output {
    SVMGO_OUTPUT_LABEL = 1,          /* one value: the class label, or the regression value */
    SVMGO_OUTPUT_DECISION_VALUES = 2,/* SVMGO_MODEL_NUM_DECISION_VALUES values */
    SVMGO_OUTPUT_PROBABILITY = 3     /* SVMGO_MODEL_NUM_CLASSES values, when the model has them
                                      * (SVMGO_MODEL_HAS_PROBABILITY): kernel C-SVC and linear SVC
                                      * trained with -b 1 (Platt), linear logistic regression
                                      * (-s 0, -s 7: sigma of the decision values, LIBLINEAR's);
                                      * they sum to 1 */
} svmgo_output;

/* Predicts num_rows dense rows of num_features float values each and
 * writes the requested output (svmgo_output) row after row into dst, which
 * holds dst_cap values. num_features must equal SVMGO_MODEL_NUM_FEATURES.
 * Allocates nothing. Thread-safe. */
SVMGO_API int svmgo_predict_dense_f32(const svmgo_model *model, int output,
                                      double *dst, size_t dst_cap,
                                      const float *x, size_t num_rows, size_t num_features);

/* As svmgo_predict_dense_f32, for double rows (converted to float, the
 * precision models are stored in, as each value is read). */
SVMGO_API int svmgo_predict_dense_f64(const svmgo_model *model, int output,
                                      double *dst, size_t dst_cap,
                                      const double *x, size_t num_rows, size_t num_features);

/* Predicts num_rows sparse rows in CSR form (indptr has num_rows + 1
 * entries, indptr[0] = 0 is not required). Indices may be at or past
 * SVMGO_MODEL_NUM_FEATURES, and such features count as LIBSVM counts them:
 * a linear model (float or quantized) ignores them, having no weight for
 * them; in a kernel model they meet zeros in every support vector, so they
 * add nothing to u'v (linear, polynomial and sigmoid kernels), but the RBF
 * kernel counts them in ||x - sv||^2: they change an RBF model's output.
 * Allocates nothing. Thread-safe. */
SVMGO_API int svmgo_predict_csr_f32(const svmgo_model *model, int output,
                                    double *dst, size_t dst_cap,
                                    const int64_t *indptr, const int32_t *indices,
                                    const float *values, size_t num_rows);

/* As svmgo_predict_csr_f32, for double values. */
SVMGO_API int svmgo_predict_csr_f64(const svmgo_model *model, int output,
                                    double *dst, size_t dst_cap,
                                    const int64_t *indptr, const int32_t *indices,
                                    const double *values, size_t num_rows);

/* ---- Training --------------------------------------------------------------- */

/* A trainer: a fixed-capacity set of labelled rows and the dual solution of
 * its last fit, from which the next fit starts (a warm start). A trainer is
 * not shared: calls on one trainer from several threads are serialized, and
 * are best made from one thread. */
typedef struct svmgo_trainer svmgo_trainer;

/* Creates a trainer. options uses the command line's syntax: LIBLINEAR's
 * train options ("-s 1 -c 10 -B 1 -w1 2"; -v is not accepted here), or,
 * for a kernel trainer, LIBSVM's svm-train options ("-t 2 -c 10 -b 1"; -v
 * not accepted either). A leading "-syntax linear" or "-syntax kernel"
 * names the syntax ("-syntax kernel -s 3" is an RBF epsilon-SVR, "-syntax
 * kernel -s 1 -n 0.2" an RBF nu-SVC; an option
 * of the other syntax is then refused). Without it, LIBSVM's syntax is
 * chosen when options contain any of -t -g -d -r -m -h, which only
 * svm-train has; then -s and -n are LIBSVM's (-s 3 is epsilon-SVR, -n is
 * nu), otherwise LIBLINEAR's (-s 3 is L1-loss SVC, -n the thread count).
 * -b is both programs' option, so options that hold -b but name no family
 * (no -syntax, none of -t -g -d -r -m -h) are refused with
 * SVMGO_E_INVALID_ARGUMENT; before 0.6 they chose svm-train's syntax, so
 * "-s 1 -b 1" trained a kernel nu-SVC. A linear SVC with probabilities
 * (Platt's sigmoids, fitted by internal 5-fold cross-validation at each
 * fit) is "-syntax linear -s 1 -b 1", a kernel C-SVC "-t 2 -b 1" or
 * "-syntax kernel -b 1"; linear logistic regression ("-s 0", "-s 7") gives
 * probabilities without -b. A kernel trainer's automatic gamma is 1 / the number
 * of features of the rows held (num_features for dense rows). A kernel
 * trainer keeps its support vectors' kernel columns from one fit to the
 * next within -M MB, which defaults here to the -m cache size (100 unless
 * set; svm-train's own default is 0), and to 0 for regression: its
 * kernel memory is then at most twice -m, and "-M 0" keeps none.
 * In either syntax, "--scale" (with "--scale-lower l" and "--scale-upper u",
 * default -1 and 1) fits svm-scale's per-feature ranges on the rows of each
 * fit, trains on the scaled rows and stores the ranges in the model, whose
 * predict calls then take raw rows; a fit starts warm only when the ranges
 * are those of the previous fit (a row outside them refits them).
 * "--progress", in either syntax, makes each fit print its solvers'
 * progress to standard error as they run, one line at a time ("svmgo:
 * progress class 3: iter 5, objective 12.3, violation 0.004": each Newton
 * step of the primal solvers, each pass of -s 1 and -s 3, every 1000 SMO
 * iterations); the library writes nothing otherwise.
 * The trainer holds at most capacity_rows rows of num_features features.
 * capacity_nonzeros > 0 stores rows sparse with room for that many nonzero
 * values in all; 0 stores them dense (capacity_rows * num_features floats).
 * The caller owns *out and frees it with svmgo_trainer_free. */
SVMGO_API int svmgo_trainer_new(const char *options, size_t capacity_rows,
                                size_t num_features, size_t capacity_nonzeros,
                                svmgo_trainer **out);

/* Frees trainer. NULL is a no-op. */
SVMGO_API int svmgo_trainer_free(svmgo_trainer *trainer);

/* Appends num_rows dense rows with their labels (class labels are
 * integers). Either all rows are added or none: SVMGO_E_FULL when they do
 * not fit, SVMGO_E_NOT_FINITE or SVMGO_E_INVALID_ARGUMENT for a bad row. */
SVMGO_API int svmgo_trainer_add_dense_f32(svmgo_trainer *trainer, const double *labels,
                                          const float *x, size_t num_rows, size_t num_features);

/* As svmgo_trainer_add_dense_f32, for double rows. */
SVMGO_API int svmgo_trainer_add_dense_f64(svmgo_trainer *trainer, const double *labels,
                                          const double *x, size_t num_rows, size_t num_features);

/* Appends num_rows sparse CSR rows (see the conventions at the top) with
 * their labels; all or none. Indices must be below num_features. */
SVMGO_API int svmgo_trainer_add_csr_f32(svmgo_trainer *trainer, const double *labels,
                                        const int64_t *indptr, const int32_t *indices,
                                        const float *values, size_t num_rows);

/* As svmgo_trainer_add_csr_f32, for double values. */
SVMGO_API int svmgo_trainer_add_csr_f64(svmgo_trainer *trainer, const double *labels,
                                        const int64_t *indptr, const int32_t *indices,
                                        const double *values, size_t num_rows);

/* Removes the rows at the given positions (0-based, in the order rows were
 * added, counting only rows still held; any order, no duplicates). The
 * remaining rows keep their order and their dual variables. */
SVMGO_API int svmgo_trainer_remove(svmgo_trainer *trainer, const size_t *rows, size_t count);

/* Stores in *batch the number of the last add call that added rows: each
 * svmgo_trainer_add_* call that adds rows is one batch, numbered 1 for the
 * first and one more for each after (a failed call, or one of 0 rows,
 * takes no number). 0 before any. Keep it to forget the batch later. */
SVMGO_API int svmgo_trainer_last_batch(const svmgo_trainer *trainer, uint64_t *batch);

/* Forgets batch number batch (svmgo_trainer_last_batch): removes the rows
 * that add call added and that are still held, with their dual variables,
 * as svmgo_trainer_remove does; the next fit starts warm from the dual
 * variables of the rows that remain (feasibility restored by the solver)
 * and reaches their optimum. Stores the number of rows removed in
 * *removed unless removed is NULL: 0 when they were all removed already
 * (a second forget of the same batch is a no-op). SVMGO_E_INVALID_ARGUMENT
 * for 0 or a number not given yet. */
SVMGO_API int svmgo_trainer_forget(svmgo_trainer *trainer, uint64_t batch, size_t *removed);

/* Sets the instance weights of count rows held, starting at row first_row
 * (0-based, in the order rows were added, counting only rows still held):
 * row i's cost C is multiplied by its weight in every formulation (for a
 * one-class SVM and nu-SVC the weight bounds its dual variable; for nu-SVC
 * and nu-SVR the row also counts that many times in nu's share), so a
 * weight of 2 trains as the row added twice. Rows weigh 1 until set; a row keeps its
 * weight until it is removed. All or none: SVMGO_E_NOT_FINITE for a NaN or
 * infinite weight, SVMGO_E_INVALID_ARGUMENT for one that is not positive
 * (remove the row instead) or rows beyond those held. The next fit starts
 * from the previous dual variables clipped into the new bounds. weights is
 * read during the call only. */
SVMGO_API int svmgo_trainer_set_weights(svmgo_trainer *trainer, size_t first_row,
                                        const double *weights, size_t count);

/* Stores the number of rows held in *count. */
SVMGO_API int svmgo_trainer_num_rows(const svmgo_trainer *trainer, size_t *count);

/* Trains on the rows held, warm-started from the previous fit's dual
 * variables (new rows start at 0), and stores the new model in *out (the
 * caller owns it; free it with svmgo_model_free). The model does not change
 * when the trainer does. Same rows and options give the same model. */
SVMGO_API int svmgo_trainer_fit(svmgo_trainer *trainer, svmgo_model **out);

/* The unit of svmgo_fit_info.work. */
enum {
    SVMGO_WORK_ROWS_READ = 1,   /* linear: training rows read (coordinate
                                   steps, or rows per Newton pass) */
    SVMGO_WORK_KERNEL_EVALS = 2 /* kernel: kernel evaluations, cache hits
                                   excluded */
};

/* What the last svmgo_trainer_fit reported: a warm fit's work against a
 * cold one's is what the warm start saved. */
typedef struct svmgo_fit_info {
    uint64_t iterations; /* linear: largest pass or Newton iteration count of
                            a decision function; kernel: SMO iterations,
                            summed over the subproblems */
    uint64_t work;       /* the fit's cost, in work_unit */
    double objective;    /* linear: primal objective; kernel: dual
                            objective (svm-train's obj), summed over the
                            subproblems */
    uint64_t num_sv;     /* rows with a nonzero dual variable */
    int32_t converged;   /* 1 when every subproblem met the tolerance, 0
                            when an iteration cap stopped one */
    int32_t work_unit;   /* SVMGO_WORK_ROWS_READ or SVMGO_WORK_KERNEL_EVALS */
} svmgo_fit_info;

/* Stores what the last svmgo_trainer_fit reported in *out.
 * SVMGO_E_NO_MODEL before the first successful fit. */
SVMGO_API int svmgo_trainer_fit_info(const svmgo_trainer *trainer, svmgo_fit_info *out);

#ifdef __cplusplus
}
#endif

#endif /* SVMGO_H */
