"""Tests of issue 22's fault 10: trainers that hang or half-fail.

Each test failed before its fix: weights whose costs overflow trained a
garbage model (the objective NaN, "converged" after no iteration);
Trainer.add with bad weights kept its rows; a forked child's call into the
library could wait for ever; partial_fit dropped the rows of a first batch
of one class; a pickle holding another kind of model unpickled and
predicted. The estimator tests are skipped when numpy, scipy or
scikit-learn is missing; the reference for the partial_fit recovery is
fit on the same rows.
"""

import os
import pickle
import select
import unittest
import warnings

try:
    import numpy as np
    import sklearn  # noqa: F401 (the estimators need it)
except ImportError:  # the estimator tests are skipped below
    np = None

import svmgo

if np is not None:
    import svmgo.sklearn as sg


def rows(n=40, seed=0):
    """n rows of 3 features and their classes 0/1 (the sign of feature 1)."""
    if np is None:
        x = [[((i * 7 + j * 3) % 11 - 5) / 5 for j in range(3)] for i in range(n)]
        return x, [1 if r[0] > 0 else 0 for r in x]
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    return x, (x[:, 0] > 0).astype(int)


class TrainerWeights(unittest.TestCase):
    def test_add_with_bad_weights_adds_nothing(self):
        x, y = rows(10)
        labels = [2.0 * v - 1 for v in y]
        t = svmgo.Trainer("-s 1", 100, 3)
        t.add(x[:2], labels[:2])
        for w in ([float("nan")] * 5, [-1.0] * 5, [0.0] * 5, [1.0] * 4, [1.0] * 6):
            with self.assertRaises(svmgo.Error, msg=w):
                t.add(x[:5], labels[:5], weights=w)
            self.assertEqual(t.num_rows, 2, f"weights {w}: the rows stayed")
        t.add(x[:5], labels[:5], weights=[2.0] * 5)
        self.assertEqual(t.num_rows, 7)
        t.close()


class Forked(unittest.TestCase):
    @unittest.skipUnless(hasattr(os, "fork"), "no fork")
    def test_forked_child_is_refused_not_hung(self):
        """A child forked after the library loaded gets an error from every
        call (here a kernel fit through Trainer) within the timeout."""
        x, y = rows(30)
        t = svmgo.Trainer("-t 2", 100, 3)
        t.add(x, [2.0 * v - 1 for v in y])
        t.fit().close()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(r)
            try:
                t.fit()
                msg = b"fit returned"
            except svmgo.Error as e:
                msg = ("error " + e.name).encode()
            except BaseException as e:  # noqa: BLE001 (reported to the parent)
                msg = repr(e).encode()
            os.write(w, msg)
            os._exit(0)
        os.close(w)
        ready, _, _ = select.select([r], [], [], 30)
        got = os.read(r, 200) if ready else b"no answer after 30 s"
        os.close(r)
        if not ready:
            os.kill(pid, 9)
        os.waitpid(pid, 0)
        self.assertEqual(got, b"error SVMGO_E_UNSUPPORTED")
        # The parent's library is untouched.
        t.fit().close()
        t.close()


@unittest.skipIf(np is None, "numpy or scikit-learn missing")
class Estimators(unittest.TestCase):
    def test_overflowing_weights_refused(self):
        x, y = rows(300)
        for est in (sg.LinearSVC(), sg.LinearSVC(dual=False), sg.LogisticRegression(), sg.SVC()):
            for first, rest in ((1.797e308, 1.0), (1e308, 1e-308)):
                w = np.full(300, rest)
                w[0] = first
                with self.assertRaisesRegex(ValueError, "bad instance weight", msg=f"{est} {first}"):
                    est.fit(x, y, sample_weight=w)

    def test_first_batch_of_one_class_is_kept(self):
        x, y = rows(40)
        # Tight tolerances, seeds and a fixed gamma (partial_fit takes
        # gamma="scale" from its first batch): the two reach one optimum.
        for make in (lambda: sg.LinearSVC(tol=1e-10, random_state=0), lambda: sg.SVC(gamma=0.5, tol=1e-10)):
            est = make()
            zeros, ones = np.flatnonzero(y == 0)[:6], np.flatnonzero(y == 1)[:6]
            with self.assertRaisesRegex(ValueError, "the rows are kept"):
                est.partial_fit(x[zeros], y[zeros], classes=[0, 1])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.partial_fit(x[ones], y[ones])
                ref = make().fit(x[np.r_[zeros, ones]], y[np.r_[zeros, ones]])
            self.assertEqual(est._trainer.num_rows, 12)
            np.testing.assert_allclose(est.decision_function(x), ref.decision_function(x), atol=1e-5)

    def test_pickle_of_another_kind_refused(self):
        x, y = rows(40)
        for est, other in (
            (sg.SVC().fit(x, y), sg.SVR().fit(x, x[:, 0])),
            (sg.LinearSVC().fit(x, y), sg.LinearSVR().fit(x, x[:, 0])),
            (sg.SVC().fit(x, y), sg.OneClassSVM().fit(x)),
            (sg.LogisticRegression().fit(x, y), sg.LinearSVC().fit(x, y)),
        ):
            # What unpickling does with a pickle whose model bytes are other's.
            state = est.__getstate__()
            state["_model_bytes"] = other._model.to_bytes()
            with self.assertRaisesRegex(ValueError, "pickle: a", msg=f"{type(est).__name__} holding {type(other).__name__}"):
                type(est).__new__(type(est)).__setstate__(state)
            # Its own model still unpickles and predicts as before.
            np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict(x), est.predict(x))


if __name__ == "__main__":
    unittest.main()
