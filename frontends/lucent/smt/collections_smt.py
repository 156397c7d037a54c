"""The SMT encoding of sets and maps (:mod:`.collections`), with SMT arrays.

- A key (a set's element, a map's key) is the list of its scalar leaves
  (:func:`~.types.scalar_paths`), in *canonical* form: the fields of an algebraic datatype's
  other constructors (arbitrary in a value, :mod:`.datatypes`) are replaced by fixed defaults,
  so that equal values are equal keys.  Arrays are curried over those leaves.
- ``set<T>`` is one array from the key leaves to ``Bool`` (membership).
- ``map<K, V>`` is a :class:`~.types.MapParts`: the set of its keys (``%dom``) and, per leaf of
  ``V``, one array from the key leaves to that leaf (``%val``, type ``lift``).  A value at a
  key the map does not bind is whatever the array holds there: unconstrained, but one value
  per key (the primer's functional read).  ``map[]`` holds a choice there (named by the
  literal); updates store; ``m - s`` keeps the values and removes keys.
- Union, intersection, difference and restriction define a fresh array by a quantified
  axiom (``forall k. u[k] = (a[k] or b[k])``); equality of sets is array equality (over the
  canonical keys when there are others: enumerations' out-of-range integers, datatypes'
  non-canonical leaves), equality of maps compares the key sets and, by a quantifier, the
  values at bound keys.  Refinements of elements, keys and values are quantified likewise.

Arrays allow infinite sets, which finite sets (the primer) do not: the encoding
over-approximates, so a proof is a proof; a counterexample is replayed on the simulator,
which holds finite values only (:mod:`.collections_sim`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pysmt.fnode import FNode

from kinduct.frontends.lucent.core import collections as C
from kinduct.frontends.lucent.core.types import (
    MapParts,
    T,
    assemble,
    components,
    leaves,
    rebuild,
    scalar_paths,
)
from kinduct.frontends.lucent.smt.sorts import scalar_sort

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst


def contains_container(t: T) -> bool:
    """Whether a set or a map is part of ``t``."""
    return t.kind in ("set", "map", "lift") or any(contains_container(c) for c in components(t))


def structural(t: T) -> bool:
    """Whether Lucent's equality on ``t`` is not the equality of its encoding's leaves: sets
    and maps (cells outside their members), datatypes (fields of other constructors)."""
    return t.kind in ("set", "map", "lift", "adt") or any(structural(c) for c in components(t))


def _default(mgr, x: FNode) -> FNode:
    st = x.get_type()
    if st.is_bool_type():
        return mgr.FALSE()
    if st.is_real_type():
        return mgr.Real(0)
    if st.is_bv_type():
        return mgr.BV(0, st.width)
    return mgr.Int(0)


def key_terms(mgr, term: Any, t: T) -> list[FNode]:
    """The canonical leaves of the key ``term`` of type ``t``."""
    if t.kind == "adt":
        tag = term["%tag"]
        out = [tag]
        for i, (c, fields) in enumerate(t.items):
            for f, ft in fields:
                for x in key_terms(mgr, term[f"{c}.{f}"], ft):
                    out.append(mgr.Ite(mgr.Equals(tag, mgr.Int(i)), x, _default(mgr, x)))
        return out
    if t.kind == "record":
        return [x for f, ft in t.items for x in key_terms(mgr, term[f], ft)]
    if t.kind == "array":
        return [x for item in term for x in key_terms(mgr, item, t.items[0])]
    if t.kind == "tuple":
        return [x for item, it in zip(term, t.items, strict=True) for x in key_terms(mgr, item, it)]
    return [term]


def canonical(mgr, t: T, syms: Iterator[FNode]) -> FNode:
    """Whether the key leaves ``syms`` (consumed in order) are a canonical key of ``t``."""
    if t.kind == "adt":
        tag = next(syms)
        conds = [mgr.GE(tag, mgr.Int(0)), mgr.LT(tag, mgr.Int(len(t.items)))]
        for i, (_, fields) in enumerate(t.items):
            for _, ft in fields:
                mine = [next(syms) for _ in scalar_paths(ft)]
                conds.append(mgr.Ite(mgr.Equals(tag, mgr.Int(i)), canonical(mgr, ft, iter(mine)),
                                     mgr.And([mgr.EqualsOrIff(x, _default(mgr, x)) for x in mine])))
        return mgr.And(conds)
    if t.kind == "enum":
        x = next(syms)
        return mgr.And(mgr.GE(x, mgr.Int(0)), mgr.LT(x, mgr.Int(len(t.items))))
    if t.kind == "record":
        return mgr.And([canonical(mgr, ft, syms) for _, ft in t.items])
    if t.kind == "array":
        return mgr.And([canonical(mgr, t.items[0], syms) for _ in range(t.size)])
    if t.kind == "tuple":
        return mgr.And([canonical(mgr, it, syms) for it in t.items])
    next(syms)
    return mgr.TRUE()


def _canonical_encoding(t: T) -> bool:
    """Whether Lucent's equality on ``t`` is the equality of its encoding's leaves: no
    container or datatype, or sets whose keys are canonical (the membership array is the
    set), and what is made of such types."""
    if not structural(t):
        return True
    if t.kind == "set":
        return _trivial(t.items[0])
    return t.kind in ("record", "tuple", "array") and all(_canonical_encoding(c) for c in components(t))


def _trivial(t: T) -> bool:
    """Whether every list of leaves of sorts of ``t`` is a canonical key."""
    return all(lt.kind not in ("enum",) for _, lt in scalar_paths(t)) and not _has_adt(t)


def _has_adt(t: T) -> bool:
    if t.kind == "adt":
        return True
    if t.kind == "record":
        return any(_has_adt(ft) for _, ft in t.items)
    if t.kind in ("array", "tuple"):
        return any(_has_adt(x) for x in t.items)
    return False


def bound_keys(mgr, key: T) -> list[FNode]:
    return [mgr.FreshSymbol(scalar_sort(lt), template="_key%d") for _, lt in scalar_paths(key)]


def key_value(key: T, syms: list[FNode]) -> Any:
    """The structured key term of type ``key`` whose leaves are ``syms``."""
    it = iter(syms)
    return assemble("", key, lambda _n, _t: next(it))


def select(mgr, arr: FNode, keys: list[FNode]) -> FNode:
    for k in keys:
        arr = mgr.Select(arr, k)
    return arr


def store(mgr, arr: FNode, keys: list[FNode], value: FNode) -> FNode:
    if len(keys) == 1:
        return mgr.Store(arr, keys[0], value)
    return mgr.Store(arr, keys[0], store(mgr, mgr.Select(arr, keys[0]), keys[1:], value))


def empty(mgr, t: T) -> FNode:
    """The empty set of type ``t``: arrays of ``False``."""
    term = mgr.FALSE()
    for _, lt in reversed(scalar_paths(t.items[0])):
        term = mgr.Array(scalar_sort(lt), term)
    return term


def read(mgr, m: MapParts, keys: list[FNode]) -> Any:
    """The value of the map term ``m`` at the key leaves ``keys``."""
    return rebuild(m["%val"], iter([select(mgr, x, keys) for x in leaves(m["%val"])]))


def set_equal(mgr, a: FNode, b: FNode, key: T) -> FNode:
    if _trivial(key):
        return mgr.Equals(a, b)
    syms = bound_keys(mgr, key)
    return mgr.ForAll(syms, mgr.Implies(canonical(mgr, key, iter(syms)),
                                        mgr.Iff(select(mgr, a, syms), select(mgr, b, syms))))


def same(inst: Inst, a: Any, b: Any, t: T) -> FNode:
    """Lucent's ``a = b`` for values of ``t``, which holds sets or maps."""
    mgr = inst.mgr
    if not contains_container(t):
        return inst.same(a, b)
    if t.kind == "set":
        return set_equal(mgr, a, b, t.items[0])
    if t.kind == "map":
        key, value = t.items
        syms = bound_keys(mgr, key)
        values = same(inst, read(mgr, a, syms), read(mgr, b, syms), value)
        return mgr.And(set_equal(mgr, a["%dom"], b["%dom"], key), mgr.ForAll(syms, mgr.Implies(
            mgr.And(canonical(mgr, key, iter(syms)), select(mgr, a["%dom"], syms)), values)))
    if t.kind == "record":
        return mgr.And([same(inst, a[f], b[f], ft) for f, ft in t.items])
    if t.kind == "array":
        return mgr.And([same(inst, x, y, t.items[0]) for x, y in zip(a, b, strict=True)])
    if t.kind == "tuple":
        return mgr.And([same(inst, x, y, it) for x, y, it in zip(a, b, t.items, strict=True)])
    # a datatype with containers among its fields
    tag = a["%tag"]
    return mgr.And(mgr.Equals(tag, b["%tag"]), *(
        mgr.Implies(mgr.Equals(tag, mgr.Int(i)),
                    mgr.And([same(inst, a[f"{c}.{f}"], b[f"{c}.{f}"], ft) for f, ft in fields]))
        for i, (c, fields) in enumerate(t.items) if fields))


