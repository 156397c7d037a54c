"""Quantifiers over unbounded domains kept as SMT quantifiers: those neither expanded over a
finite domain (:mod:`.quantifiers`) nor decided by a witness stream (:mod:`.skolem`), such as
an ``exists`` in a property, a ``forall`` in an assumption, or one in a contract or in a
refinement type's predicate.

The checked form is :class:`~.checked.Quantified`.  Its body is translated into one SMT term
of the quantified variables (``ForAll``/``Exists`` over fresh symbols, a leaf each), guarded by
their refinement types and concise predicates (``=>`` under ``forall``, ``and`` under
``exists``); an enumeration's variable ranges over its values' indices.  The subexpressions
that read no quantified variable are translated as usual (streams, ``pre``, calls).  Those
that read one must be terms: Boolean, arithmetic (``+ - *``, comparisons), ``if``, records,
tuples, arrays read at constant indices, constructors and testers of non-recursive datatypes
(equal when their tags and the tag's constructor's fields are), nested quantifiers; anything
that needs streams of its own (a call, a division, ``any``, ``pre``, an array read at a
variable index, machine integers), a recursive datatype's term or a selector's obligation is
refused, located.  A variable of an abstract type ranges over the type's domain
(:mod:`.domains`), which the simulator reads from the trace.

The simulator cannot enumerate such a domain: it evaluates the closed formula, with the
step's values for the streams, by a call to z3 (:func:`evaluate`); where z3 answers unknown it
raises :class:`Undecided`, and the replay makes the verdict ``unknown`` with that reason.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.typing import BOOL as SBOOL
from pysmt.typing import INT as SINT
from pysmt.typing import REAL as SREAL

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Bound, ConstRef, Quantified, Refines
from kinduct.frontends.lucent.core.types import (
    BOOL,
    Adt,
    Refinement,
    T,
    adt_fields,
    assemble,
    leaves,
    recursive,
)
from kinduct.frontends.lucent.core.walk import children
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.typecheck import _Scope

#: Seconds z3 may take to decide one closed quantified formula in the simulator.
DECIDE_SECONDS = 20

_TERM_BINOPS = {"and", "or", "xor", "=>", "=", "<>", "<", "<=", ">", ">=", "+", "-", "*"}
_SCALARS = {"bool", "int", "real", "enum"}


class Undecided(Exception):
    """The simulator could not decide a quantified formula (z3 answered unknown)."""


def check(scope: _Scope, q: A.Quant) -> Quantified:
    """The checked quantifier ``q`` kept as such; an :class:`UnsupportedError` where its
    variables' types or its body are beyond what :func:`translate` takes."""
    params: list[Bound] = []
    start = len(scope.node.obligations) if scope.node is not None else 0
    sub = copy.copy(scope)
    sub.env = dict(scope.env)
    sub.local_consts = dict(scope.local_consts)
    for p in q.params:
        t, ref = scope.c.resolve_type(p.type_expr)
        bad = _bad_type(t)
        if bad is not None:
            raise _unsupported(scope, f"a quantifier over {bad} (kinduct keeps a quantifier "
                               "over bool, int, real, enumerations and their records, tuples "
                               "and arrays as such; over other types it decides only a forall "
                               "in a property or an exists in an assumption)", p.pos)
        sub.env = {**sub.env, p.name: t}
        sub.local_consts.pop(p.name, None)
        pred = sub.expect(p.pred, BOOL) if p.pred is not None else None
        params.append(Bound(p.name, t, ref, pred))
    body = sub.expect(q.body, BOOL)
    e = Quantified(q.kind, params, body, pos=q.pos, ty=BOOL)
    names = {b.name for b in params}
    for p in scope.node.obligations[start:] if scope.node is not None else []:
        if _reads(p.expr, names):
            raise _unsupported(scope, f"an obligation ({p.name}) on the variable of a "
                               "quantifier kinduct keeps as such", p.pos)
    for part in [*(b.pred for b in params if b.pred is not None), body]:
        offending = _impure(part, names)
        if offending is not None:
            raise _unsupported(scope, "this expression on the variable of a quantifier kinduct "
                               "keeps as such (inside one, only Boolean and linear terms, "
                               "records, tuples, constant array indices, and constructors and "
                               "testers of non-recursive datatypes read its variables)",
                               offending.pos)
    for b in params:
        for var, pred in b.ref.preds:
            offending = _impure(pred, {var})
            if offending is not None:
                raise _unsupported(scope, "a refinement type whose predicate is no term, on the "
                                   "variable of a quantifier kinduct keeps as such", b.pred.pos
                                   if b.pred is not None else q.pos)
    return e


