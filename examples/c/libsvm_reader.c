/* libsvm_reader.c — see libsvm_reader.h. */
#include "libsvm_reader.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_error(char *err, size_t err_cap, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || err_cap == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(err, err_cap, fmt, ap);
    va_end(ap);
}

/* grow makes *p hold at least need elements of size elem, doubling so that
 * n appends cost O(n) copies. Returns 0, or -1 when memory runs out (*p is
 * then unchanged and still owned by the caller). */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t n = *cap ? *cap : 64;
    void *q;
    if (need <= *cap) {
        return 0;
    }
    while (n < need) {
        n *= 2;
    }
    q = realloc(*p, n * elem);
    if (q == NULL) {
        return -1;
    }
    *p = q;
    *cap = n;
    return 0;
}

/* read_line reads one line, of any length, into *buf (without the newline).
 * Returns 1 for a line, 0 at end of file, -1 when memory runs out. */
static int read_line(FILE *f, char **buf, size_t *cap)
{
    size_t len = 0;
    for (;;) {
        if (grow((void **)buf, cap, len + 2, 1) != 0) {
            return -1;
        }
        if (fgets(*buf + len, (int)(*cap - len), f) == NULL) {
            return len > 0 ? 1 : 0;
        }
        len += strlen(*buf + len);
        if (len > 0 && (*buf)[len - 1] == '\n') {
            (*buf)[len - 1] = '\0';
            return 1;
        }
        if (feof(f)) {
            return 1;
        }
        /* The line did not fit: the next round doubles the buffer. */
        if (grow((void **)buf, cap, *cap + 1, 1) != 0) {
            return -1;
        }
    }
}

static const char *skip_space(const char *s)
{
    while (*s != '\0' && isspace((unsigned char)*s)) {
        s++;
    }
    return s;
}

int libsvm_read(const char *path, size_t max_rows, libsvm_data *out, char *err, size_t err_cap)
{
    libsvm_data d;
    size_t cap_rows = 0, cap_ptr = 0, cap_nnz = 0, cap_val = 0, cap_line = 0;
    size_t nnz = 0, line_no = 0;
    char *line = NULL;
    FILE *f;
    int rc;

    memset(&d, 0, sizeof d);
    memset(out, 0, sizeof *out);
    f = fopen(path, "r");
    if (f == NULL) {
        set_error(err, err_cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (grow((void **)&d.indptr, &cap_ptr, 1, sizeof *d.indptr) != 0) {
        goto nomem;
    }
    d.indptr[0] = 0;

    while ((max_rows == 0 || d.num_rows < max_rows) && (rc = read_line(f, &line, &cap_line)) != 0) {
        const char *s;
        char *end;
        double label;
        long long prev = 0;

        if (rc < 0) {
            goto nomem;
        }
        line_no++;
        s = skip_space(line);
        if (*s == '\0') {
            continue; /* blank line */
        }
        label = strtod(s, &end);
        if (end == s || (*end != '\0' && !isspace((unsigned char)*end))) {
            set_error(err, err_cap, "%s:%zu: bad label", path, line_no);
            goto fail;
        }
        s = skip_space(end);
        while (*s != '\0') {
            long long index;
            float value;

            errno = 0;
            index = strtoll(s, &end, 10);
            if (end == s || *end != ':' || errno != 0 || index <= prev || index > INT32_MAX) {
                set_error(err, err_cap, "%s:%zu: bad feature index near \"%.20s\" (want 1-based, increasing)",
                          path, line_no, s);
                goto fail;
            }
            s = end + 1;
            value = strtof(s, &end);
            if (end == s || (*end != '\0' && !isspace((unsigned char)*end))) {
                set_error(err, err_cap, "%s:%zu: bad value of feature %lld", path, line_no, index);
                goto fail;
            }
            if (grow((void **)&d.indices, &cap_nnz, nnz + 1, sizeof *d.indices) != 0 ||
                grow((void **)&d.values, &cap_val, nnz + 1, sizeof *d.values) != 0) {
                goto nomem;
            }
            d.indices[nnz] = (int32_t)(index - 1); /* the file is 1-based, the API 0-based */
            d.values[nnz] = value;
            nnz++;
            if ((size_t)index > d.num_features) {
                d.num_features = (size_t)index;
            }
            prev = index;
            s = skip_space(end);
        }
        if (grow((void **)&d.labels, &cap_rows, d.num_rows + 1, sizeof *d.labels) != 0 ||
            grow((void **)&d.indptr, &cap_ptr, d.num_rows + 2, sizeof *d.indptr) != 0) {
            goto nomem;
        }
        d.labels[d.num_rows] = label;
        d.num_rows++;
        d.indptr[d.num_rows] = (int64_t)nnz;
    }
    if (ferror(f)) {
        set_error(err, err_cap, "%s: read error", path);
        goto fail;
    }
    if (d.num_rows == 0) {
        set_error(err, err_cap, "%s: no rows", path);
        goto fail;
    }
    free(line);
    fclose(f);
    *out = d;
    return 0;

nomem:
    set_error(err, err_cap, "%s: out of memory", path);
fail:
    free(line);
    fclose(f);
    libsvm_free(&d);
    return -1;
}

void libsvm_free(libsvm_data *d)
{
    free(d->labels);
    free(d->indptr);
    free(d->indices);
    free(d->values);
    memset(d, 0, sizeof *d);
}

void libsvm_dense_row(const libsvm_data *d, size_t r, float *dst, size_t num_features)
{
    int64_t k;
    memset(dst, 0, num_features * sizeof *dst);
    for (k = d->indptr[r]; k < d->indptr[r + 1]; k++) {
        if ((size_t)d->indices[k] < num_features) {
            dst[d->indices[k]] = d->values[k];
        }
    }
}
