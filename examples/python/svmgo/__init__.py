"""Python bindings of libsvmgo.so through ctypes.

Standard library only. When numpy is installed, numpy arrays are passed to
the library without copies (float32 and float64 C-contiguous arrays are read
in place); without numpy, lists of rows and ``array.array`` work the same.

    import svmgo

    with svmgo.Trainer("-s 1 -B 1", capacity_rows=200, num_features=13) as t:
        t.add(X, y)                  # rows: a list of rows, numpy, CSR
        with t.fit() as model:
            model.save("heart.svmgo")
            labels = model.predict(X_test)

Inputs ``X`` may be:

- a list (or other sequence) of dense rows, each of ``num_features`` values;
- a 2-D numpy array (float32 or float64 used in place, other types converted);
- a CSR triple ``(indptr, indices, values)`` with 0-based feature indices,
  strictly increasing within a row (``array.array('q')``, ``('i')`` and
  ``('f')``/``('d')`` are used in place, as are numpy int64/int32/float arrays);
  indptr and indices must be integers that fit int64 and int32: a float
  array raises TypeError, a value out of range ValueError (never a silent
  wrap or truncation). To predict, indices may reach past the model's
  ``num_features``: linear models ignore those features, the RBF kernel
  counts them in ||x - sv||^2, as in LIBSVM;
- a ``scipy.sparse`` matrix (converted to CSR; scipy is not imported here).

Outputs are numpy arrays when the input was a numpy array or scipy matrix,
otherwise lists.

The library is found in this order: ``libsvmgo.so`` next to this file (the
copy a wheel bundles, ``make wheel``), then ``$SVMGO_LIB``, then
``../../../lib/libsvmgo.so`` relative to this file (the repository's build
output, for a checkout with ``examples/python`` on ``sys.path``), then the
system's (``ctypes.util.find_library("svmgo")``, e.g. after ``make install``).

The scikit-learn estimators are in :mod:`svmgo.sklearn` (imported only when
asked for, and only where scikit-learn is installed).

Threads: a Model may be used from any number of threads at once (ctypes
releases the GIL during each call); a Trainer from one thread at a time.
Errors are raised as :class:`Error` with the library's status code.
"""

import array
import ctypes
import ctypes.util
import enum
import math
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union
from ctypes import POINTER, c_char_p, c_double, c_float, c_int, c_int32, c_int64, c_size_t, c_uint, c_uint64, c_void_p

try:
    import numpy as _np
except ImportError:  # numpy is optional
    _np = None

PathLike = Union[str, bytes, "os.PathLike[str]"]
# Rows: a sequence of dense rows, a 2-D numpy array, a CSR triple
# (indptr, indices, values) or a scipy.sparse matrix (see the module's doc).
Rows = Any

__all__ = ["Error", "Status", "Output", "Model", "Trainer", "library_version", "library_path", "__version__"]

# The version of libsvmgo this package was made with (svmgo.h's
# SVMGO_VERSION_*; make wheel checks the two agree). The wheel's version.
__version__ = "0.6.0"


class Status(enum.IntEnum):
    """The status codes of svmgo.h; the values are pinned there."""

    OK = 0
    E_INVALID_ARGUMENT = -1
    E_BAD_HANDLE = -2
    E_DIMENSION = -3
    E_CAPACITY = -4
    E_NOT_FINITE = -5
    E_IO = -6
    E_CORRUPT = -7
    E_VERSION = -8
    E_FULL = -9
    E_TRAIN = -10
    E_NO_MODEL = -11
    E_UNSUPPORTED = -12
    E_INTERNAL = -13


class Output(enum.IntEnum):
    """What a predict call returns per row (svmgo_output)."""

    LABEL = 1
    DECISION_VALUES = 2
    PROBABILITY = 3


# svmgo_model_property values.
_KIND, _NUM_FEATURES, _NUM_CLASSES, _NUM_DECISION_VALUES, _QUANTIZED, _HAS_PROBABILITY, _VERSION = range(1, 8)

_KIND_NAMES = {1: "linear_svc", 2: "linear_svr", 3: "kernel_svc", 4: "kernel_svr", 5: "one_class"}

# The oldest library this module was written against (svmgo.h 0.5.0: fit info, instance weights).
_MIN_VERSION = (0, 5)


