"""Constants inside nodes: ``const`` parameters, local constants, and the refinement types
of a node's declarations, whose predicates and subrange bounds may read the node's streams.

- A node with ``const`` parameters is *generic*, as a polymorphic one is: each call whose
  constant arguments have known values calls its own instance (``N<<n=3>>``, made by
  :func:`.polymorphism.instance`), in which the parameters are those values (array sizes
  ``int^n`` included).  A call with an argument of unknown value (a free constant, a ``const``
  parameter of a node analysed for every value) calls the node under its own name, elaborated
  once with those parameters unknown; so is a generic node nobody calls.  There, a constant
  expression that needs the value (an array size) is refused as unsupported, with its place
  (kinduct expands arrays element by element), except in a generic node nobody calls that no
  instance per value covers: its arrays of such sizes are symbolic (:mod:`.symarrays`).  The
  argument of a ``const`` parameter must be constant (a located error otherwise, as Kind
  2's).
- Local constants: defined ones are inlined like global ones and may name constants declared
  later in the node; a *free* one (``const c: T;``) is an arbitrary value of ``T``, fixed for
  the whole run of each node instance: the local stream ``c = any T -> pre c``, one state
  variable that never changes after the first step for every engine; ``T``'s refinement is
  an assumption (the value ``any`` picks), never an obligation.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import constarg
from kinduct.frontends.lucent.check.scope_api import Unresolved
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import ConstRef
from kinduct.frontends.lucent.core.types import BOOL, INT, T
from kinduct.frontends.lucent.core.walk import (
    const_value,
    current_vars,
    has_temporal,
    shares_state,
    subterms,
    uid_nodes_reading,
)
from kinduct.kernel.errors import InputError, SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope
    from kinduct.frontends.lucent.core.checked import Node
    from kinduct.frontends.lucent.core.types import Refinement


def generic(d: A.NodeDecl) -> bool:
    """Whether ``d`` is elaborated per call: it has type or ``const`` parameters."""
    return bool(d.type_params) or any(p.const for p in d.inputs)


def enter(c: Checker, d: A.NodeDecl, params: dict[str, A.Expr]) -> None:
    """Before ``d`` is elaborated: what its constant expressions see (``params``, the values
    of its ``const`` parameters in an instance, and its local constants that fold) and its
    ``const`` parameters of unknown value."""
    c.node_consts = dict(params)
    c.unknown_consts = {p.name: d.name for p in d.inputs if p.const and p.name not in params}
    pending = [(name, value) for name, _, value, _ in d.consts if value is not None]
    progress = True
    while pending and progress:
        progress, rest = False, []
        for name, value in pending:
            try:
                v = c.top_scope({}, strict_consts=True).check(value)
            except Unresolved:
                rest.append((name, value))
                continue
            except (InputError, UnsupportedError):
                continue  # reported where the constant is declared
            if const_value(v) is not None:
                c.node_consts[name] = v
                progress = True
        pending = rest


def bind_params(c: Checker, node: Node, scope: Scope) -> None:
    """In an instance, its ``const`` parameters are their values in its body too, and the
    input streams hold them (an instance analysed on its own reads no other value)."""
    for name in node.inputs:
        if name in node.const_inputs and name in c.node_consts:
            value = c.node_consts[name]
            node.asserts.append(A.Binop("=", A.Var(name, pos=value.pos, ty=node.types[name]),
                                        value, pos=value.pos, ty=BOOL))
            scope.env.pop(name, None)
            scope.local_consts[name] = value


class UnknownConstant(UnsupportedError):
    """A constant expression needs the value of a ``const`` parameter that has none."""


def unknown_param(c: Checker, name: str, pos: A.Pos) -> None:
    """Refuse a constant expression that needs the value of a ``const`` parameter that has
    none here."""
    raise UnknownConstant(
        f"the value of the const parameter '{name}' of {c.unknown_consts[name]}, which is not "
        "known where it is needed here (a node analysed for every value of it, or called with "
        "a free constant); kinduct expands arrays element by element and needs their sizes",
        SourceLocation(c.file, pos.line, pos.col), A.source_line(c.text, pos.line))


def unknown_size(c: Checker, checked: A.Expr, pos: A.Pos) -> None:
    """Refuse an integer constant expression that reads a free constant (an array size)."""
    free = next((x for x in subterms(checked) if isinstance(x, ConstRef)), None)
    if free is not None:
        raise UnsupportedError(
            f"a constant expression that needs the value of the free constant '{free.name}' "
            "(kinduct expands arrays element by element and needs their sizes)",
            SourceLocation(c.file, pos.line, pos.col), A.source_line(c.text, pos.line))


def elaborate_uncalled(c: Checker, d: A.NodeDecl, done: dict[str, Node]) -> None:
    """Elaborate the generic node ``d`` that no node calls, its ``const`` parameters unknown.
    Where that needs their values (an array of size ``n``), ``d`` is only type-checked, on two
    instances with arbitrary values (a value-specific failure refuses it as the unknown value
    does), and left out of the analysis when nothing in it or below it is to be checked
    (Kind 2 analyses only its main node); otherwise the unknown value is refused."""
    try:
        c.elaborate(d, done)
        return
    except UnknownConstant as refusal:
        unknown = refusal
    params = [p for p in d.inputs if p.const]
    if _per_value(c, d, params, done):
        return
    if _symbolic(c, d, done):
        return
    if c.const_obligations or any(p.type_expr.kind != "name" or p.type_expr.args[0] != "int"
                                  for p in params):
        raise unknown
    warnings = len(c.warnings)
    for base in (2, 5):
        values: dict[str, A.Expr] = {p.name: A.Lit(base + i, "int", pos=p.pos, ty=INT)
                                     for i, p in enumerate(params)}
        before, finished = set(done), len(c.finished)
        try:
            c.elaborate(replace(d, name=f"{d.name}<<{', '.join(instance_label(values))}>>"),
                        done, values)
        except InputError:
            raise unknown from None
        made = [n for n in done if n not in before]
        if any(_checks(done[n]) for n in made):
            raise unknown
        for n in made:
            del done[n]
            c.instant.pop(n, None)
        del c.finished[finished:]
        if base != 2:
            del c.warnings[warnings:]


def _symbolic(c: Checker, d: A.NodeDecl, done: dict[str, Node]) -> bool:
    """Elaborate ``d`` once, its unknown ``const`` parameters sizing arrays symbolically
    (:mod:`.symarrays`); False where that is unsupported too."""
    c.symbolic_node = d.name
    try:
        c.elaborate(d, done)
    except UnsupportedError:
        return False
    finally:
        c.symbolic_node = None
    return True


#: Most instances of a node analysed once per value of its ``const`` parameters.
MAX_VALUES = 16


def _per_value(c: Checker, d: A.NodeDecl, params: list[A.Param], done: dict[str, Node]) -> bool:
    """Where the assumptions of ``d``'s contract (and the parameters' subrange types) bound
    each ``const`` parameter to a finite range of values, elaborate one instance per
    combination of values (at most :data:`MAX_VALUES`), each analysed on its own: together
    they cover every value the assumptions allow."""
    import itertools
    ranges = []
    for p in params:
        lo, hi = _bounds_of(c, d, p)
        if lo is None or hi is None:
            return False
        ranges.append(range(lo, max(lo, hi + 1)))
    count = 1
    for r in ranges:
        count *= len(r)
    if count > MAX_VALUES:
        return False
    for combo in itertools.product(*ranges):
        values: dict[str, A.Expr] = {p.name: A.Lit(v, "int", pos=p.pos, ty=INT)
                                     for p, v in zip(params, combo, strict=True)}
        c.elaborate(replace(d, name=f"{d.name}<<{', '.join(instance_label(values))}>>"),
                    done, values)
    shown = ", ".join(f"{p.name} in {r.start}..{r.stop - 1}" for p, r in zip(params, ranges,
                                                                              strict=True))
    c.warnings.append(f"{c.file}:{d.pos.line}:{d.pos.col}: warning: node {d.name} is analysed "
                      f"once per value its assumptions allow ({shown})")
    return True


def _bounds_of(c: Checker, d: A.NodeDecl, p: A.Param) -> tuple[int | None, int | None]:
    """Integer bounds on the ``const`` parameter ``p`` of ``d`` from its subrange type and
    from the assumptions of ``d``'s own contract that compare it with a constant (the
    conjuncts of an ``assume``); None where there is none."""
    lo = hi = None
    te = p.type_expr
    if te.kind == "subrange":
        lo, hi = (folded_bound(c, b) if b is not None else None for b in te.args)
    elif not (te.kind == "name" and te.args[0] == "int"):
        return None, None
    todo = [i.expr for i in d.contract if i.kind == "assume" and i.expr is not None]
    while todo:
        e = todo.pop()
        if not isinstance(e, A.Binop):
            continue
        if e.op == "and":
            todo += [e.left, e.right]
            continue
        op, left, right = e.op, e.left, e.right
        if isinstance(right, A.Var) and right.name == p.name:
            op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}.get(op, "")
            left, right = right, left
        if not (isinstance(left, A.Var) and left.name == p.name) or op not in ("<", "<=", ">",
                                                                                ">=", "="):
            continue
        v = folded_bound(c, right)
        if v is None:
            continue
        if op in (">", ">=", "="):
            v2 = v + 1 if op == ">" else v
            lo = v2 if lo is None else max(lo, v2)
        if op in ("<", "<=", "="):
            v2 = v - 1 if op == "<" else v
            hi = v2 if hi is None else min(hi, v2)
    return lo, hi


def _checks(node: Node) -> bool:
    """Whether an analysis of ``node`` would check something of its own."""
    return bool(node.props or node.guarantees or node.modes or node.obligations or node.assumes
                or node.refinements or node.has_contract)


def call_params(scope: Scope, d: A.NodeDecl, call: A.Call, args: list[A.Expr]) -> dict[str, A.Expr]:
    """The values of the ``const`` parameters of ``d`` that ``call`` gives (those known);
    an argument that is not constant is owed constant by the caller (:mod:`.constarg`)."""
    if not any(p.const for p in d.inputs):
        return {}
    if len(args) != len(d.inputs):  # tuples spread over parameters: the checker reports it
        return {}
    known: dict[str, A.Expr] = {}
    for p, a, raw in zip(d.inputs, args, call.args, strict=True):
        if not p.const:
            continue
        bad = next((x for x in subterms(a) if not _constant_part(scope, x)), None)
        if bad is not None:
            constarg.owe_constant(scope, d.name, p.name, a, raw, call)
            continue
        v = const_value(a)
        if v is not None:
            known[p.name] = a
    return known


def _constant_part(scope: Scope, e: A.Expr) -> bool:
    if isinstance(e, A.Var):
        return scope.node is not None and e.name in scope.node.const_inputs
    if isinstance(e, A.Unop) and e.op in ("pre", "last"):
        return False
    if isinstance(e, A.Binop) and e.op == "->":
        return False
    return not isinstance(e, (A.Call, A.AnyE, A.Activate, A.Current, A.When, A.Merge))


def instance_label(params: dict[str, A.Expr]) -> list[str]:
    """How an instance's name shows the values of its ``const`` parameters."""
    def shown(x: object) -> str:
        return str(x).lower() if isinstance(x, bool) else str(x)
    return [f"{n}={shown(const_value(v))}" for n, v in params.items()]


