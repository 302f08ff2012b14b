/*
 * Helpers shared by the C test programs. Every program is valid C99 and
 * C++17 (the Go tests compile both), prints "FAIL file:line: ..." for each
 * failed check on stderr, and exits 1 if any failed.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svmgo.h"

static int failures;
static int checks;

#define CHECK(cond, ...)                                            \
    do {                                                            \
        checks++;                                                   \
        if (!(cond)) {                                              \
            failures++;                                             \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);    \
            fprintf(stderr, __VA_ARGS__);                           \
            fputc('\n', stderr);                                    \
        }                                                           \
    } while (0)

/* expect_at checks a call's status, and for a failure that the calling
 * thread's message is not empty and contains substr (when not NULL). Each
 * failure's message is printed on stdout, so the Go test can show them. */
static inline void expect_at(const char *file, int line, const char *expr, int rc, int want, const char *substr) {
    const char *msg = svmgo_last_error();
    checks++;
    if (rc != want) {
        failures++;
        fprintf(stderr, "FAIL %s:%d: %s returned %s, want %s (last error: %s)\n", file, line, expr,
                svmgo_status_name(rc), svmgo_status_name(want), msg);
        return;
    }
    if (want == SVMGO_OK) {
        return;
    }
    printf("%s -> %s: %s\n", expr, svmgo_status_name(rc), msg);
    if (msg[0] == '\0') {
        failures++;
        fprintf(stderr, "FAIL %s:%d: %s: empty last error\n", file, line, expr);
    } else if (substr != NULL && strstr(msg, substr) == NULL) {
        failures++;
        fprintf(stderr, "FAIL %s:%d: %s: last error \"%s\" lacks \"%s\"\n", file, line, expr, msg, substr);
    }
}

#define EXPECT(call, want, substr) expect_at(__FILE__, __LINE__, #call, (call), (want), (substr))
#define OK(call) expect_at(__FILE__, __LINE__, #call, (call), SVMGO_OK, NULL)

/* read_file returns the contents of path in a malloc'ed buffer and its size
 * in *size; it exits on error. */
static inline void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    long n;
    void *buf;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* read_array reads path, which must hold count elements of elem bytes. */
static inline void *read_array(const char *path, size_t elem, size_t count) {
    size_t size;
    void *buf = read_file(path, &size);
    if (size != elem * count) {
        fprintf(stderr, "%s holds %lu bytes, want %lu\n", path, (unsigned long)size, (unsigned long)(elem * count));
        exit(2);
    }
    return buf;
}

static inline void write_file(const char *path, const void *buf, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(buf, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

/* path_join returns dir/name in a static buffer of the given slot (0-7). */
static inline const char *path_join(int slot, const char *dir, const char *name) {
    static char buf[8][4096];
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", dir, name);
    return buf[slot];
}

static inline int finish(const char *name) {
    if (failures > 0) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, failures, checks);
        return 1;
    }
    printf("%s: %d checks passed\n", name, checks);
    return 0;
}

#endif /* TESTUTIL_H */
