"""Tests of the ctypes bindings (svmgo.py) against libsvmgo.so.

Run from the repository root after `make`:

    python3 -m unittest discover -s examples/python

The numpy and scipy tests skip when those are not installed; the rest run
the standard-library paths (lists and array.array), which are also run with
numpy hidden when numpy is installed.
"""

import array
import math
import os
import subprocess
import tempfile
import time
import unittest
from unittest import mock

import svmgo
from svmgo import _modelfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
DATA = os.path.join(ROOT, "examples", "data")
SVMGO_BIN = os.environ.get("SVMGO_BIN", os.path.join(ROOT, "bin", "svmgo"))

try:
    import numpy as np
except ImportError:
    np = None
try:
    import scipy.sparse as sp
except ImportError:
    sp = None

E = svmgo.Status


def read_libsvm(path):
    """A LIBSVM text file as (labels, indptr, indices, values), 0-based indices."""
    labels, indptr, indices, values = [], [0], [], []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields:
                continue
            labels.append(float(fields[0]))
            for item in fields[1:]:
                i, v = item.split(":")
                indices.append(int(i) - 1)
                values.append(float(v))
            indptr.append(len(indices))
    return labels, indptr, indices, values


def dense_rows(indptr, indices, values, num_features):
    rows = []
    for r in range(len(indptr) - 1):
        row = [0.0] * num_features
        for k in range(indptr[r], indptr[r + 1]):
            row[indices[k]] = values[k]
        rows.append(row)
    return rows


TRAIN = read_libsvm(os.path.join(DATA, "heart_scale.train"))
TEST = read_libsvm(os.path.join(DATA, "heart_scale.test"))
NF = 13  # heart_scale's features
TRAIN_DENSE = dense_rows(*TRAIN[1:], NF)
TEST_DENSE = dense_rows(*TEST[1:], NF)
OPTIONS = "-s 1 -B 1"


def train_heart(options=OPTIONS):
    """A model trained on heart_scale.train, rows added as CSR in file order."""
    y, indptr, indices, values = TRAIN
    with svmgo.Trainer(options, len(y), NF, capacity_nonzeros=len(values)) as t:
        t.add((indptr, indices, values), y)
        return t.fit()


def accuracy(pred, truth):
    return sum(p == t for p, t in zip(pred, truth)) / len(truth)


def wait_for_version(model, want, timeout=10.0):
    """Polls a watched model until it serves version want; returns the last version seen."""
    deadline = time.monotonic() + timeout
    v = None
    while time.monotonic() < deadline:
        try:
            v = model.version
            if v >= want:
                return v
        except svmgo.Error as e:
            if e.code != E.E_NO_MODEL:
                raise
        time.sleep(0.01)
    return v