class Deferred:
    """Predicates and subrange bounds of a node's declared types, collected while the
    declarations are read and checked in the node's scope once it exists (they may read any
    of the node's streams and call nodes)."""

    def __init__(self) -> None:
        self.items: list[tuple[Refinement, int, str, T]] = []

    def finish(self, scope: Scope) -> None:
        for ref, i, var, base in self.items:
            ref.preds[i] = (var, checked_predicate(scope, var, base, ref.preds[i][1]))
        self.items = []


def node_predicate(scope: Scope | Deferred, ref: Refinement, var: str, base: T,
                   pred: A.Expr) -> None:
    """Add the predicate ``pred`` over ``var`` (of type ``base``) to ``ref``, checked in the
    node's ``scope`` (now, or once a :class:`Deferred` is finished)."""
    if isinstance(scope, Deferred):
        ref.preds.append((var, pred))
        scope.items.append((ref, len(ref.preds) - 1, var, base))
        return
    ref.preds.append((var, checked_predicate(scope, var, base, pred)))


def checked_predicate(scope: Scope, var: str, base: T, pred: A.Expr) -> A.Expr:
    """``pred`` checked in ``scope`` with ``var`` bound to a value of type ``base``."""
    sub = copy.copy(scope)
    sub.env = {**scope.env, var: base}
    sub.local_consts = {n: v for n, v in scope.local_consts.items() if n != var}
    p = sub.expect(pred, BOOL)
    refuse_stateful(scope.c, p, var, pred.pos)
    return p