def inputs_covered(callee: Any, args: list[A.Expr], bounds: dict[str, Refinement]) -> bool:
    """Whether ``callee`` constrains only its inputs' types, each where its argument is a
    quantified variable (of ``bounds``) whose own type implies the input's (the same
    predicates, bounds as tight), so that inlining the call loses no obligation: the
    quantifier ranges over values of the variable's type only."""
    if not callee.refinements:
        return False
    given = dict(zip(callee.inputs, args, strict=True))
    for name, need in callee.refinements.items():
        if name == callee.outputs[0] and name not in given:
            if not _output_implied(callee, need):
                return False
            continue
        arg = given.get(name)
        if not isinstance(arg, A.Var) or arg.name not in bounds or need.parts:
            return False
        have = bounds[arg.name]
        if need.lo is not None and (have.lo is None or have.lo < need.lo):
            return False
        if need.hi is not None and (have.hi is None or have.hi > need.hi):
            return False
        if not all(any(p is q for _, q in have.preds) for _, p in need.preds):
            return False
    return True


def _output_implied(callee: Any, need: Refinement) -> bool:
    """Whether the bounds ``need`` of ``callee``'s output hold for every input within its
    type, by interval arithmetic on its one defining expression (its output type then owes
    nothing at any call, and inlining the call loses no obligation)."""
    if need.preds or need.parts:
        return False
    ranges = {n: (r.lo, r.hi) for n, r in callee.refinements.items()
              if n in callee.inputs and not r.preds and not r.parts}
    defs = {names[0]: e for names, e in callee.eqs}
    lo, hi = _interval(defs.get(callee.outputs[0]), ranges, callee.inputs)
    return (need.lo is None or lo is not None and lo >= need.lo) and \
        (need.hi is None or hi is not None and hi <= need.hi)


def _interval(e: A.Expr | None, ranges: dict[str, tuple[Any, Any]],
              inputs: list[str]) -> tuple[Any, Any]:
    """Integer bounds of ``e`` (None: unbounded on that side) over inputs in ``ranges``."""
    none: tuple[Any, Any] = (None, None)
    if isinstance(e, A.Lit) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value, e.value
    if isinstance(e, A.Var):
        return ranges.get(e.name, none) if e.name in inputs else none
    if isinstance(e, A.Unop) and e.op == "neg":
        lo, hi = _interval(e.arg, ranges, inputs)
        return (None if hi is None else -hi), (None if lo is None else -lo)
    if isinstance(e, A.Binop) and e.op in ("+", "-"):
        a = _interval(e.left, ranges, inputs)
        b = _interval(e.right, ranges, inputs)
        if e.op == "-":
            b = (None if b[1] is None else -b[1]), (None if b[0] is None else -b[0])
        return (None if a[0] is None or b[0] is None else a[0] + b[0],
                None if a[1] is None or b[1] is None else a[1] + b[1])
    return none


def _bad_type(t: T) -> str | None:
    if t.kind in _SCALARS:
        return None
    if t.kind in ("record", "tuple", "array"):
        items = [ft for _, ft in t.items] if t.kind == "record" else list(t.items)
        return next((b for b in map(_bad_type, items) if b is not None), None)
    return None if t.kind == "abstract" else f"{t.kind} type {t}"  # over its domain: .domains


def _reads(e: A.Expr, names: set[str]) -> bool:
    if isinstance(e, A.Var):
        return e.name in names
    if isinstance(e, Quantified):
        inner = names - {b.name for b in e.params}
        return any(_reads(c, inner) for c in children(e)) if inner else False
    if isinstance(e, A.AnyE):  # its predicate is no child of it
        return e.pred is not None and _reads(e.pred, names - {e.var})
    return any(_reads(c, names) for c in children(e))


