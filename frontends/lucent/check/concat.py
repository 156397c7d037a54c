"""Kind 2's array concatenation ``a | b`` (Lustre v4): the array of ``a``'s elements followed
by ``b``'s, of size ``n + m`` for ``a: T^n`` and ``b: T^m``; and slices ``a[i..j]``.

It binds tighter than the comparisons and looser than ``+``/``-`` (``false^3 | true^3`` is
``(false^3) | (true^3)``).  The grammar reads ``|`` as concatenation only where it cannot end a
match arm's expression (``| C(x):`` starts the next arm); see ``lucent.lark``.  Checked into an
array literal of the operands' elements (``[a[0], …, a[n-1], b[0], …]``, ``[a[i], …, a[j]]``),
so the rest of kinduct sees no new form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import symarrays
from kinduct.frontends.lucent.check.scope_api import MAX_ARRAY_SIZE
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.ast import Concat, Slice
from kinduct.frontends.lucent.core.types import INT, T, leaf_count

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope


def check_concat(scope: Scope, e: Concat) -> A.Expr:
    """``left | right``: an array literal of both operands' elements."""
    parts = [scope.check(e.left), scope.check(e.right)]
    for p, src in zip(parts, (e.left, e.right), strict=True):
        symarrays.refuse(scope.c, "the concatenation", p.ty, src.pos)
        if p.ty.kind != "array":
            raise scope.err(f"type mismatch: '|' concatenates arrays, got {p.ty}", src.pos)
    elem = parts[0].ty.items[0]
    scope.unify(elem, parts[1].ty.items[0], e.right.pos)
    size = parts[0].ty.size + parts[1].ty.size
    if size * leaf_count(elem) > MAX_ARRAY_SIZE:
        raise scope.err(f"array size {size} is outside kinduct's limit of 0 to "
                        f"{MAX_ARRAY_SIZE} scalar elements", e.pos)
    items: list[A.Expr] = []
    for p in parts:
        for i in range(p.ty.size):
            read = A.Index(p, A.Lit(i, "int", pos=e.pos, ty=INT), pos=e.pos, ty=elem)
            read.uid = naming.uid("idx", read)
            items.append(read)
    return A.ArrayLit(items, pos=e.pos, ty=T("array", items=(elem,), size=size))


def check_slice(scope: Scope, e: Slice) -> A.Expr:
    """``arg[lo..hi]``: an array literal of the elements ``lo`` to ``hi``."""
    from kinduct.kernel.errors import SourceLocation, UnsupportedError
    arg = scope.check(e.arg)
    symarrays.refuse(scope.c, "a slice", arg.ty, e.arg.pos)
    if arg.ty.kind != "array":
        raise scope.err(f"type mismatch: expected an array, got {arg.ty}", e.arg.pos)
    lo, hi = (scope.c.const_int(b) for b in (e.lo, e.hi))
    if hi < lo:
        raise UnsupportedError("a slice whose upper bound is below its lower bound",
                               SourceLocation(scope.c.file, e.pos.line, e.pos.col),
                               A.source_line(scope.c.text, e.pos.line))
    for b, v in ((e.lo, lo), (e.hi, hi)):
        if not 0 <= v < arg.ty.size:
            raise scope.err(f"index {v} is out of the bounds of an array of size "
                            f"{arg.ty.size}", b.pos)
    elem = arg.ty.items[0]
    items: list[A.Expr] = []
    for i in range(lo, hi + 1):
        read = A.Index(arg, A.Lit(i, "int", pos=e.pos, ty=INT), pos=e.pos, ty=elem)
        read.uid = naming.uid("idx", read)
        items.append(read)
    return A.ArrayLit(items, pos=e.pos, ty=T("array", items=(elem,), size=len(items)))