class Error(Exception):
    """A failed libsvmgo call.

    Attributes: ``code`` (a :class:`Status`, or the raw int for an unknown
    code), ``name`` (``"SVMGO_E_DIMENSION"``) and ``message`` (the library's
    message for the failure).
    """

    def __init__(self, code: int, message: str) -> None:
        try:
            code = Status(code)
        except ValueError:
            pass
        self.code = code
        # The enum names the pinned codes without a call into the library
        # (which a forked child must not make).
        self.name = f"SVMGO_{code.name}" if isinstance(code, Status) else _lib.svmgo_status_name(int(code)).decode()
        self.message = message
        super().__init__(f"{self.name}: {message}")


def library_path() -> str:
    """The path the library is loaded from (see the module's doc)."""
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, "libsvmgo.so")
    if os.path.exists(bundled):
        return bundled
    env = os.environ.get("SVMGO_LIB")
    if env:
        return env
    built = os.path.normpath(os.path.join(here, os.pardir, os.pardir, os.pardir, "lib", "libsvmgo.so"))
    if os.path.exists(built):
        return built
    found = ctypes.util.find_library("svmgo")
    if found:
        return found
    raise OSError(
        "libsvmgo.so not found: not bundled beside "
        f"{here}, SVMGO_LIB unset, no repository build, none installed (make install)"
    )


class FitInfo(ctypes.Structure):
    """svmgo_fit_info: what a trainer's last fit reported (Trainer.fit_info)."""

    _fields_ = [
        ("iterations", c_uint64),
        ("work", c_uint64),
        ("objective", c_double),
        ("num_sv", c_uint64),
        ("converged", c_int32),
        ("work_unit", c_int32),
    ]


