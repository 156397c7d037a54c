"""Arrays of symbolic size (:mod:`.symarrays`) on the simulator and in counterexamples.

On the simulator such an array is a :class:`SymList`: the list of its ``n`` elements, ``n``
the value of its size at hand (a free constant's, a ``const`` input's), so that every array
operation of the simulator applies.  A trace holds each leaf as one SMT array from the indices
(:mod:`kinduct.kernel.arrays`); the oracle reads it into the elements ``0 .. n-1`` and keeps
the whole array for the unconstrained values of reads out of range (one array per read and
step, read at the index).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import ConstRef, SymDef
from kinduct.frontends.lucent.core.types import INT, SymArr, T
from kinduct.frontends.lucent.core.walk import subterms
from kinduct.frontends.lucent.sim.defaults import SymList, default_value

if TYPE_CHECKING:
    from kinduct.frontends.lucent.sim.instance_api import Instance


def has_symarray(t: T) -> bool:
    """Whether a value of type ``t`` holds an array of symbolic size."""
    todo = [t]
    while todo:
        x = todo.pop()
        if x.kind == "symarray":
            return True
        if x.kind in ("array", "tuple"):
            todo.extend(x.items)
        elif x.kind == "record":
            todo.extend(ft for _, ft in x.items)
    return False


# ---- from a trace ----

def leaf_from_trace(text: str, t: T) -> Any:
    """An ``ilift`` leaf of a trace (nested for nested arrays): a function of the indices."""
    from kinduct.frontends.lucent.sim import collections_sim
    from kinduct.kernel import arrays
    depth, base = 0, t
    while base.kind == "ilift":
        depth, base = depth + 1, base.items[0]
    return collections_sim.array_function(arrays.from_text(text), [INT] * depth, base)


def size_in(dim: A.Expr, lookup: Callable[[str, bool], Any]) -> int:
    """The value of a size expression; ``lookup(name, is_free_constant)`` reads a name."""
    if isinstance(dim, A.Lit):
        return int(dim.value)
    if isinstance(dim, (ConstRef, A.Var)):
        return int(lookup(dim.name, isinstance(dim, ConstRef)))
    if isinstance(dim, A.Unop):
        return -size_in(dim.arg, lookup)
    assert isinstance(dim, A.Binop)
    a, b = size_in(dim.left, lookup), size_in(dim.right, lookup)
    return a + b if dim.op == "+" else a - b if dim.op == "-" else a * b


def materialize(value: Any, t: T, size_of: Callable[[A.Expr], int]) -> Any:
    """A value read by the oracle (a symbolic-size array: a :class:`~.types.SymArr` of
    functions of the indices) as the simulator's value."""
    if t.kind == "symarray":
        elem = t.items[0]
        if not isinstance(value, SymArr):
            return SymList([])

        def at(i: int) -> Any:
            return materialize(_select(value["%arr"], i), elem, size_of)
        n = max(size_of(t.dim), 0)
        return SymList([at(i) for i in range(n)], at)
    if t.kind == "record":
        return {f: materialize(value[f], ft, size_of) for f, ft in t.items}
    if t.kind == "array":
        return [materialize(x, t.items[0], size_of) for x in value]
    if t.kind == "tuple":
        return [materialize(x, it, size_of) for x, it in zip(value, t.items, strict=True)]
    return value if value is not None else default_value(t)


def _select(term: Any, i: int) -> Any:
    if isinstance(term, SymArr):
        return SymArr({"%arr": _select(term["%arr"], i)}, term.ty)
    if isinstance(term, dict):
        return {k: _select(v, i) for k, v in term.items()}
    if isinstance(term, list):
        return [_select(v, i) for v in term]
    return term.get((i,))


# ---- evaluation ----

def size(inst: Instance, t: T) -> int:
    return max(int(inst.eval(t.dim)), 0)


def read(inst: Instance, e: A.Index) -> Any:
    """``A[i]``: the element, or out of range the oracle's value at ``i``."""
    a, i = inst.eval(e.arg), inst.eval(e.index)
    if 0 <= i < len(a):
        return a[i]
    spare = e.arg.ty if e.arg.ty.kind == "symarray" else \
        T("symarray", "*", items=(e.ty,), dim=A.Lit(0, "int", ty=INT))
    other = inst.sim.oracle(inst.prefix + e.uid, spare, inst.step_no)
    if not isinstance(other, SymList):
        return default_value(e.ty)
    return other.at(i, lambda: default_value(e.ty))


def evaluate(inst: Instance, e: A.Expr) -> Any:
    """``x ^ n`` and element-wise definitions of symbolic sizes."""
    n = size(inst, e.ty)
    if isinstance(e, A.Caret):
        x = inst.eval(e.elem)
        return SymList([x] * n)
    assert isinstance(e, SymDef)
    uids = {x.uid for x in subterms(e.body) if getattr(x, "uid", None) is not None}
    missing = object()
    saved = inst.cur.get(e.var, missing)
    out = []
    try:
        for k in range(n):
            for uid in uids:
                inst.memo.pop(uid, None)
            inst.cur[e.var] = k
            out.append(inst.eval(e.body))
    finally:
        for uid in uids:
            inst.memo.pop(uid, None)
        if saved is missing:
            inst.cur.pop(e.var, None)  # never bound when the size is 0
        else:
            inst.cur[e.var] = saved
    return SymList(out)
