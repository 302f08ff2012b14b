"""scikit-learn estimators trained and run by libsvmgo.

``SVC``, ``SVR``, ``OneClassSVM`` (kernel models, LIBSVM's SMO) and
``LinearSVC``, ``LinearSVR``, ``LogisticRegression`` (linear models,
LIBLINEAR's dual coordinate descent or primal line-search Newton method)
take scikit-learn's parameter names and defaults and give its
``fit``/``predict``/``decision_function``/``predict_proba``/``score`` and
fitted attributes (``classes_``, ``n_features_in_``, ``coef_``,
``intercept_``, ``support_vectors_``, ``support_``, ``dual_coef_``, ``n_support_``,
``n_iter_``), in scikit-learn's class order::

    from svmgo.sklearn import SVC
    clf = SVC(C=4).fit(X, y)          # numpy, float32 used in place, or scipy.sparse
    clf.predict(X_test)

What scikit-learn's own SVMs cannot do, ``partial_fit`` does: it appends rows
to a trainer of fixed capacity (``capacity`` rows, chosen at construction)
and retrains warm from the previous solution's dual variables::

    clf = SVC(C=4, capacity=100_000)
    for X_batch, y_batch in stream:
        clf.partial_fit(X_batch, y_batch, classes=[0, 1])   # CapacityError when full

Also: ``save``/``load`` of libsvmgo model files (which the C ABI, the
``svmgo`` command and ``svmgo watch`` read too), ``quantize()`` (int8 or
int16 models, through the ``svmgo`` command), and pickling through the model
file's bytes.

Where scikit-learn's SVMs differ (``sample_weight`` and ``class_weight``
are supported, as instance weights multiplying each row's C): no ``kernel="precomputed"``
or callable kernels; ``support_`` is found after ``fit`` by matching each
support vector to its row of X (the library keeps the vectors, not their
row numbers; ``partial_fit`` leaves none); ``penalty="l1"`` only where LIBLINEAR has it
(``LinearSVC`` with the squared hinge, primal; ``LogisticRegression``); models store float32, so fitted
attributes are float32 values in float64 arrays. Class labels reach the
library as they are when they are integers (so a saved model predicts them
from C too), otherwise as their index in ``classes_``.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from typing import Any, Dict, List, Optional

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import _ovr_decision_function, check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted

import svmgo
from svmgo import _modelfile

try:  # scikit-learn >= 1.6 has a function; before, a method
    from sklearn.utils.validation import validate_data as _validate_data_fn
except ImportError:  # pragma: no cover - depends on the installed version
    _validate_data_fn = None

__all__ = [
    "SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM", "LinearSVC", "LinearSVR", "LogisticRegression", "CapacityError",
    "from_sklearn",
]

_KERNELS = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3}
_KERNEL_NAMES = {v: k for k, v in _KERNELS.items()}


class CapacityError(ValueError):
    """partial_fit was given more rows (or nonzeros) than the estimator's
    fixed capacity holds; nothing of that batch was added."""


def _validate(est, X, y="no_validation", reset=True, **kw):
    kw.setdefault("accept_sparse", "csr")
    # float64 and float32 are used as they are (float32 without a copy),
    # anything else becomes float64; C order is what the library reads.
    kw.setdefault("dtype", [np.float64, np.float32])
    kw.setdefault("order", "C")
    if _validate_data_fn is not None:
        return _validate_data_fn(est, X, y, reset=reset, **kw)
    return est._validate_data(X, y, reset=reset, **kw)


def _num(v) -> str:
    """A float as the shortest text that reads back the same (an option value)."""
    return repr(float(v))


def _as_value_error(e: svmgo.Error) -> Exception:
    if e.code == svmgo.Status.E_FULL:
        return CapacityError(
            f"{e.message}: construct the estimator with a larger capacity= (rows) or capacity_nonzeros= (sparse rows)"
        )
    return ValueError(f"libsvmgo: {e.message}")


def _svmgo_command() -> str:
    """The svmgo command: bundled in the wheel, $SVMGO_BIN, the repository's
    bin/svmgo, or the one on PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (
        os.path.join(here, "bin", "svmgo"),
        os.environ.get("SVMGO_BIN", ""),
        os.path.normpath(os.path.join(here, os.pardir, os.pardir, os.pardir, "bin", "svmgo")),
    ):
        if path and os.access(path, os.X_OK):
            return path
    found = shutil.which("svmgo")
    if found:
        return found
    raise OSError("the svmgo command was not found (not bundled, SVMGO_BIN unset, none on PATH)")


# scikit-learn's own SVC, NuSVC, SVR, NuSVR, OneClassSVM and LinearSVR mark this check
# as expected to fail, for the same reason: it drops the rows of weight 0
# from a shuffled copy of the data, and a solver stopped at its tolerance
# on rows in another order lands on another point within it (here too;
# sample_weight=ones trains bit for bit as no weights).
_WEIGHTS_XFAIL = {
    "check_sample_weights_invariance": (
        "zero sample_weight is not equivalent to removing samples: the check shuffles the rows, "
        "and the solver's path and stopping point within its tolerance depend on their order"
    )
}


def _sample_weights(X, y, sample_weight):
    """X, y and the weights to give the library: scikit-learn's
    sample_weight checked (one finite, non-negative value a row), rows of
    weight 0 left out (they would contribute nothing), and None when every
    weight is 1 (which trains bit for bit as no weights)."""
    if sample_weight is None:
        return X, y, None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(X.shape[0], float(w))
    if w.shape != (X.shape[0],):
        raise ValueError(f"sample_weight has shape {w.shape}, want ({X.shape[0]},)")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and non-negative")
    keep = w > 0
    if not np.all(keep):
        X = X[keep]
        y = None if y is None else np.asarray(y)[keep]
        w = w[keep]
    if np.all(w == 1):
        return X, y, None
    return X, y, w