def _load():
    lib = ctypes.CDLL(library_path())
    P = POINTER
    handle_out = P(c_void_p)
    # Every function of svmgo.h with its C types, so that ctypes converts
    # and checks each argument instead of guessing int.
    sigs = {
        "svmgo_version_number": (c_uint, []),
        "svmgo_version_string": (c_char_p, []),
        "svmgo_status_name": (c_char_p, [c_int]),
        "svmgo_last_error": (c_char_p, []),
        "svmgo_model_load": (c_int, [c_char_p, handle_out]),
        "svmgo_model_load_buffer": (c_int, [c_void_p, c_size_t, handle_out]),
        "svmgo_model_save": (c_int, [c_void_p, c_char_p]),
        "svmgo_model_save_buffer": (c_int, [c_void_p, c_void_p, c_size_t, P(c_size_t)]),
        "svmgo_model_export_onnx": (c_int, [c_void_p, c_void_p, c_size_t, P(c_size_t)]),
        "svmgo_model_watch_skip": (c_int, [c_void_p, P(c_uint64), ctypes.c_char_p, c_size_t, P(c_size_t)]),
        "svmgo_model_publish": (c_int, [c_void_p, c_char_p, P(c_uint64)]),
        "svmgo_model_watch": (c_int, [c_char_p, handle_out]),
        "svmgo_model_free": (c_int, [c_void_p]),
        "svmgo_model_get": (c_int, [c_void_p, c_int, P(c_int64)]),
        "svmgo_model_labels": (c_int, [c_void_p, P(c_int32), c_size_t, P(c_size_t)]),
        "svmgo_predict_dense_f32": (c_int, [c_void_p, c_int, P(c_double), c_size_t, P(c_float), c_size_t, c_size_t]),
        "svmgo_predict_dense_f64": (c_int, [c_void_p, c_int, P(c_double), c_size_t, P(c_double), c_size_t, c_size_t]),
        "svmgo_predict_csr_f32": (
            c_int,
            [c_void_p, c_int, P(c_double), c_size_t, P(c_int64), P(c_int32), P(c_float), c_size_t],
        ),
        "svmgo_predict_csr_f64": (
            c_int,
            [c_void_p, c_int, P(c_double), c_size_t, P(c_int64), P(c_int32), P(c_double), c_size_t],
        ),
        "svmgo_trainer_new": (c_int, [c_char_p, c_size_t, c_size_t, c_size_t, handle_out]),
        "svmgo_trainer_free": (c_int, [c_void_p]),
        "svmgo_trainer_add_dense_f32": (c_int, [c_void_p, P(c_double), P(c_float), c_size_t, c_size_t]),
        "svmgo_trainer_add_dense_f64": (c_int, [c_void_p, P(c_double), P(c_double), c_size_t, c_size_t]),
        "svmgo_trainer_add_csr_f32": (c_int, [c_void_p, P(c_double), P(c_int64), P(c_int32), P(c_float), c_size_t]),
        "svmgo_trainer_add_csr_f64": (c_int, [c_void_p, P(c_double), P(c_int64), P(c_int32), P(c_double), c_size_t]),
        "svmgo_trainer_set_weights": (c_int, [c_void_p, c_size_t, P(c_double), c_size_t]),
        "svmgo_trainer_remove": (c_int, [c_void_p, P(c_size_t), c_size_t]),
        "svmgo_trainer_last_batch": (c_int, [c_void_p, P(ctypes.c_uint64)]),
        "svmgo_trainer_forget": (c_int, [c_void_p, ctypes.c_uint64, P(c_size_t)]),
        "svmgo_trainer_num_rows": (c_int, [c_void_p, P(c_size_t)]),
        "svmgo_trainer_fit": (c_int, [c_void_p, handle_out]),
        "svmgo_trainer_fit_info": (c_int, [c_void_p, P(FitInfo)]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    v = lib.svmgo_version_number()
    major, minor = v // 10000, v // 100 % 100
    if major != _MIN_VERSION[0] or minor < _MIN_VERSION[1]:
        raise ImportError(
            f"{library_path()} is libsvmgo {lib.svmgo_version_string().decode()}; "
            f"this module needs {_MIN_VERSION[0]}.{_MIN_VERSION[1]} or a later {_MIN_VERSION[0]}.x"
        )
    return lib


_lib = _load()


class _Forked:
    """What _lib becomes in a child forked from the process that loaded
    the library: the Go runtime does not survive fork() (only the forking
    thread is copied, not the runtime's threads), so a call into it there,
    a fit above all, could wait for ever. Every call raises instead."""

    def __getattr__(self, name):
        raise Error(
            Status.E_UNSUPPORTED,
            f"{name}: libsvmgo cannot be used in a process forked from the one that loaded it "
            "(the Go runtime does not survive fork); use multiprocessing's 'spawn' or 'forkserver' "
            "start method, or import svmgo after forking",
        )


def _after_fork_in_child():
    global _lib
    _lib = _Forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _usable():
    """Whether handles can be freed: not in a forked child, whose copies of
    them belong to the parent's runtime."""
    return _lib is not None and not isinstance(_lib, _Forked)


def library_version() -> str:
    """The library's version string, e.g. ``"0.6.0"``."""
    return _lib.svmgo_version_string().decode()


def _check(status):
    if status != 0:
        # Read at once: the message is per thread and the next failure
        # replaces it.
        raise Error(status, _lib.svmgo_last_error().decode(errors="replace"))


def _path(p):
    return os.fsencode(p)


# ---- Input conversion ----------------------------------------------------------
#
# Each converter returns ctypes pointers plus the objects that own the
# memory; the caller keeps the latter alive until the call returns.

def _array_ptr(a, ctype):
    """A ctypes pointer into array.array a, without a copy."""
    if len(a) == 0:
        return ctypes.cast(None, POINTER(ctype))
    return (ctype * len(a)).from_buffer(a)


def _is_numpy(x):
    return _np is not None and isinstance(x, _np.ndarray)


def _is_scipy_sparse(x):
    # Duck-typed, so that scipy is never imported here.
    return hasattr(x, "tocsr") and hasattr(x, "format") and hasattr(x, "nnz")


def _np_ptr(a, ctype):
    return a.ctypes.data_as(POINTER(ctype))


def _as_array(seq, typecode, check_item_size=None):
    """seq as an array.array of typecode: the same object when it already is one."""
    if isinstance(seq, array.array) and seq.typecode == typecode:
        return seq
    a = array.array(typecode, seq)
    if check_item_size is not None and a.itemsize != check_item_size:
        raise TypeError(f"array.array({typecode!r}) items are {a.itemsize} bytes here, not {check_item_size}")
    return a


def _dense(X):
    """X (rows) as (is_f32, pointer, rows, cols, keepalive)."""
    if _is_numpy(X):
        if X.ndim != 2:
            raise ValueError(f"want a 2-D array of rows, got {X.ndim}-D (use X.reshape(1, -1) for one row)")
        if X.dtype != _np.float32:
            X = _np.ascontiguousarray(X, dtype=_np.float64)  # no copy for C-contiguous float64
            return False, _np_ptr(X, c_double), X.shape[0], X.shape[1], X
        X = _np.ascontiguousarray(X)  # no copy for C-contiguous float32
        return True, _np_ptr(X, c_float), X.shape[0], X.shape[1], X
    rows = list(X)
    cols = len(rows[0]) if rows else 0
    flat = array.array("d")
    for i, row in enumerate(rows):
        if len(row) != cols:
            raise ValueError(f"row {i} has {len(row)} values, row 0 has {cols}")
        flat.extend(row)
    return False, _array_ptr(flat, c_double), len(rows), cols, flat


_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _np_index_array(a, name, dtype, bounds):
    """A numpy index array as a C-contiguous array of dtype, refusing what
    the cast would change: a non-integer array (TypeError) or a value out
    of dtype's range (ValueError), which astype would silently wrap."""
    a = _np.asarray(a)
    if a.dtype.kind == "O" and all(isinstance(v, (int, _np.integer)) and not isinstance(v, bool) for v in a.flat):
        bad = next((int(v) for v in a.flat if not bounds[0] <= v <= bounds[1]), None)  # ints beyond 64 bits
        if bad is not None:
            raise ValueError(f"CSR {name} holds {bad}, outside the range of {_np.dtype(dtype).name}")
        a = a.astype(dtype)
    if a.dtype.kind not in "iu" and not (a.size == 0 and a.dtype.kind == "f"):
        raise TypeError(f"CSR {name} must be an integer array, got dtype {a.dtype}")
    if a.size and a.dtype != dtype:
        lo, hi = int(a.min()), int(a.max())
        if lo < bounds[0] or hi > bounds[1]:
            bad = lo if lo < bounds[0] else hi
            raise ValueError(f"CSR {name} holds {bad}, outside the range of {_np.dtype(dtype).name}")
    return _np.ascontiguousarray(a, dtype=dtype)


def _index_array(seq, name, typecode, item_size, bounds):
    """A CSR index sequence as an array.array of typecode, refusing
    non-integers (TypeError) and values out of range (ValueError)."""
    if isinstance(seq, array.array) and seq.typecode == typecode:
        return seq
    if isinstance(seq, array.array) and seq.typecode in "fd":
        raise TypeError(f"CSR {name} must hold integers, got array.array({seq.typecode!r})")
    try:
        return _as_array(seq, typecode, item_size)
    except OverflowError:
        bad = next((v for v in seq if not bounds[0] <= v <= bounds[1]), "a value")
        raise ValueError(f"CSR {name} holds {bad}, outside the range of a {8 * item_size}-bit integer") from None
    except TypeError as e:
        raise TypeError(f"CSR {name} must hold integers: {e}") from None


def _csr(X):
    """A CSR triple or scipy matrix as (is_f32, indptr, indices, values, rows, keepalive).

    indptr must hold integers that fit int64 and indices integers that fit
    int32 (the library's types): anything else raises TypeError (not
    integers, such as a float array) or ValueError (out of range), never a
    silent cast that would wrap an index of 2**32 to 0 or truncate 1.7."""
    if _is_scipy_sparse(X):
        X = X.tocsr()  # no copy when it is CSR already
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()  # sorts the indices of each row, as the library wants
        X = (X.indptr, X.indices, X.data)
    indptr, indices, values = X
    if _np is not None and any(isinstance(a, _np.ndarray) for a in (indptr, indices, values)):
        indptr = _np_index_array(indptr, "indptr", _np.int64, _INT64)
        indices = _np_index_array(indices, "indices", _np.int32, _INT32)
        values = _np.asarray(values)
        f32 = values.dtype == _np.float32
        values = _np.ascontiguousarray(values, dtype=_np.float32 if f32 else _np.float64)
        ptrs = (_np_ptr(indptr, c_int64), _np_ptr(indices, c_int32), _np_ptr(values, c_float if f32 else c_double))
        return (f32,) + ptrs + (len(indptr) - 1, (indptr, indices, values))
    indptr = _index_array(indptr, "indptr", "q", 8, _INT64)
    indices = _index_array(indices, "indices", "i", 4, _INT32)
    f32 = isinstance(values, array.array) and values.typecode == "f"
    values = values if f32 else _as_array(values, "d")
    if len(indptr) == 0:
        raise ValueError("indptr must have num_rows + 1 entries")
    if len(indices) != len(values):
        raise ValueError(f"{len(indices)} indices but {len(values)} values")
    ptrs = (_array_ptr(indptr, c_int64), _array_ptr(indices, c_int32), _array_ptr(values, c_float if f32 else c_double))
    return (f32,) + ptrs + (len(indptr) - 1, (indptr, indices, values))


def _is_csr(X):
    return _is_scipy_sparse(X) or (isinstance(X, tuple) and len(X) == 3)


def _labels(y, n):
    if _is_numpy(y):
        y = _np.ascontiguousarray(y, dtype=_np.float64)
        ptr = _np_ptr(y, c_double)
    else:
        y = _as_array(y, "d")
        ptr = _array_ptr(y, c_double)
    if len(y) != n:
        raise ValueError(f"{len(y)} labels for {n} rows")
    return ptr, y


# ---- Model ----------------------------------------------------------------------


class Model:
    """A trained model: loaded from a file or bytes, returned by
    :meth:`Trainer.fit`, or watching a directory of published versions.

    Models are immutable and thread-safe. Free one with :meth:`close` or a
    ``with`` block; the garbage collector frees it otherwise.
    """

    def __init__(self, handle: c_void_p) -> None:
        """Takes ownership of a svmgo_model handle; use the class methods."""
        self._h = handle

    @classmethod
    def load(cls, path: PathLike) -> "Model":
        """Loads a model file (Error E_IO, E_CORRUPT or E_VERSION)."""
        h = c_void_p()
        _check(_lib.svmgo_model_load(_path(path), ctypes.byref(h)))
        return cls(h)

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "Model":
        """Loads a model from the contents of a model file."""
        data = bytes(data)  # bytes are passed in place; others copied once
        h = c_void_p()
        _check(_lib.svmgo_model_load_buffer(data, len(data), ctypes.byref(h)))
        return cls(h)

    @classmethod
    def watch(cls, directory: PathLike) -> "Model":
        """Follows the newest valid model published in directory. Predictions
        raise E_NO_MODEL until a first version has loaded; :attr:`version`
        tells the version in use. E_IO when directory cannot be read."""
        h = c_void_p()
        _check(_lib.svmgo_model_watch(_path(directory), ctypes.byref(h)))
        return cls(h)

    @property
    def _handle(self):
        if self._h is None:
            raise Error(Status.E_BAD_HANDLE, "the model is closed")
        return self._h

    def close(self) -> None:
        """Frees the model (and stops watching). Closing twice is harmless."""
        h, self._h = self._h, None
        if h is not None and _usable():
            _lib.svmgo_model_free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the module may be gone
            pass

    def save(self, path: PathLike) -> None:
        """Writes the model file atomically."""
        _check(_lib.svmgo_model_save(self._handle, _path(path)))

    def to_bytes(self) -> bytes:
        """The bytes of the model's file, as :meth:`save` writes them;
        :meth:`from_bytes` reads them back."""
        return self._buffer(_lib.svmgo_model_save_buffer)

    # The last size each buffer call wrote, plus an eighth, is the next
    # call's first capacity: the models of a stream of fits (partial_fit)
    # grow slowly, and a call that fits needs no size query first, which
    # costs a whole encoding (a third of what partial_fit spends besides
    # training on digits).
    _size_guess: Dict[str, int] = {}

    def _buffer(self, fn) -> bytes:
        """The bytes fn (a call of svmgo.h taking dst, dst_cap, size) writes."""
        n = c_size_t()
        name = getattr(fn, "__name__", "")
        cap = Model._size_guess.get(name, 0)
        while True:
            if cap == 0:
                st = fn(self._handle, None, 0, ctypes.byref(n))
                if st != Status.E_CAPACITY:
                    _check(st)
                cap = n.value
            buf = ctypes.create_string_buffer(max(cap, 1))
            st = fn(self._handle, buf, cap, ctypes.byref(n))
            if st == Status.E_CAPACITY:
                # The guess was short, or a watched model swapped in a
                # larger version meanwhile: n is the size now.
                cap = n.value
                continue
            _check(st)
            Model._size_guess[name] = n.value + n.value // 8
            return ctypes.string_at(buf, n.value)  # one copy (buf.raw[:n] made two)

    def to_onnx(self) -> bytes:
        """The model as an ONNX-ML graph (``svmgo export --format onnx``:
        a Scaler when the model scales its input, then LinearClassifier,
        LinearRegressor, SVMClassifier or SVMRegressor), which ONNX Runtime
        runs and :meth:`from_bytes` and :meth:`load` read back. Error
        E_UNSUPPORTED for a quantized model."""
        return self._buffer(_lib.svmgo_model_export_onnx)

    @property
    def skipped(self) -> Optional[Tuple[int, str]]:
        """For a watched model: (version, reason) of the newest file newer
        than the one in use that failed to load, or None when none was
        skipped. E_UNSUPPORTED for a model that does not watch."""
        v, n = c_uint64(), c_size_t()
        _check(_lib.svmgo_model_watch_skip(self._handle, ctypes.byref(v), None, 0, ctypes.byref(n)))
        if v.value == 0:
            return None
        buf = ctypes.create_string_buffer(n.value + 1)
        _check(_lib.svmgo_model_watch_skip(self._handle, ctypes.byref(v), buf, n.value + 1, ctypes.byref(n)))
        return v.value, buf.value.decode("utf-8", "replace")

    def publish(self, directory: PathLike) -> int:
        """Publishes the model into directory as its next version; returns
        the version. Publishers of one directory must not run at once."""
        v = c_uint64()
        _check(_lib.svmgo_model_publish(self._handle, _path(directory), ctypes.byref(v)))
        return v.value

    def _get(self, prop):
        v = c_int64()
        _check(_lib.svmgo_model_get(self._handle, prop, ctypes.byref(v)))
        return v.value

    @property
    def kind(self) -> str:
        """``"linear_svc"``, ``"linear_svr"``, ``"kernel_svc"``, ``"kernel_svr"`` or ``"one_class"``."""
        k = self._get(_KIND)
        return _KIND_NAMES.get(k, str(k))

    @property
    def num_features(self) -> int:
        """Features a dense row must have."""
        return self._get(_NUM_FEATURES)

    @property
    def num_classes(self) -> int:
        """Number of classes; 0 for regression."""
        return self._get(_NUM_CLASSES)

    @property
    def num_decision_values(self) -> int:
        """Decision values per row."""
        return self._get(_NUM_DECISION_VALUES)

    @property
    def quantized(self) -> bool:
        """Whether the model is quantized (int8 or int16 codes)."""
        return self._get(_QUANTIZED) != 0

    @property
    def quantization_bits(self) -> int:
        """The width of a quantized model's codes, 8 or 16; 0 for a float model."""
        return self._get(_QUANTIZED)

    @property
    def has_probability(self) -> bool:
        """Whether :attr:`Output.PROBABILITY` works."""
        return self._get(_HAS_PROBABILITY) != 0

    @property
    def version(self) -> int:
        """The version in use of a watched model; 0 for any other model."""
        return self._get(_VERSION)

    @property
    def labels(self) -> List[int]:
        """The class labels in decision-value order (empty for regression)."""
        n = self.num_classes
        buf = (c_int32 * (n + 1))()  # never empty, so never NULL
        count = c_size_t()
        _check(_lib.svmgo_model_labels(self._handle, buf, n + 1, ctypes.byref(count)))
        return list(buf[: count.value])

    def _predict(self, X, output, per_row):
        h = self._handle
        csr = _is_csr(X)
        numpy_out = _is_scipy_sparse(X) or (
            _np is not None and any(_is_numpy(a) for a in (X if isinstance(X, tuple) else (X,)))
        )
        if csr:
            f32, indptr, indices, values, n, keep = _csr(X)
        else:
            f32, x, n, cols, keep = _dense(X)
        size = n * per_row
        if numpy_out:
            out = _np.empty(size, dtype=_np.float64)
            dst = _np_ptr(out, c_double)
        else:
            out = array.array("d", bytes(8 * size))
            dst = _array_ptr(out, c_double)
        if n > 0:  # the library refuses zero rows; no rows in, none out
            if csr:
                fn = _lib.svmgo_predict_csr_f32 if f32 else _lib.svmgo_predict_csr_f64
                _check(fn(h, output, dst, size, indptr, indices, values, n))
            else:
                fn = _lib.svmgo_predict_dense_f32 if f32 else _lib.svmgo_predict_dense_f64
                _check(fn(h, output, dst, size, x, n, cols))
        del keep
        if numpy_out:
            return out if output == Output.LABEL else out.reshape(n, per_row)
        if output == Output.LABEL:
            return out.tolist()
        return [out[i * per_row : (i + 1) * per_row].tolist() for i in range(n)]

    def predict(self, X: Rows) -> Any:
        """The label (class, or regression value) of each row of X."""
        return self._predict(X, Output.LABEL, 1)

    def decision_function(self, X: Rows) -> Any:
        """The decision values of each row of X: shape (rows, num_decision_values)."""
        return self._predict(X, Output.DECISION_VALUES, self.num_decision_values)

    def predict_proba(self, X: Rows) -> Any:
        """Class probabilities, for models that have them (else E_UNSUPPORTED)."""
        return self._predict(X, Output.PROBABILITY, max(self.num_classes, 1))

    def __repr__(self):
        if self._h is None:
            return "<svmgo.Model closed>"
        return f"<svmgo.Model {self.kind} features={self.num_features} classes={self.num_classes}>"


# ---- Trainer --------------------------------------------------------------------


def _weights(weights: Sequence[float]) -> List[float]:
    """weights as a list of floats (the library checks the values)."""
    if _np is not None and isinstance(weights, _np.ndarray):
        return [float(v) for v in weights.ravel()]
    return [float(v) for v in weights]


def _check_weights(weights: Optional[List[float]], n: int) -> None:
    """Refuses weights that svmgo_trainer_set_weights would refuse, before
    Trainer.add adds the rows they are for (all or none): not one a row,
    not finite, not positive."""
    if weights is None:
        return
    if len(weights) != n:
        raise Error(Status.E_INVALID_ARGUMENT, f"{len(weights)} weights for {n} rows")
    for i, w in enumerate(weights):
        if not math.isfinite(w):
            raise Error(Status.E_NOT_FINITE, f"weight {i}: {w}")
        if not w > 0:
            raise Error(Status.E_INVALID_ARGUMENT, f"weight {i}: {w}, want a positive weight")


class Trainer:
    """A fixed-capacity set of labelled rows; each :meth:`fit` starts from the
    previous fit's dual variables (a warm start).

    ``options`` are LIBLINEAR's train options (``"-s 1 -c 10 -B 1"``).
    ``--scale`` (with ``--scale-lower``/``--scale-upper``, default -1 and 1)
    fits svm-scale's per-feature ranges on the rows of each fit and keeps
    them in the model, which then takes raw rows.
    ``capacity_nonzeros > 0`` stores rows sparse with room for that many
    nonzeros; 0 stores them dense. Use a trainer from one thread at a time.
    """

    def __init__(self, options: str, capacity_rows: int, num_features: int, capacity_nonzeros: int = 0) -> None:
        self._h = None
        h = c_void_p()
        _check(_lib.svmgo_trainer_new(options.encode(), capacity_rows, num_features, capacity_nonzeros, ctypes.byref(h)))
        self._h = h
        self.num_features = num_features
        self.options = options
        self.capacity_rows = capacity_rows
        self.capacity_nonzeros = capacity_nonzeros

    @property
    def _handle(self):
        if self._h is None:
            raise Error(Status.E_BAD_HANDLE, "the trainer is closed")
        return self._h

    def close(self) -> None:
        """Frees the trainer. Closing twice is harmless."""
        h, self._h = self._h, None
        if h is not None and _usable():
            _lib.svmgo_trainer_free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def add(self, X: Rows, y: Sequence[float], weights: Optional[Sequence[float]] = None) -> int:
        """Appends the rows of X with labels y: all or none (E_FULL when they
        do not fit, E_NOT_FINITE or E_INVALID_ARGUMENT for a bad row).
        ``weights``, when given, are the rows' instance weights (see
        :meth:`set_weights`): one a row, positive and finite, checked
        before any row is added (E_INVALID_ARGUMENT, E_NOT_FINITE). Returns
        the batch number of the rows added, for :meth:`forget`: 1 for the
        first call that adds rows, one more for each after; 0 when X has no
        rows."""
        h = self._handle
        if weights is not None:
            weights = _weights(weights)
        first, before = self.num_rows, self.last_batch
        self._add(h, X, y, weights)
        if weights is not None:
            self.set_weights(first, weights)
        batch = self.last_batch
        return batch if batch != before else 0

    @property
    def last_batch(self) -> int:
        """The batch number of the last :meth:`add` that added rows (0
        before any)."""
        b = ctypes.c_uint64()
        _check(_lib.svmgo_trainer_last_batch(self._handle, ctypes.byref(b)))
        return b.value

    def forget(self, batch: int) -> int:
        """Forgets batch number ``batch`` (what :meth:`add` returned): removes
        the rows it added that are still held, with their dual variables,
        and returns how many (0 when they are gone already). The next
        :meth:`fit` starts warm from the rows that remain and reaches their
        optimum. E_INVALID_ARGUMENT for a number :meth:`add` never gave."""
        n = c_size_t()
        _check(_lib.svmgo_trainer_forget(self._handle, int(batch), ctypes.byref(n)))
        return n.value

    def set_weights(self, first_row: int, weights: Sequence[float]) -> None:
        """Sets the instance weights of the rows held from ``first_row`` on:
        each row's C is multiplied by its weight (a one-class SVM's and a
        ν-SVC's bound is the weight; ν-SVC and ν-SVR count the row that many
        times in ν's share), so a weight of 2 trains as the row added twice. Weights
        are positive and finite (E_INVALID_ARGUMENT, E_NOT_FINITE); all or
        none. The next :meth:`fit` starts warm, from the previous dual
        variables clipped to the new bounds."""
        w = _weights(weights)
        buf = (c_double * len(w))(*w) if len(w) else None
        _check(_lib.svmgo_trainer_set_weights(self._handle, int(first_row), buf, len(w)))

    def _add(self, h, X: Rows, y: Sequence[float], weights: Optional[List[float]]) -> None:
        if _is_csr(X):
            f32, indptr, indices, values, n, keep = _csr(X)
            labels, ykeep = _labels(y, n)
            _check_weights(weights, n)
            if n == 0:
                return
            fn = _lib.svmgo_trainer_add_csr_f32 if f32 else _lib.svmgo_trainer_add_csr_f64
            _check(fn(h, labels, indptr, indices, values, n))
        else:
            f32, x, n, cols, keep = _dense(X)
            labels, ykeep = _labels(y, n)
            _check_weights(weights, n)
            if n == 0:
                return
            fn = _lib.svmgo_trainer_add_dense_f32 if f32 else _lib.svmgo_trainer_add_dense_f64
            _check(fn(h, labels, x, n, cols))
        del keep, ykeep

    def remove(self, rows: Iterable[int]) -> None:
        """Removes the rows at these positions (0-based among the rows held)."""
        rows = [int(r) for r in rows]
        if not rows:
            return
        buf = (c_size_t * len(rows))(*rows)
        _check(_lib.svmgo_trainer_remove(self._handle, buf, len(rows)))

    @property
    def num_rows(self) -> int:
        """The number of rows held."""
        n = c_size_t()
        _check(_lib.svmgo_trainer_num_rows(self._handle, ctypes.byref(n)))
        return n.value

    def __len__(self):
        return self.num_rows

    def fit(self) -> Model:
        """Trains on the rows held and returns a new :class:`Model` (E_TRAIN
        when training is impossible, e.g. a single class)."""
        h = c_void_p()
        _check(_lib.svmgo_trainer_fit(self._handle, ctypes.byref(h)))
        return Model(h)

    def fit_info(self) -> dict:
        """What the last :meth:`fit` reported: ``iterations``, ``work`` (in
        ``work_unit``: ``"rows_read"`` for a linear model, ``"kernel_evals"``
        for a kernel one), ``objective``, ``num_sv`` and ``converged``.
        E_NO_MODEL before the first fit."""
        info = FitInfo()
        _check(_lib.svmgo_trainer_fit_info(self._handle, ctypes.byref(info)))
        return {
            "iterations": info.iterations,
            "work": info.work,
            "work_unit": {1: "rows_read", 2: "kernel_evals"}.get(info.work_unit, str(info.work_unit)),
            "objective": info.objective,
            "num_sv": info.num_sv,
            "converged": bool(info.converged),
        }