def check_input_types(c: Checker, node: Node) -> None:
    """An input's refinement type is an assumption of the node analysed on its own: it may not
    read an output or a local variable at the current step (Kind 2: "illegal variable")."""
    inner = set(node.outputs) | set(node.locals)
    for name in node.inputs:
        todo = [node.refinements[name]] if name in node.refinements else []
        while todo:
            ref = todo.pop()
            todo.extend(ref.parts.values())
            for var, pred in ref.preds:
                bad = sorted((current_vars(pred, instant=c.instant) - {var}) & inner)
                if bad:
                    raise c.err(f"the type of input '{name}' reads '{bad[0]}' at the current "
                                "step (an assumption on the node's own variables)", pred.pos)


def refuse_stateful(c: Checker, p: A.Expr, var: str, pos: A.Pos) -> None:
    """A refinement type's predicate is applied to each value of the type on its own: it may
    not call a node or divide by a variable on its bound variable.  (One that keeps state on
    it is a predicate over streams, applied where the values are streams:
    :mod:`.streamrefine`.)"""
    bad = [e for e in uid_nodes_reading(p, var) if shares_state(e)][:1]
    if bad:
        at = bad[0].pos
        raise UnsupportedError("a call or a division by a variable that reads the bound variable "
                               "in the predicate of a refinement type",
                               SourceLocation(c.file, at.line, at.col), A.source_line(c.text, at.line))


