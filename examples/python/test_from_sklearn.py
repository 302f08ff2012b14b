"""from_sklearn and to_onnx (issue 26): a fitted scikit-learn SVC, NuSVC,
SVR, NuSVR, OneClassSVM, LinearSVC, LinearSVR and liblinear
LogisticRegression, turned into this package's estimator, predicts on
digits what scikit-learn predicts (labels equal, bar rows within float32
rounding of a tie, which are counted; regression values within 1e-4
relative: the kernel rows are float32, and an RBF SVR with C=10 sums
hundreds of them with coefficients up to C); the result's to_onnx file loads back (svmgo.Model.load reads
ONNX by content) and predicts the same.
"""

import os
import tempfile
import unittest

try:
    import numpy as np
    from sklearn import linear_model, svm
    from sklearn.datasets import load_svmlight_file
except ImportError:  # the suite is skipped below
    np = None

import svmgo

if np is not None:
    import svmgo.sklearn as sg

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("SVMGO_TEST_DATA") or os.path.join(HERE, os.pardir, os.pardir, os.pardir, "shared", "data")


def digits():
    path = os.path.join(DATA, "digits.train")
    if not os.path.exists(path):
        if os.environ.get("CI"):
            raise FileNotFoundError(path)
        raise unittest.SkipTest(f"{path} missing (CI unset)")
    xtr, ytr = load_svmlight_file(path, n_features=64)
    xte, yte = load_svmlight_file(os.path.join(DATA, "digits.test"), n_features=64)
    return xtr.toarray(), ytr.astype(int), xte.toarray(), yte.astype(int)


@unittest.skipIf(np is None, "numpy, scipy or scikit-learn is not installed")
class TestFromSklearn(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.xtr, cls.ytr, cls.xte, cls.yte = digits()

    def check(self, est, regression=False, y=None):
        sk = est.fit(self.xtr, self.ytr if y is None else y)
        ours = sg.from_sklearn(sk)
        want, got = sk.predict(self.xte), ours.predict(self.xte)
        if regression:
            rel = np.max(np.abs(got - want) / np.maximum(1, np.abs(want)))
            self.assertLess(rel, 1e-4, f"{type(est).__name__}: values differ by {rel:.2g} relative")
        else:
            # Rows within float32 rounding of a tie may differ: at most one in 360.
            diff = np.count_nonzero(got != want)
            self.assertLessEqual(diff, 1, f"{type(est).__name__}: {diff} of {len(want)} labels differ")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.onnx")
            ours.to_onnx(path)
            back = svmgo.Model.load(path)
            x32 = np.ascontiguousarray(self.xte, dtype=np.float32)
            direct = np.asarray(back.predict(x32))
            mine = np.asarray(ours._model.predict(x32))
            if regression or isinstance(est, svm.OneClassSVM):
                # ONNX rounds the coefficients to float32.
                np.testing.assert_allclose(direct, mine, rtol=1e-4, atol=1e-4)
            else:
                self.assertLessEqual(np.count_nonzero(direct != mine), 1)
        return ours

    def test_svc(self):
        self.check(svm.SVC(C=4, gamma=0.02))
        self.check(svm.SVC(kernel="poly", degree=2, coef0=1))
        ours = self.check(svm.SVC(probability=True, random_state=0))
        self.assertEqual(ours.predict_proba(self.xte[:5]).shape, (5, 10))

    def test_svc_binary(self):
        b = self.ytr < 5
        sk = svm.SVC(kernel="linear", C=0.1).fit(self.xtr, b.astype(int))
        np.testing.assert_array_equal(sg.from_sklearn(sk).predict(self.xte), sk.predict(self.xte))

    def test_nusvc(self):
        self.check(svm.NuSVC(nu=0.1, kernel="sigmoid", gamma=0.01))

    def test_svr(self):
        self.check(svm.SVR(C=10, gamma=0.05), regression=True, y=self.ytr.astype(float))
        self.check(svm.NuSVR(nu=0.3), regression=True, y=self.ytr.astype(float))

    def test_oneclass(self):
        sk = svm.OneClassSVM(nu=0.1, gamma=0.05).fit(self.xtr)
        ours = sg.from_sklearn(sk)
        self.assertLessEqual(np.count_nonzero(ours.predict(self.xte) != sk.predict(self.xte)), 1)

    def test_linear(self):
        self.check(svm.LinearSVC(C=0.1, max_iter=20000, random_state=0))
        self.check(svm.LinearSVC(C=0.1, loss="hinge", max_iter=20000, random_state=0))
        self.check(svm.LinearSVR(C=1, max_iter=20000, random_state=0), regression=True, y=self.ytr.astype(float))
        ours = self.check(linear_model.LogisticRegression(solver="liblinear", C=0.5))
        np.testing.assert_allclose(
            ours.predict_proba(self.xte),
            linear_model.LogisticRegression(solver="liblinear", C=0.5).fit(self.xtr, self.ytr).predict_proba(self.xte),
            atol=1e-5,
        )

    def test_refused(self):
        with self.assertRaisesRegex(ValueError, "solver='liblinear'"):
            sg.from_sklearn(linear_model.LogisticRegression(max_iter=2000).fit(self.xtr, self.ytr))
        with self.assertRaisesRegex(ValueError, "is not one of"):
            sg.from_sklearn(linear_model.Ridge().fit(self.xtr, self.ytr))


if __name__ == "__main__":
    unittest.main()