class TestTrainPredict(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = train_heart()

    @classmethod
    def tearDownClass(cls):
        cls.model.close()

    def test_properties(self):
        m = self.model
        self.assertEqual(m.kind, "linear_svc")
        self.assertEqual(m.num_features, NF)
        self.assertEqual(m.num_classes, 2)
        self.assertEqual(m.num_decision_values, 1)
        # LIBLINEAR's order for a {-1, +1} problem puts +1 first.
        self.assertEqual(m.labels, [1, -1])
        self.assertEqual(m.version, 0)
        self.assertFalse(m.quantized)
        self.assertFalse(m.has_probability)
        self.assertRegex(svmgo.library_version(), r"^\d+\.\d+\.\d+$")

    def test_accuracy_and_save_load(self):
        pred = self.model.predict((TEST[1], TEST[2], TEST[3]))
        self.assertEqual(len(pred), len(TEST[0]))
        acc = accuracy(pred, TEST[0])
        self.assertGreaterEqual(acc, 0.80, f"test accuracy {acc:.4f}")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "heart.svmgo")
            self.model.save(path)
            with svmgo.Model.load(path) as loaded:
                self.assertEqual(loaded.predict(TEST_DENSE), pred)
            with open(path, "rb") as f:
                data = f.read()
            with svmgo.Model.from_bytes(data) as from_bytes:
                self.assertEqual(from_bytes.predict(TEST_DENSE), pred)
                self.assertEqual(from_bytes.decision_function(TEST_DENSE), self.model.decision_function(TEST_DENSE))
            self.assertEqual(self.model.to_bytes(), data)
            # to_bytes starts from the last size written: a guess short
            # of the model, or far beyond it, gives the same bytes.
            name = "svmgo_model_save_buffer"
            for guess in (1, len(data) - 1, 4 * len(data)):
                svmgo.Model._size_guess[name] = guess
                self.assertEqual(self.model.to_bytes(), data)
                self.assertEqual(svmgo.Model._size_guess[name], len(data) + len(data) // 8)
            with self.assertRaises(svmgo.Error) as cm:
                self.model.skipped
            self.assertEqual(cm.exception.code, svmgo.Status.E_UNSUPPORTED)
            models = os.path.join(d, "models")
            os.mkdir(models)
            self.model.publish(models)
            with open(os.path.join(models, "model-2.svmgo"), "wb") as f:
                f.write(data[:-1])
            with svmgo.Model.watch(models) as w:
                version, reason = w.skipped
                self.assertEqual(version, 2)
                self.assertIn("model-2.svmgo", reason)
                self.assertIn("truncated", reason)
                self.assertEqual(w.version, 1)

    def test_dense_csr_and_array_inputs_agree(self):
        m = self.model
        by_csr = m.predict((TEST[1], TEST[2], TEST[3]))
        self.assertEqual(m.predict(TEST_DENSE), by_csr)
        # array.array in the library's own types is passed without a copy.
        f32_csr = (array.array("q", TEST[1]), array.array("i", TEST[2]), array.array("f", TEST[3]))
        self.assertEqual(m.predict(f32_csr), by_csr)
        self.assertEqual(m.predict([]), [])

    def test_decision_values_give_labels(self):
        m = self.model
        dec = m.decision_function(TEST_DENSE)
        self.assertEqual(len(dec), len(TEST_DENSE))
        self.assertTrue(all(len(row) == 1 for row in dec))
        pos, neg = m.labels
        # Two classes: the first label when the decision value is positive.
        want = [pos if row[0] > 0 else neg for row in dec]
        self.assertEqual(m.predict(TEST_DENSE), want)
        # A linear model: f(0) is the bias weight, f(2x) - f(0) = 2 (f(x) - f(0)).
        f0 = m.decision_function([[0.0] * NF])[0][0]
        x = TEST_DENSE[0]
        fx = m.decision_function([x])[0][0]
        f2x = m.decision_function([[2 * v for v in x]])[0][0]
        self.assertAlmostEqual(f2x - f0, 2 * (fx - f0), places=5)

    def test_matches_command_line(self):
        """The same rows and options through bin/svmgo give the same labels."""
        if not os.access(SVMGO_BIN, os.X_OK):
            self.skipTest(f"{SVMGO_BIN} not built (run make build)")
        with tempfile.TemporaryDirectory() as d:
            model_path = os.path.join(d, "heart.model")
            out_path = os.path.join(d, "heart.out")
            subprocess.run(
                # -twin 1: the C ABI trainer trains -s 1 through its primal twin
                # (the command line's default is dual coordinate descent).
                [SVMGO_BIN, "train-linear", "-q", *OPTIONS.split(), "-twin", "1",
                 os.path.join(DATA, "heart_scale.train"), model_path],
                check=True,
                capture_output=True,
            )
            subprocess.run(
                [SVMGO_BIN, "predict", "-q", os.path.join(DATA, "heart_scale.test"), model_path, out_path],
                check=True,
                capture_output=True,
            )
            with open(out_path) as f:
                cli = [float(line) for line in f]
            self.assertEqual(len(cli), len(TEST[0]))
            self.assertEqual(self.model.predict(TEST_DENSE), cli)
            # The command's model file loads here and predicts the same.
            with svmgo.Model.load(model_path) as m:
                self.assertEqual(m.predict((TEST[1], TEST[2], TEST[3])), cli)

    def test_without_numpy(self):
        """The standard-library paths, also when numpy is installed."""
        with mock.patch.object(svmgo, "_np", None):
            pred = self.model.predict(TEST_DENSE)
            self.assertIsInstance(pred, list)
            self.assertGreaterEqual(accuracy(pred, TEST[0]), 0.80)
            dec = self.model.decision_function((TEST[1], TEST[2], TEST[3]))
            self.assertIsInstance(dec, list)
            self.assertEqual(len(dec), len(TEST[0]))


class TestTrainer(unittest.TestCase):
    def test_forget(self):
        """add numbers its batches; forget removes one's rows (once), and the
        warm fit after it reaches a cold fit's optimum on the rest."""
        y = TRAIN[0]
        a, b = 60, 120
        with svmgo.Trainer(OPTIONS, len(y), NF) as t:
            self.assertEqual(t.last_batch, 0)
            self.assertEqual(t.add(TRAIN_DENSE[:a], y[:a]), 1)
            self.assertEqual(t.add(TRAIN_DENSE[a:b], y[a:b]), 2)
            self.assertEqual(t.add(TRAIN_DENSE[b:], y[b:]), 3)
            self.assertEqual(t.add([], []), 0)
            t.fit().close()
            self.assertEqual(t.forget(2), b - a)
            self.assertEqual(t.forget(2), 0)
            self.assertEqual(len(t), len(y) - (b - a))
            with self.assertRaises(svmgo.Error) as e:
                t.forget(4)
            self.assertEqual(e.exception.code, svmgo.Status.E_INVALID_ARGUMENT)
            t.fit().close()
            with svmgo.Trainer(OPTIONS, len(y), NF) as cold_t:
                cold_t.add(TRAIN_DENSE[:a] + TRAIN_DENSE[b:], y[:a] + y[b:])
                cold_t.fit().close()
                self.assertAlmostEqual(t.fit_info()["objective"] / cold_t.fit_info()["objective"], 1, delta=1e-3)

    def test_dense_rows_and_remove(self):
        y = TRAIN[0]
        with svmgo.Trainer(OPTIONS, len(y), NF) as t:  # dense storage
            t.add(TRAIN_DENSE[:5], y[:5])
            t.add((TRAIN[1][5:], TRAIN[2], TRAIN[3]), y[5:])  # indptr need not start at 0
            self.assertEqual(len(t), len(y))
            with t.fit() as m, train_heart() as ref:
                # Same rows, same options, same seed: the same model.
                self.assertEqual(m.decision_function(TEST_DENSE), ref.decision_function(TEST_DENSE))
            t.remove(range(10))
            self.assertEqual(t.num_rows, len(y) - 10)
            with t.fit() as warm:
                acc = accuracy(warm.predict(TEST_DENSE), TEST[0])
                self.assertGreaterEqual(acc, 0.80)
            with svmgo.Trainer(OPTIONS, len(y), NF) as cold_t:
                cold_t.add(TRAIN_DENSE[10:], y[10:])
                with cold_t.fit() as cold, t.fit() as warm:
                    # Warm and cold starts stop at the same tolerance, not the
                    # same bits: most test labels agree.
                    agree = accuracy(warm.predict(TEST_DENSE), cold.predict(TEST_DENSE))
                    self.assertGreaterEqual(agree, 0.95)
                    # fit_info reports the last fit of each: the same rows
                    # and optimum, to the tolerance, in the linear unit.
                    wi, ci = t.fit_info(), cold_t.fit_info()
                    self.assertEqual(wi["work_unit"], "rows_read")
                    self.assertTrue(wi["converged"] and ci["converged"])
                    self.assertGreater(ci["work"], 0)
                    self.assertAlmostEqual(wi["objective"] / ci["objective"], 1, delta=1e-2)

    def test_scale(self):
        # --scale fits svm-scale's ranges on the rows and keeps them in the
        # model, so an affine change of every feature (x -> 7x + 3) changes
        # neither the scaled rows nor the model: the decision values of the
        # changed rows are those of the raw rows, to float32 rounding (tight
        # tolerances, so the solvers stop at the same point).
        y = TRAIN[0]
        moved = [[7 * v + 3 for v in row] for row in TRAIN_DENSE]
        moved_test = [[7 * v + 3 for v in row] for row in TEST_DENSE]
        for options in ("-s 1 -e 1e-6 --scale", "-t 2 -c 10 -e 1e-6 --scale --scale-lower 0"):
            with svmgo.Trainer(options, len(y), NF) as a, svmgo.Trainer(options, len(y), NF) as b:
                a.add(TRAIN_DENSE, y)
                b.add(moved, y)
                with a.fit() as ma, b.fit() as mb:
                    da = ma.decision_function(TEST_DENSE)
                    db = mb.decision_function(moved_test)
                    for u, v in zip(da, db):
                        for p, q in zip(u if isinstance(u, list) else [u], v if isinstance(v, list) else [v]):
                            self.assertAlmostEqual(p, q, delta=1e-4 * (1 + abs(p)))
                    self.assertGreaterEqual(accuracy(ma.predict(TEST_DENSE), TEST[0]), 0.80)

    def test_fit_info_before_fit(self):
        with svmgo.Trainer(OPTIONS, 10, NF) as t:
            with self.assertRaises(svmgo.Error) as cm:
                t.fit_info()
            self.assertEqual(cm.exception.code, svmgo.Status.E_NO_MODEL)

    def test_kernel_rbf(self):
        # LIBSVM's options (-t present) make a kernel trainer.
        y, indptr, indices, values = TRAIN
        with svmgo.Trainer("-t 2 -c 10 -b 1", len(y), NF, capacity_nonzeros=len(values)) as t:
            t.add((indptr, indices, values), y)
            with t.fit() as m:
                self.assertEqual(m.kind, "kernel_svc")
                acc = accuracy(m.predict(TEST_DENSE), TEST[0])
                self.assertGreaterEqual(acc, 0.80)
                proba = m.predict_proba(TEST_DENSE[:5])
                for row in proba:
                    self.assertAlmostEqual(sum(row), 1.0, places=12)
            t.remove(range(0, len(y), 10))
            self.assertEqual(t.num_rows, len(y) - len(range(0, len(y), 10)))
            with t.fit() as warm:
                self.assertGreaterEqual(accuracy(warm.predict(TEST_DENSE), TEST[0]), 0.80)
        with self.assertRaises(svmgo.Error) as cm:
            svmgo.Trainer("-t 9", 4, NF)
        self.assertEqual(cm.exception.code, E.E_INVALID_ARGUMENT)

    def test_full(self):
        with svmgo.Trainer(OPTIONS, 3, NF) as t:
            t.add(TRAIN_DENSE[:3], TRAIN[0][:3])
            with self.assertRaises(svmgo.Error) as cm:
                t.add(TRAIN_DENSE[3:4], TRAIN[0][3:4])
            self.assertEqual(cm.exception.code, E.E_FULL)
            self.assertEqual(t.num_rows, 3)  # all or none

    def test_single_class(self):
        with svmgo.Trainer(OPTIONS, 4, 2) as t:
            t.add([[1, 0], [0, 1], [1, 1], [2, 1]], [1, 1, 1, 1])
            with self.assertRaises(svmgo.Error) as cm:
                t.fit()
            self.assertEqual(cm.exception.code, E.E_TRAIN)

    def test_not_finite(self):
        with svmgo.Trainer(OPTIONS, 4, 2) as t:
            with self.assertRaises(svmgo.Error) as cm:
                t.add([[1, 0], [math.nan, 1]], [1, -1])
            self.assertEqual(cm.exception.code, E.E_NOT_FINITE)
            self.assertEqual(t.num_rows, 0)
        with train_heart() as m:
            row = list(TEST_DENSE[0])
            row[3] = math.inf
            with self.assertRaises(svmgo.Error) as cm:
                m.predict([row])
            self.assertEqual(cm.exception.code, E.E_NOT_FINITE)

    def test_regression(self):
        # y = 2 x0 - x1 + 1, learned by L2-loss SVR with a bias.
        X = [[i / 10, (i * 7 % 11) / 10] for i in range(40)]
        y = [2 * a - b + 1 for a, b in X]
        with svmgo.Trainer("-s 12 -c 100 -p 0.001 -e 0.0001 -B 1", len(X), 2) as t:
            t.add(X, y)
            with t.fit() as m:
                self.assertEqual(m.kind, "linear_svr")
                self.assertEqual(m.num_classes, 0)
                self.assertEqual(m.labels, [])
                for got, want in zip(m.predict(X), y):
                    self.assertAlmostEqual(got, want, delta=0.05)


class TestErrors(unittest.TestCase):
    def assertCode(self, code, fn, *args):
        with self.assertRaises(svmgo.Error) as cm:
            fn(*args)
        e = cm.exception
        self.assertEqual(e.code, code, str(e))
        self.assertEqual(e.name, "SVMGO_" + code.name)
        self.assertTrue(e.message, "the library gave no message")
        self.assertEqual(str(e), f"{e.name}: {e.message}")
        return e

    def test_wrong_feature_count(self):
        with train_heart() as m:
            e = self.assertCode(E.E_DIMENSION, m.predict, [[0.0] * (NF - 1)])
            self.assertIn(str(NF), e.message)
        with svmgo.Trainer(OPTIONS, 4, NF) as t:
            self.assertCode(E.E_DIMENSION, t.add, [[0.0] * (NF + 1)], [1])

    def test_closed_model(self):
        m = train_heart()
        stale = m._h.value
        m.close()
        m.close()  # twice is harmless
        self.assertCode(E.E_BAD_HANDLE, m.predict, TEST_DENSE)
        self.assertCode(E.E_BAD_HANDLE, lambda: m.num_features)
        # The library itself refuses the freed handle, without crashing.
        v = svmgo.c_int64()
        status = svmgo._lib.svmgo_model_get(stale, 2, svmgo.ctypes.byref(v))
        self.assertEqual(status, E.E_BAD_HANDLE)
        self.assertEqual(svmgo._lib.svmgo_model_free(stale), E.E_BAD_HANDLE)
        t = svmgo.Trainer(OPTIONS, 4, NF)
        t.close()
        self.assertCode(E.E_BAD_HANDLE, t.fit)

    def test_bad_options(self):
        for options in ["-s 99", "-c", "-c abc", "-v 5", "-s 1 extra"]:
            with self.subTest(options=options):
                self.assertCode(E.E_INVALID_ARGUMENT, svmgo.Trainer, options, 10, NF)

    def test_corrupt_file(self):
        with train_heart() as m, tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.svmgo")
            m.save(path)
            with open(path, "rb") as f:
                good = f.read()
            flipped = bytearray(good)
            flipped[len(good) // 2] ^= 0x10
            cases = {"bit flip": bytes(flipped), "truncated": good[: len(good) - 3], "not a model": b"hello, world\n" * 5}
            for name, data in cases.items():
                with self.subTest(name):
                    bad = os.path.join(d, "bad.svmgo")
                    with open(bad, "wb") as f:
                        f.write(data)
                    self.assertCode(E.E_CORRUPT, svmgo.Model.load, bad)
                    self.assertCode(E.E_CORRUPT, svmgo.Model.from_bytes, data)

    def test_missing_paths(self):
        with tempfile.TemporaryDirectory() as d:
            missing = os.path.join(d, "no", "such")
            self.assertCode(E.E_IO, svmgo.Model.watch, missing)
            self.assertCode(E.E_IO, svmgo.Model.load, os.path.join(d, "none.svmgo"))
            with train_heart() as m:
                self.assertCode(E.E_IO, m.publish, missing)
                self.assertCode(E.E_IO, m.save, os.path.join(missing, "m.svmgo"))

    def test_linear_probabilities(self):
        # Logistic regression (-s 0, -s 7): LIBLINEAR's sigmoid of the
        # decision value, computed here from the decision values; a linear
        # SVC with -b 1 (LIBLINEAR's syntax named, since -b alone names no
        # family): Platt's sigmoids, summing to 1.
        for options in ("-s 0 -B 1", "-s 7 -B 1"):
            with train_heart(options) as m:
                self.assertEqual(m.kind, "linear_svc")
                self.assertTrue(m.has_probability)
                dec = m.decision_function(TEST_DENSE[:20])
                for d, p in zip(dec, m.predict_proba(TEST_DENSE[:20])):
                    sigma = 1.0 / (1.0 + math.exp(-d[0]))
                    self.assertAlmostEqual(p[0], sigma, places=12)
                    self.assertAlmostEqual(p[1], 1.0 - sigma, places=12)
        with train_heart("-syntax linear -s 1 -b 1 -B 1") as m:
            self.assertTrue(m.has_probability)
            for p in m.predict_proba(TEST_DENSE[:20]):
                self.assertAlmostEqual(sum(p), 1.0, places=12)
                self.assertTrue(all(0 < v < 1 for v in p))

    def test_unsupported_probability(self):
        with train_heart() as m:
            self.assertCode(E.E_UNSUPPORTED, m.predict_proba, TEST_DENSE[:1])

    def test_python_side_shape_errors(self):
        with train_heart() as m:
            with self.assertRaises(ValueError):
                m.predict([[0.0] * NF, [0.0] * (NF - 1)])  # ragged rows
        with svmgo.Trainer(OPTIONS, 4, NF) as t:
            with self.assertRaises(ValueError):
                t.add([[0.0] * NF], [1, -1])  # two labels, one row


class TestCSRIndexTypes(unittest.TestCase):
    """CSR indices that do not fit int32 and index arrays that are not
    integers are refused with ValueError and TypeError, never wrapped or
    truncated into another feature (issue 10, fault 9: an int64 index of
    2**32 became feature 0, a float indptr was truncated). Run with numpy
    hidden, and with numpy when it is installed."""

    def check(self, trainer_or_model, call):
        y = [1, -1]
        bad = [
            (ValueError, ([0, 1, 2], [2**32, 1], [1.0, 2.0])),
            (ValueError, ([0, 1, 2], [0, 2**31], [1.0, 2.0])),
            (ValueError, ([0, 1, 2], [-(2**31) - 1, 1], [1.0, 2.0])),
            (ValueError, ([0, 1, 2], array.array("q", [2**32, 1]), [1.0, 2.0])),
            (ValueError, ([0, 1, 2**63], [0, 1], [1.0, 2.0])),
            (TypeError, ([0, 1.7, 2], [0, 1], [1.0, 2.0])),
            (TypeError, ([0, 1, 2], [0.0, 1.0], [1.0, 2.0])),
            (TypeError, (array.array("d", [0, 1, 2]), [0, 1], [1.0, 2.0])),
        ]
        if svmgo._np is not None:
            v = np.array([1.0, 2.0])
            bad += [
                (ValueError, (np.array([0, 1, 2]), np.array([2**32, 1], dtype=np.int64), v)),
                (ValueError, (np.array([0, 1, 2]), np.array([2**64 - 1, 1], dtype=np.uint64), v)),
                (ValueError, (np.array([0, 1, 2], dtype=np.uint64) | np.uint64(2**63), np.array([0, 1]), v)),
                (ValueError, ([0, 1, 2], [2**70, 1], v)),
                (TypeError, (np.array([0, 1.7, 2.0]), np.array([0, 1]), v)),
                (TypeError, (np.array([0, 1.0, 2.0]), np.array([0, 1]), v)),
                (TypeError, (np.array([0, 1, 2]), np.array([0.0, 1.0]), v)),
                (TypeError, (np.array([0, 1, 2]), np.array([False, True]), v)),
            ]
        for exc, X in bad:
            with self.subTest(X=X):
                with self.assertRaises(exc) as cm:
                    call(X)
                self.assertRegex(str(cm.exception), r"CSR (indptr|indices)")
        # The same rows with indices that fit, of any integer type, read
        # as written: index 1 is feature 1.
        good = [([0, 1, 2], [0, 1], [1.0, 2.0]), ([0, 1, 2], array.array("i", [0, 1]), array.array("f", [1, 2]))]
        if svmgo._np is not None:
            good += [
                (np.array([0, 1, 2], dtype=np.uint8), np.array([0, 1], dtype=np.int64), np.array([1.0, 2.0])),
                (np.array([0, 1, 2], dtype=np.int32), np.array([0, 1], dtype=np.uint16), np.array([1.0, 2.0], dtype=np.float32)),
            ]
        return [call(X) for X in good]

    def run_both(self, fn):
        if svmgo._np is not None:
            with self.subTest(numpy=True):
                fn()
        with self.subTest(numpy=False), mock.patch.object(svmgo, "_np", None):
            fn()

    def test_trainer_add(self):
        def fn():
            with svmgo.Trainer(OPTIONS, 100, 4) as t:
                self.check(t, lambda X: t.add(X, [1, -1]))
                self.assertEqual(t.num_rows, 2 * (4 if svmgo._np is not None else 2))

        self.run_both(fn)

    def test_model_predict(self):
        # w = (1, -1, 0, 0): feature 0 votes for +1, feature 1 for -1, so a
        # wrapped index (2**32 -> 0) would change the answer.
        def fn():
            with svmgo.Trainer("-s 1 -c 10", 2, 4) as t:
                t.add(([0, 1, 2], [0, 1], [1.0, 1.0]), [1, -1])
                with t.fit() as m:
                    for pred in self.check(m, lambda X: m.predict(X)):
                        self.assertEqual(list(pred), [1.0, -1.0])

        self.run_both(fn)


class TestThreads(unittest.TestCase):
    def test_shared_model_and_per_thread_errors(self):
        """One model serves several threads; each thread sees its own error message."""
        import threading

        with train_heart() as m:
            want = m.predict(TEST_DENSE)
            failures = []

            def predict_loop():
                for _ in range(50):
                    if m.predict(TEST_DENSE) != want:
                        failures.append("wrong labels")

            def error_loop(width, other):
                for _ in range(50):
                    try:
                        m.predict([[0.0] * width])
                        failures.append(f"width {width} accepted")
                    except svmgo.Error as e:
                        # The message names this thread's row width, not the other thread's.
                        if e.code != E.E_DIMENSION or str(width) not in e.message or str(other) in e.message:
                            failures.append(f"width {width}: {e}")

            threads = [threading.Thread(target=predict_loop) for _ in range(3)]
            threads += [threading.Thread(target=error_loop, args=wo) for wo in ((5, 7), (7, 5))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(failures, [])


class TestWatch(unittest.TestCase):
    def test_watch_follows_published_versions(self):
        with tempfile.TemporaryDirectory() as d, train_heart() as m1, train_heart("-s 1 -B 1 -c 0.01") as m2:
            with svmgo.Model.watch(d) as w:
                # Nothing published yet: no model to predict with.
                with self.assertRaises(svmgo.Error) as cm:
                    w.predict(TEST_DENSE[:1])
                self.assertEqual(cm.exception.code, E.E_NO_MODEL)
                v1 = m1.publish(d)
                self.assertEqual(v1, 1)
                self.assertEqual(wait_for_version(w, v1), v1)
                self.assertEqual(w.decision_function(TEST_DENSE), m1.decision_function(TEST_DENSE))
                v2 = m2.publish(d)
                self.assertEqual(v2, 2)
                self.assertEqual(wait_for_version(w, v2), v2)
                self.assertEqual(w.decision_function(TEST_DENSE), m2.decision_function(TEST_DENSE))
                self.assertNotEqual(m1.decision_function(TEST_DENSE), m2.decision_function(TEST_DENSE))
            self.assertTrue(os.path.exists(os.path.join(d, "model-2.svmgo")))

    def test_watch_skips_a_corrupt_version(self):
        with tempfile.TemporaryDirectory() as d, train_heart() as m:
            m.publish(d)
            with svmgo.Model.watch(d) as w:
                self.assertEqual(wait_for_version(w, 1), 1)
                with open(os.path.join(d, ".junk.tmp"), "wb") as f:
                    f.write(b"garbage")
                os.rename(os.path.join(d, ".junk.tmp"), os.path.join(d, "model-2.svmgo"))
                v3 = m.publish(d)
                self.assertEqual(v3, 3)
                self.assertEqual(wait_for_version(w, v3), v3)
                self.assertEqual(w.predict(TEST_DENSE), m.predict(TEST_DENSE))


class TestQuantized(unittest.TestCase):
    def test_int8_model_from_svmgo_watch(self):
        """`svmgo watch --quantize int8` publishes an int8 model of heart_scale.train;
        a watched handle serves it, and it predicts within the int8 error bound
        of the float model trained here on the same rows."""
        if not os.access(SVMGO_BIN, os.X_OK):
            self.skipTest(f"{SVMGO_BIN} not built (run make build)")
        with tempfile.TemporaryDirectory() as root, train_heart() as float_model:
            models = os.path.join(root, "models")
            os.makedirs(models)
            daemon = subprocess.Popen(
                [SVMGO_BIN, "watch", "--root", root, "--quantize", "int8", "--train.options", OPTIONS,
                 "--store.capacity", "1000", "--store.max-features", str(NF), "--watch.debounce", "1ms"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            )
            try:
                with svmgo.Model.watch(models) as w:
                    incoming = os.path.join(root, "incoming")
                    for _ in range(1000):  # the daemon creates incoming/ at start
                        if os.path.isdir(incoming):
                            break
                        time.sleep(0.01)
                    tmp = os.path.join(incoming, ".heart.tmp")
                    with open(os.path.join(DATA, "heart_scale.train"), "rb") as src, open(tmp, "wb") as dst:
                        dst.write(src.read())
                    os.rename(tmp, os.path.join(incoming, "heart.txt"))
                    self.assertEqual(wait_for_version(w, 1), 1)
                    self.assertTrue(w.quantized)
                    self.assertEqual(w.quantization_bits, 8)
                    self.assertEqual(w.kind, "linear_svc")
                    self.assertEqual((w.num_features, w.labels), (NF, float_model.labels))
                    self.assertFalse(float_model.quantized)
                    self.check_within_bound(w, float_model)
                    # Loaded from its file, and saved again, it is the same int8 model.
                    path = os.path.join(models, "model-1.svmgo")
                    with svmgo.Model.load(path) as q:
                        self.assertEqual(q.quantization_bits, 8)
                        self.assertEqual(q.decision_function(TEST_DENSE), w.decision_function(TEST_DENSE))
                        again = os.path.join(root, "again.svmgo")
                        q.save(again)
                        with open(path, "rb") as a, open(again, "rb") as b:
                            self.assertEqual(a.read(), b.read())
            finally:
                daemon.terminate()
                _, err = daemon.communicate(timeout=10)
            self.assertEqual(daemon.returncode, 0, err.decode())

    def check_within_bound(self, q, f):
        """|q(x) - f(x)| <= (s/2) sum_j |x_j| on every test row, the int8 bound of
        quantize's symmetric scheme: s = max_j |w_j| / 127 over the feature weights
        (the bias weight stays float), w_j = f(e_j) - f(0) read off the float model,
        plus 1e-6 for the two cold solves' float32 weights."""
        f0 = f.decision_function([[0.0] * NF])[0][0]
        unit = [[1.0 if j == i else 0.0 for j in range(NF)] for i in range(NF)]
        w = [row[0] - f0 for row in f.decision_function(unit)]
        s = max(abs(v) for v in w) / 127
        dq, df = q.decision_function(TEST_DENSE), f.decision_function(TEST_DENSE)
        worst = 0.0
        for x, a, b in zip(TEST_DENSE, dq, df):
            bound = (s / 2) * sum(abs(v) for v in x) * (1 + 1e-6) + 1e-6
            worst = max(worst, abs(a[0] - b[0]) / bound)
            self.assertLessEqual(abs(a[0] - b[0]), bound, f"int8 {a[0]}, float {b[0]}")
        self.assertGreater(worst, 0, "the int8 model decides exactly as the float one: not quantized?")
        pq, pf = q.predict(TEST_DENSE), f.predict(TEST_DENSE)
        self.assertGreaterEqual(accuracy(pq, TEST[0]), accuracy(pf, TEST[0]) - 1 / len(TEST[0]))


@unittest.skipIf(np is None, "numpy is not installed")
class TestNumpy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = train_heart()
        cls.X64 = np.array(TEST_DENSE, dtype=np.float64)
        cls.X32 = cls.X64.astype(np.float32)
        cls.want = cls.model.predict(TEST_DENSE)

    @classmethod
    def tearDownClass(cls):
        cls.model.close()

    def test_zero_copy(self):
        for X in (self.X32, self.X64):
            _, ptr, rows, cols, keep = svmgo._dense(X)
            self.assertIs(keep, X)
            self.assertEqual(svmgo.ctypes.addressof(ptr.contents), X.ctypes.data)
            self.assertEqual((rows, cols), X.shape)

    def test_predict(self):
        for X in (self.X32, self.X64, np.asfortranarray(self.X64), np.hstack([self.X64, self.X64])[:, :NF]):
            pred = self.model.predict(X)
            self.assertIsInstance(pred, np.ndarray)
            self.assertEqual(pred.tolist(), self.want)
        dec = self.model.decision_function(self.X32)
        self.assertEqual(dec.shape, (len(TEST_DENSE), 1))
        self.assertEqual(dec.tolist(), self.model.decision_function(TEST_DENSE))
        with self.assertRaises(ValueError):
            self.model.predict(self.X32[0])  # 1-D

    def test_csr_arrays_and_training(self):
        csr = (np.array(TEST[1], dtype=np.int64), np.array(TEST[2], dtype=np.int32), np.array(TEST[3], dtype=np.float32))
        self.assertEqual(self.model.predict(csr).tolist(), self.want)
        y = np.array(TRAIN[0])
        with svmgo.Trainer(OPTIONS, len(y), NF) as t:
            t.add(np.array(TRAIN_DENSE, dtype=np.float32), y)
            with t.fit() as m:
                np.testing.assert_array_equal(m.decision_function(self.X32), self.model.decision_function(self.X32))


@unittest.skipIf(sp is None, "scipy is not installed")
class TestScipy(unittest.TestCase):
    def test_csr_matrix(self):
        with train_heart() as m:
            X = sp.csr_matrix(np.array(TEST_DENSE, dtype=np.float64))
            self.assertEqual(m.predict(X).tolist(), m.predict(TEST_DENSE))
            self.assertEqual(m.predict(X.tocsc()).tolist(), m.predict(TEST_DENSE))
            y = np.array(TRAIN[0])
            Xtr = sp.csr_matrix(np.array(TRAIN_DENSE, dtype=np.float32))
            with svmgo.Trainer(OPTIONS, len(y), NF, capacity_nonzeros=Xtr.nnz) as t:
                t.add(Xtr, y)
                with t.fit() as m2:
                    self.assertEqual(m2.predict(X).tolist(), m.predict(TEST_DENSE))


class TestModelFileSchema(unittest.TestCase):
    """Every key of every kind of model file the library writes is in the
    body schema the Python reader takes its key names from (_schema.py,
    generated from the Go body types)."""

    def test_every_kind_known(self):
        if not os.access(SVMGO_BIN, os.X_OK):
            self.skipTest(f"{SVMGO_BIN} not built (run make build)")
        train = os.path.join(DATA, "heart_scale.train")
        runs = [
            ["train-linear", "-q", "-s", "2", "-B", "1"],
            ["train-linear", "-q", "-s", "5", "-c", "0.01"],  # L1: sparse weights (wi, wx)
            ["train-linear", "-q", "-s", "0", "--scale"],
            ["train", "-q", "-t", "2", "-b", "1"],
        ]
        kinds = set()
        with tempfile.TemporaryDirectory() as d:
            for i, args in enumerate(runs):
                float_path = os.path.join(d, f"m{i}.svmgo")
                q_path = float_path + ".q8"
                subprocess.run([SVMGO_BIN, *args, train, float_path], check=True, capture_output=True)
                subprocess.run([SVMGO_BIN, "quantize", "--bits", "8", float_path, q_path], check=True, capture_output=True)
                for path in (float_path, q_path):
                    with open(path, "rb") as f:
                        body = _modelfile.read_body(f.read())
                    kinds.add(_modelfile.kind_of(body))
                    with self.subTest(args=args, path=os.path.basename(path)):
                        self.assertEqual(_modelfile.unknown_keys(body), [])
                    if "5" in args:
                        self.assertIn("wi", body)  # the sparse layouts are covered
        self.assertEqual(kinds, {"linear", "kernel", "qlinear", "qkernel"})
        self.assertEqual(_modelfile.unknown_keys({"k": "linear", "zz": 1, "p": {"qq": 2}}), ["zz", "p.qq"])

if __name__ == "__main__":
    unittest.main()
