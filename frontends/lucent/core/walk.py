"""Walks over checked Lucent expressions and declarations, without recursion where inputs may
nest deeply: children, the streams read at the current step, temporal operators, node calls,
constant values, and cycles of a dependency graph."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from fractions import Fraction

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import machine
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import Quantified, Refines
from kinduct.frontends.lucent.core.types import T
from kinduct.frontends.lucent.core.values import binop_value
from kinduct.kernel.errors import SourceLocation, UnsupportedError

#: The syntax nodes a walk of a declaration descends into.
_WALKED = (A.Expr, A.Equation, A.Assert, A.Check, A.IfBlock, A.LazyBlock, A.FrameBlock, A.TypeExpr)
#: Field values a walk of a declaration never looks into (most fields of a syntax node): skipped
#: by their exact type, before the ``isinstance`` tests (a large model has millions).
_LEAVES = frozenset({str, int, bool, float, Fraction, type(None), A.Pos, T})


def calls_in_decl(d: A.NodeDecl | None):
    if d is None:
        return
    stack: list = list(d.body) + [i for i in d.contract]
    # refinement types of the declarations may call nodes too (:mod:`.constants`)
    stack += [p.type_expr for p in d.inputs + d.outputs + d.locals] + [te for _, te, _, _ in d.consts]
    stack += [e for p in d.inputs + d.outputs + d.locals for e in (p.pred,) if e is not None]
    walked = (*_WALKED, A.ContractItem)
    leaves, direct = _LEAVES, _DIRECT
    while stack:
        x = stack.pop()
        if isinstance(x, (A.Call, A.Activate)):  # an activation calls its node too
            yield x
        if isinstance(x, walked):
            for v in vars(x).values():
                cls = type(v)
                if cls in leaves:
                    continue
                known = direct.get(cls)
                if known is None:
                    known = direct[cls] = issubclass(cls, _WALKED)
                if known:  # what ``_push`` does with it, without the call
                    stack.append(v)
                else:
                    _push(stack, v)


#: Per class met in a declaration's fields: whether it is one of :data:`_WALKED`'s (which
#: :func:`_push` puts on the stack as it is).
_DIRECT: dict[type, bool] = {}


def _push(stack, v) -> None:
    if isinstance(v, _WALKED):
        stack.append(v)
    elif isinstance(v, (list, tuple)):
        for i in v:
            if type(i) not in _LEAVES:
                _push(stack, i)
    elif isinstance(v, dict):
        for i in v.values():
            _push(stack, i)


def subterms(e: A.Expr) -> list[A.Expr]:
    """``e`` and every expression below it."""
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        out.append(x)
        stack.extend(children(x))
    return out


def children(e: A.Expr) -> list[A.Expr]:
    """The direct subexpressions of ``e``, by the lister of its class (:func:`_lister`)."""
    lister = _LISTERS.get(type(e))
    if lister is None:
        lister = _LISTERS[type(e)] = _lister(type(e))
    return lister(e)


#: Per expression class, how its children are listed: found once per class (a walk of a large
#: model lists millions of children; the tests of :func:`_lister` were most of its time).
_LISTERS: dict[type, Callable[[A.Expr], list[A.Expr]]] = {}


def _lister(cls: type) -> Callable[[A.Expr], list[A.Expr]]:
    """How :func:`children` lists the children of an expression of class ``cls``."""
    if issubclass(cls, A.Index):
        return lambda e: [e.arg, e.index]
    if issubclass(cls, (A.Unop, A.Field, A.Ascribe, Refines)):
        return lambda e: [e.arg]
    if issubclass(cls, A.Binop):
        return lambda e: [e.left, e.right]
    if issubclass(cls, A.Ite):
        return lambda e: [e.cond, e.then, e.orelse]
    if issubclass(cls, (A.Call, A.Construct)):
        return lambda e: list(e.args)
    if issubclass(cls, A.Tester):
        return lambda e: [e.arg]
    if issubclass(cls, (A.TupleE, A.ArrayLit)):
        return lambda e: list(e.items)
    if issubclass(cls, A.Caret):
        return lambda e: [e.elem]
    if issubclass(cls, A.Update):
        return lambda e: [e.arg, e.index, e.value]
    if issubclass(cls, A.RecordLit):
        return lambda e: [x for _, x in e.fields]
    if issubclass(cls, A.AnyE):
        return lambda e: []
    if issubclass(cls, A.Quant):  # source form only: the checker expands quantifiers
        return lambda e: [e.body]
    if issubclass(cls, Quantified):
        return lambda e: [*(p.pred for p in e.params if p.pred is not None), e.body]
    if issubclass(cls, (A.When, A.Current)):  # the clock operators, before they are checked
        return lambda e: [e.arg]
    if issubclass(cls, A.Merge):
        return lambda e: [x for _, x in e.cases]
    if issubclass(cls, A.Activate):
        return lambda e: [*e.args, *(x for x in (e.every, e.restart) if x is not None),
                          *(e.defaults or [])]
    return _own_kids  # sets and maps (:mod:`.collections`)


def _own_kids(e: A.Expr) -> list[A.Expr]:
    kids = getattr(e, "kids", None)
    return kids() if kids is not None else []


#: Per elaborated node: its number of inputs, and the positions of those its outputs read at
#: the current step.
Instant = dict[str, tuple[int, set[int]]]


def current_vars(e: A.Expr, phase: int | None = None,
                 instant: Mapping[str, tuple[int, set[int]]] | None = None) -> set[str]:
    """Streams read at the current step (not under ``pre``); with ``phase`` 0 only those read
    at the first step (left of ``->``), with ``phase`` 1 only those read later; with
    ``instant``, a call of a node it lists reads only the arguments that node's outputs read
    at the current step.  (Called about 107,000 times on a 1 MB model: what each class of
    expression is to it is found once per class, :data:`_READS`.)"""
    out: set[str] = set()
    stack = [e]
    kinds, listers = _READS, _LISTERS
    while stack:
        x = stack.pop()
        cls = type(x)
        kind = kinds.get(cls)
        if kind is None:
            kind = kinds[cls] = _reads_kind(cls)
        if kind == _VAR:
            out.add(x.name)
            continue
        if kind == _UNOP:
            if x.op == "pre":
                continue
        elif kind == _BINOP:
            if phase is not None and x.op == "->" and \
                    getattr(x, "clock", None) is None:  # a lazy branch's '->' may be at any step
                stack.append(x.left if phase == 0 else x.right)
                continue
        elif kind == _CALL:
            if instant is not None and x.name in instant and len(x.args) == instant[x.name][0]:
                reads = instant[x.name][1]
                stack.extend(a for i, a in enumerate(x.args) if i in reads)
                continue
        lister = listers.get(cls)
        if lister is None:
            lister = listers[cls] = _lister(cls)
        stack.extend(lister(x))
    return out


def current_vars_phases(e: A.Expr, instant: Mapping[str, tuple[int, set[int]]] | None = None
                        ) -> tuple[set[str], set[str]]:
    """``(current_vars(e, 0, instant), current_vars(e, 1, instant))`` in one walk: each
    subexpression is visited once for the phases that reach it (both, but for the operands of
    a ``->``)."""
    first, later, _ = _phased_reads(e, instant, _BOTH)
    return first, later


def current_vars_all(e: A.Expr, instant: Mapping[str, tuple[int, set[int]]] | None = None
                     ) -> tuple[set[str], set[str], set[str]]:
    """``(current_vars(e, 0, instant), current_vars(e, 1, instant), current_vars(e, None,
    instant))`` in one walk: as :func:`current_vars_phases`, with a third phase, "at some
    step", that goes through both operands of every ``->``."""
    return _phased_reads(e, instant, _ALL)


