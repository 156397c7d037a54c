"""Machine integers (``int8`` … ``uint64``, ``sint<N>``, ``uint<N>``): their typing, their values
on Python integers (the checker's constant folding and the simulator), and their translation to
SMT bit-vectors.

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
from typing import TYPE_CHECKING, Any

from pysmt.fnode import FNode
from pysmt.typing import BVType

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.types import BOOL, INT, T, machine, signed

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.typecheck import _Scope
    from kinduct.frontends.lucent.smt.translate import _Inst

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


def _bits(value: int, t: T) -> int:
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
        return wrap(_bits(a, t) & _bits(b, t), t)
    if op == "||":
        return wrap(_bits(a, t) | _bits(b, t), t)
    if op == "lsh":
        return 0 if b >= t.size else wrap(a << b, t)
    if op == "rsh":  # Python's >> on a negative number is arithmetic
        return (a if signed(t) else _bits(a, t)) >> min(b, t.size)
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


# ---- typing ----

def builds(op: str, arg: A.Expr) -> bool:
    """Whether the unary ``op`` on ``arg`` (checked) builds a machine integer: a conversion to
    one, an extraction, ``!``, or unary minus on a machine integer."""
    return op == "bvnot" or conversion_target(op) is not None or extract_bits(op) is not None \
        or (op == "neg" and arg.ty.kind == "machine")


def check_unop(scope: _Scope, e: A.Unop, arg: A.Expr) -> A.Expr:
    """The unary operators that build machine integers (:func:`builds`); ``int e`` of a machine
    integer is typed by the caller."""
    target = conversion_target(e.op)
    if target is not None:
        src = arg.ty
        ok = src == INT or (src.kind == "machine" and signed(src) == signed(target))
        if not ok:
            raise scope.err(f"cannot convert type {src} to type {target}", e.arg.pos)
        return A.Unop(e.op, arg, pos=e.pos, ty=target)
    bits = extract_bits(e.op)
    if bits is not None:
        hi, lo = bits
        if arg.ty.kind != "machine" or signed(arg.ty):
            raise scope.err(f"type mismatch: '[{hi}:{lo}]' expects an unsigned machine integer, "
                            f"got {arg.ty}", e.arg.pos)
        if not lo <= hi < arg.ty.size:
            raise scope.err(f"cannot extract bits {hi} down to {lo} of a {arg.ty}", e.pos)
        return A.Unop(e.op, arg, pos=e.pos, ty=machine(False, hi - lo + 1))
    if arg.ty.kind != "machine":
        raise scope.err(f"type mismatch: '!' expects a machine integer, got {arg.ty}", e.arg.pos)
    return A.Unop(e.op, arg, pos=e.pos, ty=arg.ty)


def involved(op: str, a: A.Expr, b: A.Expr) -> bool:
    """Whether the binary ``op`` on ``a`` and ``b`` is typed here: a machine integer operand,
    or a bitwise, shift or concatenation operator."""
    return op in (*BITWISE, *SHIFTS, CONCAT) or a.ty.kind == "machine" or b.ty.kind == "machine"


def check_binop(scope: _Scope, e: A.Binop, a: A.Expr, b: A.Expr) -> A.Expr:
    """``a op b`` where :func:`involved`: both operands of one machine integer type (a shift's
    amount: unsigned, of the shifted value's width)."""
    op = e.op
    if op == CONCAT:
        for x, src in ((a, e.left), (b, e.right)):
            if x.ty.kind != "machine" or signed(x.ty):
                raise scope.err(f"type mismatch: '++' expects an unsigned machine integer, got "
                                f"{x.ty}", src.pos)
        if a.ty.size + b.ty.size > MAX_WIDTH:
            raise scope.err(f"a machine integer of {a.ty.size + b.ty.size} bits is over "
                            f"kinduct's limit of {MAX_WIDTH}", e.pos)
        return A.Binop(op, a, b, pos=e.pos, ty=machine(False, a.ty.size + b.ty.size))
    if a.ty.kind != "machine":
        if op in BITWISE + SHIFTS:
            raise scope.err(f"type mismatch: '{op}' expects a machine integer, got {a.ty}",
                            e.left.pos)
        raise scope.err(f"type mismatch: expected {b.ty}, got {a.ty}", e.left.pos)
    if op in SHIFTS:
        want = machine(False, a.ty.size)
        if b.ty != want:
            raise scope.err(f"type mismatch: the amount of '{op}' has type {want} (unsigned, the "
                            f"width of the shifted value), got {b.ty}", e.right.pos)
        return A.Binop(op, a, b, pos=e.pos, ty=a.ty)
    if op not in ARITH + BITWISE + COMPARISONS:
        raise scope.err(f"type mismatch: '{op}' does not apply to {a.ty}", e.pos)
    if b.ty != a.ty:
        raise scope.err(f"type mismatch: expected {a.ty}, got {b.ty}", e.right.pos)
    return A.Binop(op, a, b, pos=e.pos, ty=BOOL if op in COMPARISONS else a.ty)


# ---- translation ----

def smt_type(t: T):
    return BVType(t.size)


def translate_unop(inst: _Inst, e: A.Unop, a: FNode) -> FNode:
    """A conversion to or from a machine integer, an extraction, ``!`` or unary minus, on the
    term ``a``."""
    mgr = inst.mgr
    src, t = e.arg.ty, e.ty
    if e.op == "neg":
        return mgr.BVNeg(a)
    if e.op == "bvnot":
        return mgr.BVNot(a)
    bits = extract_bits(e.op)
    if bits is not None:
        return mgr.BVExtract(a, bits[1], bits[0])
    if e.op == "to_int":  # src is a machine integer
        nat = mgr.BVToNatural(a)
        if not signed(src):
            return nat
        return mgr.Ite(mgr.BVSLT(a, mgr.BV(0, src.size)), mgr.Minus(nat, mgr.Int(1 << src.size)), nat)
    if src.kind == "machine":
        return _resize(mgr, a, src, t.size)
    inner = e.arg
    if isinstance(inner, A.Unop) and inner.op == "to_int" and inner.arg.ty.kind == "machine":
        # uint8 (int x): x's bits resized, without the detour through int (hard for solvers)
        return _resize(mgr, inst.expr(inner.arg), inner.arg.ty, t.size)
    from kinduct.frontends.lucent.core.walk import const_value  # walk folds with this module's values

    value = const_value(e.arg)
    if value is not None:
        return mgr.BV(_bits(int(value), t), t.size)
    # from a stream of int: the bit-vector whose value is congruent to it modulo 2^width
    name, n = e.uid, 0
    while inst.prefix + name in mgr.symbols:  # applied to several values (a type's predicate)
        n += 1
        name = f"{e.uid}#{n}"
    bv = inst.fresh(name, t)
    q = inst.fresh(naming.quotient(name), INT)
    inst.tr.assume(mgr.Equals(a, mgr.Plus(mgr.Times(mgr.Int(1 << t.size), q), mgr.BVToNatural(bv))))
    return bv


def _resize(mgr, a: FNode, src: T, width: int) -> FNode:
    """The machine integer ``a`` of type ``src`` modulo ``2^width`` (cut, or extended by its
    sign bit if ``src`` is signed, by zeros otherwise: its value is kept)."""
    if width == src.size:
        return a
    if width < src.size:
        return mgr.BVExtract(a, 0, width - 1)
    return (mgr.BVSExt if signed(src) else mgr.BVZExt)(a, width - src.size)


def translate_binop(mgr, e: A.Binop, a: FNode, b: FNode) -> FNode:
    """``a op b`` on machine integers (a comparison of them included)."""
    t = e.left.ty
    s = signed(t)
    op = e.op
    if op == CONCAT:
        return mgr.BVConcat(a, b)
    simple = {"+": mgr.BVAdd, "-": mgr.BVSub, "*": mgr.BVMul, "&&": mgr.BVAnd, "||": mgr.BVOr,
              "lsh": mgr.BVLShl,
              "rsh": mgr.BVAShr if s else mgr.BVLShr,
              "/": mgr.BVSDiv if s else mgr.BVUDiv, "div": mgr.BVSDiv if s else mgr.BVUDiv,
              "mod": mgr.BVSRem if s else mgr.BVURem,
              "<": mgr.BVSLT if s else mgr.BVULT, "<=": mgr.BVSLE if s else mgr.BVULE,
              ">": mgr.BVSGT if s else mgr.BVUGT, ">=": mgr.BVSGE if s else mgr.BVUGE}
    return simple[op](a, b)
