"""Tests of svmgo.sklearn, the scikit-learn estimators.

The references are independent of libsvmgo's Python code: scikit-learn's
own estimator checks, scikit-learn's own SVMs (its bundled LIBSVM and
LIBLINEAR) fitted on the same rows, and the svmgo command. Skipped when
numpy, scipy or scikit-learn is missing (Debian's python3-sklearn).

`make test-python` runs them on the package in examples/python;
`make test-wheel` on the wheel installed in a fresh virtual environment,
outside the repository (SVMGO_TEST_INSTALLED=1: the library must then be
the bundled one). The data sets are $SVMGO_TEST_DATA (default
../shared/data beside the repository).
"""

import os
import pickle
import subprocess
import sys
import tempfile
import time
import unittest
import warnings

try:
    import numpy as np
    import scipy.sparse as sp
    import sklearn
    import sklearn.svm as sk
    from sklearn.datasets import load_svmlight_file
    from sklearn.utils.estimator_checks import check_estimator
except ImportError:  # the suite is skipped below
    sklearn = None

import svmgo

if sklearn is not None:
    import svmgo.sklearn as sg

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("SVMGO_TEST_DATA") or os.path.join(HERE, os.pardir, os.pardir, os.pardir, "shared", "data")


def _without_ke(result):
    """A fit_result_ without its kernel evaluation counts, at both levels."""
    out = {k: v for k, v in result.items() if k not in ("ke", "subproblems")}
    out["subproblems"] = [{k: v for k, v in sub.items() if k != "ke"} for sub in result.get("subproblems", [])]
    return out


def load(name, n_features):
    X, y = load_svmlight_file(os.path.join(DATA, name), n_features=n_features)
    return X, y


@unittest.skipIf(sklearn is None, "numpy, scipy or scikit-learn is not installed")
class TestInstalled(unittest.TestCase):
    @unittest.skipUnless(os.environ.get("SVMGO_TEST_INSTALLED"), "only for an installed wheel (make test-wheel)")
    def test_bundled_library(self):
        here = os.path.dirname(os.path.abspath(svmgo.__file__))
        self.assertEqual(svmgo.library_path(), os.path.join(here, "libsvmgo.so"))
        self.assertEqual(os.path.basename(os.path.dirname(here)), "site-packages")
        self.assertEqual(svmgo.library_version(), svmgo.__version__)
        self.assertEqual(sg._svmgo_command(), os.path.join(here, "bin", "svmgo"))


@unittest.skipIf(sklearn is None, "numpy, scipy or scikit-learn is not installed")
class TestEstimatorChecks(unittest.TestCase):
    def test_check_estimator(self):
        """scikit-learn's check_estimator passes for every estimator. One
        check is marked, through _more_tags' _xfail_checks, for SVC and
        LinearSVC with probability=True: check_classifiers_train (its argmax
        of predict_proba against predict; Platt scaling need not agree with
        the vote or the largest decision value); and
        check_sample_weights_invariance for SVC, NuSVC, SVR, NuSVR, OneClassSVM, LinearSVR
        and LogisticRegression(dual=True), as scikit-learn marks it for its
        own SVMs (rows of weight 0
        dropped from a shuffled copy train to another point within the
        tolerance). The other skips allowed are scikit-learn's own for a
        missing optional package (pandas)."""
        estimators = [
            sg.SVC(),
            sg.SVC(probability=True, kernel="poly"),
            sg.NuSVC(),
            sg.SVR(),
            sg.NuSVR(),
            sg.OneClassSVM(),
            sg.LinearSVC(),
            sg.LinearSVC(dual=False),
            sg.LinearSVR(),
            sg.LogisticRegression(),
            sg.LogisticRegression(solver="liblinear"),
            sg.LogisticRegression(solver="liblinear", dual=True),
            sg.LinearSVC(probability=True),
        ]
        for est in estimators:
            with self.subTest(estimator=repr(est)), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                t = time.process_time()
                check_estimator(est)
                skipped = [str(w.message) for w in caught if type(w.message).__name__ == "SkipTestWarning"]
                ours = [m for m in skipped if "pandas is not installed" not in m]
                weights = [m for m in ours if m.startswith("Skipping check_sample_weights_invariance")]
                ours = [m for m in ours if m not in weights]
                xfail_weights = type(est).__name__ in ("SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM", "LinearSVR") or (
                    type(est).__name__ == "LogisticRegression" and est.dual
                )
                self.assertEqual(bool(weights), xfail_weights, weights)
                if getattr(est, "probability", False):
                    # Once per variant of the check (scikit-learn runs it on
                    # read-only memory maps too).
                    self.assertEqual(len(set(ours)), 1, ours)
                    self.assertIn(f"Skipping check_classifiers_train for {type(est).__name__}: argmax(predict_proba)", ours[0])
                else:
                    self.assertEqual(ours, [])
                print(f"check_estimator({est!r}): passed in {time.process_time() - t:.1f} s CPU")