def _phased_reads(e: A.Expr, instant: Mapping[str, tuple[int, set[int]]] | None,
                  phases_at_root: int) -> tuple[set[str], set[str], set[str]]:
    """The variables ``e`` reads now at the first step, at the steps after it, and at some
    step, for the phases (bits) in ``phases_at_root``; a phase not asked for gives an empty
    set and costs no visit."""
    first: set[str] = set()
    later: set[str] = set()
    every: set[str] = set()
    stack: list[tuple[A.Expr, int]] = [(e, phases_at_root)]
    kinds, listers = _READS, _LISTERS
    while stack:
        x, phases = stack.pop()
        cls = type(x)
        kind = kinds.get(cls)
        if kind is None:
            kind = kinds[cls] = _reads_kind(cls)
        if kind == _VAR:
            if phases & _FIRST:
                first.add(x.name)
            if phases & _LATER:
                later.add(x.name)
            if phases & _ANY:
                every.add(x.name)
            continue
        if kind == _UNOP:
            if x.op == "pre":
                continue
        elif kind == _BINOP:
            if x.op == "->" and getattr(x, "clock", None) is None:  # as in current_vars
                left, right = phases & (_FIRST | _ANY), phases & (_LATER | _ANY)
                if left:
                    stack.append((x.left, left))
                if right:
                    stack.append((x.right, right))
                continue
        elif kind == _CALL:
            if instant is not None and x.name in instant:
                n, reads = instant[x.name]
                if len(x.args) == n:
                    stack.extend((a, phases) for i, a in enumerate(x.args) if i in reads)
                    continue
        lister = listers.get(cls)
        if lister is None:
            lister = listers[cls] = _lister(cls)
        stack.extend((k, phases) for k in lister(x))
    return first, later, every


