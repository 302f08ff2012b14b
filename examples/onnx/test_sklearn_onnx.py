"""ONNX graphs in skl2onnx's layout, served by svmgo (issue 26).

scikit-learn models are fitted on ../shared/data, written as ONNX-ML graphs
with python3-onnx's helper in the layout skl2onnx (and onnxmltools, for the
one-row binary LinearClassifier) writes, with their output plumbing (ZipMap,
Cast, Identity). Each graph is imported (svmgo import) and predicted with
(svmgo predict, on the imported model and on the .onnx file itself): the
labels must be scikit-learn's, except rows whose decision value is within
float32 rounding of a tie (listed); regression values within 1e-5
relative. The imported model exported again (svmgo export --format onnx),
imported and exported once more gives the same bytes.

Needs Debian's python3-onnx and python3-sklearn (make test-deps-onnx), and
SVMGO_BIN. Run: python3 -m unittest discover -s examples/onnx
"""

import os
import subprocess
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR, LinearSVC, NuSVC, NuSVR, OneClassSVM

SVMGO = os.environ.get("SVMGO_BIN", "svmgo")
DATA = os.environ.get("SVMGO_TEST_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
FEATURES = {"heart_scale": 13, "breast_cancer": 30, "digits": 64, "diabetes": 10}


def load(name, part):
    path = os.path.join(DATA, name if name == "heart_scale" else f"{name}.{part}")
    if not os.path.exists(path):
        if os.environ.get("CI"):
            raise FileNotFoundError(path)
        raise unittest.SkipTest(f"{path} missing (CI unset)")
    x, y = load_svmlight_file(path, n_features=FEATURES[name])
    return np.asarray(x.todense(), dtype=np.float32), y


def f32(v):
    return [float(x) for x in np.asarray(v, dtype=np.float32).ravel()]


def ml_node(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, domain="ai.onnx.ml", name=op, **attrs)


def graph_model(nodes, nf, outputs):
    """A model of nodes reading X [N, nf], with opsets as skl2onnx sets them."""
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, nf])
    g = helper.make_graph(nodes, "sklearn", [x], outputs)
    m = helper.make_model(g, producer_name="skl2onnx-layout",
                          opset_imports=[helper.make_opsetid("", 15), helper.make_opsetid("ai.onnx.ml", 1)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def scaler_node(scaler, out):
    # skl2onnx's StandardScaler: offset = mean_, scale = 1 / scale_.
    return ml_node("Scaler", ["X"], [out], offset=f32(scaler.mean_), scale=f32(1.0 / scaler.scale_))


def classifier_outputs(nodes, n_classes):
    """skl2onnx's plumbing: label through Cast, probabilities through ZipMap."""
    nodes.append(helper.make_node("Cast", ["label0"], ["output_label"], to=TensorProto.INT64, name="Cast"))
    nodes.append(helper.make_node("ZipMap", ["probabilities"], ["output_probability"], domain="ai.onnx.ml",
                                  name="ZipMap", classlabels_int64s=list(range(n_classes))))
    seq_of_maps = onnx.TypeProto()
    seq_of_maps.sequence_type.elem_type.map_type.key_type = TensorProto.INT64
    seq_of_maps.sequence_type.elem_type.map_type.value_type.tensor_type.elem_type = TensorProto.FLOAT
    return [helper.make_tensor_value_info("output_label", TensorProto.INT64, [None]),
            helper.make_value_info("output_probability", seq_of_maps)]


def svm_classifier(est, inp, nodes):
    coef, rho = est.dual_coef_, est.intercept_
    if len(est.classes_) == 2:
        # scikit-learn's public binary attributes are libsvm's negated.
        coef, rho = -coef, -rho
    attrs = dict(classlabels_ints=[int(c) for c in est.classes_], coefficients=f32(coef),
                 kernel_params=f32([est._gamma, est.coef0, est.degree]), kernel_type=est.kernel.upper(),
                 post_transform="NONE", rho=f32(rho), support_vectors=f32(est.support_vectors_),
                 vectors_per_class=[int(n) for n in est.n_support_])
    if getattr(est, "probability", False):
        attrs.update(prob_a=f32(est.probA_), prob_b=f32(est.probB_))
    nodes.append(ml_node("SVMClassifier", [inp], ["label0", "probabilities"], **attrs))


def svm_regressor(est, inp, nodes, one_class=0):
    nodes.append(ml_node("SVMRegressor", [inp], ["variable"], coefficients=f32(est.dual_coef_),
                         kernel_params=f32([est._gamma, est.coef0, est.degree]), kernel_type=est.kernel.upper(),
                         n_supports=len(est.support_vectors_), one_class=one_class, post_transform="NONE",
                         rho=f32(est.intercept_), support_vectors=f32(est.support_vectors_)))


def linear_classifier(est, inp, nodes, one_row=False):
    coef, b = est.coef_, est.intercept_
    post = "NONE"
    if isinstance(est, LogisticRegression):
        post = "SOFTMAX" if est.multi_class == "multinomial" or (
            est.multi_class == "auto" and est.solver != "liblinear" and len(est.classes_) > 2) else "LOGISTIC"
    if len(est.classes_) == 2 and not one_row:
        # skl2onnx: the binary model's row w written as −w and w.
        coef, b = np.vstack([-coef, coef]), np.concatenate([-b, b])
    out = "probabilities" if post != "LOGISTIC" or len(est.classes_) == 2 else "raw"
    nodes.append(ml_node("LinearClassifier", [inp], ["label0", out], classlabels_ints=[int(c) for c in est.classes_],
                         coefficients=f32(coef), intercepts=f32(b), multi_class=0, post_transform=post))
    if out == "raw":
        nodes.append(ml_node("Normalizer", ["raw"], ["probabilities"], norm="L1"))


def build(est, nf):
    """The ONNX model of est (an estimator or a StandardScaler pipeline)."""
    nodes, inp = [], "X"
    if hasattr(est, "steps"):
        nodes.append(scaler_node(est.steps[0][1], "scaled"))
        inp, est = "scaled", est.steps[-1][1]
    if isinstance(est, (SVC, NuSVC)):
        svm_classifier(est, inp, nodes)
        return graph_model(nodes, nf, classifier_outputs(nodes, len(est.classes_)))
    if isinstance(est, (LinearSVC, LogisticRegression)):
        linear_classifier(est, inp, nodes, one_row=getattr(est, "_one_row", False))
        return graph_model(nodes, nf, classifier_outputs(nodes, len(est.classes_)))
    svm_regressor(est, inp, nodes, one_class=int(isinstance(est, OneClassSVM)))
    nodes.append(helper.make_node("Identity", ["variable"], ["output"], name="Identity"))
    return graph_model(nodes, nf, [helper.make_tensor_value_info("output", TensorProto.FLOAT, [None, 1])])


def run(*args):
    subprocess.run([SVMGO, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def one_row(est):
    est._one_row = True
    return est


CASES = [
    # (name, data set, estimator, regression)
    ("svc-rbf-binary", "breast_cancer", lambda: SVC(kernel="rbf", C=2), False),
    ("svc-linear-binary", "heart_scale", lambda: SVC(kernel="linear", C=0.5), False),
    ("svc-rbf-digits", "digits", lambda: SVC(kernel="rbf", C=4), False),
    ("svc-linear-digits", "digits", lambda: SVC(kernel="linear"), False),
    ("svc-rbf-prob-digits", "digits", lambda: SVC(kernel="rbf", probability=True, random_state=0), False),
    ("nusvc-poly-digits", "digits", lambda: NuSVC(kernel="poly", nu=0.1, degree=2), False),
    ("scaler-svc-rbf-binary", "breast_cancer", lambda: make_pipeline(StandardScaler(), SVC()), False),
    ("scaler-svc-linear-heart", "heart_scale", lambda: make_pipeline(StandardScaler(), SVC(kernel="linear")), False),
    ("svr-rbf", "diabetes", lambda: SVR(kernel="rbf", C=100, gamma=0.5), True),
    ("nusvr-linear", "diabetes", lambda: NuSVR(kernel="linear", C=50), True),
    ("scaler-svr-rbf", "diabetes", lambda: make_pipeline(StandardScaler(), SVR(C=100)), True),
    ("oneclass-rbf", "heart_scale", lambda: OneClassSVM(nu=0.2, gamma=0.1), False),
    ("linearsvc-binary", "breast_cancer", lambda: LinearSVC(C=0.5, max_iter=20000, random_state=0), False),
    ("linearsvc-binary-one-row", "breast_cancer",
     lambda: one_row(LinearSVC(C=0.5, max_iter=20000, random_state=0)), False),
    ("linearsvc-digits", "digits", lambda: LinearSVC(C=0.1, max_iter=20000, random_state=0), False),
    ("lr-liblinear-binary", "breast_cancer", lambda: LogisticRegression(solver="liblinear"), False),
    ("lr-liblinear-digits", "digits", lambda: LogisticRegression(solver="liblinear", C=0.5), False),
    ("lr-multinomial-digits", "digits", lambda: LogisticRegression(max_iter=5000), False),
    ("scaler-lr-binary", "breast_cancer",
     lambda: make_pipeline(StandardScaler(), LogisticRegression(solver="liblinear")), False),
]


def decision_margin(est, x):
    """The smallest |decision value| of each row (inf where none applies)."""
    if hasattr(est, "decision_function"):
        d = np.asarray(est.decision_function(x), dtype=np.float64)
        if d.ndim == 1:
            return np.abs(d)
        if isinstance(est, (SVC, NuSVC)) or (hasattr(est, "steps") and isinstance(est.steps[-1][1], (SVC, NuSVC))):
            return np.full(len(x), np.inf)  # per-pair values are not those of decision_function (ovr)
        top = np.sort(d, axis=1)
        return top[:, -1] - top[:, -2]
    return np.full(len(x), np.inf)


class SklearnONNXTest(unittest.TestCase):
    def test_graphs(self):
        tmp = tempfile.mkdtemp(prefix="svmgo-skl-onnx-")
        lines = []
        for name, ds, make, regression in CASES:
            with self.subTest(name):
                xtr, ytr = load(ds, "train")
                xte, _ = load(ds, "test")
                est = make()
                if isinstance(est, OneClassSVM):
                    est.fit(xtr.astype(np.float64))
                else:
                    est.fit(xtr.astype(np.float64), ytr)
                want = est.predict(xte.astype(np.float64))
                path = os.path.join(tmp, name + ".onnx")
                onnx.save(build(est, xtr.shape[1]), path)
                test = os.path.join(DATA, ds if ds == "heart_scale" else ds + ".test")
                imported, again = os.path.join(tmp, name + ".svmgo"), os.path.join(tmp, name + "-2.svmgo")
                run("import", path, imported)
                for model, out in ((imported, name + ".pred"), (path, name + ".onnx.pred")):
                    run("predict", test, model, os.path.join(tmp, out))
                got = np.loadtxt(os.path.join(tmp, name + ".pred"))
                direct = np.loadtxt(os.path.join(tmp, name + ".onnx.pred"))
                np.testing.assert_array_equal(got, direct, err_msg="predict on the .onnx differs from the import")
                if regression:
                    rel = np.max(np.abs(got - want) / np.maximum(1, np.abs(want)))
                    self.assertLess(rel, 1e-5, f"{name}: values differ from scikit-learn's by {rel:.2g} relative")
                    lines.append(f"{name}: {len(want)} values, largest relative difference {rel:.2g}")
                else:
                    bad = np.nonzero(got != want)[0]
                    margins = decision_margin(est, xte.astype(np.float64))
                    for i in bad:
                        self.assertLess(margins[i], 1e-4, f"{name}: row {i}: svmgo {got[i]}, scikit-learn {want[i]}")
                    lines.append(f"{name}: {len(want)} labels, {len(bad)} differ"
                                 + (f" (float32 near-ties, margins {margins[bad].tolist()})" if len(bad) else ""))
                # export → import → export: byte-identical.
                e1, e2 = os.path.join(tmp, name + "-e1.onnx"), os.path.join(tmp, name + "-e2.onnx")
                run("export", "--format", "onnx", imported, e1)
                run("import", e1, again)
                run("export", "--format", "onnx", again, e2)
                with open(e1, "rb") as a, open(e2, "rb") as b:
                    self.assertEqual(a.read(), b.read(), f"{name}: export → import → export differs")
        print("\n" + "\n".join(lines))


if __name__ == "__main__":
    unittest.main()