def needs_bound(t: T) -> bool:
    """Whether a free set of type ``t`` is made finite by a bound on its integer leaves
    (:func:`bounded`): not where the key has real leaves (a bound does not make those
    finite), nor where every leaf is of a finite sort."""
    paths = [lt for _, lt in scalar_paths(t.items[0])]
    return not any(lt.kind == "real" for lt in paths) and \
        not all(lt.kind in ("bool", "enum", "machine") for lt in paths)


def bounded(mgr, arr: FNode, t: T, bound: FNode) -> FNode:
    """That the set ``arr`` of type ``t`` is within ``bound`` in its integer leaves (for sets
    of integers, tuples and records of them: finite), so that a solver's model of a free set
    is a Lucent value."""
    paths = [lt for _, lt in scalar_paths(t.items[0])]
    syms = bound_keys(mgr, t.items[0])
    within = [mgr.And(mgr.LE(mgr.Minus(mgr.Int(0), bound), k), mgr.LE(k, bound))
              for k, lt in zip(syms, paths, strict=True) if lt.kind in ("int", "abstract")]
    return mgr.ForAll(syms, mgr.Implies(select(mgr, arr, syms), mgr.And(within)))


def _define(inst: Inst, name: str, t: T, body) -> FNode:
    """A fresh set of type ``t`` whose membership is ``body(keys)`` at every key."""
    mgr, tr = inst.mgr, inst.tr
    u = inst.fresh(name, t)
    syms = bound_keys(mgr, t.items[0])
    guard, tr.guard = tr.guard, None  # a definition: it always has a solution
    tr.assume(mgr.ForAll(syms, mgr.Iff(select(mgr, u, syms), body(syms))))
    tr.guard = guard
    return u


