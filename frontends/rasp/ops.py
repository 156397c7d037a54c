"""Elementwise operations on RASP values, shared by the evaluator and the SMT encoding.

Both the concrete evaluator and the symbolic encoding call :func:`apply` on concrete Python
values (the encoding does so for every combination of possible operand values), so the two can
never disagree on what an operator means.  Numbers are ``int`` or exact ``Fraction`` (never
float), so averages and ``1/x`` are exact, as the paper's Figure 9 needs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any


class RaspRuntimeError(Exception):
    """An operation that RASP does not define on these values (the REPL would stop too)."""


def norm(v: Any) -> Any:
    """Canonical form: integral fractions become ints, floats become exact fractions."""
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        v = Fraction(v).limit_denominator(10**9)
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v


def is_number(v: Any) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def show(v: Any) -> str:
    """How a value is printed: exact ints, short decimals, quoted strings."""
    if isinstance(v, bool):
        return "T" if v else "F"
    if isinstance(v, Fraction):
        return f"{float(v):.3f}".rstrip("0")
    if isinstance(v, str):
        return repr(v)
    return str(v)


def key(v: Any) -> tuple:
    """A dictionary key that keeps True, 1 and "1" apart but treats 1 and 1/1 alike."""
    if isinstance(v, bool):
        return ("b", v)
    if is_number(v):
        return ("n", Fraction(v))
    return (type(v).__name__, v)


def _num(op: str, *vals: Any) -> None:
    for v in vals:
        if not (is_number(v) or isinstance(v, bool)):
            raise RaspRuntimeError(f"'{op}' needs numbers, got {show(v)}")


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    _num("+", a, b)
    return norm(Fraction(a) + Fraction(b))


def _arith(op: str, fn: Callable[[Fraction, Fraction], Fraction]) -> Callable[[Any, Any], Any]:
    def apply2(a: Any, b: Any) -> Any:
        _num(op, a, b)
        return norm(fn(Fraction(a), Fraction(b)))
    return apply2


def _div(a: Fraction, b: Fraction) -> Fraction:
    if b == 0:
        raise RaspRuntimeError("division by zero")
    return a / b


def _mod(a: Fraction, b: Fraction) -> Fraction:
    if b == 0:
        raise RaspRuntimeError("modulo by zero")
    return a % b


def _pow(a: Fraction, b: Fraction) -> Fraction:
    if b.denominator != 1:
        raise RaspRuntimeError(f"'^' needs an integer exponent, got {show(norm(b))}")
    if a == 0 and b < 0:
        raise RaspRuntimeError("division by zero (0 to a negative power)")
    if abs(b) > 64:
        raise RaspRuntimeError("exponent too large")
    return a ** int(b)


def _order(op: str, fn: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def cmp(a: Any, b: Any) -> bool:
        if (is_number(a) or isinstance(a, bool)) and (is_number(b) or isinstance(b, bool)):
            return fn(Fraction(a), Fraction(b))
        if isinstance(a, str) and isinstance(b, str):
            return fn(a, b)
        raise RaspRuntimeError(f"cannot compare {show(a)} {op} {show(b)}")
    return cmp


def _eq(a: Any, b: Any) -> bool:
    return key(a) == key(b) if not (isinstance(a, bool) or isinstance(b, bool)) else a == b


def _in(a: Any, container: Any) -> bool:
    if isinstance(container, str):
        return isinstance(a, str) and a in container
    return any(_eq(a, c) for c in container)


def _round(a: Any) -> Any:
    _num("round", a)
    return int(round(Fraction(a)))


def _neg(a: Any) -> Any:
    _num("-", a)
    return norm(-Fraction(a))


def _pos(a: Any) -> Any:
    _num("+", a)
    return a


COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": _eq,
    "!=": lambda a, b: not _eq(a, b),
    "<": _order("<", lambda a, b: a < b),
    "<=": _order("<=", lambda a, b: a <= b),
    ">": _order(">", lambda a, b: a > b),
    ">=": _order(">=", lambda a, b: a >= b),
}

OPS: dict[str, Callable[..., Any]] = {
    **COMPARE,
    "+": _add,
    "-": _arith("-", lambda a, b: a - b),
    "*": _arith("*", lambda a, b: a * b),
    "/": _arith("/", _div),
    "%": _arith("%", _mod),
    "^": _arith("^", _pow),
    "and": lambda a, b: bool(a) and bool(b),
    "or": lambda a, b: bool(a) or bool(b),
    "not": lambda a: not bool(a),
    "neg": _neg,
    "pos": _pos,
    "indicator": lambda a: 1 if a else 0,
    "round": _round,
    "ite": lambda c, a, b: a if c else b,
    "in": _in,
    "abs": lambda a: (_num("abs", a), norm(abs(Fraction(a))))[1],
    "floor": lambda a: (_num("floor", a), math.floor(Fraction(a)))[1],
}

# How an operation is written when an s-op built from it is displayed.
INFIX = {"+", "-", "*", "/", "%", "^", "and", "or", "in", *COMPARE}


def apply(op: str, *vals: Any) -> Any:
    """Apply ``op`` to concrete values; undefined cases raise :class:`RaspRuntimeError`."""
    try:
        return norm(OPS[op](*vals))
    except RaspRuntimeError:
        raise
    except (TypeError, ValueError, OverflowError) as exc:
        raise RaspRuntimeError(f"'{op}' is not defined on {', '.join(map(show, vals))}: {exc}") from None


def aggregate_values(selected: list[Any], default: Any, where: str = "") -> Any:
    """RASP's aggregate on one query position: the default when nothing is selected, the
    value itself when one position is selected, the mean when several numbers are."""
    if not selected:
        return default
    if len(selected) == 1:
        return selected[0]
    bad = [v for v in selected if not is_number(v)]
    if bad:
        raise RaspRuntimeError(
            f"aggregate cannot average non-numeric values {', '.join(map(show, selected))}{where} "
            "(a categorical aggregate must select at most one position)")
    return norm(sum((Fraction(v) for v in selected), Fraction(0)) / len(selected))