def _impure(e: A.Expr, names: set[str]) -> A.Expr | None:
    """The first subexpression of ``e`` that reads one of ``names`` and is not a term."""
    if not _reads(e, names):
        return None
    if recursive(e.ty) or isinstance(e, (A.Field, A.Tester)) and recursive(e.arg.ty) or \
            isinstance(e, A.Construct) and not _plain(e.ty):
        return e  # a native SMT datatype's term, or fields beyond scalars
    ok = (isinstance(e, (A.Lit, A.Var, ConstRef, A.TupleE, A.ArrayLit, A.Field, A.RecordLit,
                         A.Construct, A.Tester))
          or (isinstance(e, A.Unop) and e.op in ("not", "neg", "to_real"))
          or (isinstance(e, A.Binop) and e.op in _TERM_BINOPS)
          or (isinstance(e, A.Ite) and not e.lazy)
          or (isinstance(e, A.Index) and (e.arg.ty.kind == "tuple"
                                          or isinstance(e.index, A.Lit)))
          or isinstance(e, (Refines, Quantified)))
    if not ok or getattr(e.ty, "kind", None) == "machine":
        return e
    if isinstance(e, Quantified):
        names = names - {b.name for b in e.params}
    for c in children(e):
        bad = _impure(c, names)
        if bad is not None:
            return bad
    return None