@unittest.skipIf(sklearn is None, "numpy, scipy or scikit-learn is not installed")
class TestAgainstReferences(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        X, y = load("digits.train", 64)
        Xt, yt = load("digits.test", 64)
        cls.X, cls.y, cls.Xt, cls.yt = X.toarray(), y, Xt.toarray(), yt

    def test_digits_svc_matches_svmgo_train(self):
        """SVC().fit on digits predicts what `svmgo train -g gamma` then
        `svmgo predict` write, row for row (gamma='scale' computed as
        scikit-learn does; C=1 and tol=1e-3 are both programs' defaults)."""
        clf = sg.SVC().fit(self.X, self.y)
        gamma = 1.0 / (64 * self.X.var())
        self.assertAlmostEqual(clf._gamma, gamma, places=15)
        cmd = sg._svmgo_command()
        with tempfile.TemporaryDirectory() as d:
            model, out = os.path.join(d, "m"), os.path.join(d, "out")
            subprocess.run([cmd, "train", "-q", "-g", repr(clf._gamma), os.path.join(DATA, "digits.train"), model], check=True)
            subprocess.run([cmd, "predict", os.path.join(DATA, "digits.test"), model, out], check=True, stdout=subprocess.PIPE)
            want = np.loadtxt(out)
        got = clf.predict(self.Xt)
        self.assertEqual(len(want), 360)
        np.testing.assert_array_equal(got, want)
        self.assertGreaterEqual((got == self.yt).mean(), 0.95)

    def test_svc_attributes_match_scikit_learn(self):
        """On four digit classes (whose first appearance in the rows is not
        their sorted order, so the class reordering is exercised), the
        support vectors, n_support_, dual_coef_, intercept_ and both shapes
        of decision values equal scikit-learn's SVC's within the solvers'
        tolerance."""
        sel = np.isin(self.y, [0, 1, 2, 3])
        X, y = self.X[sel], self.y[sel]
        first = list(dict.fromkeys(y))
        self.assertNotEqual(first, sorted(first))
        for shape in ("ovr", "ovo"):
            a = sg.SVC(C=2, decision_function_shape=shape).fit(X, y)
            b = sk.SVC(C=2, decision_function_shape=shape).fit(X, y)
            np.testing.assert_array_equal(a.classes_, b.classes_)
            np.testing.assert_array_equal(a.n_support_, b.n_support_)
            np.testing.assert_array_equal(a.support_vectors_, b.support_vectors_)
            np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, atol=2e-2)
            np.testing.assert_allclose(a.intercept_, b.intercept_, atol=2e-3)
            np.testing.assert_allclose(a.decision_function(self.Xt), b.decision_function(self.Xt), atol=2e-3)
            np.testing.assert_array_equal(a.predict(self.Xt), b.predict(self.Xt))
        # The decision values from the fitted attributes, as scikit-learn's
        # formula has them, are the library's.
        from sklearn.metrics.pairwise import rbf_kernel

        a = sg.SVC(C=2, decision_function_shape="ovo").fit(X, y)
        K = rbf_kernel(self.Xt, a.support_vectors_, gamma=a._gamma)
        starts = np.concatenate([[0], np.cumsum(a.n_support_)])
        p = 0
        dec = a.decision_function(self.Xt)
        for i in range(4):
            for j in range(i + 1, 4):
                si, sj = slice(starts[i], starts[i + 1]), slice(starts[j], starts[j + 1])
                d = K[:, si] @ a.dual_coef_[j - 1, si] + K[:, sj] @ a.dual_coef_[i, sj] + a.intercept_[p]
                np.testing.assert_allclose(dec[:, p], d, atol=1e-5)
                p += 1

    def test_binary_sign_and_probability(self):
        """Two classes: decision values positive for classes_[1], as
        scikit-learn's; predict_proba columns in classes_ order and close to
        scikit-learn's (Platt scaling over different random folds)."""
        sel = np.isin(self.y, [3, 5])
        X, y = self.X[sel], self.y[sel]
        a = sg.SVC(probability=True, random_state=0).fit(X, y)
        b = sk.SVC(probability=True, random_state=0).fit(X, y)
        np.testing.assert_allclose(a.decision_function(self.Xt), b.decision_function(self.Xt), atol=2e-3)
        np.testing.assert_allclose(a.intercept_, b.intercept_, atol=2e-3)
        pa, pb = a.predict_proba(self.Xt), b.predict_proba(self.Xt)
        np.testing.assert_allclose(pa.sum(axis=1), 1, atol=1e-9)
        self.assertLess(np.abs(pa - pb).max(), 0.1)
        self.assertFalse(hasattr(sg.SVC(), "predict_proba"))

    def test_linear_classifiers_match_scikit_learn(self):
        """LinearSVC (dual and primal) and LogisticRegression: coef_,
        intercept_ and predictions (10 classes, one-vs-rest, and 2 classes)
        equal those of scikit-learn's LIBLINEAR within tol's reach, and so
        do LogisticRegression's probabilities."""
        from sklearn.linear_model import LogisticRegression

        for classes in (None, [3, 5]):
            sel = np.ones(len(self.y), bool) if classes is None else np.isin(self.y, classes)
            X, y = self.X[sel], self.y[sel]
            pairs = [
                (sg.LinearSVC(tol=1e-6, max_iter=10000), sk.LinearSVC(tol=1e-6, max_iter=10000)),
                (sg.LinearSVC(dual=False, tol=1e-8), sk.LinearSVC(dual=False, tol=1e-8)),
                (
                    sg.LogisticRegression(solver="liblinear", tol=1e-8, max_iter=1000),
                    LogisticRegression(solver="liblinear", tol=1e-8, max_iter=1000),
                ),
            ]
            for a, b in pairs:
                with self.subTest(est=repr(a), classes=classes):
                    a.fit(X, y)
                    b.fit(X, y)
                    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-3)
                    np.testing.assert_allclose(a.intercept_, b.intercept_, atol=1e-3)
                    np.testing.assert_array_equal(a.predict(self.Xt), b.predict(self.Xt))
                    if hasattr(b, "predict_proba"):
                        np.testing.assert_allclose(a.predict_proba(self.Xt), b.predict_proba(self.Xt), atol=1e-5)

    def test_logistic_defaults_match_scikit_learn(self):
        """LogisticRegression() at its defaults (multinomial softmax, L2,
        -s 40) against scikit-learn's default (lbfgs) on digits and shuttle
        (7 classes): test accuracy within 0.3 points of its default fit's,
        and probabilities within 1e-3 of its converged fit's (max_iter=10000:
        at its default max_iter=100 lbfgs stops early on both sets, with a
        ConvergenceWarning, up to 6e-3 away from the optimum). Two classes:
        scikit-learn's binary logistic regression (coef_, intercept_)."""
        from sklearn.linear_model import LogisticRegression

        sets = [("digits", 64, self.X, self.y, self.Xt, self.yt)]
        if os.path.exists(os.path.join(DATA, "shuttle.train")):
            X, y = load("shuttle.train", 9)
            Xt, yt = load("shuttle.test", 9)
            sets.append(("shuttle", 9, X.toarray(), y, Xt.toarray(), yt))
        elif os.environ.get("CI"):
            self.fail("shuttle.train missing under CI")
        for name, _, X, y, Xt, yt in sets:
            with self.subTest(data=name):
                ours = sg.LogisticRegression().fit(X, y)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    default = LogisticRegression().fit(X, y)
                converged = LogisticRegression(max_iter=10000).fit(X, y)
                acc = 100 * np.mean(ours.predict(Xt) == yt)
                acc_sk = 100 * np.mean(default.predict(Xt) == yt)
                self.assertLessEqual(abs(acc - acc_sk), 0.3, (acc, acc_sk))
                dp = np.abs(ours.predict_proba(Xt) - converged.predict_proba(Xt)).max()
                self.assertLessEqual(dp, 1e-3)
                np.testing.assert_array_equal(ours.classes_, converged.classes_)
                self.assertEqual(ours.coef_.shape, converged.coef_.shape)
                np.testing.assert_array_equal(ours.predict(Xt), ours.classes_[np.argmax(ours.decision_function(Xt), axis=1)])
                print(f"LogisticRegression() on {name}: accuracy {acc:.4f}% (scikit-learn's default {acc_sk:.4f}%), "
                      f"max |P - P_sklearn(converged)| {dp:.2e}")
        sel = np.isin(self.y, [3, 5])
        X, y = self.X[sel], self.y[sel]
        a = sg.LogisticRegression(tol=1e-6).fit(X, y)
        b = LogisticRegression(tol=1e-10, max_iter=10000).fit(X, y)
        np.testing.assert_allclose(a.coef_, b.coef_, atol=2e-3)
        np.testing.assert_allclose(a.intercept_, b.intercept_, atol=2e-3)
        np.testing.assert_allclose(a.predict_proba(self.Xt), b.predict_proba(self.Xt), atol=1e-4)
        np.testing.assert_allclose(a.decision_function(self.Xt), b.decision_function(self.Xt), atol=1e-2)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lr.svmgo")
            a.save(path)
            back = sg.LogisticRegression.load(path)
            self.assertEqual(back.C, a.C)
            np.testing.assert_allclose(back.coef_, a.coef_)
            np.testing.assert_array_equal(back.predict_proba(self.Xt), a.predict_proba(self.Xt))

    def test_support_and_fitted_attributes(self):
        """Every kernel estimator has scikit-learn's fitted attributes;
        support_ names rows of X whose values are support_vectors_, and
        nearly all of scikit-learn's own (the solvers stop within tol at
        points a few support vectors apart)."""
        X, y = self.X[:600], self.y[:600]
        w = np.ones(len(y))
        w[::7] = 0  # rows of weight 0 are left out, and indices still X's
        cases = [
            (sg.SVC(), sk.SVC(), None),
            (sg.NuSVC(), sk.NuSVC(), None),
            (sg.SVC(), sk.SVC(), w),
            (sg.SVR(), sk.SVR(), None),
            (sg.NuSVR(), sk.NuSVR(), None),
            (sg.OneClassSVM(gamma=0.05), sk.OneClassSVM(gamma=0.05), None),
        ]
        for ours, theirs, sw in cases:
            with self.subTest(est=repr(ours), weights=sw is not None):
                ours.fit(X, y, sample_weight=sw)
                theirs.fit(X, y, sample_weight=sw)
                names = ["support_", "support_vectors_", "n_support_", "dual_coef_", "intercept_",
                         "fit_status_", "n_iter_", "shape_fit_", "n_features_in_"]
                if ours._is_classifier:  # scikit-learn 1.2 deprecates it for the others
                    names.append("class_weight_")
                for name in names:
                    self.assertTrue(hasattr(ours, name), name)
                    self.assertEqual(np.shape(getattr(ours, name)), np.shape(getattr(theirs, name))
                                     if name not in ("support_", "support_vectors_", "dual_coef_", "n_iter_") else np.shape(getattr(ours, name)), name)
                self.assertEqual(len(set(ours.support_)), len(ours.support_))
                np.testing.assert_array_equal(X[ours.support_].astype(np.float32), np.asarray(ours.support_vectors_, np.float32))
                if sw is not None:
                    self.assertTrue(np.all(sw[ours.support_] > 0))
                theirs_rows = theirs.support_
                if sw is not None:
                    # scikit-learn's support_ then indexes the rows of
                    # nonzero weight (its X[support_] is not its
                    # support_vectors_); ours index X.
                    theirs_rows = np.flatnonzero(sw > 0)[theirs.support_]
                common = len(set(ours.support_) & set(theirs_rows))
                self.assertGreaterEqual(common, 0.97 * len(theirs.support_), (len(ours.support_), len(theirs.support_)))
                self.assertEqual(int(np.sum(ours.n_support_)), len(ours.support_))
        p = sg.SVC().fit(X, y)
        p.partial_fit(X[:10], y[:10])
        self.assertFalse(hasattr(p, "support_"))

    def test_load_refuses_another_kind(self):
        """load of a file another estimator wrote names that estimator."""
        with tempfile.TemporaryDirectory() as d:
            k, lin = os.path.join(d, "k.svmgo"), os.path.join(d, "l.svmgo")
            sg.SVC().fit(self.X[:200], self.y[:200]).save(k)
            sg.LinearSVC().fit(self.X[:200], self.y[:200]).save(lin)
            with self.assertRaisesRegex(ValueError, r"a kernel model \(-s 0\), which LinearSVC does not read: load it with SVC.load"):
                sg.LinearSVC.load(k)
            with self.assertRaisesRegex(ValueError, "load it with LinearSVC.load"):
                sg.SVR.load(lin)
            with self.assertRaisesRegex(ValueError, "load it with LinearSVC.load"):
                sg.LogisticRegression.load(lin)
            self.assertEqual(sg.SVC.load(k).predict(self.Xt[:5]).shape, (5,))

    def test_logistic_warm_start_and_options(self):
        """warm_start=True starts from the previous weights (fewer Newton
        iterations, the same solution); n_jobs and l1_ratio are accepted."""
        a = sg.LogisticRegression(warm_start=True, n_jobs=2)
        a.fit(self.X, self.y)
        cold = a.n_iter_
        coef = a.coef_.copy()
        a.fit(self.X, self.y)
        self.assertLess(a.n_iter_, cold)
        np.testing.assert_allclose(a.coef_, coef, atol=1e-3)
        with self.assertWarnsRegex(UserWarning, "l1_ratio"):
            sg.LogisticRegression(l1_ratio=0.5).fit(self.X[:200], self.y[:200])
        sg.LogisticRegression(solver="liblinear", multi_class="ovr", n_jobs=2).fit(self.X[:200], self.y[:200])

    def test_logistic_dual_matches_scikit_learn(self):
        """LogisticRegression(dual=True) is LIBLINEAR's -s 7, as
        scikit-learn's liblinear solver with dual=True: coef_, predictions
        and predict_proba (from the library) agree, for 10 classes and 2."""
        from sklearn.linear_model import LogisticRegression

        for classes in (None, [3, 5]):
            sel = np.ones(len(self.y), bool) if classes is None else np.isin(self.y, classes)
            X, y = self.X[sel], self.y[sel]
            with self.subTest(classes=classes):
                a = sg.LogisticRegression(solver="liblinear", dual=True, tol=1e-8, max_iter=1000).fit(X, y)
                b = LogisticRegression(solver="liblinear", dual=True, tol=1e-8, max_iter=1000).fit(X, y)
                np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-3)
                np.testing.assert_allclose(a.intercept_, b.intercept_, atol=1e-3)
                np.testing.assert_array_equal(a.predict(self.Xt), b.predict(self.Xt))
                np.testing.assert_allclose(a.predict_proba(self.Xt), b.predict_proba(self.Xt), atol=1e-5)
                with tempfile.TemporaryDirectory() as d:
                    path = os.path.join(d, "lr.svmgo")
                    a.save(path)
                    back = sg.LogisticRegression.load(path)
                    self.assertTrue(back.dual)
                    np.testing.assert_array_equal(back.predict_proba(self.Xt), a.predict_proba(self.Xt))

    def test_linear_svc_probability(self):
        """LinearSVC(probability=True) trains with -b 1: predict_proba in
        classes_ order sums to 1 and equals what the library's own command
        gives for the saved model (svmgo predict -b 1), its argmax agrees
        with predict on most rows, and its test log-loss beats the class
        prior's; without probability=True there is no predict_proba."""
        self.assertFalse(hasattr(sg.LinearSVC(), "predict_proba"))
        for classes in (None, [3, 5]):
            sel = np.ones(len(self.y), bool) if classes is None else np.isin(self.y, classes)
            selt = np.ones(len(self.yt), bool) if classes is None else np.isin(self.yt, classes)
            X, y, Xt, yt = self.X[sel], self.y[sel], self.Xt[selt], self.yt[selt]
            with self.subTest(classes=classes):
                a = sg.LinearSVC(probability=True, random_state=0).fit(X, y)
                p = a.predict_proba(Xt)
                self.assertEqual(p.shape, (Xt.shape[0], len(a.classes_)))
                np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-12)
                agree = np.mean(a.classes_[np.argmax(p, axis=1)] == a.predict(Xt))
                self.assertGreater(agree, 0.97)
                loss = -np.mean(np.log(p[np.arange(len(yt)), np.searchsorted(a.classes_, yt)]))
                prior = np.array([np.mean(y == c) for c in a.classes_])
                prior_loss = -np.mean(np.log(prior[np.searchsorted(a.classes_, yt)]))
                self.assertLess(loss, 0.5 * prior_loss)
                with tempfile.TemporaryDirectory() as d:
                    model, test, out = (os.path.join(d, n) for n in ("m.svmgo", "t.libsvm", "p.out"))
                    a.save(model)
                    self.assertTrue(sg.LinearSVC.load(model).probability)
                    with open(test, "w") as f:
                        for row, lab in zip(Xt, yt):
                            f.write(f"{int(lab)} " + " ".join(f"{j + 1}:{v:.9g}" for j, v in enumerate(row) if v) + "\n")
                    subprocess.run([sg._svmgo_command(), "predict", "-b", "1", test, model, out], check=True, capture_output=True)
                    with open(out) as f:
                        header = f.readline().split()[1:]
                        cli = np.array([[float(v) for v in line.split()[1:]] for line in f])
                    cols = np.searchsorted(a.classes_, np.array(header, dtype=float))
                    np.testing.assert_allclose(p[:, cols], cli, rtol=1e-5, atol=1e-12)

    def test_l1_classifiers_match_scikit_learn(self):
        """LinearSVC(penalty="l1") (-s 5) and LogisticRegression(penalty="l1")
        (-s 6) against scikit-learn's LIBLINEAR: the same sparsity (nonzero
        coefficients within 2%, or 2), coefficients and predictions within
        tol's reach; the model file stores the weights sparse and reads
        back the same coefficients."""
        from sklearn.linear_model import LogisticRegression

        for classes in (None, [3, 5]):
            sel = np.ones(len(self.y), bool) if classes is None else np.isin(self.y, classes)
            X, y = self.X[sel], self.y[sel]
            pairs = [
                (
                    sg.LinearSVC(penalty="l1", dual=False, tol=1e-6, max_iter=10000),
                    sk.LinearSVC(penalty="l1", dual=False, tol=1e-6, max_iter=10000),
                ),
                (
                    sg.LogisticRegression(penalty="l1", solver="liblinear", tol=1e-6),
                    LogisticRegression(penalty="l1", solver="liblinear", tol=1e-6),
                ),
            ]
            for a, b in pairs:
                with self.subTest(est=repr(a), classes=classes):
                    a.fit(X, y)
                    b.fit(X, y)
                    na, nb = np.count_nonzero(a.coef_), np.count_nonzero(b.coef_)
                    self.assertLessEqual(abs(na - nb), max(2, 0.02 * nb), (na, nb))
                    self.assertLess(na, 0.8 * a.coef_.size)
                    np.testing.assert_allclose(a.coef_, b.coef_, atol=2e-2)
                    np.testing.assert_allclose(a.intercept_, b.intercept_, atol=2e-2)
                    self.assertGreaterEqual((a.predict(self.Xt) == b.predict(self.Xt)).mean(), 0.99)
                    with tempfile.TemporaryDirectory() as d:
                        path = os.path.join(d, "m.svmgo")
                        a.save(path)
                        c = type(a).load(path)
                        with open(path, "rb") as f:
                            self.assertIn("wi", svmgo._modelfile.read_body(f.read()))
                    np.testing.assert_array_equal(c.coef_, a.coef_)
                    np.testing.assert_array_equal(c.predict(self.Xt), a.predict(self.Xt))
                    if hasattr(b, "predict_proba"):  # -s 6: LIBLINEAR's probabilities, from the library
                        np.testing.assert_allclose(a.predict_proba(self.Xt), b.predict_proba(self.Xt), atol=1e-2)
                        np.testing.assert_array_equal(c.predict_proba(self.Xt), a.predict_proba(self.Xt))

    def test_regressors_match_scikit_learn(self):
        """SVR and LinearSVR on diabetes: predictions equal scikit-learn's
        within the solvers' tolerance."""
        X, y = load("diabetes.train", 10)
        Xt, _ = load("diabetes.test", 10)
        X, Xt = X.toarray(), Xt.toarray()
        a, b = sg.SVR(C=100).fit(X, y), sk.SVR(C=100).fit(X, y)
        np.testing.assert_allclose(a.predict(Xt), b.predict(Xt), rtol=1e-3, atol=0.05)
        np.testing.assert_allclose(a.intercept_, b.intercept_, atol=0.05)
        a = sg.LinearSVR(C=10, tol=1e-6, max_iter=100000).fit(X, y)
        b = sk.LinearSVR(C=10, tol=1e-6, max_iter=100000).fit(X, y)
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-3, atol=1e-2)

    def test_nu_matches_scikit_learn(self):
        """NuSVC on digits and NuSVR on diabetes: predictions equal
        scikit-learn's (its LIBSVM's ν-SVC and ν-SVR) within the solvers'
        tolerance; an infeasible nu raises ValueError as scikit-learn's does."""
        a = sg.NuSVC(nu=0.1, decision_function_shape="ovo").fit(self.X, self.y)
        b = sk.NuSVC(nu=0.1, decision_function_shape="ovo").fit(self.X, self.y)
        np.testing.assert_array_equal(a.predict(self.Xt), b.predict(self.Xt))
        np.testing.assert_allclose(a.decision_function(self.Xt), b.decision_function(self.Xt), atol=0.05)
        np.testing.assert_array_equal(a.n_support_, b.n_support_)
        X, y = load("diabetes.train", 10)
        Xt, _ = load("diabetes.test", 10)
        X, Xt = X.toarray(), Xt.toarray()
        a, b = sg.NuSVR(nu=0.4, C=100).fit(X, y), sk.NuSVR(nu=0.4, C=100).fit(X, y)
        np.testing.assert_allclose(a.predict(Xt), b.predict(Xt), rtol=1e-3, atol=0.05)
        np.testing.assert_allclose(a.intercept_, b.intercept_, atol=0.05)
        yb = np.r_[np.zeros(40), np.ones(4)]
        Xb = np.random.RandomState(0).randn(44, 3)
        for est in (sg.NuSVC(nu=0.5), sk.NuSVC(nu=0.5)):
            with self.subTest(est=type(est).__module__), self.assertRaisesRegex(ValueError, "specified nu is infeasible"):
                est.fit(Xb, yb)

    def test_one_class_matches_scikit_learn(self):
        X = self.X[self.y == 0]
        a, b = sg.OneClassSVM(nu=0.2).fit(X), sk.OneClassSVM(nu=0.2).fit(X)
        np.testing.assert_allclose(a.decision_function(self.Xt), b.decision_function(self.Xt), atol=1e-3)
        np.testing.assert_allclose(a.offset_, b.offset_, atol=1e-3)
        np.testing.assert_array_equal(a.predict(self.Xt), b.predict(self.Xt))


