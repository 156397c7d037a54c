"""Arrays of symbolic size in the SMT translation: an array is an SMT array from indices to
its element's leaves (a :class:`~.types.SymArr`), its size a free constant or an expression of
the node's constant inputs; the typing and the element-wise definitions are ``check.symarrays``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pysmt.fnode import FNode
from pysmt.typing import INT as SINT

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import BoundRead, SymDef
from kinduct.frontends.lucent.core.types import INT, Adt, MapParts, SymArr, T
from kinduct.frontends.lucent.core.walk import const_value, uid_nodes_reading
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst, STerm


# ---- types ----


def dim(inst: Inst, t: T) -> FNode:
    """The size of the symbolic array type ``t`` in the instance ``inst``."""
    return inst.expr(t.dim)


def declare_sizes(inst: Inst) -> None:
    """Read the sizes of the instance's arrays of symbolic size, so that a counterexample
    holds them (the free constants they name) even where nothing else reads them."""
    for n in inst.node.streams:
        if n in inst.env:
            for t in _types_in(inst.node.types[n]):
                if t.kind == "symarray":
                    dim(inst, t)


def _types_in(t: T) -> list[T]:
    out, todo = [], [t]
    while todo:
        x = todo.pop()
        out.append(x)
        if x.kind in ("array", "symarray", "tuple"):
            todo.extend(x.items)
        elif x.kind == "record":
            todo.extend(ft for _, ft in x.items)
    return out


def _inside(inst: Inst, i: FNode, n: FNode) -> FNode:
    mgr = inst.mgr
    return mgr.And(mgr.LE(mgr.Int(0), i), mgr.LT(i, n))


def _map(mgr, term: Any, f) -> Any:
    """``term`` with ``f`` applied to each leaf, its structure kept."""
    if isinstance(term, (SymArr, Adt, MapParts)):
        return type(term)({k: _map(mgr, v, f) for k, v in term.items()}, term.ty)
    if isinstance(term, dict):
        return {k: _map(mgr, v, f) for k, v in term.items()}
    if isinstance(term, list):
        return [_map(mgr, v, f) for v in term]
    return f(term)


def _zip(term: Any, other: Any, f) -> Any:
    if isinstance(term, (SymArr, Adt, MapParts)):
        return type(term)({k: _zip(v, other[k], f) for k, v in term.items()}, term.ty)
    if isinstance(term, dict):
        return {k: _zip(v, other[k], f) for k, v in term.items()}
    if isinstance(term, list):
        return [_zip(v, w, f) for v, w in zip(term, other, strict=True)]
    return f(term, other)


def element(inst: Inst, arr: SymArr, i: FNode) -> STerm:
    """The element of ``arr`` at ``i`` (whatever the encoding holds there)."""
    mgr = inst.mgr
    return _map(mgr, arr["%arr"], lambda leaf: mgr.Select(leaf, i))


def _bound(inst: Inst) -> FNode:
    return inst.mgr.FreshSymbol(SINT, template="_idx%d")


def read(inst: Inst, e: A.Index) -> STerm:
    """``A[i]``: the element where ``i`` is in range, else an unconstrained value."""
    arr, i = inst.expr(e.arg), inst.expr(e.index)
    if e.arg.ty.kind == "symarray":
        other = element(inst, inst.tr.input(inst.prefix + e.uid, e.arg.ty), i)
        return inst.ite(_inside(inst, i, dim(inst, e.arg.ty)), element(inst, arr, i), other)
    mgr = inst.mgr
    spare = inst.tr.input(inst.prefix + e.uid,
                          T("symarray", "*", items=(e.ty,), dim=A.Lit(0, "int", ty=INT)))
    acc = element(inst, spare, i)
    for k in range(len(arr) - 1, -1, -1):
        acc = inst.ite(mgr.Equals(i, mgr.Int(k)), arr[k], acc)
    return acc


def same(inst: Inst, a: SymArr, b: SymArr) -> FNode:
    """Lucent's ``a = b``: the elements ``0 .. n-1`` are equal."""
    mgr = inst.mgr
    k = _bound(inst)
    return mgr.ForAll([k], mgr.Implies(_inside(inst, k, dim(inst, a.ty)),
                                       inst.same(element(inst, a, k), element(inst, b, k))))


