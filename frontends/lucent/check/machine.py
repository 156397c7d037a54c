"""The typing of machine integers (:mod:`kinduct.frontends.lucent.core.machine` holds their
semantics and values)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.machine import (
    ARITH,
    BITWISE,
    COMPARISONS,
    CONCAT,
    MAX_WIDTH,
    SHIFTS,
    conversion_target,
    extract_bits,
)
from kinduct.frontends.lucent.core.types import BOOL, INT, machine, signed

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope


def builds(op: str, arg: A.Expr) -> bool:
    """Whether the unary ``op`` on ``arg`` (checked) builds a machine integer: a conversion to
    one, an extraction, ``!``, or unary minus on a machine integer."""
    return op == "bvnot" or conversion_target(op) is not None or extract_bits(op) is not None \
        or (op == "neg" and arg.ty.kind == "machine")


def check_unop(scope: Scope, e: A.Unop, arg: A.Expr) -> A.Expr:
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


def check_binop(scope: Scope, e: A.Binop, a: A.Expr, b: A.Expr) -> A.Expr:
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