class Terms:
    """SMT terms of the subexpressions of a quantifier's body: those reading a quantified
    variable built here, the others handed to ``outside``."""

    def __init__(self, mgr: Any, outside: Callable[[A.Expr], Any],
                 member: Callable[[str, FNode], FNode] | None = None) -> None:
        self.mgr = mgr
        self.outside = outside
        self.member = member
        self.bound: dict[str, Any] = {}

    def quantified(self, e: Quantified) -> FNode:
        mgr = self.mgr
        saved = dict(self.bound)
        symbols: list[FNode] = []
        guards: list[FNode] = []
        for b in e.params:
            term = assemble(b.name, b.ty, lambda _n, t: mgr.FreshSymbol(_smt(t)))
            self.bound[b.name] = term
            symbols += leaves(term)
            guards += self.ranges(term, b.ty) + self.refines(term, b.ref)
            if b.pred is not None:
                guards.append(self.term(b.pred))
        body = self.term(e.body)
        self.bound = saved
        if e.kind == "forall":
            return mgr.ForAll(symbols, mgr.Implies(mgr.And(guards), body))
        return mgr.Exists(symbols, mgr.And(*guards, body))

    def ranges(self, term: Any, t: T) -> list[FNode]:
        """An enumeration's index stays among its values, an abstract type's value in its
        domain (:mod:`.domains`)."""
        mgr = self.mgr
        if t.kind == "enum":
            return [mgr.LE(mgr.Int(0), term), mgr.LT(term, mgr.Int(len(t.items)))]
        if t.kind == "abstract":
            if self.member is None:
                raise TypeError("a quantifier over an abstract type needs its domain")
            return [self.member(t.name, term)]
        if t.kind == "record":
            return [g for f, ft in t.items for g in self.ranges(term[f], ft)]
        if t.kind == "tuple":
            return [g for x, it in zip(term, t.items, strict=True) for g in self.ranges(x, it)]
        if t.kind == "array":
            return [g for x in term for g in self.ranges(x, t.items[0])]
        return []

    def refines(self, term: Any, ref: Refinement) -> list[FNode]:
        mgr = self.mgr
        out: list[FNode] = []
        for key, sub in ref.parts.items():
            for item in (term if key == "*" else [term[key]]):
                out += self.refines(item, sub)
        if ref.lo is not None:
            out.append(mgr.GE(term, mgr.Int(ref.lo)))
        if ref.hi is not None:
            out.append(mgr.LE(term, mgr.Int(ref.hi)))
        for var, pred in ref.preds:
            saved = dict(self.bound)
            self.bound[var] = term
            out.append(self.term(pred))
            self.bound = saved
        return out

    def term(self, e: A.Expr) -> Any:  # noqa: C901 - one case per construct
        mgr = self.mgr
        if not self._reads_bound(e):
            return self.outside(e)
        if isinstance(e, Quantified):
            return self.quantified(e)
        if isinstance(e, A.Var):
            return self.bound[e.name]
        if isinstance(e, Refines):
            return mgr.And(self.refines(self.term(e.arg), e.ref))
        if isinstance(e, A.Unop):
            a = self.term(e.arg)
            if e.op == "not":
                return mgr.Not(a)
            if e.op == "neg":
                return mgr.Minus(mgr.Int(0) if e.ty.kind == "int" else mgr.Real(0), a)
            return a if e.arg.ty.kind == "real" else mgr.ToReal(a)  # to_real
        if isinstance(e, A.Binop):
            return self._binop(e.op, self.term(e.left), self.term(e.right))
        if isinstance(e, A.Ite):
            return _ite(mgr, self.term(e.cond), self.term(e.then), self.term(e.orelse))
        if isinstance(e, (A.TupleE, A.ArrayLit)):
            return [self.term(x) for x in e.items]
        if isinstance(e, A.Index):
            return self.term(e.arg)[e.index.value if isinstance(e.index, A.Lit) else 0]
        if isinstance(e, A.Field):
            return self.term(e.arg)[e.name]
        if isinstance(e, A.RecordLit):
            return {f: self.term(x) for f, x in e.fields}
        if isinstance(e, A.Construct):  # other constructors' fields: never read (selectors
            own = dict(zip((f"{e.ctor}.{f}" for f, _ in e.ty.items[e.index][1]),  # owe the
                           e.args, strict=True))  # tag), so any value
            return Adt({"%tag": mgr.Int(e.index), **{
                k: self.term(own[k]) if k in own else _zero(mgr, ft)
                for k, ft in adt_fields(e.ty)}}, e.ty)
        if isinstance(e, A.Tester):
            index = next(i for i, (c, _) in enumerate(e.arg.ty.items) if c == e.ctor)
            return mgr.Equals(self.term(e.arg)["%tag"], mgr.Int(index))
        raise TypeError(f"not a term: {type(e).__name__}")  # refused by :func:`check`

    def _reads_bound(self, e: A.Expr) -> bool:
        return bool(self.bound) and _reads(e, set(self.bound))

    def _binop(self, op: str, a: Any, b: Any) -> FNode:
        mgr = self.mgr
        if op in ("=", "<>"):
            same = self._same(a, b)
            return same if op == "=" else mgr.Not(same)
        return {"and": mgr.And, "or": mgr.Or, "=>": mgr.Implies,
                "xor": lambda x, y: mgr.Not(mgr.Iff(x, y)),
                "<": mgr.LT, "<=": mgr.LE, ">": mgr.GT, ">=": mgr.GE,
                "+": mgr.Plus, "-": mgr.Minus, "*": mgr.Times}[op](a, b)


    def _same(self, a: Any, b: Any) -> FNode:
        """Lucent's ``a = b``: datatype values are equal when their tags and the fields of
        the tag's constructor are."""
        mgr = self.mgr
        if isinstance(a, Adt):
            tag = a["%tag"]
            return mgr.And(mgr.Equals(tag, b["%tag"]), *(
                mgr.Implies(mgr.Equals(tag, mgr.Int(i)),
                            mgr.And([self._same(a[k], b[k]) for k in a.active(i)]))
                for i in range(len(a.ty.items)) if a.active(i)))
        if isinstance(a, dict):
            return mgr.And([self._same(a[k], b[k]) for k in a])
        if isinstance(a, list):
            return mgr.And([self._same(x, y) for x, y in zip(a, b, strict=True)])
        return mgr.EqualsOrIff(a, b)