def translate(inst: Inst, e: C.CExpr) -> Any:
    mgr = inst.mgr
    if isinstance(e, C.SetLit):
        acc = empty(mgr, e.ty)
        for x in e.items:
            acc = store(mgr, acc, key_terms(mgr, inst.expr(x), e.ty.items[0]), mgr.TRUE())
        return acc
    if isinstance(e, C.EmptyMap):  # no key; its values elsewhere are a choice
        choice = inst.fresh(e.uid, e.ty)
        return MapParts({"%dom": empty(mgr, T("set", items=(e.ty.items[0],))),
                         "%val": choice["%val"]}, e.ty)
    if isinstance(e, C.MapUpdate):
        m = inst.expr(e.arg)
        keys = key_terms(mgr, inst.expr(e.key), e.ty.items[0])
        v = inst.expr(e.value)
        vals = [store(mgr, arr, keys, x) for arr, x in zip(leaves(m["%val"]), leaves(v), strict=True)]
        return MapParts({"%dom": store(mgr, m["%dom"], keys, mgr.TRUE()),
                         "%val": rebuild(m["%val"], iter(vals))}, e.ty)
    if isinstance(e, C.MapRead):
        m = inst.expr(e.arg)
        return read(mgr, m, key_terms(mgr, inst.expr(e.key), e.arg.ty.items[0]))
    if isinstance(e, C.Member):
        coll = inst.expr(e.coll)
        arr = coll["%dom"] if e.coll.ty.kind == "map" else coll
        return select(mgr, arr, key_terms(mgr, inst.expr(e.key), e.coll.ty.items[0]))
    if isinstance(e, C.SetOp):
        a, b = inst.expr(e.left), inst.expr(e.right)
        if e.op == "restrict":
            dom_t = T("set", items=(e.ty.items[0],))
            dom = _define(inst, e.uid, dom_t, lambda ks: mgr.And(
                select(mgr, a["%dom"], ks), mgr.Not(select(mgr, b, ks))))
            return MapParts({"%dom": dom, "%val": a["%val"]}, e.ty)
        combine = {"union": mgr.Or, "inter": mgr.And,
                   "diff": lambda x, y: mgr.And(x, mgr.Not(y))}[e.op]
        return _define(inst, e.uid, e.ty, lambda ks: combine(select(mgr, a, ks), select(mgr, b, ks)))
    raise TypeError(f"cannot translate {type(e).__name__}")


