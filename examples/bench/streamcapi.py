"""Warm against cold retrains through the C ABI trainer and partial_fit.

Two streams over a LIBSVM file, each retrain timed in CPU seconds
(time.process_time, so run under taskset -c 0 with GOMAXPROCS=1 for one
core) and counted in the library's work (Trainer.fit_info: kernel
evaluations for a kernel model, rows read for a linear one):

- capi: svmgo.Trainer (the C ABI trainer) holds a full store of STORE rows
  (default 0.9 of the file); per batch the oldest 1% leave (Trainer.remove)
  and the next 1% come in, then fit() retrains warm; a fresh Trainer fits
  the same rows cold.
- partial_fit: svmgo.sklearn.SVC (or OneClassSVM, SVR by -s; LinearSVC
  for linear options, those without -t) fits the first STORE rows (default
  0.9 of the file), then partial_fit adds 1% batches (scikit-learn's
  partial_fit appends; it has no removal), each against a cold fit of the
  rows so far.

Each row of the output is one batch; the last, the totals. The drift check:
the relative difference of the warm and cold dual objectives, and how many
test rows (TEST, default the train file's .test twin when it exists, else
the train rows) the two models predict differently.

    python3 examples/bench/streamcapi.py [--mode capi|partial_fit] [--batches 10]
        [--name NAME] --options "-t 2 -c 100 -g 1" train_file

Prints Markdown: per-batch rows, then a line "TOTAL| name | options | mode |
store | batches × rows | cold CPU s | CPU warm/cold | work warm/cold | obj |
test rows changed |" that stream.sh gathers into its table.
"""

import argparse
import os
import sys
import time

import numpy as np
from sklearn.datasets import load_svmlight_file

import svmgo
from svmgo import sklearn as sksvm


def cpu():
    return time.process_time()


def objective_diff(warm, cold):
    return abs(warm - cold) / max(abs(cold), 1e-300)


def changed_rows(warm, cold, regression):
    """Test rows the two models predict differently: labels that differ, or
    (regression) values further apart than 1e-4 of the value (the models'
    float32 coefficients round differently)."""
    if regression:
        return int(np.sum(np.abs(warm - cold) > 1e-4 * np.maximum(1.0, np.abs(cold))))
    return int(np.sum(warm != cold))


