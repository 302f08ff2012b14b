"""Single-row prediction latency through the Python ctypes bindings.

    python3 examples/bench/capi_latency.py DIR

DIR holds capi_latency's outputs (model.svmgo and rows.f32, see
capi_latency.c). Each call predicts the label of one row of 784 features;
each call is timed with time.perf_counter_ns (whose own cost, reported as
timer_ns, is small next to a ctypes call), and the median and 99th
percentile are over CALLS calls cycling through the rows:

- py_list:  Model.predict([row]) with row a list of floats (converted to a
            C array on every call: the cost of the pure-Python path);
- py_numpy: Model.predict(X[i:i+1]) with X a float32 numpy array (passed in
            place), when numpy is installed;
- py_raw:   the ctypes function svmgo_predict_dense_f32 called directly with
            pointers prepared once: the floor of any Python caller.

Prints one line of key=value fields.
"""

import array
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python"))
import svmgo  # noqa: E402

CALLS = 20000
ROWS = 100  # rows cycled through (the first of rows.f32), as in capi_latency.c


def quantile(v, q):
    v = sorted(v)
    return v[min(int(q * (len(v) - 1) + 0.5), len(v) - 1)]


def timed(fn, n):
    for i in range(min(n, 1000)):  # warm up
        fn(i)
    samples = []
    clock = time.perf_counter_ns
    for i in range(n):
        t0 = clock()
        fn(i)
        samples.append(clock() - t0)
    return quantile(samples, 0.5), quantile(samples, 0.99)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: capi_latency.py DIR")
    d = sys.argv[1]
    model = svmgo.Model.load(os.path.join(d, "model.svmgo"))
    nf = model.num_features
    flat = array.array("f")
    with open(os.path.join(d, "rows.f32"), "rb") as f:
        flat.fromfile(f, ROWS * nf)
    if sys.byteorder != "little":
        flat.byteswap()
    rows = [flat[i * nf : (i + 1) * nf].tolist() for i in range(ROWS)]
    fields = {"py_calls": CALLS}

    clock = time.perf_counter_ns
    t = [clock() for _ in range(10001)]
    fields["py_timer_ns"] = (t[-1] - t[0]) / 10000

    med, p99 = timed(lambda i: model.predict([rows[i % ROWS]]), CALLS)
    fields.update(py_list_median_ns=med, py_list_p99_ns=p99)

    if svmgo._np is not None:
        X = svmgo._np.frombuffer(flat, dtype=svmgo._np.float32).reshape(ROWS, nf)
        med, p99 = timed(lambda i: model.predict(X[i % ROWS : i % ROWS + 1]), CALLS)
        fields.update(py_numpy_median_ns=med, py_numpy_p99_ns=p99)
    else:
        fields.update(py_numpy_median_ns="n/a", py_numpy_p99_ns="n/a")

    fn = svmgo._lib.svmgo_predict_dense_f32
    h = model._h
    out = ctypes.c_double()
    out_p = ctypes.pointer(out)
    base = (ctypes.c_float * len(flat)).from_buffer(flat)
    ptrs = [ctypes.cast(ctypes.addressof(base) + 4 * nf * i, ctypes.POINTER(ctypes.c_float)) for i in range(ROWS)]

    def raw(i):
        st = fn(h, 1, out_p, 1, ptrs[i % ROWS], 1, nf)
        if st != 0:
            raise svmgo.Error(st, svmgo._lib.svmgo_last_error().decode())

    med, p99 = timed(raw, CALLS)
    fields.update(py_raw_median_ns=med, py_raw_p99_ns=p99)
    model.close()
    print(" ".join(f"{k}={v}" for k, v in fields.items()))


if __name__ == "__main__":
    main()
