"""Quantifiers decided by a witness stream: ``forall`` in a property, ``exists`` in an
assumption (and the duals under negation).

A property ``check forall (x: T | p) e`` is an invariant exactly when ``p(w) => e(w)`` is an
invariant for every stream ``w`` of values of ``T``, and so exactly when it is for every
*constant* stream: in a node, ``w`` is a fresh stream that nothing else reads, chosen freely at
the first step and held after it (a checked ``any { x: T | true -> x = pre x }``), so that
k-induction's hypotheses speak of the value it proves the property of; in a function (no
memory), chosen anew at every step.  Its negation,
``exists (x: T | p) not e``, is then found by the engines as a value of that input, and a
counterexample carries it, so the simulator replays it like any other input.  Dually an
assumption ``assert exists (x: T | p) e`` holds exactly when some stream ``w`` has
``p(w) and e(w)``: the witness is the choice, anew at every step.  Both are exact,
quantifier-free, and need no engine to know about quantifiers.

:func:`mark` finds these positions before the expression is checked (it sets ``witness`` on
the source :class:`~.ast.Quant`): a ``forall`` at positive polarity of an invariant (or
negative of an assumption or reachability target), an ``exists`` at the dual ones, through
``and``, ``or``, ``not``, ``=>``, the lazy ``==>``, ``and then``, ``or else`` and the branches
of an ``if``; anything else (``=``, ``xor``, a condition) has both polarities and stops the walk.
Contract items are not marked: a guarantee is an obligation of the node and an assumption of
its callers.

The variable's refinement type and concise predicate guard the body; where the body calls a
node, it is checked on the lazy branch of that guard, so the callee's obligations (its
assumptions at the call site) are owed only where the guard holds, as Kind 2 does (the guard
of an implication in the body does not count, as in Kind 2).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import lazy
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import Refines
from kinduct.frontends.lucent.core.types import BOOL, T
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope

_LAZY_RIGHT = {"==>": True, "and then": True, "or else": True}


def mark(e: A.Expr, witnessed: str) -> None:
    """Mark the quantifiers of the source expression ``e`` that a witness decides, ``e``
    standing where a ``witnessed`` quantifier (``"forall"`` for an invariant, ``"exists"`` for
    an assumption or a reachability target) may be replaced by a fresh stream."""
    stack: list[tuple[A.Expr, bool]] = [(e, True)]
    while stack:
        x, positive = stack.pop()
        if isinstance(x, A.Unop) and x.op == "not":
            stack.append((x.arg, not positive))
        elif isinstance(x, A.Binop) and x.op in ("and", "or", "and then", "or else"):
            stack += [(x.left, positive), (x.right, positive)]
        elif isinstance(x, A.Binop) and x.op in ("=>", "==>"):
            stack += [(x.left, not positive), (x.right, positive)]
        elif isinstance(x, A.Ite):
            stack += [(x.then, positive), (x.orelse, positive)]
        elif isinstance(x, A.Quant):
            other = "exists" if witnessed == "forall" else "forall"
            if x.kind == (witnessed if positive else other):
                x.witness = witnessed
            stack.append((x.body, positive))


def witness_form(scope: Scope, q: A.Quant) -> A.Expr:
    """The checked expression standing for the marked quantifier ``q``: its variables bound to
    fresh streams, its guards (refinement types, concise predicates) joined to its body by
    ``=>`` (``forall``) or ``and`` (``exists``), lazily where the body calls a node."""
    names = {p.name for p in q.params}
    for part in [q.body, *(p.pred for p in q.params if p.pred is not None)]:
        memory = _memory_of(part, names)
        if memory is not None:  # the variable is a value, not a stream: it has no past
            located = scope.c.err("", memory.pos)
            raise UnsupportedError("'pre' of a quantified variable",
                                   SourceLocation(scope.c.file, memory.pos.line, memory.pos.col),
                                   located.source_line)
    lazy_body = _calls(q.body) or any(p.pred is not None and _calls(p.pred) for p in q.params)
    return _bind(scope, q, 0, {}, lazy_body)


def _bind(scope: Scope, q: A.Quant, i: int, bound: dict[str, A.Expr], lazy_body: bool) -> A.Expr:
    if i == len(q.params):
        return scope.with_constants(bound).expect(q.body, BOOL)
    p = q.params[i]
    t, ref = scope.c.resolve_type(p.type_expr)
    stateful = scope.node is not None and scope.node.kind != "function"
    w = _rigid(scope, p) if stateful and getattr(q, "witness", None) == "forall" else _fresh(p, t)
    w.ref = None  # the type's refinement is a guard, never assumed
    bound = {**bound, p.name: w}
    sub = scope.with_constants(bound)
    conds: list[A.Expr] = [] if ref.empty else [Refines(w, ref, pos=p.pos, ty=BOOL)]
    if p.pred is not None:
        conds.append(sub.expect(p.pred, BOOL))
    if not conds:
        return _bind(scope, q, i + 1, bound, lazy_body)
    cond = conds[0]
    for c in conds[1:]:
        cond = A.Binop("and", cond, c, pos=q.pos, ty=BOOL)
    if lazy_body:
        with lazy.branch(scope, cond, True):
            inner = _bind(scope, q, i + 1, bound, lazy_body)
        other = A.Lit(q.kind == "forall", "bool", pos=q.pos, ty=BOOL)
        return A.Ite(cond, inner, other, lazy=True, pos=q.pos, ty=BOOL)
    inner = _bind(scope, q, i + 1, bound, lazy_body)
    return A.Binop("=>" if q.kind == "forall" else "and", cond, inner, pos=q.pos, ty=BOOL)


def _fresh(p: A.Param, t: T) -> A.AnyE:
    """A witness chosen anew at every step (``any@<T>``)."""
    w = A.AnyE(p.name, t, None, pos=p.pos, ty=t)
    w.uid = naming.uid("witness", w)
    return w


def _rigid(scope: Scope, p: A.Param) -> A.Expr:
    """A witness chosen at the first step and held (``any { x: T | true -> x = pre x }``),
    for a property of a node (a function has no memory): ``forall x. e(x)`` is invariant
    exactly when ``e(w)`` is for every *constant* stream ``w``, and k-induction then assumes
    ``e`` of the value it is proving ``e`` of (a witness chosen anew at each step makes the
    hypotheses speak of other values)."""
    pos = p.pos
    same = A.Binop("=", A.Var(p.name, pos=pos), A.Unop("pre", A.Var(p.name, pos=pos), pos=pos),
                   pos=pos)
    held = A.Binop("->", A.Lit(True, "bool", pos=pos), same, pos=pos)
    w = scope.check(A.AnyE(p.name, p.type_expr, held, pos=pos))
    w.uid = naming.uid("witness", w)
    return w


def _memory_of(e: object, names: set[str]) -> A.Unop | None:
    """A ``pre`` in the source expression ``e`` whose argument reads one of ``names``."""
    for x in _nodes(e):
        if isinstance(x, A.Unop) and x.op == "pre" and any(
                isinstance(y, A.Var) and y.name in names for y in _nodes(x.arg)):
            return x
    return None


def _nodes(e: object) -> list[object]:
    """The source expressions in ``e`` (itself included)."""
    out: list[object] = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, list | tuple):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            if isinstance(x, A.Expr):
                out.append(x)
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x) if f.name != "ty")
    return out


def _calls(e: object) -> bool:
    """Whether the source expression ``e`` holds a call (of a node, or a constructor)."""
    return any(isinstance(x, (A.Call, A.Activate)) for x in _nodes(e))
