"""LIBSVM and LIBLINEAR text models of fitted scikit-learn SVMs.

``svmgo.sklearn.from_sklearn`` writes one of these and imports it with
``svmgo import`` (which reads svm-train's and LIBLINEAR train's files):
the text formats carry the coefficients in full (17 significant digits),
where an ONNX graph would round them to float32. The support vectors and
weights become float32 in the imported model, as every libsvmgo model
stores them.
"""

from typing import List, Tuple

import numpy as np


def _g(v) -> str:
    return repr(float(v))


def _ints(v) -> List[int]:
    out = []
    for c in np.asarray(v).ravel():
        if float(c) != int(c) or not -(2**31) <= int(c) < 2**31:
            raise ValueError(f"from_sklearn: class label {c!r} is not an int32 integer")
        out.append(int(c))
    return out


def libsvm_text(est, svm_type: str) -> str:
    """svm-train's model file for a fitted SVC, NuSVC, SVR, NuSVR or
    OneClassSVM: libsvm's own arrays (``_dual_coef_``; ρ = −``_intercept_``,
    before scikit-learn negates the binary classifiers' public ones)."""
    kernel = est.kernel
    if kernel not in ("linear", "poly", "rbf", "sigmoid"):
        raise ValueError(f"from_sklearn: kernel={kernel!r}: libsvmgo has linear, poly, rbf and sigmoid")
    sv = np.asarray(est.support_vectors_, dtype=np.float64)
    if sv.ndim != 2:
        raise ValueError("from_sklearn: sparse support vectors: fit the estimator on dense rows")
    coef = np.asarray(est._dual_coef_, dtype=np.float64)
    rho = -np.asarray(est._intercept_, dtype=np.float64)
    lines = [f"svm_type {svm_type}", f"kernel_type {'polynomial' if kernel == 'poly' else kernel}"]
    if kernel == "poly":
        lines.append(f"degree {int(est.degree)}")
    if kernel != "linear":
        lines.append(f"gamma {_g(est._gamma)}")
    if kernel in ("poly", "sigmoid"):
        lines.append(f"coef0 {_g(est.coef0)}")
    classifier = svm_type in ("c_svc", "nu_svc")
    n_class = len(est.classes_) if classifier else 2
    lines += [f"nr_class {n_class}", f"total_sv {sv.shape[0]}", "rho " + " ".join(map(_g, rho))]
    if classifier:
        lines.append("label " + " ".join(map(str, _ints(est.classes_))))
        if getattr(est, "probability", False) and len(getattr(est, "probA_", ())):
            lines.append("probA " + " ".join(map(_g, est.probA_)))
            lines.append("probB " + " ".join(map(_g, est.probB_)))
        lines.append("nr_sv " + " ".join(str(int(n)) for n in est.n_support_))
    lines.append("SV")
    for i in range(sv.shape[0]):
        feats = " ".join(f"{j + 1}:{_g(np.float32(v))}" for j, v in enumerate(sv[i]) if v != 0)
        lines.append(" ".join(_g(c) for c in coef[:, i]) + " " + feats)
    return "\n".join(lines) + "\n"


# LIBLINEAR's solver names by (estimator kind, penalty, loss, dual).
def _liblinear_solver(est, kind: str) -> str:
    if kind == "LogisticRegression":
        if est.solver != "liblinear":
            raise ValueError(
                f"from_sklearn: LogisticRegression(solver={est.solver!r}): only solver='liblinear' is a LIBLINEAR model"
            )
        return "L1R_LR" if est.penalty == "l1" else "L2R_LR"
    if kind == "LinearSVC":
        if est.multi_class == "crammer_singer":
            raise ValueError("from_sklearn: LinearSVC(multi_class='crammer_singer') is not supported")
        if est.penalty == "l1":
            return "L1R_L2LOSS_SVC"
        return "L2R_L1LOSS_SVC_DUAL" if est.loss == "hinge" else "L2R_L2LOSS_SVC_DUAL"
    return "L2R_L1LOSS_SVR_DUAL" if est.loss == "epsilon_insensitive" else "L2R_L2LOSS_SVR_DUAL"


def liblinear_text(est, kind: str) -> str:
    """LIBLINEAR train's model file for a fitted LinearSVC, LinearSVR or
    liblinear LogisticRegression: the weights with the intercept as the
    bias row (bias 1). A binary model's one row scores scikit-learn's
    second class positive, LIBLINEAR's first label: the labels are written
    in reverse."""
    solver = _liblinear_solver(est, kind)
    coef = np.atleast_2d(np.asarray(est.coef_, dtype=np.float64))
    icpt = np.broadcast_to(np.asarray(est.intercept_, dtype=np.float64), (coef.shape[0],))
    bias = 1.0 if est.fit_intercept else -1.0
    lines = [f"solver_type {solver}"]
    if kind == "LinearSVR":
        lines.append("nr_class 2")
    else:
        labels = _ints(est.classes_)
        if len(labels) == 2:
            labels = labels[::-1]
        lines += [f"nr_class {len(labels)}", "label " + " ".join(map(str, labels))]
    lines += [f"nr_feature {coef.shape[1]}", f"bias {_g(bias)}", "w"]
    for j in range(coef.shape[1]):
        lines.append(" ".join(_g(v) for v in coef[:, j]))
    if bias >= 0:
        lines.append(" ".join(_g(v) for v in icpt))
    return "\n".join(lines) + "\n"


def text_model(est) -> Tuple[str, str]:
    """The name of scikit-learn's class of est and the text model of est."""
    kind = type(est).__name__
    kernel = {"SVC": "c_svc", "NuSVC": "nu_svc", "SVR": "epsilon_svr", "NuSVR": "nu_svr", "OneClassSVM": "one_class"}
    if not type(est).__module__.startswith("sklearn."):
        raise ValueError(f"from_sklearn: a {type(est).__module__}.{kind}, not a scikit-learn estimator")
    if kind in kernel:
        return kind, libsvm_text(est, kernel[kind])
    if kind in ("LinearSVC", "LinearSVR", "LogisticRegression"):
        return kind, liblinear_text(est, kind)
    raise ValueError(
        f"from_sklearn: {kind} is not one of SVC, NuSVC, SVR, NuSVR, OneClassSVM, LinearSVC, LinearSVR, LogisticRegression"
    )
