"""Choices of arrays of symbolic size (``any@<Nat^n>``, ``any { A: int^n | A[0] > 0 }``):
where a value can be chosen, as :func:`.exists.possible` decides it for scalars.

An ``any`` picks a value satisfying its constraint where one exists and an arbitrary one
elsewhere (Kind 2's reading); the constraint is assumed under that existence condition, never
outright (an empty type would make every property hold).  z3's quantifier elimination takes
no arrays, so where the arrays are only read (at indices, and by a refinement of every
element, :func:`.symarrays.refine_elements`), each read becomes a scalar and each element
refinement its instances at those reads and the existence of one element; elsewhere the
condition stays the constraint's ``exists``.
"""

from __future__ import annotations

from pysmt.fnode import FNode

from kinduct.frontends.lucent.smt import exists


def possible(env, chosen: list[FNode], want: FNode) -> FNode | None:
    """Where a choice of arrays (``any`` of a symbolic size) can be made (a value is chosen
    where one can be, arbitrary elsewhere, never assumed where none can): where the arrays
    are only read (at indices, and by a refinement of every element), each read becomes a
    scalar (equal indices, equal values) and each element refinement its instances at those
    reads and the existence of one element, whose quantifiers z3 eliminates; else the
    constraint's ``exists``."""
    arrays = {x for x in chosen if x.get_type().is_array_type()}
    if not arrays:
        return None
    mgr = env.formula_manager
    reduced = _reads_as_scalars(env, arrays, want)
    if reduced is not None:
        formula, scalars = reduced
        others = [x for x in chosen if x not in arrays] + scalars
        can = exists.possible(env, others, formula) if others else formula
        if can is not None:
            return can
    return mgr.Exists(chosen, want)


def _reads_as_scalars(env, arrays: set[FNode], want: FNode
                      ) -> tuple[FNode, list[FNode]] | None:
    """``want`` over fresh scalars standing for the reads of ``arrays`` (see
    :func:`possible`), quantifier-free, or None where the arrays occur otherwise."""
    mgr = env.formula_manager

    def sub(f: FNode, subs: dict[FNode, FNode]) -> FNode:
        return env.substituter.substitute(f, subs)
    todo, parts = [want], []
    while todo:
        f = todo.pop()
        if f.is_and():
            todo.extend(f.args())
        else:
            parts.append(f)
    elements, rest = [], []
    for f in parts:
        if f.is_forall() and len(f.quantifier_vars()) == 1 and f.arg(0).is_implies():
            k = f.quantifier_vars()[0]
            inside, body = f.arg(0).args()
            if not _uses(inside, arrays) and _only_reads(body, arrays, k):
                elements.append((k, inside, body))
                continue
        rest.append(f)
    rest_f = mgr.And(rest)
    if not _only_reads(rest_f, arrays, None):
        return None
    reads = [x for x in _subterms(rest_f) if x.is_select() and x.arg(0) in arrays]
    indices = list(dict.fromkeys(x.arg(1) for x in reads))
    fresh: dict[tuple[FNode, FNode], FNode] = {}

    def scalar(a: FNode, i: FNode) -> FNode:
        if (a, i) not in fresh:
            fresh[a, i] = mgr.FreshSymbol(a.get_type().elem_type, template="_read%d")
        return fresh[a, i]
    out = [sub(rest_f, {x: scalar(x.arg(0), x.arg(1)) for x in reads})]
    for n, i in enumerate(indices):
        for j in indices[:n]:
            out.append(mgr.Implies(mgr.Equals(i, j), mgr.And(
                [mgr.EqualsOrIff(scalar(a, i), scalar(a, j)) for a in arrays])))
    for k, inside, body in elements:
        mine = [x for x in _subterms(body) if x.is_select() and x.arg(0) in arrays]
        for i in indices:
            out.append(mgr.Implies(sub(inside, {k: i}), sub(sub(
                body, {x: scalar(x.arg(0), i) for x in mine}), {k: i})))
        one = {a: mgr.FreshSymbol(a.get_type().elem_type, template="_elem%d")
               for a in {x.arg(0) for x in mine}}
        # no element, or a value for one (the others take it too: it reads no index)
        each = sub(body, {x: one[x.arg(0)] for x in mine})
        if k in env.fvo.get_free_variables(each):
            return None
        some = exists.possible(env, list(one.values()), each)
        nonempty = exists.possible(env, [k], inside)
        if some is None or nonempty is None:
            return None
        out.append(mgr.Or(mgr.Not(nonempty), some))
    formula = mgr.And(out)
    if _uses(formula, arrays) or not env.qfo.is_qf(formula):
        return None
    return formula, list(fresh.values())


def _subterms(f: FNode) -> list[FNode]:
    seen, out, todo = set(), [], [f]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        out.append(x)
        todo.extend(x.args())
    return out


def _uses(f: FNode, arrays: set[FNode]) -> bool:
    return any(x in arrays for x in _subterms(f))


def _only_reads(f: FNode, arrays: set[FNode], k: FNode | None) -> bool:
    """Whether ``arrays`` occur in ``f`` only read (at ``k`` where given), outside
    quantifiers."""
    todo = [f]
    while todo:
        x = todo.pop()
        if x.is_select() and x.arg(0) in arrays:
            i = x.arg(1)
            if (k is not None and i != k) or _uses(i, arrays):
                return False
            continue
        if x in arrays or (x.is_quantifier() and _uses(x, arrays)):
            return False
        todo.extend(x.args())
    return True