def congruence(inst: Inst, fn: str, args: list[tuple[Any, T]], outs: list[tuple[Any, T]]) -> None:
    """:meth:`.translate.Translator.congruence` for a function (an imported one, a
    ``choose``) whose arguments or results are :func:`structural`: equal arguments by Lucent's
    equality (:func:`same`: elements, bound keys and their values, a datatype's own fields;
    not the encodings, whose other cells are arbitrary) give equal results, between the calls of one
    step and between each call and every call of the previous step.  The simulator compares
    calls the same way (:func:`.collections_sim.canonical_text`)."""
    tr, mgr = inst.tr, inst.mgr
    if all(_canonical_encoding(t) for _, t in args):
        # equal arguments have equal encodings: an uninterpreted function of the leaves is
        # exact, at every distance in time (results' other cells then agree too: harmless)
        tr.congruence(fn, [x for a, _ in args for x in leaves(a)],
                      [x for o, _ in outs for x in leaves(o)])
        return
    calls = tr.typed_calls.setdefault(fn, [])
    n = len(calls)
    mem_args = [(tr.state(f"%fn.{fn}.{n}.a{i}", t), t) for i, (_, t) in enumerate(args)]
    mem_outs = [(tr.state(f"%fn.{fn}.{n}.o{i}", t), t) for i, (_, t) in enumerate(outs)]
    for (m, _), (x, _) in zip(mem_args + mem_outs, args + outs, strict=True):
        for ml, xl in zip(leaves(m), leaves(x), strict=True):
            tr.b.update(ml, xl)
    calls.append((args, outs, mem_args, mem_outs))

    def equal(xs: list[tuple[Any, T]], ys: list[tuple[Any, T]]) -> FNode:
        return mgr.And([same(inst, x, y, t) for (x, t), (y, _) in zip(xs, ys, strict=True)])
    witnesses = iter(range(1 << 30))

    def fresh(sym: FNode) -> FNode:
        return tr.b.input(f"%fn.{fn}.{n}.w{next(witnesses)}", sym.symbol_type())

    def equal_args(xs: list[tuple[Any, T]], ys: list[tuple[Any, T]]) -> FNode:
        # a hypothesis: its quantifiers are existential, an input names their witness
        return _witnessed(tr.b.env, equal(xs, ys), fresh)
    later = mgr.Not(tr.first)
    for other_args, other_outs, other_mem_args, other_mem_outs in calls:
        if other_args is not args:
            tr.assume(mgr.Implies(equal_args(args, other_args), equal(outs, other_outs)))
            tr.assume(mgr.Implies(mgr.And(later, equal_args(other_args, mem_args)),
                                  equal(other_outs, mem_outs)))
        tr.assume(mgr.Implies(mgr.And(later, equal_args(args, other_mem_args)),
                              equal(outs, other_mem_outs)))


def _witnessed(env, formula: FNode, fresh) -> FNode:
    """``formula`` with its universal quantifiers at positive polarity (through ``and``,
    ``or`` and an implication's conclusion) instantiated at fresh symbols (``fresh``): as the
    hypothesis of an assumption, equivalent (the quantifiers are existential there, the
    symbols free inputs) and quantifier-free for the engines."""
    mgr = env.formula_manager
    if formula.is_forall():
        sub = {v: fresh(v) for v in formula.quantifier_vars()}
        return _witnessed(env, env.substituter.substitute(formula.arg(0), sub), fresh)
    if formula.is_and():
        return mgr.And([_witnessed(env, a, fresh) for a in formula.args()])
    if formula.is_or():
        return mgr.Or([_witnessed(env, a, fresh) for a in formula.args()])
    if formula.is_implies():
        return mgr.Implies(formula.arg(0), _witnessed(env, formula.arg(1), fresh))
    return formula


def part_constraints(inst: Inst, term: Any, key: tuple, ref: Any) -> list[FNode]:
    """A refinement of a set's elements (``("elem", T)``), a map's keys (``("key", K)``) or
    values (``("value", K)``): quantified over the elements or bound keys."""
    mgr = inst.mgr
    part, kt = key
    syms = bound_keys(mgr, kt)
    dom = term["%dom"] if isinstance(term, MapParts) else term
    guard = mgr.And(canonical(mgr, kt, iter(syms)), select(mgr, dom, syms))
    target = read(mgr, term, syms) if part == "value" else key_value(kt, syms)
    body = mgr.And(inst.refine_term(target, ref))
    return [mgr.ForAll(syms, mgr.Implies(guard, body))]
