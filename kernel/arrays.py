"""Values of SMT array sorts in traces.

A trace holds plain Python values (:data:`~kinduct.kernel.verdict.Value`); an array's value is
held as text, :func:`to_text` of an :class:`ArrayValue`: a default and finitely many entries
(index, element), an element being a number, a Boolean or again an array (arrays of arrays).
Solvers' models are read into this form (:mod:`kinduct.plugins.backends.pysmt_solvers`), and
:func:`constant` turns it back into a PySMT term for replay.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import attrs

Scalar = bool | int | Fraction


@attrs.frozen
class ArrayValue:
    """``default`` everywhere but at the indices of ``entries`` (pairs, in order)."""

    default: Any
    entries: tuple[tuple[Scalar, Any], ...] = ()

    def get(self, index: Scalar) -> Any:
        for k, v in self.entries:
            if k == index:
                return v
        return self.default


def encode_number(v: Any) -> Any:
    """A trace value's JSON form where it is a number or a Boolean (a rational as
    ``{"q": [num, den]}``); the value itself otherwise."""
    return {"q": [v.numerator, v.denominator]} if isinstance(v, Fraction) else v


def decode_number(v: Any) -> Any:
    """The inverse of :func:`encode_number` (a ``{"q": …}`` object back to a ``Fraction``)."""
    return Fraction(v["q"][0], v["q"][1]) if isinstance(v, dict) and "q" in v else v


def _encode(v: Any) -> Any:
    if isinstance(v, ArrayValue):
        return {"d": _encode(v.default), "e": [[_encode(k), _encode(x)] for k, x in v.entries]}
    return encode_number(v)


def _decode(v: Any) -> Any:
    if isinstance(v, dict) and "d" in v:
        return ArrayValue(_decode(v["d"]), tuple((_decode(k), _decode(x)) for k, x in v["e"]))
    return decode_number(v)


PREFIX = "array:"


def to_text(value: ArrayValue) -> str:
    return PREFIX + json.dumps(_encode(value), separators=(",", ":"))


def from_text(text: str) -> ArrayValue:
    if not isinstance(text, str) or not text.startswith(PREFIX):
        raise ValueError(f"not an array value: {text!r}")
    return _decode(json.loads(text[len(PREFIX):]))


def constant(mgr, sort, value: Any, scalar: Callable[[Any, Any], Any]) -> Any:
    """The PySMT term of ``value`` (an :class:`ArrayValue` or its text) of array ``sort``;
    ``scalar(sort, v)`` makes the constants of the other sorts."""
    if isinstance(value, str):
        value = from_text(value)

    def build(t, v):
        if not t.is_array_type():
            return scalar(t, v)
        term = mgr.Array(t.index_type, build(t.elem_type, v.default))
        for k, x in v.entries:
            term = mgr.Store(term, build(t.index_type, k), build(t.elem_type, x))
        return term
    return build(sort, value)