def trainer_stream(args, X, y, Xt):
    n = X.shape[0]
    store = args.store or int(0.9 * n)
    per = max(1, store // 100)
    if store + args.batches * per > n:
        sys.exit(f"streamcapi: {n} rows, too few for a store of {store} and {args.batches} batches of {per}")
    cap = store + per
    # Sparse rows (as the daemon holds them) when X is sparse: room for
    # cap of its longest rows.
    nz = 0 if isinstance(X, np.ndarray) else cap * int(np.diff(X.indptr).max())
    warm = svmgo.Trainer(args.options, capacity_rows=cap, num_features=X.shape[1], capacity_nonzeros=nz)
    warm.add(X[:store], y[:store])
    warm.fit()
    lo, hi = 0, store  # the rows held: X[lo:hi]
    rows = []
    for b in range(args.batches):
        warm.remove(range(per))
        lo += per
        warm.add(X[hi:hi + per], y[hi:hi + per])
        hi += per
        t = cpu()
        wm = warm.fit()
        tw = cpu() - t
        wi = warm.fit_info()
        with svmgo.Trainer(args.options, capacity_rows=cap, num_features=X.shape[1], capacity_nonzeros=nz) as cold:
            cold.add(X[lo:hi], y[lo:hi])
            t = cpu()
            cm = cold.fit()
            tc = cpu() - t
            ci = cold.fit_info()
        changed = changed_rows(wm.predict(Xt), cm.predict(Xt), " -s 3" in " " + args.options or " -s 4" in " " + args.options)
        rows.append((b + 1, tc, tw, ci["work"], wi["work"], wi["iterations"], ci["iterations"],
                     objective_diff(wi["objective"], ci["objective"]), changed, wi["work_unit"]))
        wm.close()
        cm.close()
    warm.close()
    return store, per, rows


def estimator(options, nf):
    """The scikit-learn estimator for svm-train options (-s, -c, -g, -n, -p,
    -M as kept_cache_size) on nf features, or for train-linear options (no -t: -s 1 or 2, -c, -e,
    -B). gamma is fixed (svm-train's 1/nf by default): the estimator's
    gamma="scale" would follow each fit's rows, and a warm and a cold fit
    would then solve different problems."""
    f = options.split()
    o = dict(zip(f[::2], f[1::2]))
    if "-t" not in o:
        s = o.get("-s", "1")
        if s not in ("1", "2") or "-twin" in o:
            sys.exit(f"streamcapi: partial_fit: linear options {options!r}: LinearSVC trains -s 1 (its primal twin) and -s 2")
        bias = float(o.get("-B", -1))
        return sksvm.LinearSVC, dict(C=float(o.get("-c", 1)), dual=s == "1", tol=float(o.get("-e", 0.1 if s == "1" else 0.01)),
                                     fit_intercept=bias > 0, intercept_scaling=bias if bias > 0 else 1.0)
    s = o.get("-s", "0")
    # -M when given; else kept_cache_size None, the Trainer's default (columns kept
    # within -m but for regression), as the capi path's Trainer has it.
    kw = {"gamma": float(o.get("-g", 1.0 / nf)), "kept_cache_size": float(o["-M"]) if "-M" in o else None}
    if s == "2":
        return sksvm.OneClassSVM, dict(kw, nu=float(o.get("-n", 0.5)))
    if s == "3":
        return sksvm.SVR, dict(kw, C=float(o.get("-c", 1)), epsilon=float(o.get("-p", 0.1)))
    return sksvm.SVC, dict(kw, C=float(o.get("-c", 1)))


def fit_info(est):
    """An estimator's last fit as Trainer.fit_info has it, from the training
    result the model file records (fit_result_: iterations, kernel
    evaluations, objective)."""
    r = est.fit_result_
    if "ke" in r:
        return {"work": r["ke"], "iterations": r["it"], "objective": r["obj"], "work_unit": "kernel_evals"}
    # A linear model: rows read, and the primal objective (what
    # Trainer.fit_info reports for it).
    return {"work": r["up"], "iterations": r["it"], "objective": r["po"], "work_unit": "rows_read"}


def partial_fit_stream(args, X, y, Xt):
    n = X.shape[0]
    first = args.store or int(0.9 * n)
    per = max(1, first // 100)
    if first + args.batches * per > n:
        sys.exit(f"streamcapi: {n} rows, too few for {first} and {args.batches} batches of {per}")
    cls, kw = estimator(args.options, X.shape[1])
    classes = np.unique(y) if cls in (sksvm.SVC, sksvm.LinearSVC) else None
    unsup = cls is sksvm.OneClassSVM

    def part(est, a, b):
        if unsup:
            return est.partial_fit(X[a:b])
        if classes is not None:
            return est.partial_fit(X[a:b], y[a:b], classes=classes)
        return est.partial_fit(X[a:b], y[a:b])

    warm = cls(capacity=first + args.batches * per, **kw)
    part(warm, 0, first)
    hi = first
    rows = []
    for b in range(args.batches):
        t = cpu()
        part(warm, hi, hi + per)
        tw = cpu() - t
        hi += per
        wi = fit_info(warm)
        cold = cls(**kw)
        t = cpu()
        if unsup:
            cold.fit(X[:hi])
        else:
            cold.fit(X[:hi], y[:hi])
        tc = cpu() - t
        ci = fit_info(cold)
        changed = changed_rows(warm.predict(Xt), cold.predict(Xt), cls is sksvm.SVR)
        rows.append((b + 1, tc, tw, ci["work"], wi["work"], wi["iterations"], ci["iterations"],
                     objective_diff(wi["objective"], ci["objective"]), changed, wi["work_unit"]))
    return first, per, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["capi", "partial_fit"], default="capi")
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--store", type=int, default=0)
    ap.add_argument("--name", default="")
    ap.add_argument("--options", default="-t 2")
    ap.add_argument("--test", default="")
    ap.add_argument("train")
    args = ap.parse_args()
    X, y = load_svmlight_file(args.train)
    # Dense rows unless 90% of the values are zeros: a linear trainer reads every
    # stored value of a row, so debdesc_bin (9,132 features, 6 nonzeros a
    # row) held dense costs 1,500 times the work of its sparse rows.
    sparse = X.nnz < 0.1 * X.shape[0] * X.shape[1]
    rows = (lambda m: m.astype(np.float32)) if sparse else (lambda m: np.asarray(m.todense(), dtype=np.float32))
    X = rows(X)
    test = args.test or (args.train[: -len(".train")] + ".test" if args.train.endswith(".train") else "")
    if test and os.path.exists(test):
        Xt, _ = load_svmlight_file(test, n_features=X.shape[1])
        Xt = rows(Xt)
    else:
        Xt = X
    run = trainer_stream if args.mode == "capi" else partial_fit_stream
    store, per, rows = run(args, X, y, Xt)
    unit = rows[0][-1]
    print(f"| batch | cold CPU s | warm CPU s | warm/cold CPU | cold {unit} | warm {unit} | warm/cold {unit} | iter warm/cold | obj rel diff | test rows changed |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for b, tc, tw, wc, ww, iw, ic, d, ch in (r[:9] for r in rows):
        print(f"| {b} | {tc:.4f} | {tw:.4f} | {tw / tc:.3f} | {wc} | {ww} | {ww / max(wc, 1):.3f} | {iw}/{ic} | {d:.1e} | {ch} |")
    tc, tw = sum(r[1] for r in rows), sum(r[2] for r in rows)
    wc, ww = sum(r[3] for r in rows), sum(r[4] for r in rows)
    worst, changed = max(r[7] for r in rows), max(r[8] for r in rows)
    print(f"| total | {tc:.4f} | {tw:.4f} | {tw / tc:.3f} | {wc} | {ww} | {ww / max(wc, 1):.3f} | | {worst:.1e} | {changed} |")
    name = args.name or os.path.basename(args.train)
    print(f"TOTAL| {name} | `{args.options}` {args.mode} | {store} | {args.batches} × {per} | {tc:.3f} | {tw / tc:.3f} | {ww / max(wc, 1):.3f} | {worst:.1e} | {changed} of {Xt.shape[0]} |")


if __name__ == "__main__":
    main()