_RSS_SCRIPT = """
import sys
import numpy as np
from sklearn.datasets import load_svmlight_file
import svmgo.sklearn as sg

def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS"))

X, y = load_svmlight_file(sys.argv[1], n_features=int(sys.argv[2]))
X, y = X.toarray()[: int(sys.argv[3])], y[: int(sys.argv[3])]
est = sg.SVC(cache_size=200).fit(X, y)
first = rss()
for _ in range(9):
    est = sg.SVC(cache_size=200).fit(X, y)
print(first, rss())
"""


_VERBOSE_SCRIPT = """
import sys
from sklearn.datasets import load_svmlight_file
import svmgo.sklearn as sg

X, y = load_svmlight_file(sys.argv[1], n_features=30)
sg.SVC(C=1000, gamma=0.1, tol=1e-6, verbose=True).fit(X.toarray(), y)
sg.LogisticRegression(verbose=1).fit(X.toarray(), y)
"""


@unittest.skipIf(sklearn is None, "numpy, scipy or scikit-learn is not installed")
class TestVerbose(unittest.TestCase):
    def test_verbose_prints_during_the_fit(self):
        """verbose=True: the library prints the solvers' progress to stderr
        as they run (before the fit's summary line), for SMO and Newton."""
        run = subprocess.run(
            [sys.executable, "-c", _VERBOSE_SCRIPT, os.path.join(HERE, os.pardir, os.pardir, "core", "testdata", "breast_cancer.train")
             if not os.environ.get("SVMGO_TEST_INSTALLED") else os.path.join(DATA, "breast_cancer.train")],
            check=True, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)),
        )
        lines = run.stderr.splitlines()
        svc = [k for k, l in enumerate(lines) if l.startswith("svmgo: progress classes ")]
        done = [k for k, l in enumerate(lines) if l.startswith("[libsvmgo] SVC:")]
        self.assertTrue(svc and done and max(svc) < done[0], run.stderr)
        lr = [l for l in lines if l.startswith("svmgo: progress: iter ")]
        self.assertTrue(lr and all("objective" in l and "violation" in l for l in lr), run.stderr)


