"""Groups and tuples, as Kind 2 tells them apart.

A parenthesised list ``(a, b)`` is a *group*: several values side by side, which an equation
spreads over the streams of its left side (``x, y = (a, b)``), nested groups flattened
(``x, y, z = ((a, b), c)``), a node call's outputs a group too.  A *tuple* is one value of a
tuple type ``[T1, T2]``, built by ``'(a, b)`` (the primer) or by Kind 2's braces ``{a, b}`` where
a tuple is expected (:meth:`.typecheck.Scope.check_as`).  So an equation's left side and right
side must have the same *width* (Kind 2's "width lengths of equation are not equal"):
``g, h = ((e1, e2), e3)`` with ``g: [int, int]`` is refused (three values for two streams), and
so is ``x = (a, b)`` for a tuple ``x`` (write ``'(a, b)`` or ``{a, b}``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import collections

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker


def width(checker: Checker, e: A.Expr) -> int | None:
    """How many values the unchecked expression ``e`` gives side by side (None: not known
    here, no check)."""
    if isinstance(e, A.TupleE):
        if checker.text[e.pos.start:e.pos.start + 1] != "(":  # '(a, b): one tuple
            return 1
        parts = [width(checker, x) for x in e.items]
        return None if None in parts else sum(parts)  # type: ignore[arg-type]
    if isinstance(e, A.Call):
        decl = checker.decls.get(e.name)
        return None if decl is None else len(decl.outputs)
    if isinstance(e, A.Unop):
        return width(checker, e.arg) if e.op == "pre" else 1
    if isinstance(e, A.Binop):
        return width(checker, e.left) if e.op == "->" else 1
    if isinstance(e, A.Ite):
        return width(checker, e.then)
    if isinstance(e, A.Var | A.Lit | collections.SetLit | A.ArrayLit | A.RecordLit):
        return 1
    return None


def check_equation(checker: Checker, eq: A.Equation) -> None:
    """Refuse an equation whose right side is known to give more or fewer values side by side
    than its left side names streams."""
    w = width(checker, eq.rhs)
    if w is not None and w != len(eq.lhs):
        raise checker.err(f"the left side defines {len(eq.lhs)} stream"
                          f"{'s' if len(eq.lhs) != 1 else ''}, the right side gives {w} values "
                          "side by side (a tuple value is written '(a, b) or {a, b})", eq.rhs.pos)