def folded_bound(c: Checker, e: A.Expr) -> int | None:
    """A subrange bound's value where it is constant and known (else the bound becomes a
    predicate checked in the node's scope)."""
    try:
        v = const_value(c.top_scope({}, strict_consts=True).expect(e, INT))
    except (Unresolved, InputError, UnsupportedError):
        return None
    return None if v is None else int(v)



def declare(checker: Checker, d: A.NodeDecl, node: Node, scope: Scope) -> dict[str, A.Pos]:
    """Declare the local constants of ``d`` in ``scope`` (the defined ones in an order where
    each follows those it names); the free ones become local streams of ``node``, returned
    with where they are declared (they count as defined)."""
    free: dict[str, A.Pos] = {}
    seen: set[str] = set()
    for name, te, value, pos in d.consts:
        if name in node.types or name in seen:
            raise checker.err(f"'{name}' is declared twice", pos)
        if te is None and value is None:
            raise checker.err(f"constant '{name}' needs a type or a value", pos)
        seen.add(name)
    pending = [c for c in d.consts if c[2] is not None]
    for name, te, _, pos in d.consts:  # free ones first: defined ones may name them
        if name not in {c[0] for c in pending}:
            _free(checker, node, scope, name, te, pos)
            free[name] = pos
    while pending:
        rest = []
        strict = copy.copy(scope)
        strict.strict_consts = True
        for item in pending:
            try:
                _defined(checker, node, strict, scope, *item)
            except Unresolved:
                rest.append(item)
        if len(rest) == len(pending):  # no progress: report the first one's error
            for item in rest:
                _defined(checker, node, scope, scope, *item)
            break
        pending = rest
    return free


def _defined(checker: Checker, node: Node, check: Scope, scope: Scope, name: str,
             te: A.TypeExpr | None, value: A.Expr, pos: A.Pos) -> None:
    declared = checker.resolve_type(te) if te is not None else None
    v = check.check_as(value, declared[0] if declared else None)
    if has_temporal(v):
        raise checker.err("a constant cannot use 'pre' or '->'", value.pos)
    bad = next((x for x in subterms(v) if isinstance(x, (A.Call, A.Activate, A.AnyE))), None)
    if bad is not None:  # as Kind 2: its value would not be fixed
        raise checker.err(f"a node call or 'any' in the definition of constant '{name}'", bad.pos)
    if declared is not None:
        t, ref = declared
        scope.unify(t, v.ty, value.pos)
        checker.obligation(node, v, ref, pos, source="Generated")
    scope.local_consts[name] = v


def _free(checker: Checker, node: Node, scope: Scope, name: str, te: A.TypeExpr,
          pos: A.Pos) -> None:
    """The free local constant ``name``: the stream ``name = any T -> pre name``."""
    if node.kind == "function":
        raise UnsupportedError(
            "a free constant in a function (a function has no memory to keep it fixed)",
            SourceLocation(checker.file, pos.line, pos.col), A.source_line(checker.text, pos.line))
    t, ref = checker.resolve_type(te)  # constant over time: its type names no stream
    node.locals.append(name)
    node.types[name] = t
    node.var_pos[name] = pos
    scope.env[name] = t
    pick = A.AnyE(name, t, None, pos=pos, ty=t)
    pick.uid = naming.uid("any", pick)
    pick.ref = ref
    prev = scope.make_pre(A.Var(name, pos=pos, ty=t), pos)
    prev.guarded = True
    node.eqs.append(([name], A.Binop("->", pick, prev, pos=pos, ty=t)))