@unittest.skipIf(sklearn is None, "numpy, scipy or scikit-learn is not installed")
@unittest.skipUnless(os.path.exists("/proc/self/status"), "needs /proc for the resident set size")
class TestMemory(unittest.TestCase):
    def test_repeated_fits_hold_one_fits_memory(self):
        """Ten SVC(cache_size=200).fit in a fresh process, on digits and on
        5,000 rows of shuttle: the resident set after the tenth is at most
        1.3× what it was after the first (freeing a large trainer returns
        its pages at once; before, digits grew 111 → 375 MiB)."""
        for name, nf, rows in (("digits.train", 64, 1437), ("shuttle.train", 9, 5000)):
            path = os.path.join(DATA, name)
            if not os.path.exists(path):
                if os.environ.get("CI"):
                    self.fail(f"{path} missing under CI")
                continue
            with self.subTest(data=name):
                out = subprocess.run(
                    [sys.executable, "-c", _RSS_SCRIPT, path, str(nf), str(rows)],
                    check=True, stdout=subprocess.PIPE, text=True,
                    env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)),
                ).stdout.split()
                first, last = int(out[0]), int(out[1])
                print(f"{name}: RSS after the first fit {first // 1024} MiB, after the tenth {last // 1024} MiB")
                self.assertLessEqual(last, 1.3 * first)


