"""Machine integers (``int8`` … ``uint64``, ``sint<N>``, ``uint<N>``): their names, operators
and widths, and their values on Python integers (the checker's constant folding, the
simulator, the lift of traces). Their typing is ``check.machine``, their translation to SMT
bit-vectors ``smt.machine``.

Semantics (Kind 2's, checked against Kind 2 v3.0.0):

- a value is kept as the number it denotes: ``0 .. 2^N-1`` unsigned, ``-2^(N-1) .. 2^(N-1)-1``
  signed (two's complement), which is also how counterexamples print it;
- ``uint8 e`` converts an ``int`` modulo ``2^8`` (``uint8 256`` is 0, ``int8 200`` is -56), and a
  machine integer of the same signedness to another width (kept when it fits, modulo the width
  otherwise); ``int e`` gives a machine integer's value; nothing converts between signed and
  unsigned, nor to or from ``real`` or ``bool``;
- ``+ - *`` and unary minus wrap around; ``div`` and ``/`` truncate towards zero and ``mod`` takes
  the dividend's sign (C's, SMT-LIB's ``bvsdiv``/``bvsrem``; ``bvudiv``/``bvurem`` unsigned); by
  zero, SMT-LIB's total definitions (``x div 0`` is all ones unsigned, -1 or 1 signed; ``x mod 0``
  is ``x``);
- ``&&``, ``||``, ``!`` are bitwise; ``x lsh n`` and ``x rsh n`` take an unsigned ``n`` of ``x``'s
  width, ``rsh`` is arithmetic on signed ``x``; a shift by the width or more gives 0 (or -1);
- the comparisons are signed or unsigned by the operands' type; operands must have one type;
- on unsigned machine integers, ``x ++ y`` concatenates (``x`` the high bits, a ``uint`` of both
  widths) and ``x[hi:lo]`` extracts bits ``hi`` down to ``lo`` (a ``uint<hi-lo+1>``).
"""

from __future__ import annotations

import re
from typing import Any

from kinduct.frontends.lucent.core.types import T, machine, signed

#: The widest machine integer kinduct accepts (Kind 2 accepts any width).
MAX_WIDTH = 4096

#: The concise names of the common widths.
NAMES = {f"{s}int{n}": machine(s == "", n) for s in ("", "u") for n in (8, 16, 32, 64)}

#: Binary operators of machine integers (beside the comparisons and equality).
ARITH = ("+", "-", "*", "/", "div", "mod")
BITWISE = ("&&", "||")
SHIFTS = ("lsh", "rsh")
COMPARISONS = ("<", "<=", ">", ">=")
CONCAT = "++"

_CONVERSION = re.compile(r"to_(sint|uint)<(\d+)>$")
_EXTRACT = re.compile(r"extract\[(\d+):(\d+)\]$")


def conversion_op(t: T) -> str:
    """The ``Unop`` operator converting to the machine integer type ``t``."""
    return f"to_{t}"


def conversion_target(op: str) -> T | None:
    """The type a conversion operator (:func:`conversion_op`) converts to; None for another
    operator."""
    m = _CONVERSION.match(op)
    return machine(m.group(1) == "sint", int(m.group(2))) if m else None


def extract_op(hi: int, lo: int) -> str:
    """The ``Unop`` operator of ``x[hi:lo]``."""
    return f"extract[{hi}:{lo}]"


def extract_bits(op: str) -> tuple[int, int] | None:
    """``(hi, lo)`` of an extraction operator (:func:`extract_op`); None for another operator."""
    m = _EXTRACT.match(op)
    return (int(m.group(1)), int(m.group(2))) if m else None


# ---- values ----

def wrap(value: int, t: T) -> int:
    """``value`` modulo ``2^width``, in ``t``'s range."""
    n = t.size
    v = value % (1 << n)
    return v - (1 << n) if signed(t) and v >= 1 << (n - 1) else v


def bits_of(value: int, t: T) -> int:
    """The unsigned reading of ``value``'s bits."""
    return value % (1 << t.size)


def _div(a: int, b: int, t: T, op: str) -> int:
    if b == 0:  # SMT-LIB's bvudiv/bvsdiv/bvurem/bvsrem by zero
        if op == "mod":
            return a
        return wrap(-1, t) if a >= 0 or not signed(t) else 1
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return wrap(q, t) if op != "mod" else wrap(a - b * q, t)


def binop_value(op: str, a: int, b: int, t: T) -> int:
    """``a op b`` on values of the machine integer type ``t`` (not a comparison)."""
    if op == "+":
        return wrap(a + b, t)
    if op == "-":
        return wrap(a - b, t)
    if op == "*":
        return wrap(a * b, t)
    if op in ("/", "div", "mod"):
        return _div(a, b, t, op)
    if op == "&&":
        return wrap(bits_of(a, t) & bits_of(b, t), t)
    if op == "||":
        return wrap(bits_of(a, t) | bits_of(b, t), t)
    if op == "lsh":
        return 0 if b >= t.size else wrap(a << b, t)
    if op == "rsh":  # Python's >> on a negative number is arithmetic
        return (a if signed(t) else bits_of(a, t)) >> min(b, t.size)
    raise ValueError(f"unknown machine integer operator {op}")


def concat_value(a: int, b: int, right: T) -> int:
    """``a ++ b`` (unsigned values, ``b`` of type ``right``)."""
    return (a << right.size) | b


def unop_value(op: str, a: Any, t: T) -> int:
    """The value of the unary ``op`` (``neg``, ``bvnot``, an extraction, a conversion) giving a
    value of type ``t`` (the conversions: from an ``int`` or another machine integer)."""
    if op == "neg":
        return wrap(-a, t)
    if op == "bvnot":
        return wrap(~a, t)
    bits = extract_bits(op)
    if bits is not None:
        return wrap(int(a) >> bits[1], t)
    return wrap(int(a), t)  # a conversion


def from_bits(value: int, t: T) -> int:
    """A solver's reading of a bit-vector (unsigned) as a value of ``t``."""
    return wrap(int(value), t)
