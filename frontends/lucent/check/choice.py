"""The checking side of ``any`` and ``choose``: what a ``choose`` is a function of
(:func:`arguments`), and the obligations made inside a predicate, bound to the value picked
(:func:`bind_obligations`). The translation, and why, is ``smt.choice``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.walk import children, needs_stream, reads_var, substitute, subterms
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope


def arguments(pred: A.Expr, var: str) -> list[A.Expr]:
    """The largest subexpressions of ``pred`` that do not read ``var`` (literals left out):
    what ``choose { var: T | pred }`` is a function of."""
    out: list[A.Expr] = []

    def reads(e: A.Expr) -> bool:
        if isinstance(e, A.Var) and e.name == var:
            return True
        if isinstance(e, A.AnyE) and e.pred is not None and e.var != var:
            return reads(e.pred)
        return any(reads(c) for c in children(e))

    stack = [pred]
    while stack:
        e = stack.pop()
        if not reads(e):
            if not isinstance(e, A.Lit):
                out.append(e)
        else:
            stack.extend(reversed(children(e)))
    return out


def bind_obligations(scope: Scope, start: int, r: A.AnyE, var: str) -> None:
    """The obligations made while checking the predicate of ``any`` ``r`` (those of
    ``scope.node`` from index ``start``, such as a selector's) that read its variable ``var``
    read the value ``r`` picks instead: they are owed by that value, at the steps ``r`` runs.
    Refused, located, where such an obligation reads ``var``'s past (``pre``, ``->``) or
    calls a node: that is not an expression of the value picked."""
    from dataclasses import replace

    node = scope.node
    if node is None:
        return
    for i in range(start, len(node.obligations)):
        p = node.obligations[i]
        if not reads_var(p.expr, var):
            continue
        if needs_stream(p.expr, var) or \
                any(isinstance(x, A.Call) for x in subterms(p.expr)):
            raise UnsupportedError(
                f"an obligation ({p.name}) on the past of the variable of 'any' or on a node "
                "call on it", SourceLocation(scope.c.file, p.pos.line, p.pos.col),
                A.source_line(scope.c.text, p.pos.line))
        node.obligations[i] = replace(p, expr=substitute(p.expr, var, r, []))
