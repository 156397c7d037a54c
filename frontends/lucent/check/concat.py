"""Kind 2's array concatenation ``a | b`` (Lustre v4): the array of ``a``'s elements followed
by ``b``'s, of size ``n + m`` for ``a: T^n`` and ``b: T^m``; and slices ``a[i..j]``.

It binds tighter than the comparisons and looser than ``+``/``-`` (``false^3 | true^3`` is
``(false^3) | (true^3)``).  The grammar reads ``|`` as concatenation only where it cannot end a
match arm's expression (``| C(x):`` starts the next arm); see ``lucent.lark``.  Checked into an
array literal of the operands' elements (``[a[0], …, a[n-1], b[0], …]``, ``[a[i], …, a[j]]``),
so the rest of kinduct sees no new form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import symarrays
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.types import INT, T, leaf_count

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.typecheck import _Scope


@dataclass(eq=False)
class Concat(A.Binop):
    """``left | right`` before it is checked (a :class:`~.ast.Binop` to the walkers)."""

    def check(self, scope: _Scope) -> A.Expr:
        from kinduct.frontends.lucent.check.typecheck import MAX_ARRAY_SIZE
        parts = [scope.check(self.left), scope.check(self.right)]
        for p, src in zip(parts, (self.left, self.right), strict=True):
            symarrays.refuse(scope.c, "the concatenation", p.ty, src.pos)
            if p.ty.kind != "array":
                raise scope.err(f"type mismatch: '|' concatenates arrays, got {p.ty}", src.pos)
        elem = parts[0].ty.items[0]
        scope.unify(elem, parts[1].ty.items[0], self.right.pos)
        size = parts[0].ty.size + parts[1].ty.size
        if size * leaf_count(elem) > MAX_ARRAY_SIZE:
            raise scope.err(f"array size {size} is outside kinduct's limit of 0 to "
                            f"{MAX_ARRAY_SIZE} scalar elements", self.pos)
        items: list[A.Expr] = []
        for p in parts:
            for i in range(p.ty.size):
                read = A.Index(p, A.Lit(i, "int", pos=self.pos, ty=INT), pos=self.pos, ty=elem)
                read.uid = naming.uid("idx", read)
                items.append(read)
        return A.ArrayLit(items, pos=self.pos, ty=T("array", items=(elem,), size=size))


@dataclass(eq=False)
class Slice(A.Expr):
    """``arg[lo..hi]`` before it is checked: the elements ``lo`` to ``hi`` of an array, both
    constant, ``lo <= hi`` (Lustre v4 reads ``hi < lo`` backwards: refused as unsupported)."""

    arg: A.Expr
    lo: A.Expr
    hi: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.arg, self.lo, self.hi]

    def check(self, scope: _Scope) -> A.Expr:
        from kinduct.frontends.lucent.check.typecheck import _line
        from kinduct.kernel.errors import SourceLocation, UnsupportedError
        arg = scope.check(self.arg)
        symarrays.refuse(scope.c, "a slice", arg.ty, self.arg.pos)
        if arg.ty.kind != "array":
            raise scope.err(f"type mismatch: expected an array, got {arg.ty}", self.arg.pos)
        lo, hi = (scope.c.const_int(b) for b in (self.lo, self.hi))
        if hi < lo:
            raise UnsupportedError("a slice whose upper bound is below its lower bound",
                                   SourceLocation(scope.c.file, self.pos.line, self.pos.col),
                                   _line(scope.c.text, self.pos.line))
        for b, v in ((self.lo, lo), (self.hi, hi)):
            if not 0 <= v < arg.ty.size:
                raise scope.err(f"index {v} is out of the bounds of an array of size "
                                f"{arg.ty.size}", b.pos)
        elem = arg.ty.items[0]
        items: list[A.Expr] = []
        for i in range(lo, hi + 1):
            read = A.Index(arg, A.Lit(i, "int", pos=self.pos, ty=INT), pos=self.pos, ty=elem)
            read.uid = naming.uid("idx", read)
            items.append(read)
        return A.ArrayLit(items, pos=self.pos, ty=T("array", items=(elem,), size=len(items)))