def refine_elements(inst: Inst, term: SymArr, sub) -> list[FNode]:
    """The refinement ``sub`` of every element of ``term``: one ``forall``, so a predicate
    may not hold what needs a stream of its own per element (a division, a read out of
    range), refused where it does."""
    mgr = inst.mgr
    todo = [sub]
    while todo:
        r = todo.pop()
        todo.extend(r.parts.values())
        for var, pred in r.preds:
            bad = [x for x in uid_nodes_reading(pred, var) if not _fixed_read(x)]
            if bad:
                at = bad[0].pos
                raise UnsupportedError(
                    "a division or an array read in the refinement of the elements of an "
                    "array of symbolic size", SourceLocation(inst.tr.file, at.line, at.col),
                    A.source_line(inst.tr.checked.text, at.line))
    k = _bound(inst)
    parts = inst.refine_term(element(inst, term, k), sub)
    if not parts:
        return []
    return [mgr.ForAll([k], mgr.Implies(_inside(inst, k, dim(inst, term.ty)), mgr.And(parts)))]


def _fixed_read(e: A.Expr) -> bool:
    """A read of an array of known size at a constant index in range."""
    if not isinstance(e, A.Index) or isinstance(e, BoundRead) or e.arg.ty.kind != "array":
        return False
    i = const_value(e.index)
    return isinstance(i, int) and 0 <= i < e.arg.ty.size


def translate(inst: Inst, e: A.Expr) -> STerm:
    """``x ^ n``, ``A[i := v]`` and element-wise definitions of symbolic sizes."""
    mgr = inst.mgr
    if isinstance(e, A.Update):
        arr, i, v = inst.expr(e.arg), inst.expr(e.index), inst.expr(e.value)
        return SymArr({"%arr": _zip(arr["%arr"], v, lambda leaf, x: mgr.Store(leaf, i, x))}, arr.ty)
    var = inst.fresh(e.uid, e.ty)
    if isinstance(e, A.Caret):
        x = inst.expr(e.elem)
        simplify = inst.tr.b.env.simplifier.simplify
        if all(not inst.tr.b.env.fvo.get_free_variables(simplify(leaf))
               for leaf in _leaves(x)):
            return SymArr({"%arr": _map(mgr, x, lambda leaf: mgr.Array(SINT, simplify(leaf)))},
                          e.ty)
        k = _bound(inst)
        inst.tr.assume(mgr.ForAll([k], mgr.Implies(_inside(inst, k, dim(inst, e.ty)),
                                                   inst.equal(element(inst, var, k), x))))
        return var
    assert isinstance(e, SymDef)
    inst.tr.assume(_define(inst, var, e))
    return var


def _leaves(term: Any) -> list[FNode]:
    if isinstance(term, dict):
        return [x for v in term.values() for x in _leaves(v)]
    if isinstance(term, list):
        return [x for v in term for x in _leaves(v)]
    return [term]


def _define(inst: Inst, target: STerm, e: A.Expr) -> FNode:
    """``target`` is the value of ``e`` (an element-wise definition, nested)."""
    mgr = inst.mgr
    if isinstance(e, SymDef):
        k = inst.mgr.Symbol(f"%idx.{e.uid}", SINT)  # its body's memo names this variable
        saved = inst.env.get(e.var)
        inst.env[e.var] = k
        try:
            body = _define(inst, element(inst, target, k), e.body)
        finally:
            if saved is None:
                del inst.env[e.var]
            else:
                inst.env[e.var] = saved
        return mgr.ForAll([k], mgr.Implies(_inside(inst, k, dim(inst, e.ty)), body))
    if isinstance(e, A.ArrayLit) and isinstance(target, list):
        return mgr.And([_define(inst, t, x) for t, x in zip(target, e.items, strict=True)])
    return inst.equal(target, inst.expr(e))
