"""``json.dumps(value, indent=2)``, byte for byte, at the speed of a plain recursive writer.

With an indent, the standard library's encoder runs its pure-Python generators (its C encoder
serves only compact output): about 1.3 s for the 44 MB report of a 10,000-instance
counterexample, where this writer appends strings to one list.  It handles what reports are
made of: dicts with ``str`` keys, lists and tuples, ``str``, ``int``, ``float``, ``bool`` and
``None`` (exact types); anything else, a subclass or another key type included, hands the whole
value to :func:`json.dumps`, so the text is the same in every case.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any

_FLOAT_REPR = float.__repr__
_INFINITY = float("inf")


class _Unusual(Exception):
    """A value this writer leaves to :func:`json.dumps`."""


def _float(x: float) -> str:
    if x != x:
        return "NaN"
    if x == _INFINITY:
        return "Infinity"
    if x == -_INFINITY:
        return "-Infinity"
    return _FLOAT_REPR(x)


def _scalar(x: Any) -> str:
    t = type(x)
    if t is str:
        return encode_basestring_ascii(x)
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if t is int:
        return int.__repr__(x)
    if t is float:
        return _float(x)
    raise _Unusual


def _write(value: Any, level: int, out: list[str]) -> None:
    t = type(value)
    if t is dict:
        if not value:
            out.append("{}")
            return
        inner = "\n" + "  " * (level + 1)
        sep = "{" + inner
        for k, v in value.items():
            if type(k) is not str:
                raise _Unusual
            out.append(sep)
            out.append(encode_basestring_ascii(k))
            vt = type(v)
            if vt is dict or vt is list or vt is tuple:
                out.append(": ")
                _write(v, level + 1, out)
            else:
                out.append(": " + _scalar(v))
            sep = "," + inner
        out.append("\n" + "  " * level + "}")
    elif t is list or t is tuple:
        if not value:
            out.append("[]")
            return
        inner = "\n" + "  " * (level + 1)
        sep = "[" + inner
        for v in value:
            out.append(sep)
            vt = type(v)
            if vt is dict or vt is list or vt is tuple:
                _write(v, level + 1, out)
            else:
                out.append(_scalar(v))
            sep = "," + inner
        out.append("\n" + "  " * level + "]")
    else:
        out.append(_scalar(value))


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=2)``."""
    out: list[str] = []
    try:
        _write(value, 0, out)
    except (_Unusual, RecursionError):
        return json.dumps(value, indent=2)
    return "".join(out)