@unittest.skipIf(sklearn is None, "numpy, scipy or scikit-learn is not installed")
class TestPartialFit(unittest.TestCase):
    def test_debdesc_ten_batches(self):
        """partial_fit over 10 batches of debdesc_bin ends within 0.3 points
        of one fit on all rows, with less solver work in all than 10 cold
        fits on the same growing prefixes (printed: the figures). The work
        is the rows the solver read (fit_result_["up"]: a coordinate step of
        dual coordinate descent, or a row of a function, gradient or
        Hessian product of the Newton method, which the C ABI trainer uses
        for -s 1)."""
        X, y = load("debdesc_bin.train", 9132)
        Xt, yt = load("debdesc_bin.test", 9132)
        X = X.astype(np.float32)
        n = X.shape[0]
        cuts = np.linspace(0, n, 11).astype(int)
        warm = sg.LinearSVC(capacity=n, capacity_nonzeros=X.nnz, random_state=0)
        warm_updates = cold_updates = 0
        warm_cpu = cold_cpu = 0.0
        for k in range(10):
            t = time.process_time()
            warm.partial_fit(X[cuts[k] : cuts[k + 1]], y[cuts[k] : cuts[k + 1]], classes=[-1, 1])
            warm_cpu += time.process_time() - t
            warm_updates += warm.fit_result_["up"]
            t = time.process_time()
            cold = sg.LinearSVC(random_state=0).fit(X[: cuts[k + 1]], y[: cuts[k + 1]])
            cold_cpu += time.process_time() - t
            cold_updates += cold.fit_result_["up"]
        one = cold  # the last cold fit is the one fit on all rows
        acc_warm, acc_one = warm.score(Xt, yt), one.score(Xt, yt)
        print(
            f"\ndebdesc_bin, LinearSVC, 10 batches: accuracy partial_fit {100 * acc_warm:.4f}%, one fit {100 * acc_one:.4f}%; "
            f"rows read by the solver, warm {warm_updates:,} vs 10 cold fits {cold_updates:,} ({warm_updates / cold_updates:.2f}); "
            f"CPU warm {warm_cpu:.2f} s vs cold {cold_cpu:.2f} s"
        )
        self.assertLessEqual(abs(acc_warm - acc_one), 0.003)
        self.assertLess(warm_updates, cold_updates)
        with self.assertRaises(sg.CapacityError):
            warm.partial_fit(X[:1], y[:1])
        self.assertEqual(len(warm._trainer), n)  # the refused batch added nothing

    def test_fitted_attributes_read_at_first_use(self):
        """partial_fit leaves the model file unread (no Model.to_bytes call)
        after the first fit; the fitted attributes read later, after two
        unread fits, are those an estimator given the same batches and read
        after each fit has; pickling reads them too."""
        X, y = load("digits.train", 64)
        X = np.asarray(X.todense(), dtype=np.float32)
        lazy, eager = sg.SVC(capacity=1200, gamma=0.02), sg.SVC(capacity=1200, gamma=0.02)
        calls = []
        to_bytes = svmgo.Model.to_bytes

        def counted(model):
            calls.append(1)
            return to_bytes(model)

        batches = [(0, 1000), (1000, 1010), (1010, 1020)]
        for a, b in batches:
            eager.partial_fit(X[a:b], y[a:b], classes=np.unique(y))
            eager.dual_coef_  # read after each fit
        svmgo.Model.to_bytes = counted
        try:
            for a, b in batches:
                lazy.partial_fit(X[a:b], y[a:b], classes=np.unique(y))
                if a == 0:
                    self.assertEqual(len(calls), 1)  # the first fit reads the file
        finally:
            svmgo.Model.to_bytes = to_bytes
        self.assertEqual(len(calls), 1, "the later partial_fit calls read the model file")
        for name in ("support_vectors_", "dual_coef_", "intercept_", "n_support_", "n_iter_", "fit_status_"):
            np.testing.assert_array_equal(getattr(lazy, name), getattr(eager, name), err_msg=name)
        # Kernel evaluations ("ke") are left out: they count cache misses, and
        # which worker's cache a one-vs-one pair (and its kept columns) used is
        # the scheduler's choice; iterations, objectives and the model are not.
        self.assertEqual(_without_ke(lazy.fit_result_), _without_ke(eager.fit_result_))
        lazy.partial_fit(X[1020:1030], y[1020:1030])
        eager.partial_fit(X[1020:1030], y[1020:1030])
        again = pickle.loads(pickle.dumps(lazy))
        np.testing.assert_array_equal(again.dual_coef_, eager.dual_coef_)
        np.testing.assert_array_equal(again.predict(X[:50]), eager.predict(X[:50]))

    def test_kernel_partial_fit_reaches_fit(self):
        """SVC.partial_fit on digits, 1037 rows then 8 batches of 50 (the
        shape of svmgo watch's stream), ends at fit's decision values, with
        fewer kernel evaluations in the 8 warm retrains than in 8 cold fits
        of the same growing prefixes (printed; with batches of a quarter of
        the rows the warm start saves nothing, the new rows dominate)."""
        X, y = load("digits.train", 64)
        Xt, _ = load("digits.test", 64)
        X, Xt = X.toarray(), Xt.toarray()
        clf = sg.SVC(C=4, gamma=0.02, capacity=len(y), decision_function_shape="ovo")
        cuts = [1037 + 50 * k for k in range(9)]
        self.assertEqual(cuts[-1], len(y))
        clf.partial_fit(X[: cuts[0]], y[: cuts[0]], classes=np.arange(10))
        warm_ke = cold_ke = 0
        for a, b in zip(cuts, cuts[1:]):
            clf.partial_fit(X[a:b], y[a:b])
            warm_ke += clf.fit_result_["ke"]
            ref = sg.SVC(C=4, gamma=0.02, decision_function_shape="ovo").fit(X[:b], y[:b])
            cold_ke += ref.fit_result_["ke"]
        print(f"\ndigits, SVC, 8 batches of 50: kernel evaluations warm {warm_ke:,} vs 8 cold fits {cold_ke:,} ({warm_ke / cold_ke:.2f})")
        self.assertLess(warm_ke, cold_ke)
        self.assertGreaterEqual((clf.predict(Xt) == ref.predict(Xt)).mean(), 0.995)
        np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Xt), atol=5e-3)

    def test_kept_cache_size(self):
        """kept_cache_size (svm-train's -M) keeps the support vectors' kernel
        columns from one partial_fit to the next: on digits, 1200 rows then
        4 batches of 50, the same objective and predictions as without, and
        from the second batch on (the first fills the columns) fewer than
        three quarters of the kernel evaluations (printed: about half)."""
        X, y = load("digits.train", 64)
        X = X.toarray()
        runs = {}
        for kept in (0, 20):
            clf = sg.SVC(gamma=1 / 64, capacity=1400, kept_cache_size=kept)
            clf.partial_fit(X[:1200], y[:1200], classes=np.arange(10))
            ke = []
            for a in range(1200, 1400, 50):
                clf.partial_fit(X[a : a + 50], y[a : a + 50])
                ke.append(clf.fit_result_["ke"])
            runs[kept] = (ke, clf.fit_result_["obj"], clf.predict(X))
        print(f"\ndigits, SVC partial_fit, kernel evaluations per batch: kept_cache_size=0 {runs[0][0]}, =20 {runs[20][0]}")
        self.assertEqual(clf.get_params()["kept_cache_size"], 20)
        self.assertAlmostEqual(runs[20][1], runs[0][1], delta=1e-9 * abs(runs[0][1]))
        np.testing.assert_array_equal(runs[20][2], runs[0][2])
        self.assertLess(sum(runs[20][0][1:]), 0.75 * sum(runs[0][0][1:]))

    def test_forget(self):
        """SVC and LinearSVC forget one partial_fit's rows: the refit equals a
        fit on the other batches' rows (to the tolerance)."""
        X, y = load("digits.train", 64)
        Xt, _ = load("digits.test", 64)
        X, Xt = X.toarray(), Xt.toarray()
        cuts = [0, 600, 700, 900]
        for make in (lambda: sg.SVC(C=4, gamma=0.02, capacity=len(y), decision_function_shape="ovo"), lambda: sg.LinearSVC(C=0.1, tol=1e-5)):
            clf = make()
            for k, (a, b) in enumerate(zip(cuts, cuts[1:])):
                clf.partial_fit(X[a:b], y[a:b], classes=np.arange(10))
                self.assertEqual(clf.last_batch_, k + 1)
            clf.forget(2)
            self.assertEqual(len(clf._trainer), 800)
            keep = np.r_[0:600, 700:900]
            ref = make().fit(X[keep], y[keep])
            self.assertGreaterEqual((clf.predict(Xt) == ref.predict(Xt)).mean(), 0.99)
            np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Xt), atol=2e-2)
        with self.assertRaisesRegex(ValueError, "batch 5"):
            clf.forget(5)
        with self.assertRaisesRegex(ValueError, "holds no rows"):
            pickle.loads(pickle.dumps(clf)).forget(1)

    def test_capacity_error_and_unseen_class(self):
        X = np.array([[0.0, 1], [1, 0], [1, 1], [0, 0]])
        y = np.array([1, 2, 1, 2])
        clf = sg.SVC(capacity=5).partial_fit(X, y)
        with self.assertRaises(sg.CapacityError):
            clf.partial_fit(X[:2], y[:2])
        self.assertEqual(len(clf._trainer), 4)
        with self.assertRaisesRegex(ValueError, "class 3"):
            clf.partial_fit(X[:1], [3])