class _SVMBase(BaseEstimator):
    """What every estimator shares: the trainer, the model, the fitted
    attributes read from the model file, pickling, save/load/quantize."""

    _kernel_syntax = True  # svm-train's options, else LIBLINEAR's
    _is_classifier = False
    _unsupervised = False
    # The models an estimator holds: their kind ("kernel" or "linear",
    # float or quantized, scaled or not) and LIBSVM -s types or LIBLINEAR
    # solvers (body keys "st" and "s").
    _model_kind = "kernel"
    _model_types = frozenset()

    # ---- options --------------------------------------------------------------

    def _seed(self) -> int:
        return int(check_random_state(getattr(self, "random_state", None)).randint(np.iinfo(np.int32).max))

    def _gamma_of(self, X) -> float:
        g = self.gamma
        if isinstance(g, str):
            if g == "scale":
                if sp.issparse(X):
                    var = X.multiply(X).mean() - X.mean() ** 2
                else:
                    var = X.var()
                return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
            if g == "auto":
                return 1.0 / X.shape[1]
            raise ValueError(f"gamma={g!r}: want 'scale', 'auto' or a positive number")
        if not g > 0:
            raise ValueError(f"gamma={g!r}: want 'scale', 'auto' or a positive number")
        return float(g)

    def _kernel_options(self, X) -> List[str]:
        if not isinstance(self.kernel, str) or self.kernel not in _KERNELS:
            raise ValueError(
                f"kernel={self.kernel!r}: libsvmgo has the kernels {sorted(_KERNELS)} "
                "(no 'precomputed' or callable kernels)"
            )
        if self.max_iter is None or (self.max_iter <= 0 and self.max_iter != -1):
            raise ValueError(f"max_iter={self.max_iter!r}: want -1 (no limit) or a positive number")
        self._gamma = self._gamma_of(X)
        return [
            "-t", str(_KERNELS[self.kernel]),
            "-d", str(int(self.degree)),
            "-g", _num(self._gamma),
            "-r", _num(self.coef0),
            "-e", _num(self.tol),
            "-m", _num(self.cache_size),
            *([] if self.kept_cache_size is None else ["-M", _num(self.kept_cache_size)]),
            "-h", "1" if self.shrinking else "0",
            "-iter", str(self.max_iter if self.max_iter > 0 else 0),
        ]

    def _options(self, X, y) -> List[str]:
        raise NotImplementedError

    # ---- labels ---------------------------------------------------------------

    def _encode_classes(self, classes) -> None:
        """Sets classes_ and the labels the library sees for them."""
        classes = np.asarray(classes)
        self.classes_ = classes
        self.class_weight_ = np.ones(classes.size)  # _weights_options sets given ones
        integral = classes.dtype.kind in "iu" or (
            classes.dtype.kind == "f" and np.all(np.isfinite(classes)) and np.all(classes == np.round(classes))
        )
        self._labels_encoded = not (integral and classes.size and classes.min() >= -(2**31) and classes.max() < 2**31)
        if self._labels_encoded:
            self._lib_labels = np.arange(classes.size, dtype=np.int64)
        else:
            self._lib_labels = classes.astype(np.int64)

    def _lib_y(self, y) -> np.ndarray:
        """y as the labels the library trains with."""
        if not self._is_classifier:
            return np.ascontiguousarray(y, dtype=np.float64)
        y = np.asarray(y)
        idx = np.searchsorted(self.classes_, y)
        idx = np.clip(idx, 0, len(self.classes_) - 1)
        unseen = self.classes_[idx] != y
        if np.any(unseen):
            bad = np.asarray(y)[unseen][0]
            raise ValueError(f"y holds the class {bad!r}, not among classes_ {list(self.classes_)} given at the first partial_fit")
        return self._lib_labels[idx].astype(np.float64)

    def _weights_options(self, y) -> List[str]:
        if not self._is_classifier or self.class_weight is None:
            return []
        if isinstance(self.class_weight, str):
            if self.class_weight != "balanced":
                raise ValueError(f"class_weight={self.class_weight!r}: want a dict, 'balanced' or None")
            w = compute_class_weight("balanced", classes=self.classes_, y=y)
        else:
            w = np.array([float(self.class_weight.get(c, 1.0)) for c in self.classes_])
        self.class_weight_ = w
        opts = []
        for lab, wc in zip(self._lib_labels, w):
            if wc != 1.0:
                opts += [f"-w{int(lab)}", _num(wc)]
        return opts

    # ---- fitting --------------------------------------------------------------

    def _check_y(self, X, y):
        if self._is_classifier:
            check_classification_targets(y)
        elif y is not None and not np.issubdtype(np.asarray(y).dtype, np.number):
            y = np.asarray(y, dtype=np.float64)
        return y

    def _validate_fit(self, X, y, reset):
        if self._unsupervised:  # OneClassSVM
            X = _validate(self, X, reset=reset)
            return X, np.ones(X.shape[0])
        X, y = _validate(self, X, y, reset=reset, y_numeric=not self._is_classifier)
        return X, self._check_y(X, y)

    def _new_trainer(self, X, y, rows: int, nonzeros: int):
        opts = self._options(X, y)
        if getattr(self, "verbose", False):
            opts = opts + ["--progress"]  # the library prints as the solvers run
        opts = " ".join(opts)
        try:
            return svmgo.Trainer(opts, capacity_rows=rows, num_features=X.shape[1], capacity_nonzeros=nonzeros)
        except svmgo.Error as e:
            raise _as_value_error(e) from None

    def _add_and_fit(self, trainer, X, y, weights=None, kept=""):
        """Adds the rows X, y (with weights, already checked by
        _sample_weights) and fits. A failed add adds nothing; a failed fit
        keeps the rows, and says so with kept (partial_fit's note)."""
        self._fit_sparse = sp.issparse(X)
        try:
            if weights is None:
                batch = trainer.add(X, self._lib_y(y))
            else:
                batch = trainer.add(X, self._lib_y(y), weights=weights)
        except svmgo.Error as e:
            raise _as_value_error(e) from None
        try:
            model = trainer.fit()
        except svmgo.Error as e:
            err = _as_value_error(e)
            if kept:
                err = type(err)(f"{err} ({kept})")
            raise err from None
        self._set_model(model, trainer)
        self.last_batch_ = batch
        return self

    def forget(self, batch: int):
        """Forgets the rows one fit or partial_fit call added: ``batch`` is
        that call's ``last_batch_`` (1 for the fit, or the first
        partial_fit, 2 for the next partial_fit, ...). The rows leave with
        their dual variables and the estimator is refitted warm from the
        rows that remain, to their optimum. Returns self."""
        if getattr(self, "_trainer", None) is None:
            raise ValueError("forget: this estimator holds no rows (it was not fitted here, or was unpickled or loaded)")
        try:
            self._trainer.forget(batch)
            model = self._trainer.fit()
        except svmgo.Error as e:
            raise _as_value_error(e) from None
        self._set_model(model, self._trainer)
        return self

    def _capacities(self, X):
        """Rows and nonzeros of a new trainer whose first batch is X."""
        n = X.shape[0]
        rows = 2 * n if self.capacity is None else int(self.capacity)
        if n > rows:
            raise CapacityError(f"{n} rows, more than capacity={rows}")
        nonzeros = 0
        if sp.issparse(X):
            if self.capacity_nonzeros is not None:
                nonzeros = int(self.capacity_nonzeros)
            else:
                nonzeros = max(1, int(np.ceil(2 * rows * X.nnz / max(n, 1))))
        return rows, nonzeros

    def _fit(self, X, y, sample_weight=None):
        X, y = self._validate_fit(X, y, reset=True)
        # Rows of weight 0 leave before anything is derived from the rows
        # (classes, gamma='scale', the solver choice of dual='auto').
        n, given = X.shape[0], sample_weight
        X, y, sample_weight = _sample_weights(X, y, sample_weight)
        # Each row's index in the caller's X (rows of weight 0 left out).
        rows = np.arange(n) if X.shape[0] == n else np.flatnonzero(np.broadcast_to(np.asarray(given, float), (n,)) > 0)
        if self._is_classifier:
            self._encode_classes(np.unique(y))
            if len(self.classes_) < 2:
                raise ValueError(
                    f"The number of classes has to be greater than one; got {len(self.classes_)} class"
                )
        self._trainer = None
        trainer = self._new_trainer(X, y, *self._capacities(X))
        self._add_and_fit(trainer, X, y, sample_weight)
        self._after_fit(X, y, rows)
        # The rows stay in the library, for partial_fit to add to.
        self._trainer = trainer
        return self

    def _after_fit(self, X, y, rows) -> None:
        """Sets what only the rows fitted tell (support_ of the kernel
        estimators); rows[i] is row i's index in the caller's X."""

    def _partial_fit(self, X, y, classes=None, sample_weight=None):
        # The first call makes the trainer; one whose fit failed (a batch of
        # one class) keeps it and its rows, which the next call adds to.
        first = getattr(self, "_trainer", None) is None
        if first and hasattr(self, "_model"):
            raise ValueError(
                "partial_fit: this estimator holds no rows to add to (it was unpickled or loaded): "
                "fit it, or start from a new estimator"
            )
        X, y = self._validate_fit(X, y, reset=first)
        X, y, sample_weight = _sample_weights(X, y, sample_weight)
        # support_ indexes the rows of one fit: partial_fit's span batches.
        self.__dict__.pop("support_", None)
        if first:
            if self._is_classifier:
                self._encode_classes(np.unique(y if classes is None else classes))
                if isinstance(self.class_weight, str):
                    raise ValueError("class_weight='balanced' needs every row at once: use fit, or give a dict")
            self._trainer = self._new_trainer(X, y, *self._capacities(X))
        elif self._is_classifier and classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes={list(classes)} differs from the first fit's {list(self.classes_)}")
        self._add_and_fit(
            self._trainer, X, y, sample_weight,
            kept="the rows are kept: the next partial_fit trains on them and its own",
        )
        return self

    # ---- the model ------------------------------------------------------------

    def _set_model(self, model: "svmgo.Model", trainer: "svmgo.Trainer") -> None:
        """Takes the model trainer's fit made. What its file tells (the fitted
        attributes _read_body sets, fit_result_) is read at first use
        (__getattr__): decoding the file in Python took a third of a warm
        partial_fit (digits, 10 classes: 2.8 of 8.7 ms), and a stream of
        partial_fit and predict calls never reads it. fit_status_ is the
        trainer's."""
        self._model = model
        d = self.__dict__
        if not d.get("_body_pending", False):
            # The attributes the last file set move aside until the next
            # read, which restores them before it sets its own: each reads
            # as it would had the file been read here. (Still pending: the
            # file before was never read, and they are aside already.)
            names = d.pop("_body_names", None)
            d["_body_stale"] = {k: d.pop(k) for k in names or () if k in d}
            d["_body_pending"] = True
            if names is None:
                # The first fit: which attributes the file gives is known
                # once it is read.
                self._load_body()
        self.fit_status_ = 0 if trainer.fit_info()["converged"] else 1
        if self.fit_status_:
            warnings.warn(
                f"{type(self).__name__}: the solver stopped at max_iter before meeting tol; "
                "increase max_iter or tol",
                ConvergenceWarning,
            )
        if vars(self).get("verbose", False):
            print(f"[libsvmgo] {type(self).__name__}: {self.fit_result_}", file=sys.stderr)

    def _load_body(self) -> None:
        """Reads the model file's fitted attributes when a fit left them
        unread (_set_model)."""
        d = self.__dict__
        if not d.pop("_body_pending", False):
            return
        d.update(d.pop("_body_stale", {}))
        before = dict(d)
        body = _modelfile.read_body(self._model.to_bytes())
        self._read_body(body)
        res = body.get("r", {})
        self.fit_result_ = {k: v for k, v in res.items() if k != "sub"}
        self.fit_result_["subproblems"] = res.get("sub", [])
        d["_body_names"] = [k for k, v in d.items() if k not in before or before[k] is not v]

    def __getattr__(self, name):
        # Called for an attribute not found: one the file of the last fit
        # gives, not read yet (the file before set it).
        if self.__dict__.get("_body_pending", False) and name in self.__dict__.get("_body_stale", ()):
            self._load_body()
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _read_body(self, body: Dict[str, Any]) -> None:
        raise NotImplementedError

    def _model_labels_idx(self) -> np.ndarray:
        """The class index (into classes_) of each of the model's labels, in the model's order."""
        labels = np.asarray(self._model.labels, dtype=np.int64)
        return np.searchsorted(self._lib_labels, labels)

    def _X(self, X):
        check_is_fitted(self, "_model")
        return _validate(self, X, reset=False)

    def _lib_call(self, fn, X):
        try:
            return fn(X)
        except svmgo.Error as e:
            raise _as_value_error(e) from None

    def _raw_predict(self, X):
        X = self._X(X)
        return np.asarray(self._lib_call(self._model.predict, X))

    def _raw_decision(self, X):
        X = self._X(X)
        out = np.asarray(self._lib_call(self._model.decision_function, X))
        return out.reshape(X.shape[0], -1)

    # ---- pickling, files, quantization ------------------------------------------

    def __getstate__(self):
        self._load_body()
        state = dict(super().__getstate__())
        model = state.pop("_model", None)
        state.pop("_trainer", None)
        if model is not None:
            state["_model_bytes"] = model.to_bytes()
        return state

    def __setstate__(self, state):
        state = dict(state)
        data = state.pop("_model_bytes", None)
        super().__setstate__(state)
        if data is not None:
            model = svmgo.Model.from_bytes(data)
            self._check_model(_modelfile.read_body(model.to_bytes()), "pickle")
            self._model = model
            self._trainer = None

    @classmethod
    def _check_model(cls, body, where) -> None:
        """Refuses a model of another kind than the estimator's (a
        regression model under a classifier would predict its values as
        labels without an error)."""
        kind = str(body.get("k", "")).split("+")[0]
        kind = kind[1:] if kind.startswith("q") else kind
        t = body.get("st" if kind == "kernel" else "s")
        if kind != cls._model_kind or t not in cls._model_types:
            owner = next((c.__name__ for c in _ESTIMATORS if kind == c._model_kind and t in c._model_types), None)
            hint = f": load it with {owner}.load" if owner else ""
            raise ValueError(f"{where}: a {kind} model (-s {t}), which {cls.__name__} does not read{hint}")

    def save(self, path) -> None:
        """Writes the model file (atomically), which ``load``, the C ABI, the
        ``svmgo`` command and ``svmgo watch``'s clients read. Classes that
        are not integers are stored as their index in ``classes_``: such a
        file predicts indices elsewhere, so save refuses them (pickle the
        estimator instead)."""
        check_is_fitted(self, "_model")
        if self._is_classifier and self._labels_encoded:
            raise ValueError(f"save: classes_ {list(self.classes_)} are not integers; pickle the estimator instead")
        self._model.save(path)

    def to_onnx(self, path) -> None:
        """Writes the model as an ONNX-ML graph (atomically), which ONNX
        Runtime runs, skl2onnx's consumers read, and ``load``, the C ABI and
        ``svmgo watch``'s clients read back (``svmgo export --format onnx``;
        see core/onnx's documentation for the mapping). Quantized models
        and classes that are not integers are refused (ValueError)."""
        check_is_fitted(self, "_model")
        if self._is_classifier and self._labels_encoded:
            raise ValueError(f"to_onnx: classes_ {list(self.classes_)} are not integers")
        try:
            data = self._model.to_onnx()
        except svmgo.Error as e:
            raise _as_value_error(e) from None
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".onnx-", suffix=".tmp", dir=d)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    @classmethod
    def load(cls, path):
        """An estimator fitted with the model file at path (written by
        ``save``, ``svmgo train``, ``svmgo watch``, the C ABI). Its
        parameters are the model's; it keeps no rows, so it predicts but
        cannot partial_fit."""
        model = svmgo.Model.load(path)
        body = _modelfile.read_body(model.to_bytes())
        if model.quantized:
            raise ValueError(f"{path}: a quantized model; load its float model and call quantize()")
        cls._check_model(body, str(path))
        est = cls(**cls._params_from_body(body))
        est._model = model
        est._trainer = None
        est.n_features_in_ = model.num_features
        if est._is_classifier:
            est._encode_classes(np.sort(np.asarray(model.labels, dtype=np.int64)))
        if "kg" in body:
            est._gamma = float(body["kg"])
        est._read_body(body)
        return est

    @classmethod
    def _params_from_body(cls, body) -> Dict[str, Any]:
        return {}

    def quantize(self, bits: int = 8, X_check=None, y_check=None, max_loss=None):
        """A copy of this fitted estimator whose model is quantized to int8
        or int16 (``svmgo quantize --bits``; svmgo.h has no quantize call,
        so the bundled ``svmgo`` command makes it). Its fitted attributes
        (coef_, support_vectors_, ...) are the float model's; it predicts
        with the quantized one, and cannot partial_fit.

        With ``X_check`` (and ``y_check``), the copy's ``quantization_check_``
        is the measurement on those rows: the largest decision value change,
        the predictions changed, and both models' score (accuracy, or R² for
        regression) when ``y_check`` is given. ``max_loss`` (needs both)
        refuses, with ValueError, a quantized model whose score is lower by
        more than that (accuracy points in percent; R² points for
        regression)."""
        check_is_fitted(self, "_model")
        self._load_body()  # the copy's attributes are the float model's
        if bits not in (8, 16):
            raise ValueError(f"bits={bits!r}: want 8 or 16")
        with tempfile.TemporaryDirectory(prefix="svmgo-") as d:
            src, dst = os.path.join(d, "float.svmgo"), os.path.join(d, "quant.svmgo")
            self._model.save(src)
            run = subprocess.run(
                [_svmgo_command(), "quantize", "--bits", str(bits), src, dst],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            if run.returncode != 0:
                raise ValueError(f"svmgo quantize: {run.stderr.strip()}")
            model = svmgo.Model.load(dst)
        q = self.__class__.__new__(self.__class__)
        q.__dict__.update(self.__dict__)
        q._model = model
        q._trainer = None
        q.quantized_bits_ = model.quantization_bits
        q.__dict__.pop("quantization_check_", None)
        if X_check is not None:
            q.quantization_check_ = check = self._quantization_check(q, X_check, y_check)
            if max_loss is not None:
                if "score_loss" not in check:
                    raise ValueError("max_loss needs y_check: the loss is measured on labelled rows")
                if check["score_loss"] > max_loss:
                    raise ValueError(
                        f"quantize({bits}): the quantized model loses {check['score_loss']:.4g} points on the check rows, "
                        f"more than max_loss={max_loss}"
                    )
        elif max_loss is not None:
            raise ValueError("max_loss needs X_check and y_check")
        return q

    def _quantization_check(self, q, X, y):
        """The float model against the quantized copy q on X (and y)."""
        dec_f = np.asarray(self._raw_decision(X))
        dec_q = np.asarray(q._raw_decision(X))
        pf, pq = self.predict(X), q.predict(X)
        out = {
            "rows": int(len(pf)),
            "max_decision_change": float(np.max(np.abs(dec_q - dec_f))) if dec_f.size else 0.0,
            "predictions_changed": int(np.sum(pf != pq)),
        }
        if y is not None:
            sf, sq = self.score(X, y), q.score(X, y)
            scale = 100.0 if self._is_classifier else 1.0
            out.update(score_float=float(sf), score_quantized=float(sq), score_loss=float(scale * (sf - sq)))
        return out


# ---- kernel models ----------------------------------------------------------------


def _row_keys(M):
    """Each row of M (dense, or scipy.sparse) as bytes: its float32 values
    (sparse: its nonzero indices and values), equal for equal rows in
    either layout of the same kind."""
    if sp.issparse(M):
        M = sp.csr_matrix(M, dtype=np.float32, copy=True)
        M.eliminate_zeros()
        M.sort_indices()
        ind, dat, ptr = M.indices.astype(np.int32), M.data, M.indptr
        return [ind[ptr[i] : ptr[i + 1]].tobytes() + dat[ptr[i] : ptr[i + 1]].tobytes() for i in range(M.shape[0])]
    M = np.ascontiguousarray(M, dtype=np.float32)
    return [r.tobytes() for r in M]


def _kernel_arrays(body) -> Dict[str, Any]:
    """The support vectors (dense ndarray or CSR), coef and rho of a kernel body."""
    nf, rows = int(body["nf"]), int(body["sr"])
    values = np.frombuffer(body["sx"], dtype="<f4").astype(np.float64)
    if body["sd"]:
        sv = values.reshape(rows, nf) if rows else np.zeros((0, nf))
    else:
        starts = np.frombuffer(body["sp"], dtype="<i4").astype(np.int64)
        index = np.frombuffer(body["si"], dtype="<i4")
        sv = sp.csr_matrix((values, index, starts), shape=(rows, nf))
    coef = np.frombuffer(body["c"], dtype="<f8").reshape(-1, rows) if rows else np.zeros((0, 0))
    rho = np.frombuffer(body["rho"], dtype="<f8").copy()
    return {"sv": sv, "coef": coef, "rho": rho}


class _KernelBase(_SVMBase):
    _svm_type = 0

    def _read_body(self, body):
        a = _kernel_arrays(body)
        sv = a["sv"]
        # As scikit-learn's: sparse when fitted on sparse rows (the file
        # keeps whichever layout is smaller, whatever the input was).
        if getattr(self, "_fit_sparse", False):
            sv = sp.csr_matrix(sv)
        elif sp.issparse(sv):
            sv = sv.toarray()
        self.support_vectors_ = sv
        self.dual_coef_ = a["coef"].copy()
        self.intercept_ = -a["rho"]
        self.n_iter_ = np.array([s.get("it", 0) for s in body.get("r", {}).get("sub", [])], dtype=np.int32)
        # One entry for the models without classes (SVC overrides it).
        self.n_support_ = np.array([int(body["sr"])], dtype=np.int32)

    def _after_fit(self, X, y, rows):
        """support_: the index in X of each support vector, in
        support_vectors_' order. The library keeps the vectors, not their
        rows, so each is matched to the first unused row of X of its class
        whose float32 values (the values trained on) are the same."""
        self.shape_fit_ = X.shape
        sv = self.support_vectors_
        n_sv = sv.shape[0]
        if self._is_classifier:
            cls_x = np.searchsorted(self.classes_, np.asarray(y))
            cls_sv = np.repeat(np.arange(len(self.classes_)), self.n_support_)
        else:
            cls_x, cls_sv = np.zeros(X.shape[0], np.int64), np.zeros(n_sv, np.int64)
        free: Dict[Any, List[int]] = {}
        for i, key in enumerate(_row_keys(X)):
            free.setdefault((cls_x[i], key), []).append(i)
        for q in free.values():
            q.reverse()  # pop() gives the smallest index first
        support = np.empty(n_sv, dtype=np.int32)
        for j, key in enumerate(_row_keys(sv)):
            q = free.get((cls_sv[j], key))
            if not q:
                raise RuntimeError(f"support vector {j} matches no training row")  # a library bug
            support[j] = rows[q.pop()]
        self.support_ = support

    @classmethod
    def _params_from_body(cls, body):
        p = body.get("p", {})
        out = {
            "kernel": _KERNEL_NAMES.get(int(body["kt"]), "rbf"),
            "degree": int(body["kd"]),
            "gamma": float(body["kg"]),
            "coef0": float(body["kc"]),
        }
        for key, name in (("e", "tol"), ("m", "cache_size")):
            if key in p:
                out[name] = float(p[key])
        if "h" in p:
            out["shrinking"] = bool(p["h"])
        return out


class SVC(ClassifierMixin, _KernelBase):
    """C-support vector classification (LIBSVM's C-SVC, one-vs-one), as
    :class:`sklearn.svm.SVC`, trained by libsvmgo's SMO.

    Parameters are scikit-learn's (``C``, ``kernel``, ``degree``, ``gamma``,
    ``coef0``, ``shrinking``, ``probability``, ``tol``, ``cache_size``,
    ``class_weight``, ``verbose``, ``max_iter``, ``decision_function_shape``,
    ``break_ties``, ``random_state``) with its defaults, and:

    capacity : int or None
        Rows the estimator holds, for :meth:`partial_fit` to add to those
        of ``fit`` or of the first ``partial_fit`` (fixed: a batch that
        does not fit raises :class:`CapacityError` and adds nothing).
        None: twice the rows of that first call.
    capacity_nonzeros : int or None
        For sparse rows, the nonzeros held in all. None: ``capacity`` times
        twice the mean nonzeros per row of the first call.
    kept_cache_size : float or None
        MB of the support vectors' kernel columns kept from one fit to the
        next (svm-train's ``-M``): a :meth:`partial_fit` or :meth:`forget`
        then reads the kept entries instead of computing them, which pays
        most where a kernel value is dear (many features). None (the default):
        the C ABI trainer's default, as much as ``cache_size`` (none for
        regression); 0: none.

    ``gamma="scale"`` is computed from the rows of ``fit`` or of the first
    ``partial_fit`` and then kept. ``verbose`` prints the solvers' progress
    to stderr as they run (every 1000 SMO iterations of each class pair:
    iterations and violation), then each fit's result (iterations, kernel
    evaluations, objective).
    """

    _model_types = frozenset({0})
    _is_classifier = True

    def __init__(
        self,
        *,
        C=1.0,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        probability=False,
        tol=1e-3,
        cache_size=200,
        kept_cache_size=None,
        class_weight=None,
        verbose=False,
        max_iter=-1,
        decision_function_shape="ovr",
        break_ties=False,
        random_state=None,
        capacity=None,
        capacity_nonzeros=None,
    ):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.kept_cache_size = kept_cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.capacity = capacity
        self.capacity_nonzeros = capacity_nonzeros

    def _options(self, X, y):
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(f"decision_function_shape={self.decision_function_shape!r}: want 'ovr' or 'ovo'")
        if not self.C > 0:
            raise ValueError(f"C={self.C!r}: want a positive number")
        return (
            ["-s", "0", "-c", _num(self.C), "-b", "1" if self.probability else "0", "-seed", str(self._seed())]
            + self._kernel_options(X)
            + self._weights_options(y)
        )

    def fit(self, X, y, sample_weight=None):
        """Trains on X (numpy array or scipy.sparse matrix) and labels y; returns self.
        ``sample_weight`` multiplies each row's C (a row of weight 2 trains as
        the row given twice); rows of weight 0 are left out."""
        return self._fit(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Appends the rows X, y and retrains warm from the previous solution.
        ``classes`` (all classes the stream will have) is needed at the first
        call unless its batch already has them all. ``sample_weight`` as for
        :meth:`fit`, for the rows added."""
        return self._partial_fit(X, y, classes, sample_weight)

    def _read_body(self, body):
        super()._read_body(body)
        k = len(self.classes_)
        labels = np.frombuffer(body["l"], dtype="<i4").astype(np.int64)
        midx = np.searchsorted(self._lib_labels, labels)  # model position -> class index
        nsv = np.frombuffer(body["ns"], dtype="<i4").astype(np.int64)
        # Present classes in scikit-learn's order, and each model position's
        # place among them.
        order = np.argsort(midx, kind="stable")
        pos = np.empty_like(order)
        pos[order] = np.arange(len(order))
        self._model_classes = midx
        starts = np.concatenate([[0], np.cumsum(nsv)])
        perm = np.concatenate([np.arange(starts[m], starts[m + 1]) for m in order]) if len(order) else np.zeros(0, int)
        newstart = np.concatenate([[0], np.cumsum(nsv[order])])
        coef = self.dual_coef_
        m_cls = len(labels)
        new_coef = np.zeros_like(coef)
        col_of = np.empty(len(perm), dtype=np.int64)
        col_of[perm] = np.arange(len(perm))
        if coef.size:
            # Row r of a support vector of model class m holds its
            # coefficient against model class o = r (r < m) or r + 1; in
            # scikit-learn's order the classes sit at c = pos[m], d = pos[o],
            # the row is d (d < c) or d − 1, and the sign flips where the two
            # orders disagree on which of m and o comes first. All pairs at
            # once (digits, 10 classes: _read_body 0.71 → 0.41 ms, of a
            # 7 ms partial_fit; the loop over the m_cls² pairs went).
            m = np.repeat(np.arange(m_cls), nsv)[None, :]
            r = np.arange(m_cls - 1)[:, None]
            o = r + (r >= m)
            c, d = pos[m], pos[o]
            sign = np.where((m < o) == (c < d), 1.0, -1.0)
            new_coef[d - (d > c), np.broadcast_to(col_of, coef.shape)] = sign * coef
        rho = -self.intercept_
        pair_old = {}
        p = 0
        for i in range(m_cls):
            for j in range(i + 1, m_cls):
                pair_old[(i, j)] = p
                p += 1
        self._pair_map = []  # per new pair: (old pair index, sign)
        for a in range(m_cls):
            for b in range(a + 1, m_cls):
                ma, mb = order[a], order[b]
                sign = 1.0 if ma < mb else -1.0
                self._pair_map.append((pair_old[(min(ma, mb), max(ma, mb))], sign))
        idx = np.array([q for q, _ in self._pair_map], dtype=np.int64)
        sgn = np.array([s for _, s in self._pair_map])
        sv = self.support_vectors_
        self.support_vectors_ = sv[perm] if len(perm) else sv
        self.dual_coef_ = new_coef
        self.intercept_ = -(rho[idx] * sgn) if len(idx) else -rho
        self.n_support_ = np.zeros(k, dtype=np.int32)
        self.n_support_[midx] = nsv
        self._n_support_present = nsv[order]
        self._present = midx[order]
        pa, pb = body.get("pa", b""), body.get("pb", b"")
        if pa:
            self.probA_ = np.frombuffer(pa, dtype="<f8")[idx].copy()
            self.probB_ = np.frombuffer(pb, dtype="<f8")[idx] * sgn
        else:
            self.probA_ = np.zeros(0)
            self.probB_ = np.zeros(0)
        if m_cls == 2:
            # scikit-learn's binary sign: positive for classes_[1].
            self.intercept_ = -self.intercept_
            self.dual_coef_ = -self.dual_coef_

    @classmethod
    def _params_from_body(cls, body):
        out = super()._params_from_body(body)
        p = body.get("p", {})
        if "c" in p:
            out["C"] = float(p["c"])
        out["probability"] = bool(body.get("pa"))
        return out

    def _check_all_classes(self):
        check_is_fitted(self, "_model")
        if len(self._present) != len(self.classes_):
            raise ValueError(
                f"the rows trained have the classes {list(self.classes_[self._present])} of classes_ "
                f"{list(self.classes_)}: decision values and probabilities need every class"
            )

    def _ovo(self, X):
        dec = self._raw_decision(X)
        idx = np.array([q for q, _ in self._pair_map], dtype=np.int64)
        sgn = np.array([s for _, s in self._pair_map])
        return dec[:, idx] * sgn

    def decision_function(self, X):
        """scikit-learn's decision values: shape (rows,) for two classes
        (positive: classes_[1]); else (rows, classes) ('ovr', from the
        one-vs-one votes as scikit-learn computes them) or (rows, pairs)."""
        self._check_all_classes()
        dec = self._ovo(X)
        k = len(self.classes_)
        if k == 2:
            return -dec.ravel()
        if self.decision_function_shape == "ovr":
            return _ovr_decision_function(dec < 0, -dec, k)
        return dec

    def predict(self, X):
        """The class of each row: LIBSVM's one-vs-one vote (and its tie
        rule), or with ``break_ties`` the largest 'ovr' decision value."""
        if self.break_ties and self.decision_function_shape == "ovr" and len(self.classes_) > 2:
            return self.classes_[np.argmax(self.decision_function(X), axis=1)]
        labels = self._raw_predict(X).astype(np.int64)
        return self.classes_[np.searchsorted(self._lib_labels, labels)]

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities (Platt scaling and pairwise coupling, as
        LIBSVM), columns in classes_ order. Needs probability=True."""
        self._check_all_classes()
        X = self._X(X)
        out = np.asarray(self._lib_call(self._model.predict_proba, X)).reshape(X.shape[0], -1)
        res = np.empty_like(out)
        res[:, self._model_classes] = out  # column m of the library's is model label m
        return res

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """The log of predict_proba."""
        return np.log(self.predict_proba(X))

    def _more_tags(self):
        if not self.probability:
            return {"_xfail_checks": dict(_WEIGHTS_XFAIL)}
        return {
            "_xfail_checks": {
                **_WEIGHTS_XFAIL,
                "check_classifiers_train": (
                    "argmax(predict_proba) may differ from predict: predict is LIBSVM's vote on the "
                    "decision values, predict_proba Platt's sigmoids fitted by an internal cross-validation "
                    "(so with scikit-learn's SVC too, whose check_estimator runs with probability=False)"
                )
            }
        }

    @property
    def coef_(self):
        """The weights of each one-vs-one decision function (linear kernel only)."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self, "_model")
        sv = self.support_vectors_
        k = len(self._present)
        starts = np.concatenate([[0], np.cumsum(self._n_support_present)])
        rows = []
        for a in range(k):
            for b in range(a + 1, k):
                sa, sb = slice(starts[a], starts[a + 1]), slice(starts[b], starts[b + 1])
                w = self.dual_coef_[b - 1, sa] @ sv[sa] + self.dual_coef_[a, sb] @ sv[sb]
                rows.append(np.asarray(w).ravel())
        return np.array(rows)


class SVR(RegressorMixin, _KernelBase):
    """Epsilon-support vector regression (LIBSVM's ε-SVR), as
    :class:`sklearn.svm.SVR`, trained by libsvmgo's SMO. Parameters as
    scikit-learn's, plus ``capacity``, ``capacity_nonzeros`` and
    ``kept_cache_size`` (see :class:`SVC`) for :meth:`partial_fit`."""

    _model_types = frozenset({3})

    def __init__(
        self,
        *,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        tol=1e-3,
        C=1.0,
        epsilon=0.1,
        shrinking=True,
        cache_size=200,
        kept_cache_size=None,
        verbose=False,
        max_iter=-1,
        capacity=None,
        capacity_nonzeros=None,
    ):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.kept_cache_size = kept_cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.capacity = capacity
        self.capacity_nonzeros = capacity_nonzeros

    def _options(self, X, y):
        if not self.C > 0:
            raise ValueError(f"C={self.C!r}: want a positive number")
        return ["-s", "3", "-c", _num(self.C), "-p", _num(self.epsilon)] + self._kernel_options(X)

    def fit(self, X, y, sample_weight=None):
        """Trains on X and targets y; returns self. ``sample_weight`` as for
        :meth:`SVC.fit`."""
        return self._fit(X, y, sample_weight)

    def partial_fit(self, X, y, sample_weight=None):
        """Appends the rows X, y and retrains warm from the previous solution."""
        return self._partial_fit(X, y, None, sample_weight)

    def _more_tags(self):
        return {"_xfail_checks": dict(_WEIGHTS_XFAIL)}

    def predict(self, X):
        """The regression value of each row."""
        return self._raw_predict(X)

    @classmethod
    def _params_from_body(cls, body):
        out = super()._params_from_body(body)
        p = body.get("p", {})
        if "c" in p:
            out["C"] = float(p["c"])
        if "p" in p:
            out["epsilon"] = float(p["p"])
        return out

    @property
    def coef_(self):
        """The weights (linear kernel only): dual_coef_ @ support_vectors_."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self, "_model")
        return np.asarray(self.dual_coef_ @ self.support_vectors_).reshape(1, -1)


class NuSVC(SVC):
    """Nu-support vector classification (LIBSVM's ν-SVC, one-vs-one), as
    :class:`sklearn.svm.NuSVC`, trained by libsvmgo's SMO. Parameters as
    :class:`SVC`'s with ``nu`` (in (0, 1]: an upper bound on the fraction
    of margin errors, a lower bound on that of support vectors) in place of
    ``C``, and no ``class_weight`` (ν-SVC has no C to weight; LIBSVM
    ignores the weights there). A ``nu`` that some pair of classes cannot
    meet (nu * (n_i + n_j) / 2 > min(n_i, n_j), n_c the rows of class c
    counted by their sample weights) raises ValueError "specified nu is
    infeasible", as scikit-learn's NuSVC does."""

    _model_types = frozenset({1})

    def __init__(
        self,
        *,
        nu=0.5,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        probability=False,
        tol=1e-3,
        cache_size=200,
        kept_cache_size=None,
        verbose=False,
        max_iter=-1,
        decision_function_shape="ovr",
        break_ties=False,
        random_state=None,
        capacity=None,
        capacity_nonzeros=None,
    ):
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.kept_cache_size = kept_cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.capacity = capacity
        self.capacity_nonzeros = capacity_nonzeros

    class_weight = None  # read by _weights_options: none for ν-SVC

    def _options(self, X, y):
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(f"decision_function_shape={self.decision_function_shape!r}: want 'ovr' or 'ovo'")
        if not 0 < self.nu <= 1:
            raise ValueError(f"nu={self.nu!r}: want 0 < nu <= 1")
        return ["-s", "1", "-n", _num(self.nu), "-b", "1" if self.probability else "0", "-seed", str(self._seed())] + self._kernel_options(X)

    def fit(self, X, y, sample_weight=None):
        """Trains on X and labels y; returns self. ``sample_weight`` bounds
        each row's dual variable and counts the row that many times in
        ``nu``'s share (a row of weight 2 trains as the row given twice, as
        in scikit-learn's NuSVC); rows of weight 0 are left out."""
        return self._fit(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Appends the rows X, y and retrains warm from the previous
        solution (see :meth:`SVC.partial_fit`). ``sample_weight`` as for
        :meth:`fit`, for the rows added."""
        return self._partial_fit(X, y, classes, sample_weight)

    @classmethod
    def _params_from_body(cls, body):
        out = super()._params_from_body(body)
        out.pop("C", None)
        p = body.get("p", {})
        if "n" in p:
            out["nu"] = float(p["n"])
        return out


class NuSVR(SVR):
    """Nu-support vector regression (LIBSVM's ν-SVR), as
    :class:`sklearn.svm.NuSVR`, trained by libsvmgo's SMO: ``nu`` in (0, 1]
    sets the fraction of support vectors in place of SVR's ``epsilon``,
    which comes out of the fit. Parameters as scikit-learn's, plus
    ``capacity``, ``capacity_nonzeros`` and ``kept_cache_size`` (see
    :class:`SVC`)."""

    _model_types = frozenset({4})

    def __init__(
        self,
        *,
        nu=0.5,
        C=1.0,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        tol=1e-3,
        cache_size=200,
        kept_cache_size=None,
        verbose=False,
        max_iter=-1,
        capacity=None,
        capacity_nonzeros=None,
    ):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.kept_cache_size = kept_cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.capacity = capacity
        self.capacity_nonzeros = capacity_nonzeros

    def _options(self, X, y):
        if not self.C > 0:
            raise ValueError(f"C={self.C!r}: want a positive number")
        if not 0 < self.nu <= 1:
            raise ValueError(f"nu={self.nu!r}: want 0 < nu <= 1")
        return ["-s", "4", "-n", _num(self.nu), "-c", _num(self.C)] + self._kernel_options(X)

    def fit(self, X, y, sample_weight=None):
        """Trains on X and targets y; returns self. ``sample_weight``
        multiplies each row's C and counts the row that many times in
        ``nu``'s share (a row of weight 2 trains as the row given twice);
        rows of weight 0 are left out."""
        return self._fit(X, y, sample_weight)

    def partial_fit(self, X, y, sample_weight=None):
        """Appends the rows X, y and retrains warm from the previous
        solution. ``sample_weight`` as for :meth:`fit`, for the rows added."""
        return self._partial_fit(X, y, None, sample_weight)

    @classmethod
    def _params_from_body(cls, body):
        out = super()._params_from_body(body)
        out.pop("epsilon", None)
        p = body.get("p", {})
        if "n" in p:
            out["nu"] = float(p["n"])
        return out


class OneClassSVM(OutlierMixin, _KernelBase):
    """Unsupervised outlier detection (LIBSVM's one-class SVM), as
    :class:`sklearn.svm.OneClassSVM`, trained by libsvmgo's SMO. Parameters
    as scikit-learn's, plus ``capacity``, ``capacity_nonzeros`` and
    ``kept_cache_size`` (see :class:`SVC`) for :meth:`partial_fit`."""

    def __init__(
        self,
        *,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        tol=1e-3,
        nu=0.5,
        shrinking=True,
        cache_size=200,
        kept_cache_size=None,
        verbose=False,
        max_iter=-1,
        capacity=None,
        capacity_nonzeros=None,
    ):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.kept_cache_size = kept_cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.capacity = capacity
        self.capacity_nonzeros = capacity_nonzeros

    _model_types = frozenset({2})
    _unsupervised = True

    def _options(self, X, y):
        if not 0 < self.nu <= 1:
            raise ValueError(f"nu={self.nu!r}: want 0 < nu <= 1")
        return ["-s", "2", "-n", _num(self.nu)] + self._kernel_options(X)

    def fit(self, X, y=None, sample_weight=None):
        """Learns the support of the rows X (y is ignored); returns self.
        ``sample_weight`` bounds each row's dual variable (LIBSVM's
        instance-weight branch: a row of weight 2 counts as two rows)."""
        return self._fit(X, None, sample_weight)

    def partial_fit(self, X, y=None, sample_weight=None):
        """Appends the rows X and retrains warm from the previous solution."""
        return self._partial_fit(X, None, None, sample_weight)

    def _more_tags(self):
        return {"_xfail_checks": dict(_WEIGHTS_XFAIL)}

    def _read_body(self, body):
        super()._read_body(body)
        self.offset_ = -self.intercept_
        self.n_support_ = np.array([int(body["sr"])], dtype=np.int32)

    @classmethod
    def _params_from_body(cls, body):
        out = super()._params_from_body(body)
        p = body.get("p", {})
        if "n" in p:
            out["nu"] = float(p["n"])
        return out

    def decision_function(self, X):
        """Signed distance to the boundary: positive inside, negative for outliers."""
        return self._raw_decision(X).ravel()

    def score_samples(self, X):
        """The raw score of each row: decision_function + offset_."""
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """+1 for an inlier, -1 for an outlier."""
        return self._raw_predict(X).astype(np.int64)

    @property
    def coef_(self):
        """The weights (linear kernel only): dual_coef_ @ support_vectors_."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self, "_model")
        return np.asarray(self.dual_coef_ @ self.support_vectors_).reshape(1, -1)


# ---- linear models ------------------------------------------------------------------


def _linear_weights(body):
    """W as (features(+bias) rows, decision functions) and the bias value."""
    nw = int(body["nw"])
    if body.get("wi"):
        return _sparse_linear_weights(body), float(body["b"])
    w = np.frombuffer(body["w"], dtype="<f4").astype(np.float64).reshape(-1, nw)
    return w, float(body["b"])


def _sparse_linear_weights(body):
    """W of a file that stores its weights sparse (wi: per decision
    function a uvarint count, then uvarint row gaps, the first from -1;
    wx: the weights listed, float32), expanded to the dense layout."""
    nw = int(body["nw"])
    rows = int(body["nf"]) + (1 if float(body["b"]) >= 0 else 0)
    w = np.zeros((rows, nw))
    values = np.frombuffer(body["wx"], dtype="<f4").astype(np.float64)
    stream, pos, v = bytes(body["wi"]), 0, 0

    def uvarint():
        nonlocal pos
        x = shift = 0
        while True:
            b = stream[pos]
            pos += 1
            x |= (b & 0x7F) << shift
            if b < 0x80:
                return x
            shift += 7

    for k in range(nw):
        j = -1
        for _ in range(uvarint()):
            j += uvarint()
            w[j, k] = values[v]
            v += 1
    return w


class _LinearBase(_SVMBase):
    _model_kind = "linear"
    _kernel_syntax = False

    def _primal(self, X) -> bool:
        """Whether dual (True, False or "auto") chooses the primal solver:
        "auto" does when there are more rows than features."""
        if self.dual == "auto":
            return X.shape[0] > X.shape[1]
        if self.dual not in (True, False):
            raise ValueError(f"dual={self.dual!r}: want True, False or 'auto'")
        return not self.dual

    def _linear_options(self, solver: int) -> List[str]:
        if not self.C > 0:
            raise ValueError(f"C={self.C!r}: want a positive number")
        if not (isinstance(self.max_iter, (int, np.integer)) and self.max_iter > 0):
            raise ValueError(f"max_iter={self.max_iter!r}: want a positive integer")
        if self.fit_intercept and not self.intercept_scaling > 0:
            raise ValueError(f"intercept_scaling={self.intercept_scaling!r}: want a positive number")
        bias = _num(self.intercept_scaling) if self.fit_intercept else "-1"
        return [
            "-s", str(solver),
            "-c", _num(self.C),
            "-e", _num(self.tol),
            "-B", bias,
            "-iter", str(int(self.max_iter)),
            "-seed", str(self._seed()),
        ]

    def _weights(self, body):
        w, bias = _linear_weights(body)
        nf = int(body["nf"])
        coef = w[:nf].T  # (decision functions, features)
        intercept = bias * w[nf] if bias >= 0 and w.shape[0] > nf else np.zeros(w.shape[1])
        subs = body.get("r", {}).get("sub", [])
        self.n_iter_ = max([s.get("it", 0) for s in subs] or [body.get("r", {}).get("it", 0)])
        return coef, intercept

    @classmethod
    def _params_from_body(cls, body):
        p = body.get("p", {})
        out = {}
        if "c" in p:
            out["C"] = float(p["c"])
        if "e" in p:
            out["tol"] = float(p["e"])
        b = float(body.get("b", -1))
        out["fit_intercept"] = b >= 0
        if b >= 0:
            out["intercept_scaling"] = b
        return out


class _LinearClassifier(ClassifierMixin, _LinearBase):
    """What LinearSVC and LogisticRegression share: one-vs-rest linear
    decision functions put in classes_ order."""

    _is_classifier = True

    def fit(self, X, y, sample_weight=None):
        """Trains on X (numpy array or scipy.sparse matrix) and labels y; returns self.
        ``sample_weight`` as for :meth:`SVC.fit`."""
        return self._fit(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Appends the rows X, y and retrains warm from the previous solution
        (its dual variables, or its weights for a primal solver). ``classes``
        as for :meth:`SVC.partial_fit`."""
        return self._partial_fit(X, y, classes, sample_weight)

    def _read_body(self, body):
        coef, intercept = self._weights(body)
        labels = np.frombuffer(body["l"], dtype="<i4").astype(np.int64)
        midx = np.searchsorted(self._lib_labels, labels)
        self._midx = midx
        if len(labels) == 2:
            # The library's decision value is positive for its first label;
            # scikit-learn's for classes_[1].
            sign = 1.0 if midx[0] > midx[1] else -1.0
            self.coef_ = sign * coef
            self.intercept_ = sign * np.asarray(intercept).reshape(1)
        else:
            order = np.argsort(midx, kind="stable")
            self.coef_ = coef[order]
            self.intercept_ = np.asarray(intercept)[order]

    def decision_function(self, X):
        """Decision values: (rows,) for two classes (positive: classes_[1]),
        else (rows, classes) one-vs-rest in classes_ order."""
        dec = self._raw_decision(X)
        midx = self._midx
        if len(midx) == 2:
            return dec.ravel() * (1.0 if midx[0] > midx[1] else -1.0)
        if len(midx) != len(self.classes_):
            raise ValueError(f"the rows trained have {len(midx)} of the {len(self.classes_)} classes of classes_")
        return dec[:, np.argsort(midx, kind="stable")]

    def predict(self, X):
        """The class of each row."""
        labels = self._raw_predict(X).astype(np.int64)
        return self.classes_[np.searchsorted(self._lib_labels, labels)]

    def _lib_proba(self, X):
        """The library's class probabilities (SVMGO_OUTPUT_PROBABILITY),
        columns put in classes_ order."""
        X = self._X(X)  # NotFittedError first
        midx = self._midx
        if len(midx) != len(self.classes_):
            raise ValueError(f"the rows trained have {len(midx)} of the {len(self.classes_)} classes of classes_")
        out = np.asarray(self._lib_call(self._model.predict_proba, X)).reshape(X.shape[0], -1)
        res = np.empty_like(out)
        res[:, midx] = out  # column m of the library's is the model's label m
        return res


class LinearSVC(_LinearClassifier):
    """Linear support vector classification (LIBLINEAR's L2-regularized
    dual solvers, one-vs-rest), as :class:`sklearn.svm.LinearSVC`.

    ``loss="squared_hinge"`` is LIBLINEAR's ``-s 1`` (``dual=True``) or
    ``-s 2`` (``dual=False``, the primal by line-search Newton), ``"hinge"``
    ``-s 3``; ``dual="auto"`` takes the primal when there are more rows than
    features. The intercept is a bias feature of value ``intercept_scaling``
    (regularized, as LIBLINEAR and scikit-learn do). ``penalty="l1"`` with
    the squared hinge is LIBLINEAR's ``-s 5`` (coordinate descent, sparse
    ``coef_``), primal only: it needs ``dual=False`` (or ``"auto"``).
    ``capacity`` and ``capacity_nonzeros`` as :class:`SVC`'s, for
    :meth:`partial_fit`.

    ``probability=True`` (not in scikit-learn's LinearSVC, whose models give
    no probabilities) trains with ``-b 1``: each one-vs-rest decision
    function gets Platt's sigmoid, fitted to the decision values of an
    internal 5-fold cross-validation (as :class:`SVC` fits each class
    pair), and :meth:`predict_proba` gives the sigmoids normalized over the
    classes. Each fit then costs about six trainings.
    """

    _model_types = frozenset({1, 2, 3, 4, 5})
    _is_classifier = True

    def __init__(
        self,
        penalty="l2",
        loss="squared_hinge",
        *,
        dual=True,
        tol=1e-4,
        C=1.0,
        multi_class="ovr",
        fit_intercept=True,
        intercept_scaling=1,
        class_weight=None,
        verbose=0,
        random_state=None,
        max_iter=1000,
        capacity=None,
        capacity_nonzeros=None,
        probability=False,
    ):
        self.penalty = penalty
        self.loss = loss
        self.dual = dual
        self.tol = tol
        self.C = C
        self.multi_class = multi_class
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.capacity = capacity
        self.capacity_nonzeros = capacity_nonzeros
        self.probability = probability

    def _options(self, X, y):
        if self.penalty == "l1":
            if self.loss != "squared_hinge" or self.dual is True:
                raise ValueError("penalty='l1' needs loss='squared_hinge' and dual=False (LIBLINEAR's -s 5)")
            if self.multi_class != "ovr":
                raise ValueError(f"multi_class={self.multi_class!r}: libsvmgo has 'ovr' only")
            return self._linear_options(5) + self._weights_options(y)
        if self.penalty != "l2":
            raise ValueError(f"penalty={self.penalty!r}: want 'l2' or 'l1'")
        if self.multi_class != "ovr":
            raise ValueError(f"multi_class={self.multi_class!r}: libsvmgo has 'ovr' only")
        if self.loss not in ("squared_hinge", "hinge"):
            raise ValueError(f"loss={self.loss!r}: want 'squared_hinge' or 'hinge'")
        if self._primal(X):
            if self.loss == "hinge":
                raise ValueError("loss='hinge' has no primal solver: use dual=True")
            solver = 2
        else:
            solver = 1 if self.loss == "squared_hinge" else 3
        opts = self._linear_options(solver) + self._weights_options(y)
        if self.probability:
            # -b alone names no family and is refused (svmgo.h 0.6).
            opts = ["-syntax", "linear"] + opts + ["-b", "1"]
        return opts

    @classmethod
    def _params_from_body(cls, body):
        out = super()._params_from_body(body)
        out["probability"] = bool(body.get("pa"))
        return out

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    def _more_tags(self):
        if not self.probability:
            return {}
        return {
            "_xfail_checks": {
                "check_classifiers_train": (
                    "argmax(predict_proba) may differ from predict: predict is the largest decision value, "
                    "predict_proba Platt's sigmoids fitted by an internal cross-validation, whose offsets "
                    "move the boundary"
                )
            }
        }

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities, columns in classes_ order: Platt's sigmoid
        of each decision function, normalized (two classes: p and 1 − p).
        Needs probability=True."""
        return self._lib_proba(X)

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """The log of predict_proba."""
        return np.log(self.predict_proba(X))


# scikit-learn's solvers for the multinomial loss; libsvmgo solves it with
# one method (-s 40, a line-search Newton method), so they all mean it.
_MULTINOMIAL_SOLVERS = ("lbfgs", "newton-cg", "newton-cholesky", "sag", "saga")
# -s 40's stopping test is ‖∇f‖ ≤ eps‖∇f(0)‖; tol/100 puts the solution
# where scikit-learn's converged lbfgs is (probabilities within 1e-3 on
# digits and shuttle), at a few more Newton steps.
_MULTINOMIAL_TOL_SCALE = 0.01


class LogisticRegression(_LinearClassifier):
    """L2-regularized logistic regression, as
    :class:`sklearn.linear_model.LogisticRegression`, with its defaults.

    ``solver="lbfgs"`` (the default; ``"newton-cg"``, ``"newton-cholesky"``,
    ``"sag"`` and ``"saga"`` mean the same here) minimizes scikit-learn's
    objective, the multinomial (softmax) loss with an L2 penalty and an
    unpenalized intercept, by libsvmgo's line-search Newton method (``-s
    40``): ``predict_proba`` is the softmax of the decision values. Two
    classes with ``multi_class="auto"`` give scikit-learn's binary logistic
    regression (solved as the softmax over two vectors at C/2, the same
    optimum). ``tol`` is scaled by 1/100 for ``-s 40``'s relative gradient
    test, which puts the solution where scikit-learn's converged one is;
    ``max_iter`` caps its Newton iterations.

    ``solver="liblinear"`` or ``multi_class="ovr"`` is LIBLINEAR's
    one-vs-rest: ``-s 0`` (primal, line-search Newton) or with
    ``dual=True`` ``-s 7``; the intercept is then a regularized bias
    feature, as liblinear's, and ``predict_proba`` the normalized
    sigmoids. ``penalty="l1"`` (``solver="liblinear"``) is LIBLINEAR's
    ``-s 6``. ``penalty="elasticnet"`` is refused: no libsvmgo solver has
    the elastic net (``l1_ratio`` is accepted and, as scikit-learn does,
    ignored with a warning for the other penalties).

    ``warm_start=True`` starts a fit from the previous fit's weights (the
    rows are replaced in the same trainer, when they fit its capacity);
    ``n_jobs`` is the number of one-vs-rest classes trained at once
    (``-n``; no effect on the multinomial solver, as in scikit-learn).
    ``capacity`` and ``capacity_nonzeros`` as :class:`SVC`'s, for
    :meth:`partial_fit`.
    """

    _model_types = frozenset({0, 6, 7, 40})

    def __init__(
        self,
        penalty="l2",
        *,
        dual=False,
        tol=1e-4,
        C=1.0,
        fit_intercept=True,
        intercept_scaling=1,
        class_weight=None,
        random_state=None,
        solver="lbfgs",
        max_iter=100,
        multi_class="auto",
        verbose=0,
        warm_start=False,
        n_jobs=None,
        l1_ratio=None,
        capacity=None,
        capacity_nonzeros=None,
    ):
        self.penalty = penalty
        self.dual = dual
        self.tol = tol
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.solver = solver
        self.max_iter = max_iter
        self.multi_class = multi_class
        self.verbose = verbose
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.l1_ratio = l1_ratio
        self.capacity = capacity
        self.capacity_nonzeros = capacity_nonzeros

    def _mode(self):
        """'ovr' (LIBLINEAR's path), 'binary' or 'multinomial' (-s 40)."""
        if self.solver not in _MULTINOMIAL_SOLVERS + ("liblinear",):
            raise ValueError(f"solver={self.solver!r}: want one of {list(_MULTINOMIAL_SOLVERS) + ['liblinear']}")
        if self.multi_class not in ("auto", "ovr", "multinomial"):
            raise ValueError(f"multi_class={self.multi_class!r}: want 'auto', 'ovr' or 'multinomial'")
        if self.solver == "liblinear":
            if self.multi_class == "multinomial":
                raise ValueError("multi_class='multinomial' needs a multinomial solver (solver='lbfgs'), not 'liblinear'")
            return "ovr"
        if self.multi_class == "ovr":
            return "ovr"
        if self.multi_class == "auto" and len(self.classes_) == 2:
            return "binary"
        return "multinomial"

    def _options(self, X, y):
        if self.penalty == "elasticnet":
            raise ValueError(
                f"penalty='elasticnet' (l1_ratio={self.l1_ratio!r}): no libsvmgo solver has the elastic net; "
                "use penalty='l2', or penalty='l1' with solver='liblinear'"
            )
        if self.penalty not in ("l2", "l1"):
            raise ValueError(f"penalty={self.penalty!r}: want 'l2' or 'l1' (no unpenalized fit: use a large C)")
        if self.l1_ratio is not None:
            warnings.warn(f"l1_ratio parameter is only used when penalty is 'elasticnet'. Got (penalty={self.penalty})")
        if self.dual not in (True, False):
            raise ValueError(f"dual={self.dual!r}: want True (LIBLINEAR's -s 7) or False")
        if self.n_jobs is not None and not isinstance(self.n_jobs, (int, np.integer)):
            raise ValueError(f"n_jobs={self.n_jobs!r}: want None or an integer")
        mode = self._mode()
        self._binary_scale = 1.0 if mode == "binary" else 0.5
        if mode != "ovr":
            if self.penalty == "l1" or self.dual:
                raise ValueError(
                    f"solver={self.solver!r} has penalty='l2' and dual=False only: use solver='liblinear' "
                    "for penalty='l1' or dual=True"
                )
            opts = self._linear_options(40)
            if mode == "binary":
                # Binary logistic regression at C is the softmax over two
                # vectors at C/2 (½(‖w₁‖² + ‖w₂‖²) = ¼‖w₁ − w₂‖² at w₁ = −w₂).
                opts[opts.index("-c") + 1] = _num(self.C / 2)
            opts[opts.index("-e") + 1] = _num(self.tol * _MULTINOMIAL_TOL_SCALE)
            return opts + self._weights_options(y)
        threads = []
        if self.n_jobs is not None and self.n_jobs > 0:
            threads = ["-n", str(int(self.n_jobs))]
        if self.penalty == "l1":
            if self.dual:
                raise ValueError("penalty='l1' has no dual solver: use dual=False (LIBLINEAR's -s 6)")
            return self._linear_options(6) + self._weights_options(y) + threads
        return self._linear_options(7 if self.dual else 0) + self._weights_options(y) + threads

    def fit(self, X, y, sample_weight=None):
        """Trains on X (numpy array or scipy.sparse matrix) and labels y;
        returns self. With ``warm_start=True`` and a previous fit, starts
        from its weights. ``sample_weight`` as for :meth:`SVC.fit`."""
        if self.warm_start and getattr(self, "_trainer", None) is not None:
            return self._warm_fit(X, y, sample_weight)
        return self._fit(X, y, sample_weight)

    def _warm_fit(self, X, y, sample_weight):
        """fit from the previous fit's weights: the trainer's rows replaced
        by X, y (the trainer keeps the last model's w as the next start).
        Rows beyond its capacity, other classes or other options: a cold fit."""
        X, y = self._validate_fit(X, y, reset=True)
        X, y, sample_weight = _sample_weights(X, y, sample_weight)
        classes = np.unique(y)
        trainer = self._trainer
        def unseeded(opts):  # a fresh seed each call unless random_state is set
            opts = [o for o in opts if o != "--progress"]
            if "-seed" in opts:
                del opts[opts.index("-seed") : opts.index("-seed") + 2]
            return opts

        fits = (
            np.array_equal(classes, self.classes_)
            and X.shape[0] <= trainer.capacity_rows
            and sp.issparse(X) == self._fit_sparse
            and (not sp.issparse(X) or X.nnz <= trainer.capacity_nonzeros)
            and unseeded(self._options(X, y)) == unseeded(trainer.options.split())
        )
        if not fits:
            return self._fit(X, y, sample_weight)
        trainer.remove(range(len(trainer)))
        return self._add_and_fit(trainer, X, y, sample_weight)

    def _read_body(self, body):
        self._multinomial = int(body.get("s", 0)) == 40
        if not self._multinomial:
            return super()._read_body(body)
        coef, intercept = self._weights(body)
        labels = np.frombuffer(body["l"], dtype="<i4").astype(np.int64)
        midx = np.searchsorted(self._lib_labels, labels)
        self._midx = midx
        order = np.argsort(midx, kind="stable")
        coef, intercept = coef[order], np.asarray(intercept)[order]
        if len(labels) == 2:
            scale = getattr(self, "_binary_scale", 1.0)
            self.coef_ = scale * (coef[1] - coef[0]).reshape(1, -1)
            self.intercept_ = scale * np.asarray(intercept[1] - intercept[0]).reshape(1)
        else:
            self.coef_, self.intercept_ = coef, intercept

    def decision_function(self, X):
        """Decision values: (rows,) for two classes (positive: classes_[1]),
        else (rows, classes) in classes_ order (multinomial: W x + b, whose
        softmax is predict_proba)."""
        if not getattr(self, "_multinomial", False):
            return super().decision_function(X)
        dec = self._raw_decision(X)
        midx = self._midx
        if len(midx) != len(self.classes_):
            raise ValueError(f"the rows trained have {len(midx)} of the {len(self.classes_)} classes of classes_")
        dec = dec[:, np.argsort(midx, kind="stable")]
        if len(midx) == 2:
            return getattr(self, "_binary_scale", 1.0) * (dec[:, 1] - dec[:, 0])
        return dec

    @classmethod
    def _params_from_body(cls, body):
        out = super()._params_from_body(body)
        s = int(body.get("s", 0))
        if s == 40:
            out["solver"] = "lbfgs"
            if "tol" in out:
                out["tol"] = out["tol"] / _MULTINOMIAL_TOL_SCALE
            if len(body.get("l", b"")) == 8 and "C" in out:
                out["C"] = 2 * out["C"]  # the binary problem at C is -s 40 at C/2
            return out
        out["solver"] = "liblinear"
        out["dual"] = s == 7
        if s == 6:
            out["penalty"] = "l1"
        return out

    def _more_tags(self):
        # -s 7's coordinate descent visits the rows in a seeded random
        # order: on a shuffled copy it stops at another point within -e.
        return {"_xfail_checks": dict(_WEIGHTS_XFAIL)} if self.dual else {}

    def predict_proba(self, X):
        """Class probabilities, columns in classes_ order, from the library:
        the softmax of the decision values (multinomial and binary
        ``solver="lbfgs"``), or LIBLINEAR's sigmoid of each decision value
        normalized over the classes (``solver="liblinear"``, ``"ovr"``)."""
        return self._lib_proba(X)

    def predict_log_proba(self, X):
        """The log of predict_proba."""
        return np.log(self.predict_proba(X))


class LinearSVR(RegressorMixin, _LinearBase):
    """Linear support vector regression (LIBLINEAR's L2-regularized dual
    ε-SVR solvers), as :class:`sklearn.svm.LinearSVR`:
    ``loss="epsilon_insensitive"`` is ``-s 13``,
    ``"squared_epsilon_insensitive"`` ``-s 12`` (``dual=True``) or ``-s 11``
    (``dual=False``, the primal by line-search Newton). ``capacity`` and
    ``capacity_nonzeros`` as :class:`SVC`'s, for :meth:`partial_fit`."""

    _model_kind = "linear"
    _model_types = frozenset({11, 12, 13})

    def __init__(
        self,
        *,
        epsilon=0.0,
        tol=1e-4,
        C=1.0,
        loss="epsilon_insensitive",
        fit_intercept=True,
        intercept_scaling=1.0,
        dual=True,
        verbose=0,
        random_state=None,
        max_iter=1000,
        capacity=None,
        capacity_nonzeros=None,
    ):
        self.epsilon = epsilon
        self.tol = tol
        self.C = C
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.dual = dual
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.capacity = capacity
        self.capacity_nonzeros = capacity_nonzeros

    def _options(self, X, y):
        if self.loss not in ("epsilon_insensitive", "squared_epsilon_insensitive"):
            raise ValueError(f"loss={self.loss!r}: want 'epsilon_insensitive' or 'squared_epsilon_insensitive'")
        if self._primal(X):
            if self.loss == "epsilon_insensitive":
                raise ValueError("loss='epsilon_insensitive' has no primal solver: use dual=True")
            solver = 11
        else:
            solver = 13 if self.loss == "epsilon_insensitive" else 12
        if self.epsilon < 0:
            raise ValueError(f"epsilon={self.epsilon!r}: want epsilon >= 0")
        return self._linear_options(solver) + ["-p", _num(self.epsilon)]

    def fit(self, X, y, sample_weight=None):
        """Trains on X and targets y; returns self. ``sample_weight`` as for
        :meth:`SVC.fit`."""
        return self._fit(X, y, sample_weight)

    def partial_fit(self, X, y, sample_weight=None):
        """Appends the rows X, y and retrains warm from the previous dual variables."""
        return self._partial_fit(X, y, None, sample_weight)

    def _more_tags(self):
        return {"_xfail_checks": dict(_WEIGHTS_XFAIL)}

    def _read_body(self, body):
        coef, intercept = self._weights(body)
        self.coef_ = coef.ravel()
        self.intercept_ = np.asarray(intercept).reshape(1)

    def predict(self, X):
        """The regression value of each row."""
        return self._raw_predict(X)


_ESTIMATORS = (SVC, NuSVC, OneClassSVM, SVR, NuSVR, LinearSVC, LogisticRegression, LinearSVR)


def from_sklearn(estimator):
    """This package's estimator predicting as the fitted scikit-learn
    ``estimator`` does: an ``SVC``, ``NuSVC``, ``SVR``, ``NuSVR``,
    ``OneClassSVM``, ``LinearSVC``, ``LinearSVR`` or ``LogisticRegression``
    with ``solver="liblinear"``, with integer classes. Its model is the
    estimator's libsvm or liblinear model, written as svm-train's or
    LIBLINEAR's text model and read by ``svmgo import`` (coefficients in
    full; support vectors and weights float32, as libsvmgo stores them, so
    a row within float32 rounding of a tie may be labelled otherwise). The
    result predicts (from Python, C, ``svmgo predict``, ``to_onnx``) but
    holds no rows: it cannot ``partial_fit``, and its parameters are the
    model's, not the estimator's training parameters."""
    from svmgo import _fromsklearn

    check_is_fitted(estimator)
    kind, text = _fromsklearn.text_model(estimator)
    with tempfile.TemporaryDirectory(prefix="svmgo-") as d:
        src, dst = os.path.join(d, "model.txt"), os.path.join(d, "model.svmgo")
        with open(src, "w") as f:
            f.write(text)
        run = subprocess.run(
            [_svmgo_command(), "import", src, dst], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        if run.returncode != 0:
            raise ValueError(f"from_sklearn: svmgo import: {run.stderr.strip()}")
        return globals()[kind].load(dst)