def _ite(mgr: Any, c: FNode, a: Any, b: Any) -> Any:
    if isinstance(a, Adt):
        return Adt({k: _ite(mgr, c, a[k], b[k]) for k in a}, a.ty)
    if isinstance(a, dict):
        return {k: _ite(mgr, c, a[k], b[k]) for k in a}
    if isinstance(a, list):
        return [_ite(mgr, c, x, y) for x, y in zip(a, b, strict=True)]
    return mgr.Ite(c, a, b)


def _plain(t: T) -> bool:
    """Whether every leaf of ``t`` is a Boolean, number, enumeration or abstract value."""
    kinds: set[str] = set()
    assemble("", t, lambda _n, lt: kinds.add(lt.kind))
    return kinds <= _SCALARS | {"abstract"}


def _zero(mgr: Any, t: T) -> Any:
    """A value of ``t`` (a :func:`_plain` type), for fields no one reads."""
    return assemble("", t, lambda _n, lt: mgr.FALSE() if lt.kind == "bool" else
                    mgr.Real(0) if lt.kind == "real" else mgr.Int(0))


def _smt(t: T) -> Any:
    return {"bool": SBOOL, "real": SREAL}.get(t.kind, SINT)


def translate(mgr: Any, e: Quantified, outside: Callable[[A.Expr], Any],
              member: Callable[[str, FNode], FNode] | None = None) -> FNode:
    """The SMT formula of ``e`` (its free subexpressions translated by ``outside``; ``member``:
    that a term is in an abstract type's domain)."""
    return Terms(mgr, outside, member).quantified(e)


def evaluate(e: Quantified, value_of: Callable[[A.Expr], Any],
             domain: Callable[[str], list[int] | None] | None = None) -> bool:
    """Whether ``e`` holds when its free subexpressions have the values ``value_of`` gives
    them (the simulator's), decided by z3; :class:`Undecided` where z3 cannot tell or an
    abstract type's ``domain`` is not a finite list of values."""
    env = Environment()
    mgr = env.formula_manager

    def outside(x: A.Expr) -> Any:
        return _constant(mgr, value_of(x), x.ty)

    def member(tname: str, term: FNode) -> FNode:
        values = None if domain is None else domain(tname)
        if values is None:
            raise Undecided(f"the domain of the abstract type {tname} on the trace is not a "
                            "finite set of values")
        return mgr.Or([mgr.Equals(term, mgr.Int(v)) for v in values])

    formula = translate(mgr, e, outside, member)
    try:
        solver = env.factory.Solver(name="z3")
    except Exception as exc:  # noqa: BLE001 - no z3: nothing decides it here
        raise Undecided(f"no solver to decide a quantified formula: {exc}") from None
    try:
        solver.z3.set("timeout", int(DECIDE_SECONDS * 1000))
        solver.add_assertion(formula)
        return bool(solver.solve())
    except Exception as exc:  # noqa: BLE001 - z3's unknown, or a term it refuses
        raise Undecided(f"z3 could not decide the quantified formula at {e.pos.line}:"
                        f"{e.pos.col} on the trace's values ({type(exc).__name__})") from None
    finally:
        solver.exit()


def _constant(mgr: Any, v: Any, t: T) -> Any:
    if t.kind == "bool":
        return mgr.Bool(bool(v))
    if t.kind == "real":
        return mgr.Real(Fraction(v))
    if t.kind in ("int", "enum", "abstract"):
        return mgr.Int(int(v))
    if t.kind == "record":
        return {f: _constant(mgr, v[f], ft) for f, ft in t.items}
    if t.kind == "tuple":
        return [_constant(mgr, x, it) for x, it in zip(v, t.items, strict=True)]
    if t.kind == "array":
        return [_constant(mgr, x, t.items[0]) for x in v]
    if t.kind == "adt" and not recursive(t):
        return Adt({"%tag": mgr.Int(int(v["%tag"])),
                    **{k: _constant(mgr, v[k], ft) for k, ft in adt_fields(t)}}, t)
    raise Undecided(f"a value of type {t} inside a quantified formula")


def _unsupported(scope: _Scope, what: str, pos: A.Pos) -> UnsupportedError:
    located = scope.c.err("", pos)
    return UnsupportedError(what, SourceLocation(scope.c.file, pos.line, pos.col),
                            located.source_line)