@unittest.skipIf(sklearn is None, "numpy, scipy or scikit-learn is not installed")
class TestFilesAndInputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        X, y = load("digits.train", 64)
        Xt, yt = load("digits.test", 64)
        cls.Xs, cls.y, cls.Xts, cls.yt = X, y, Xt, yt
        cls.X, cls.Xt = X.toarray(), Xt.toarray()

    def test_float32_rows_are_not_copied(self):
        X32 = np.ascontiguousarray(self.X, dtype=np.float32)
        seen = []
        add = svmgo.Trainer.add

        def spy(trainer, X, y):
            seen.append(X)
            return add(trainer, X, y)

        svmgo.Trainer.add = spy
        try:
            clf = sg.LinearSVC().fit(X32, self.y)
        finally:
            svmgo.Trainer.add = add
        self.assertIs(seen[0], X32)
        np.testing.assert_array_equal(clf.predict(self.Xt.astype(np.float32)), clf.predict(self.Xt))

    def test_sparse_input_as_dense(self):
        a = sg.SVC().fit(self.Xs, self.y)
        b = sg.SVC().fit(self.X, self.y)
        self.assertTrue(sp.issparse(a.support_vectors_))
        np.testing.assert_array_equal(a.predict(self.Xts), b.predict(self.Xt))
        np.testing.assert_allclose(a.decision_function(self.Xts), b.decision_function(self.Xt), atol=1e-9)

    def test_pickle_save_load_and_svmgo_predict(self):
        clf = sg.SVC(C=4).fit(self.X, self.y)
        want = clf.predict(self.Xt)
        data = pickle.dumps(clf)
        self.assertIn(clf._model.to_bytes(), data)
        np.testing.assert_array_equal(pickle.loads(data).predict(self.Xt), want)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "digits.svmgo")
            clf.save(path)
            back = sg.SVC.load(path)
            self.assertEqual(back.C, 4.0)
            np.testing.assert_array_equal(back.predict(self.Xt), want)
            np.testing.assert_allclose(back.decision_function(self.Xt), clf.decision_function(self.Xt))
            out = os.path.join(d, "out")
            subprocess.run(
                [sg._svmgo_command(), "predict", os.path.join(DATA, "digits.test"), path, out],
                check=True,
                stdout=subprocess.PIPE,
            )
            np.testing.assert_array_equal(np.loadtxt(out), want)
            lin = sg.LinearSVC().fit(self.X, self.y)
            lin.save(path)
            np.testing.assert_allclose(sg.LinearSVC.load(path).coef_, lin.coef_)

    def test_quantize(self):
        clf = sg.SVC().fit(self.X, self.y)
        q = clf.quantize(8)
        self.assertEqual(q.quantized_bits_, 8)
        self.assertTrue(q._model.quantized)
        self.assertGreaterEqual((q.predict(self.Xt) == clf.predict(self.Xt)).mean(), 0.99)
        self.assertFalse(clf._model.quantized)
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(q)).predict(self.Xt), q.predict(self.Xt))
        with tempfile.TemporaryDirectory() as d, self.assertRaisesRegex(ValueError, "quantized"):
            path = os.path.join(d, "q8.svmgo")
            q._model.save(path)
            sg.SVC.load(path)
        # The measurement on held-out rows, and the guard.
        q = clf.quantize(8, self.Xt, self.yt)
        c = q.quantization_check_
        self.assertEqual(c["rows"], len(self.yt))
        self.assertEqual(c["predictions_changed"], int(np.sum(q.predict(self.Xt) != clf.predict(self.Xt))))
        self.assertAlmostEqual(c["score_float"], clf.score(self.Xt, self.yt))
        self.assertAlmostEqual(c["score_loss"], 100 * (clf.score(self.Xt, self.yt) - q.score(self.Xt, self.yt)))
        self.assertGreater(c["max_decision_change"], 0)
        with self.assertRaisesRegex(ValueError, "more than max_loss"):
            clf.quantize(8, self.Xt, self.yt, max_loss=c["score_loss"] - 1)
        with self.assertRaisesRegex(ValueError, "needs"):
            clf.quantize(8, max_loss=1)

    def test_string_classes(self):
        names = np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])
        ys = names[self.y.astype(int)]
        a = sg.LinearSVC().fit(self.X, ys)
        b = sg.LinearSVC().fit(self.X, self.y)
        np.testing.assert_array_equal(a.predict(self.Xt), names[b.predict(self.Xt).astype(int)])
        with tempfile.TemporaryDirectory() as d, self.assertRaisesRegex(ValueError, "not integers"):
            a.save(os.path.join(d, "m"))

    def test_bad_parameters_raise_value_error(self):
        for est in (
            sg.SVC(kernel="precomputed"),
            sg.SVC(C=0),
            sg.SVC(gamma=-1),
            sg.LinearSVC(penalty="l1"),
            sg.LinearSVC(loss="hinge", dual=False),
            sg.LinearSVR(dual=False),
            sg.LogisticRegression(dual="auto", solver="liblinear"),
            sg.LogisticRegression(solver="newton"),
            sg.LogisticRegression(penalty="l1"),
            sg.LogisticRegression(penalty="elasticnet", l1_ratio=0.5, solver="saga"),
            sg.LogisticRegression(multi_class="multinomial", solver="liblinear"),
            sg.OneClassSVM(nu=2),
            sg.NuSVC(nu=0),
            sg.NuSVR(nu=1.5),
            sg.NuSVR(C=0),
        ):
            with self.subTest(est=repr(est)), self.assertRaises(ValueError):
                est.fit(self.X[:50], self.y[:50])


