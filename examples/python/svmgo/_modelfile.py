"""Reads the body of a libsvmgo model file, for what svmgo.h does not tell.

The C ABI predicts with a model but does not hand out its numbers (weights,
support vectors, dual coefficients, rho, the training result). The model
file is a documented format (core/modelfile: a 24-byte frame around a
msgpack body), so the scikit-learn estimators read those numbers from the
file's bytes instead. Only bytes the library itself wrote (and checked:
frame, CRC-32C, structure) are read here, so this reader checks the frame
and decodes plain msgpack, nothing more; unknown keys (fields a later
minor version adds) are kept in the dict and ignored by the callers.

Standard library only.
"""

import struct
from typing import Any, Dict, List, Tuple

from . import _schema

MAGIC = b"\x89SVM\r\n\x1a\n"
HEADER_SIZE = 24


def read_body(data: bytes) -> Dict[str, Any]:
    """The msgpack body of a model file as a dict (str keys; bin as bytes)."""
    if data[:8] != MAGIC or len(data) < HEADER_SIZE:
        raise ValueError("not a libsvmgo model file")
    (size,) = struct.unpack_from("<Q", data, 12)
    payload = memoryview(data)[HEADER_SIZE : HEADER_SIZE + size]
    value, end = _decode(payload, 0)
    if end != len(payload) or not isinstance(value, dict):
        raise ValueError("model file body is not one msgpack map")
    return value


def kind_of(body: Dict[str, Any]) -> str:
    """The model kind of a body: its "k" key less the "+scaled" suffix."""
    return str(body.get("k", "")).split("+", 1)[0]


def unknown_keys(body: Dict[str, Any]) -> List[str]:
    """The keys of a body that the schema (_schema.py, generated from the
    Go body types) does not list for its kind, as "p.x" for nested ones;
    every key of a file this library wrote is listed."""
    kind = kind_of(body)
    if kind not in _schema.KEYS:
        return [f"kind {kind!r}"]
    out = [k for k in body if k not in _schema.KEYS[kind]]
    for key, sub in _schema.NESTED[kind].items():
        out += _unknown_nested(body.get(key), sub, key)
    return out


def _unknown_nested(value: Any, keys: Dict[str, Any], path: str) -> List[str]:
    if isinstance(value, list):
        return [u for v in value for u in _unknown_nested(v, keys, path)]
    if not isinstance(value, dict):
        return []
    out = []
    for k, v in value.items():
        if k not in keys:
            out.append(f"{path}.{k}")
        elif keys[k] is not None:
            out += _unknown_nested(v, keys[k], f"{path}.{k}")
    return out


# The fixed-size numbers and the lengths of the msgpack types model files
# use, by type byte (msgpack is big-endian); built once, not per value.
_FIXED = {t: struct.Struct(f) for t, f in {
    0xCA: ">f", 0xCB: ">d", 0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
}.items()}
_LENGTHS = {t: struct.Struct(f) for t, f in {
    0xC4: ">B", 0xC5: ">H", 0xC6: ">I", 0xD9: ">B", 0xDA: ">H", 0xDB: ">I", 0xDC: ">H", 0xDD: ">I", 0xDE: ">H", 0xDF: ">I",
}.items()}


def _decode(b: memoryview, i: int) -> Tuple[Any, int]:
    """The msgpack value at b[i:] and the offset after it."""
    t = b[i]
    i += 1
    if t <= 0x7F:
        return t, i
    if 0x80 <= t <= 0x8F:
        return _map(b, i, t & 0x0F)
    if 0x90 <= t <= 0x9F:
        return _array(b, i, t & 0x0F)
    if 0xA0 <= t <= 0xBF:
        n = t & 0x1F
        return bytes(b[i : i + n]).decode(), i + n
    if t >= 0xE0:
        return t - 0x100, i
    if t == 0xC0:
        return None, i
    if t == 0xC2:
        return False, i
    if t == 0xC3:
        return True, i
    fixed = _FIXED.get(t)
    if fixed is not None:
        return fixed.unpack_from(b, i)[0], i + fixed.size
    length = _LENGTHS.get(t)
    if length is not None:
        (n,) = length.unpack_from(b, i)
        i += length.size
        if t in (0xC4, 0xC5, 0xC6):
            return bytes(b[i : i + n]), i + n
        if t in (0xD9, 0xDA, 0xDB):
            return bytes(b[i : i + n]).decode(), i + n
        if t in (0xDC, 0xDD):
            return _array(b, i, n)
        return _map(b, i, n)
    raise ValueError(f"msgpack type 0x{t:02x} is not used by model files")


def _array(b: memoryview, i: int, n: int) -> Tuple[list, int]:
    out = []
    for _ in range(n):
        v, i = _decode(b, i)
        out.append(v)
    return out, i


def _map(b: memoryview, i: int, n: int) -> Tuple[dict, int]:
    out = {}
    for _ in range(n):
        k, i = _decode(b, i)
        v, i = _decode(b, i)
        out[k] = v
    return out, i
