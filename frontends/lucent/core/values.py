"""The values of Lucent's binary operators on Python values: one arithmetic for the checker's
constant folding and the simulator's steps."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kinduct.frontends.lucent.core import machine
from kinduct.frontends.lucent.core.types import T

_COMPARISONS = ("=", "<>", "<", "<=", ">", ">=")


class SimulationError(Exception):
    """An expression the interpreter cannot evaluate (an unknown operator or form, a value
    not available at this step)."""


def euclid(a: int, b: int) -> tuple[int, int]:
    """SMT-LIB integer division: a = b*q + r with 0 <= r < |b|."""
    r = a % abs(b)
    return (a - r) // b, r


def binop_value(op: str, a: Any, b: Any, ty: T | None = None, right: T | None = None) -> Any:
    """The value of ``a op b``: a division is real when an operand is a ``Fraction`` or ``ty``
    (the operation's type, or its operands') is ``real``, else Euclidean; by zero it raises
    :class:`ZeroDivisionError`.  On machine integers (``ty``), arithmetic wraps around
    (:mod:`.machine`); a concatenation ``++`` needs ``right``, the type of ``b``."""
    if op == machine.CONCAT:
        if right is None:
            raise SimulationError("'++' needs the width of its right operand")
        return machine.concat_value(a, b, right)
    if ty is not None and ty.kind == "machine" and op not in _COMPARISONS:
        return machine.binop_value(op, a, b, ty)
    if op == "and":
        return a and b
    if op == "or":
        return a or b
    if op == "xor":
        return a != b
    if op == "=>":
        return (not a) or b
    if op == "=":
        return a == b
    if op == "<>":
        return a != b
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "div", "mod"):
        if b == 0:
            raise ZeroDivisionError
        if isinstance(a, Fraction) or isinstance(b, Fraction) or (ty is not None and ty.kind == "real"):
            return Fraction(a) / Fraction(b)
        q, r = euclid(a, b)
        return r if op == "mod" else q
    raise SimulationError(f"unknown operator {op}")