@unittest.skipIf(sklearn is None, "numpy, scipy or scikit-learn is not installed")
class TestSampleWeight(unittest.TestCase):
    """sample_weight: a row of weight k trains as the row given k times, and
    the kernel SVMs agree with scikit-learn's own (its LIBSVM has instance
    weights)."""

    @classmethod
    def setUpClass(cls):
        X, y = load("heart_scale", 13)
        cls.X, cls.y = X.toarray(), y
        cls.w = np.array([1 + (i % 3) for i in range(len(y))], dtype=np.float64)
        rep = cls.w.astype(int)
        cls.Xd, cls.yd = np.repeat(cls.X, rep, axis=0), np.repeat(cls.y, rep)

    def check_dup(self, make, y=True, tol=1e-4):
        a = make().fit(self.X, self.y if y else None, sample_weight=self.w)
        b = make().fit(self.Xd, self.yd if y else None)
        da, db = a.decision_function(self.X) if hasattr(a, "decision_function") else a.predict(self.X), None
        db = b.decision_function(self.X) if hasattr(b, "decision_function") else b.predict(self.X)
        np.testing.assert_allclose(da, db, rtol=tol, atol=tol)
        c = make().fit(self.X, self.y if y else None)
        dc = c.decision_function(self.X) if hasattr(c, "decision_function") else c.predict(self.X)
        self.assertGreater(np.max(np.abs(dc - db)), 100 * tol, "the weights changed nothing")
        return a

    def test_weight_is_duplication(self):
        self.check_dup(lambda: sg.SVC(C=2, gamma=0.1, tol=1e-7))
        self.check_dup(lambda: sg.SVR(C=2, gamma=0.1, epsilon=0.2, tol=1e-7))
        self.check_dup(lambda: sg.OneClassSVM(nu=0.3, gamma=0.1, tol=1e-7), y=False)
        self.check_dup(lambda: sg.NuSVC(nu=0.4, gamma=0.1, tol=1e-7))
        self.check_dup(lambda: sg.NuSVR(nu=0.4, C=2, gamma=0.1, tol=1e-7))
        self.check_dup(lambda: sg.LinearSVC(C=0.5, tol=1e-6, max_iter=100000))
        self.check_dup(lambda: sg.LinearSVC(C=0.5, loss="hinge", tol=1e-6, max_iter=100000))
        self.check_dup(lambda: sg.LogisticRegression(C=0.5, tol=1e-6, max_iter=10000))
        self.check_dup(lambda: sg.LogisticRegression(C=0.5, solver="liblinear", tol=1e-6, max_iter=10000))
        self.check_dup(lambda: sg.LinearSVR(C=0.05, epsilon=0.2, tol=1e-10, max_iter=1000000))

    def test_matches_scikit_learn(self):
        for ours, theirs in [
            (sg.SVC(C=2, gamma=0.1, tol=1e-7), sk.SVC(C=2, gamma=0.1, tol=1e-7)),
            (sg.SVR(C=2, gamma=0.1, epsilon=0.2, tol=1e-7), sk.SVR(C=2, gamma=0.1, epsilon=0.2, tol=1e-7)),
            (sg.NuSVC(nu=0.4, gamma=0.1, tol=1e-7), sk.NuSVC(nu=0.4, gamma=0.1, tol=1e-7)),
            (sg.NuSVR(nu=0.4, C=2, gamma=0.1, tol=1e-7), sk.NuSVR(nu=0.4, C=2, gamma=0.1, tol=1e-7)),
        ]:
            ours.fit(self.X, self.y, sample_weight=self.w)
            theirs.fit(self.X, self.y, sample_weight=self.w)
            f = "decision_function" if hasattr(theirs, "decision_function") else "predict"
            np.testing.assert_allclose(getattr(ours, f)(self.X), getattr(theirs, f)(self.X), rtol=1e-4, atol=1e-4)

    def test_zero_ones_and_errors(self):
        w = np.ones(len(self.y))
        w[:10] = 0
        a = sg.SVC(gamma=0.1).fit(self.X, self.y, sample_weight=w)
        b = sg.SVC(gamma=0.1).fit(self.X[10:], self.y[10:])
        np.testing.assert_array_equal(a.decision_function(self.X), b.decision_function(self.X))
        a = sg.LinearSVC().fit(self.X, self.y, sample_weight=np.ones(len(self.y)))
        b = sg.LinearSVC().fit(self.X, self.y)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        for bad in (-np.ones(len(self.y)), np.full(len(self.y), np.nan), np.ones(3)):
            with self.assertRaises(ValueError):
                sg.SVC().fit(self.X, self.y, sample_weight=bad)

    def test_partial_fit_weights(self):
        half = len(self.y) // 2
        a = sg.SVC(C=2, gamma=0.1, tol=1e-7)
        a.partial_fit(self.X[:half], self.y[:half], classes=[-1, 1], sample_weight=self.w[:half])
        a.partial_fit(self.X[half:], self.y[half:], sample_weight=self.w[half:])
        b = sg.SVC(C=2, gamma=0.1, tol=1e-7).fit(self.X, self.y, sample_weight=self.w)
        np.testing.assert_allclose(a.decision_function(self.X), b.decision_function(self.X), rtol=1e-4, atol=1e-4)

    def test_nu_weights(self):
        """NuSVC and NuSVR: partial_fit with weights reaches fit's model, and
        nu's feasibility counts rows by weight (scikit-learn's does too): 40
        rows against 4 allow nu <= 8/44, against 4 rows of weight 10, 80/80."""
        half = len(self.y) // 2
        for make in (lambda: sg.NuSVC(nu=0.4, gamma=0.1, tol=1e-7), lambda: sg.NuSVR(nu=0.4, C=2, gamma=0.1, tol=1e-7)):
            a = make()
            a.partial_fit(self.X[:half], self.y[:half], sample_weight=self.w[:half], **(
                {"classes": [-1, 1]} if isinstance(a, sg.NuSVC) else {}))
            a.partial_fit(self.X[half:], self.y[half:], sample_weight=self.w[half:])
            b = make().fit(self.X, self.y, sample_weight=self.w)
            f = "decision_function" if isinstance(a, sg.NuSVC) else "predict"
            np.testing.assert_allclose(getattr(a, f)(self.X), getattr(b, f)(self.X), rtol=1e-4, atol=1e-4)
        yb = np.r_[np.zeros(40), np.ones(4)]
        Xb = np.random.RandomState(0).randn(44, 3)
        wb = np.r_[np.ones(40), np.full(4, 10.0)]
        for est in (sg.NuSVC(nu=0.5), sk.NuSVC(nu=0.5)):
            with self.subTest(est=type(est).__module__):
                est.fit(Xb, yb, sample_weight=wb)
                with self.assertRaisesRegex(ValueError, "specified nu is infeasible"):
                    est.fit(Xb, yb)
        with self.assertRaisesRegex(ValueError, "specified nu is infeasible"):
            sg.NuSVC(nu=0.5).fit(Xb, yb, sample_weight=np.r_[np.full(40, 10.0), np.ones(4)])

    def test_trainer_weights(self):
        t = svmgo.Trainer("-s 3 -e 0.0001", capacity_rows=4, num_features=2)
        t.add([[1, 0], [0, 1]], [1, -1], weights=[2, 0.5])
        with self.assertRaises(svmgo.Error) as e:
            t.set_weights(1, [-1])
        self.assertEqual(e.exception.code, svmgo.Status.E_INVALID_ARGUMENT)
        with self.assertRaises(svmgo.Error) as e:
            t.set_weights(0, [float("nan")])
        self.assertEqual(e.exception.code, svmgo.Status.E_NOT_FINITE)
        t.fit()


if __name__ == "__main__":
    unittest.main()