#: The phases of :func:`current_vars_phases` and :func:`current_vars_all`, as bits: the first
#: step, the steps after it, and some step (:func:`current_vars` without a phase).
_FIRST, _LATER, _ANY = 1, 2, 4
_BOTH = _FIRST | _LATER
_ALL = _FIRST | _LATER | _ANY

_VAR, _UNOP, _BINOP, _CALL, _OTHER = range(5)

#: Per expression class, what :func:`current_vars` does with it first.
_READS: dict[type, int] = {}


def _reads_kind(cls: type) -> int:
    if issubclass(cls, A.Var):
        return _VAR
    if issubclass(cls, A.Unop):
        return _UNOP
    if issubclass(cls, A.Binop):
        return _BINOP
    return _CALL if issubclass(cls, A.Call) else _OTHER


def has_temporal(e: A.Expr, calls: bool = False) -> bool:
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Unop) and x.op == "pre":
            return True
        if isinstance(x, A.Binop) and x.op == "->":
            return True
        if isinstance(x, A.Current) or (isinstance(x, A.Activate) and x.form != "restart"):
            return True  # they keep state across steps
        if calls and isinstance(x, (A.Call, A.Activate)):
            return True
        stack.extend(children(x))
    return False


def const_value(e: A.Expr):
    """The value of a constant expression, or None when it depends on streams."""
    if isinstance(e, A.Lit):
        return e.value
    if isinstance(e, A.Unop):
        v = const_value(e.arg)
        if v is None or e.op in ("pre", "last"):
            return None
        if e.ty is not None and e.ty.kind == "machine":
            return machine.unop_value(e.op, v, e.ty)
        return {"not": lambda x: not x, "neg": lambda x: -x, "to_real": Fraction,
                "to_int": lambda x: int(x // 1)}[e.op](v)
    if isinstance(e, A.Binop) and e.op not in ("->",):
        a, b = const_value(e.left), const_value(e.right)
        if a is None or b is None:
            return None
        try:
            return binop_value(e.op, a, b, e.left.ty, e.right.ty)
        except ZeroDivisionError:
            return None
    if isinstance(e, A.Ite):
        c = const_value(e.cond)
        if c is None:
            return None
        return const_value(e.then if c else e.orelse)
    return None


def find_cycle(deps: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the dependency graph, as a path that starts and ends at the same name."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(deps.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found is not None:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in deps:
        if n not in state:
            found = visit(n)
            if found is not None:
                return found
    return None


def uid_nodes_reading(pred: A.Expr, var: str) -> list[A.Expr]:
    """The subexpressions of ``pred`` that have a ``uid`` (calls, divisions, ...) and read
    ``var``: a refinement type's predicate is applied to several values (the streams of a
    named type, an array's elements), and each application needs its own of these."""
    found: list[A.Expr] = []

    def reads(e: A.Expr) -> bool:
        hit = isinstance(e, A.Var) and e.name == var
        for c in children(e):
            hit = reads(c) or hit
        if hit and getattr(e, "uid", None) is not None:
            found.append(e)
        return hit

    reads(pred)
    return found


def shares_state(e: A.Expr) -> bool:
    """Whether ``e`` (one of :func:`uid_nodes_reading`) would need its own streams in each
    application: a call, or a division by something other than a constant."""
    if isinstance(e, A.Call):
        return True
    return isinstance(e, A.Binop) and e.op in ("/", "div", "mod") and const_value(e.right) is None


def map_children(e: A.Expr, fn) -> A.Expr:
    """A copy of ``e`` with ``fn`` applied to its direct subexpressions."""
    out = copy.copy(e)
    for k, v in vars(e).items():
        if isinstance(v, A.Expr):
            setattr(out, k, fn(v))
        elif isinstance(v, list):
            setattr(out, k, [fn(x) if isinstance(x, A.Expr) else
                             tuple(fn(y) if isinstance(y, A.Expr) else y for y in x)
                             if isinstance(x, tuple) else x for x in v])
    return out


def needs_stream(pred: A.Expr, var: str) -> bool:
    """Whether ``pred`` keeps state (``pre``, ``->``) and reads its bound variable ``var``."""
    return has_temporal(pred) and reads_var(pred, var)


def reads_var(e: A.Expr, var: str) -> bool:
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Var) and x.name == var:
            return True
        stack.extend(children(x))
    return False


def substitute(e: A.Expr, var: str, new: A.Expr | str, pres: list[A.Unop]) -> A.Expr:
    """A copy of ``e`` with ``var`` replaced by ``new`` (renamed, where a name); the
    subexpressions that read ``var`` and carry a ``uid`` get fresh ones (their own memories
    and choices), and its new ``pre`` are appended to ``pres``.  What does not read ``var`` is shared
    with ``e``."""
    if not reads_var(e, var):
        return e
    if isinstance(e, A.Var):
        return A.Var(new, pos=e.pos, ty=e.ty) if isinstance(new, str) else new
    out = copy.copy(e)
    for k, v in vars(e).items():
        if isinstance(v, A.Expr):
            setattr(out, k, substitute(v, var, new, pres))
        elif isinstance(v, list):
            setattr(out, k, [substitute(x, var, new, pres) if isinstance(x, A.Expr) else
                             tuple(substitute(y, var, new, pres) if isinstance(y, A.Expr) else y
                                   for y in x) if isinstance(x, tuple) else x for x in v])
    if getattr(out, "uid", None) is not None:
        out.uid = naming.uid("srf", out)
    if isinstance(out, A.Unop) and out.op == "pre":
        pres.append(out)
    return out


def renamed(var: str, pred: A.Expr, stream: str) -> tuple[str, A.Expr]:
    """A type's predicate applied to the stream named ``stream`` (an ``any``'s result): the
    bound variable renamed apart, with fresh ``uid`` for what reads it."""
    fresh = f"{var}%{stream}"
    return fresh, substitute(pred, var, fresh, [])


def refuse_stream_predicate(file: str, text: str, pos: A.Pos, where: str) -> None:
    """Refuse a stream predicate applied ``where`` (located at the predicate)."""
    raise UnsupportedError(f"'pre' or '->' on the variable of a refinement type's predicate "
                           f"{where}", SourceLocation(file, pos.line, pos.col), A.source_line(text, pos.line))
