/*
 * concurrency.c — threads predict through one watched handle while the
 * main thread publishes new versions into its directory. Every call must
 * succeed and return exactly the outputs of one published version (a call
 * uses one version from start to end), and a thread never sees an older
 * version after a newer one.
 *
 * Usage: concurrency DIR VERSIONS THREADS
 * DIR must be empty. The models are trained here, through the ABI, with a
 * different C each, and their outputs on the test rows computed through
 * their own (not watched) handles before anything is published.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "testutil.h"

#define N 200   /* training rows */
#define NF 8    /* features */
#define T 16    /* test rows */
#define MAXV 1000
#define MAXTHREADS 64

static float train_x[N * NF];
static double train_y[N];
static float test_x[T * NF];
static int64_t test_indptr[T + 1];
static int32_t test_indices[T * NF];
static float test_values[T * NF];

static int versions;
static double dense_dec[MAXV][T]; /* decision values of each version */
static double csr_dec[MAXV][T];
static svmgo_model *watched;
static int stop;

struct worker {
    pthread_t thread;
    long calls;        /* atomic: read by the main thread */
    long errors;
    long mismatches;
    long backwards;
    int last;          /* index of the version the last call matched */
    char message[512]; /* the first error */
    unsigned char seen[MAXV];
};
static struct worker workers[MAXTHREADS];

static uint64_t lcg_state = 12345;
static double uniform(void) {
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) / 9007199254740992.0;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_us(long us) {
    struct timespec ts;
    ts.tv_sec = us / 1000000;
    ts.tv_nsec = (us % 1000000) * 1000;
    nanosleep(&ts, NULL);
}

/* find returns the version index whose outputs equal got: searching from
 * the thread's last match upwards first, so a version published twice
 * over (equal outputs) is not mistaken for a step back. -1: none. */
static int find(double table[][T], const double *got, int from, int *back) {
    int v;
    *back = 0;
    for (v = from; v < versions; v++) {
        if (memcmp(table[v], got, sizeof table[v]) == 0) {
            return v;
        }
    }
    for (v = 0; v < from; v++) {
        if (memcmp(table[v], got, sizeof table[v]) == 0) {
            *back = 1;
            return v;
        }
    }
    return -1;
}

