"""The formula of a quantified expression kept as an SMT quantifier (``check.quantified`` checks
it into :class:`~.checked.Quantified`), over PySMT terms: the translation asserts it, the
simulator decides it on a trace's values (``sim.quantified``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pysmt.fnode import FNode
from pysmt.typing import BOOL as SBOOL
from pysmt.typing import INT as SINT
from pysmt.typing import REAL as SREAL

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Quantified, Refines
from kinduct.frontends.lucent.core.types import (
    Adt,
    Refinement,
    T,
    adt_fields,
    assemble,
    leaves,
)
from kinduct.frontends.lucent.core.walk import children

if TYPE_CHECKING:
    pass

#: Seconds z3 may take to decide one closed quantified formula in the simulator.


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
        return bool(self.bound) and reads(e, set(self.bound))

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


def plain(t: T) -> bool:
    """Whether every leaf of ``t`` is a Boolean, number, enumeration or abstract value."""
    kinds: set[str] = set()
    assemble("", t, lambda _n, lt: kinds.add(lt.kind))
    return kinds <= SCALARS | {"abstract"}


def _zero(mgr: Any, t: T) -> Any:
    """A value of ``t`` (a :func:`plain` type), for fields no one reads."""
    return assemble("", t, lambda _n, lt: mgr.FALSE() if lt.kind == "bool" else
                    mgr.Real(0) if lt.kind == "real" else mgr.Int(0))


def _smt(t: T) -> Any:
    return {"bool": SBOOL, "real": SREAL}.get(t.kind, SINT)


def translate(mgr: Any, e: Quantified, outside: Callable[[A.Expr], Any],
              member: Callable[[str, FNode], FNode] | None = None) -> FNode:
    """The SMT formula of ``e`` (its free subexpressions translated by ``outside``; ``member``:
    that a term is in an abstract type's domain)."""
    return Terms(mgr, outside, member).quantified(e)


SCALARS = {"bool", "int", "real", "enum"}


def reads(e: A.Expr, names: set[str]) -> bool:
    if isinstance(e, A.Var):
        return e.name in names
    if isinstance(e, Quantified):
        inner = names - {b.name for b in e.params}
        return any(reads(c, inner) for c in children(e)) if inner else False
    if isinstance(e, A.AnyE):  # its predicate is no child of it
        return e.pred is not None and reads(e.pred, names - {e.var})
    return any(reads(c, names) for c in children(e))
