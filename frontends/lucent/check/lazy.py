"""Lazy evaluation in Lucent: the operators ``when c then a else b``, ``a and then b``,
``a or else b``, ``a ==> b`` and the blocks ``when c then … else … end`` and
``cond | c1: … | c2: … otherwise: … end`` (the primer's "Lazy Operators" and "Lazy Blocks").

A lazy branch is evaluated only at the steps where it is selected: those are its *clock*
(:class:`Clock`: the enclosing clock and the branch's condition).  As in Kind 2, the branch
runs on that clock:

- ``pre e`` in a branch is the value of ``e`` the last time the branch was selected (arbitrary
  before that), and ``a -> b`` is ``a`` the first time it is selected;
- a node called in a branch steps only when the branch is selected and keeps its state
  otherwise (its own ``->`` and ``pre`` count its activations);
- what a branch owes (a type ascription, a callee's assumptions and input types, a callee's
  properties) is owed only where it is selected, and what it assumes (an ``any`` predicate, an
  abstracted callee's guarantees) is assumed only there;
- ``last x`` (in a frame block) stays the value of ``x`` at the previous step of the node.

The operators are checked into :class:`~kinduct.frontends.lucent.core.ast.Ite` with ``lazy`` set
(``a and then b`` is ``when a then b else false``, ``a or else b`` is ``when a then true else
b``, ``a ==> b`` is ``when a then b else true``); the blocks into one such expression per
variable they define.  Every ``pre``, ``->``, node call and ``any`` checked inside a branch,
and the obligation of an ascription there, carry the branch's clock as ``clock``; the
translation and the simulator read it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import arraydef
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.clocks import Clock
from kinduct.frontends.lucent.core.types import BOOL, INT, T, flat

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope
    from kinduct.frontends.lucent.core.checked import Node

def make_clock(scope: Scope, cond: A.Expr, positive: bool) -> Clock:
    """A new clock of the node being checked: the steps of ``scope``'s clock where the checked
    Boolean ``cond`` is ``positive`` (a lazy branch's, an activation's: :mod:`.activation`)."""
    clock = Clock(cond, positive, scope.clock, naming.current().clock(cond.pos.line, cond.pos.col))
    if scope.node is not None:
        scope.node.clocks.append(clock)
    return clock


@contextmanager
def branch(scope: Scope, cond: A.Expr, positive: bool) -> Iterator[Clock]:
    """Check what the ``with`` body checks on the branch of ``cond`` that is selected when
    ``cond`` is ``positive``: its ``pre`` are guarded only by its own ``->``."""
    clock = make_clock(scope, cond, positive)
    saved = scope.clock, scope.guarded
    scope.clock, scope.guarded = clock, False
    try:
        yield clock
    finally:
        scope.clock, scope.guarded = saved


def check_ite(scope: Scope, e: A.Ite, hint: T | None = None) -> A.Expr:
    """``when c then a else b`` (``hint``: the type expected of it, if known)."""
    c = scope.expect(e.cond, BOOL)
    with branch(scope, c, True):
        a = scope.check_as(e.then, hint)
    with branch(scope, c, False):
        b = scope.check_as(e.orelse, hint or a.ty)
    if flat(a.ty) != flat(b.ty):
        raise scope.err(f"type mismatch: expected {a.ty}, got {b.ty}", e.orelse.pos)
    return A.Ite(c, a, b, lazy=True, pos=e.pos, ty=a.ty)


def check_binop(scope: Scope, e: A.Binop) -> A.Expr:
    """``a and then b``, ``a or else b``, ``a ==> b``: ``b`` is evaluated only where ``a`` is
    true (false for ``or else``)."""
    a = scope.expect(e.left, BOOL)
    when_true = e.op != "or else"
    with branch(scope, a, when_true):
        b = scope.expect(e.right, BOOL)
    other = A.Lit(e.op != "and then", "bool", pos=e.pos, ty=BOOL)
    then, orelse = (b, other) if when_true else (other, b)
    return A.Ite(a, then, orelse, lazy=True, pos=e.pos, ty=BOOL)


class _Blocks:
    """The elaboration of one statement-level lazy block into one expression per variable."""

    def __init__(self, checker: Checker, node: Node, scope: Scope,
                 frame: dict[str, A.Expr] | None) -> None:
        self.c = checker
        self.node = node
        self.scope = scope
        self.frame = frame

    def block(self, blk: A.LazyBlock) -> dict[str, A.Expr]:
        what = "cond" if blk.kind == "cond" else "when"
        return self._branches(blk.branches, blk.orelse, blk.pos, what)

    def _branches(self, branches: list[tuple[A.Expr, list]], orelse: list | None, pos: A.Pos,
                  what: str) -> dict[str, A.Expr]:
        scope = self.scope
        cond_src, stmts = branches[0]
        c = scope.expect(cond_src, BOOL)
        with branch(scope, c, True):
            then = self._stmts(stmts)
        with branch(scope, c, False):
            if len(branches) > 1:
                rest = self._branches(branches[1:], orelse, pos, what)
            else:
                rest = self._stmts(orelse or [])
        out: dict[str, A.Expr] = {}
        for n in self._ordered(set(then) | set(rest)):
            a = then[n] if n in then else self._omitted(n, pos, what)
            b = rest[n] if n in rest else self._omitted(n, pos, what)
            out[n] = A.Ite(c, a, b, lazy=True, pos=pos, ty=self.node.types[n])
        return out

    def _ordered(self, names: set[str]) -> list[str]:
        streams = self.node.streams
        return sorted(names, key=lambda x: streams.index(x) if x in streams else 0)

    def _omitted(self, n: str, pos: A.Pos, what: str) -> A.Expr:
        """A branch that does not define ``n``: in a frame block, ``n`` keeps its value (as
        ``last n``); elsewhere an error."""
        if self.frame is None or n not in self.frame:
            raise self.c.err(f"'{n}' is not defined in every branch of this {what} block "
                             "(an omitted else or otherwise branch included)", pos)
        return self.frame[n]

    def _stmts(self, stmts: list) -> dict[str, A.Expr]:
        out: dict[str, A.Expr] = {}
        for s in stmts:
            if isinstance(s, A.Equation):
                got = self._equation(s)
            elif isinstance(s, A.ArrayDef):
                if self.frame is not None and s.name not in self.frame:
                    raise self.c.err(f"'{s.name}' is not a variable of this frame", s.pos)
                got = {s.name: arraydef.elaborate(self.c, s, self.node, self.scope)}
            elif isinstance(s, A.LazyBlock):
                got = self.block(s)
            elif isinstance(s, A.IfBlock):
                raise self.c.err("if blocks are not allowed inside when and cond blocks", s.pos)
            else:
                raise self.c.err("only equations and when or cond blocks are allowed in a when or "
                                 "cond block", getattr(s, "pos", A.NOPOS))
            for n, e in got.items():
                if n in out:
                    raise self.c.err(f"'{n}' is defined twice", getattr(s, "pos", A.NOPOS))
                out[n] = e
        return out

    def _equation(self, s: A.Equation) -> dict[str, A.Expr]:
        return equation_parts(self.c, self.node, self.scope, self.frame, s)


def equation_parts(checker: Checker, node: Node, scope: Scope, frame: dict[str, A.Expr] | None,
                   s: A.Equation) -> dict[str, A.Expr]:
    """The expression of each variable the equation ``s`` defines (of a block: the variables
    of the enclosing frame block ``frame`` only, where there is one)."""
    for n, p in s.lhs:
        if n not in node.types:
            raise checker.err(f"unknown name '{n}'", p)
        if n in node.inputs:
            raise checker.err(f"cannot define input '{n}'", p)
        if frame is not None and n not in frame:
            raise checker.err(f"'{n}' is not a variable of this frame", p)
    rhs = scope.check(s.rhs)
    names = [n for n, _ in s.lhs]
    if len(names) == 1:
        scope.unify(node.types[names[0]], rhs.ty, s.rhs.pos)
        return {names[0]: rhs}
    items = rhs.ty.items if rhs.ty.kind == "tuple" else ()
    if len(items) != len(names) or any(flat(node.types[n]) != flat(t)
                                       for n, t in zip(names, items, strict=True)):
        want = T("tuple", items=tuple(node.types[n] for n in names))
        raise checker.err(f"type mismatch: the left side has type {want}, the right side "
                         f"{rhs.ty}", s.rhs.pos)
    return {n: A.Index(rhs, A.Lit(i, "int", pos=s.rhs.pos, ty=INT), pos=s.rhs.pos,
                       ty=items[i]) for i, n in enumerate(names)}


def block_exprs(checker: Checker, blk: A.LazyBlock, node: Node, scope: Scope,
                frame: dict[str, A.Expr] | None) -> dict[str, A.Expr]:
    """The variables the lazy block ``blk`` defines, each with one lazy expression choosing the
    selected branch's definition; ``frame``: the enclosing frame block's ``last`` of each of its
    variables (what a branch that omits one means), None outside a frame block."""
    return _Blocks(checker, node, scope, frame).block(blk)


def define_block(checker: Checker, blk: A.LazyBlock, node: Node, scope: Scope,
                 defined: dict[str, A.Pos]) -> None:
    """Add to ``node`` the equations of the lazy block ``blk``, a statement of its body (not of
    a frame block); ``defined``: where each variable defined so far is defined."""
    for n, e in block_exprs(checker, blk, node, scope, None).items():
        if n in defined:
            raise checker.err(f"'{n}' is defined twice", blk.pos)
        defined[n] = blk.pos
        node.eqs.append(([n], e))
