"""Model elements of a Lucent translation (Kind 2's IVC/MCS categories), each guarded by an
activation literal (:mod:`kinduct.kernel.elements`).

The translator opens an element around the constraints it makes for it
(:meth:`Elements.within`); every invariant constraint made inside is guarded by the literals of
the open elements.  A node call's literal guards everything the called instance constrains (its
own elements' literals nest inside), but the literal of the equation or assertion the call
stands in does not: as in Kind 2, switching off ``x = N(a)`` frees ``x`` and leaves ``N``'s
instance (and its contract's obligations) in place.  Elements are named and placed as Kind 2 names them:

- ``equation``: the defined stream (one element per stream of a tuple equation), at the start
  of the right-hand side; the right-hand side's own constraints (auxiliary variables) belong to
  no equation, so switching an equation off frees its stream only (not a ghost's, nor a
  local's that Kind 2 inlines: :func:`equation_element`);
- ``assertion``: ``assertion[LlCc]`` at the ``assert`` keyword;
- ``assumption``: a main node's contract assumption (``assume[LlCc]``), assumed;
- ``guarantee``, ``ensure``: a callee's contract read by an abstraction (assumed there);
- ``nodeCall``: the called node's name, at the call.

An element of a node has one literal for every instance of the node.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pysmt.fnode import FNode
from pysmt.typing import BOOL

from kinduct.frontends.lucent.core import ast as A
from kinduct.kernel.elements import ModelElement
from kinduct.kernel.errors import SourceLocation


class Elements:
    """The elements met so far and the literals of those open now."""

    def __init__(self, mgr, file: str) -> None:
        self.mgr = mgr
        self.file = file
        self.found: dict[tuple[str, str, str, int, int], ModelElement] = {}
        #: The open elements' literals, each with whether it is a node call's.
        self.open: list[tuple[FNode, bool]] = []

    @contextmanager
    def within(self, node: str, category: str, name: str, pos: A.Pos) -> Iterator[None]:
        """Constraints made inside are guarded by this element's literal.  A polymorphic
        node's instance ``N<<int>>`` is the node ``N<int>``, as Kind 2 names it; a call of it
        is named ``N`` (Kind 2: ``N.n_0``, by instantiation)."""
        node = node.replace("<<", "<").replace(">>", ">")
        if category == "nodeCall":
            name = name.split("<<", 1)[0]
        loc = SourceLocation(self.file, pos.line or None, pos.col or None)
        key = (node, category, name, pos.line, pos.col)
        element = self.found.get(key)
        if element is None:
            act = self.mgr.Symbol(f"%act.{len(self.found)}", BOOL)
            element = ModelElement(node, category, name, loc, act)
            self.found[key] = element
        saved = self.open
        calls = [x for x in saved if x[1]] if category == "nodeCall" else saved
        self.open = [*calls, (element.act, category == "nodeCall")]
        try:
            yield
        finally:
            self.open = saved

    def guard(self, formula: FNode) -> FNode:
        """``formula`` under the literals of the open elements."""
        if not self.open:
            return formula
        return self.mgr.Implies(self.mgr.And([act for act, _ in self.open]), formula)

    def elements(self) -> tuple[ModelElement, ...]:
        return tuple(self.found.values())


def equation_element(names: list[str], ghosts: list[str], locals_: list[str],
                     pres: list[A.Unop]) -> bool:
    """Whether a node's equation of ``names`` is an element, as Kind 2 v3.0.0 counts them
    (``ghosts``, ``locals_``: the node's; ``pres``: its ``pre`` occurrences): not a contract's
    ghost definition, nor the definition of locals that Kind 2 inlines (those no ``pre``
    reads); an output's always."""
    remembered = {v.name for p in pres for v in _walk(p.arg) if isinstance(v, A.Var)}
    return not all(n in ghosts or n in locals_ and n not in remembered for n in names)


def _walk(e: A.Expr) -> Iterator[A.Expr]:
    stack: list = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Expr):
            yield x
            stack.extend(v for v in vars(x).values() if isinstance(v, (A.Expr, list, tuple)))
        elif isinstance(x, (list, tuple)):
            stack.extend(x)


def start(e: A.Expr) -> A.Pos:
    """Where the text of ``e`` starts: its own position (that of a binary operation is its
    left operand's start), else the first among its subexpressions' (a generated expression's
    parts may be placed elsewhere: a constant's value at its declaration)."""
    if e.pos.line:
        return e.pos
    best = e.pos
    for x in _walk(e):
        p = x.pos
        if p.line and (not best.line or (p.line, p.col) < (best.line, best.col)):
            best = p
    return best


def assert_pos(text: str, e: A.Expr) -> A.Pos:
    """The ``assert`` keyword before the asserted expression ``e`` (its own position when the
    keyword is not found there: a generated assertion)."""
    p = start(e)
    if not p.line:
        return p
    at = text.rfind("assert", 0, p.start)
    if at < 0 or text[at + len("assert"):p.start].strip():
        return p
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    return A.Pos(line, col, at, at + len("assert"))