static void *predictor(void *arg) {
    struct worker *w = (struct worker *)arg;
    double got[T];
    long i;
    for (i = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++) {
        int csr = (int)(i & 1), rc, v, back;
        memset(got, 0, sizeof got);
        if (csr) {
            rc = svmgo_predict_csr_f32(watched, SVMGO_OUTPUT_DECISION_VALUES, got, T, test_indptr, test_indices,
                                       test_values, T);
        } else {
            rc = svmgo_predict_dense_f32(watched, SVMGO_OUTPUT_DECISION_VALUES, got, T, test_x, T, NF);
        }
        if (rc != SVMGO_OK) {
            if (w->errors++ == 0) {
                snprintf(w->message, sizeof w->message, "%s: %s", svmgo_status_name(rc), svmgo_last_error());
            }
        } else if ((v = find(csr ? csr_dec : dense_dec, got, w->last, &back)) < 0) {
            w->mismatches++;
        } else {
            w->backwards += back;
            w->last = v;
            w->seen[v] = 1;
        }
        __atomic_store_n(&w->calls, __atomic_load_n(&w->calls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* wait_version polls the watched handle until it serves version want. */
static int wait_version(uint64_t want) {
    int i;
    int64_t v = 0;
    for (i = 0; i < 20000; i++) {
        if (svmgo_model_get(watched, SVMGO_MODEL_VERSION, &v) == SVMGO_OK && (uint64_t)v == want) {
            return 1;
        }
        sleep_us(500);
    }
    fprintf(stderr, "watched handle serves version %lld, want %llu\n", (long long)v, (unsigned long long)want);
    return 0;
}

int main(int argc, char **argv) {
    static svmgo_model *models[MAXV];
    int threads, v, i, j, th, distinct = 0;
    uint64_t first = 0, version = 0;
    long calls[MAXTHREADS], total = 0;
    double w_true[NF];
    int64_t prop;
    double t0 = now(), t1, t2;

    if (argc != 4) {
        fprintf(stderr, "usage: concurrency DIR VERSIONS THREADS\n");
        return 2;
    }
    versions = atoi(argv[2]);
    threads = atoi(argv[3]);
    if (versions < 2 || versions > MAXV || threads < 1 || threads > MAXTHREADS) {
        fprintf(stderr, "bad VERSIONS or THREADS\n");
        return 2;
    }

    /* A noisy linear problem, and test rows with some zeros. */
    for (j = 0; j < NF; j++) {
        w_true[j] = uniform() * 2 - 1;
    }
    for (i = 0; i < N; i++) {
        double s = 0;
        for (j = 0; j < NF; j++) {
            train_x[i * NF + j] = (float)(uniform() * 2 - 1);
            s += w_true[j] * train_x[i * NF + j];
        }
        train_y[i] = s + 0.3 * (uniform() - 0.5) > 0 ? 1 : -1;
    }
    test_indptr[0] = 0;
    for (i = 0; i < T; i++) {
        test_indptr[i + 1] = test_indptr[i];
        for (j = 0; j < NF; j++) {
            float x = (i + j) % 3 == 0 ? 0.0f : (float)(uniform() * 2 - 1);
            test_x[i * NF + j] = x;
            if (x != 0) {
                test_indices[test_indptr[i + 1]] = j;
                test_values[test_indptr[i + 1]] = x;
                test_indptr[i + 1]++;
            }
        }
    }

    /* One model per version, trained with its own C. */
    for (v = 0; v < versions; v++) {
        svmgo_trainer *t = NULL;
        char options[64];
        snprintf(options, sizeof options, "-s 1 -B 1 -c %.6g", 0.001 * pow(1.05, v));
        OK(svmgo_trainer_new(options, N, NF, 0, &t));
        OK(svmgo_trainer_add_dense_f32(t, train_y, train_x, N, NF));
        OK(svmgo_trainer_fit(t, &models[v]));
        OK(svmgo_trainer_free(t));
        OK(svmgo_predict_dense_f32(models[v], SVMGO_OUTPUT_DECISION_VALUES, dense_dec[v], T, test_x, T, NF));
        OK(svmgo_predict_csr_f32(models[v], SVMGO_OUTPUT_DECISION_VALUES, csr_dec[v], T, test_indptr, test_indices,
                                 test_values, T));
    }
    if (failures > 0) {
        return finish("concurrency");
    }

    t1 = now();
    OK(svmgo_model_watch(argv[1], &watched));
    EXPECT(svmgo_model_get(watched, SVMGO_MODEL_VERSION, &prop), SVMGO_E_NO_MODEL, NULL);
    OK(svmgo_model_publish(models[0], argv[1], &first));
    if (!wait_version(first)) {
        failures++;
        return finish("concurrency");
    }

    for (th = 0; th < threads; th++) {
        CHECK(pthread_create(&workers[th].thread, NULL, predictor, &workers[th]) == 0, "pthread_create");
    }
    for (v = 1; v < versions; v++) {
        OK(svmgo_model_publish(models[v], argv[1], &version));
        CHECK(version == first + (uint64_t)v, "published version %llu, want %llu", (unsigned long long)version,
              (unsigned long long)(first + (uint64_t)v));
        if (v % 4 == 0) {
            sleep_us(2000); /* let the watcher catch up now and then */
        }
    }
    t2 = now();
    CHECK(wait_version(first + (uint64_t)versions - 1), "the watcher did not reach the last version");
    /* Every thread makes two more calls on the last version, then stops. */
    for (th = 0; th < threads; th++) {
        calls[th] = __atomic_load_n(&workers[th].calls, __ATOMIC_ACQUIRE);
    }
    for (th = 0; th < threads; th++) {
        for (i = 0; i < 20000 && __atomic_load_n(&workers[th].calls, __ATOMIC_ACQUIRE) < calls[th] + 2; i++) {
            sleep_us(500);
        }
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (th = 0; th < threads; th++) {
        pthread_join(workers[th].thread, NULL);
    }

    for (v = 0; v < versions; v++) {
        int any = 0;
        for (th = 0; th < threads; th++) {
            any |= workers[th].seen[v];
        }
        distinct += any;
    }
    for (th = 0; th < threads; th++) {
        struct worker *w = &workers[th];
        total += w->calls;
        CHECK(w->errors == 0, "thread %d: %ld of %ld calls failed; first: %s", th, w->errors, w->calls, w->message);
        CHECK(w->mismatches == 0, "thread %d: %ld of %ld calls match no published version", th, w->mismatches, w->calls);
        CHECK(w->backwards == 0, "thread %d: %ld calls went back to an older version", th, w->backwards);
        CHECK(w->last == versions - 1, "thread %d ended on version index %d, want %d", th, w->last, versions - 1);
    }
    printf("%ld predict calls on %d threads, %d published versions, %d of them served\n", total, threads, versions,
           distinct);
    printf("training %.2f s, publishing %.2f s, the rest %.2f s\n", t1 - t0, t2 - t1, now() - t2);
    for (v = 0; v < versions; v++) {
        OK(svmgo_model_free(models[v]));
    }
    OK(svmgo_model_free(watched));
    return finish("concurrency");
}
