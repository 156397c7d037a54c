"""Reading an array value of a z3 model given as a lambda (z3 returns them for arrays defined
pointwise, as Lucent's set operators are)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from pysmt.fnode import FNode

from kinduct.kernel import arrays
from kinduct.kernel.backend import SolverUnknown

#: The widest range of integers read from an array's model given as a lambda.
LAMBDA_SPAN = 10_000


def read(model: Any, val: Any, sym: FNode, entries: list, scalar: Callable[[Any, Any, FNode], Any],
         array: Callable[[Any, Any, FNode], arrays.ArrayValue]) -> arrays.ArrayValue:
    """An array of z3's ``model`` for ``sym`` given as ``lambda k. body`` where ``k`` is only
    compared with values (``=``, ``<=``, ``<``) or reads a closed array (whose keys count as
    such values; ``array`` reads it, ``scalar`` a value; ``entries``: stores above the lambda,
    which win): piecewise constant between those values, read at each of them,
    at the integers between them (at most :data:`LAMBDA_SPAN`) or between consecutive ones
    (reals, which must then hold the default), and on both sides (which must agree: the
    default)."""
    import z3
    body = val.body()
    if z3.is_var(body):
        raise SolverUnknown(f"cannot read a value of {sym}: {val}")
    comparisons = (z3.is_eq, z3.is_le, z3.is_lt, z3.is_ge, z3.is_gt)
    points: dict[Any, Any] = {}
    stack, seen = [body], set()
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        kids = e.children()
        if any(z3.is_var(k) for k in kids):
            other = [k for k in kids if not z3.is_var(k)]
            if z3.is_select(e) and z3.is_var(kids[1]) and not z3.is_var(kids[0]):
                for key, _ in array(model, kids[0], sym).entries:
                    points.setdefault(key, None)
                continue
            if not (any(c(e) for c in comparisons) and len(other) == 1 and
                    z3.is_const(other[0])):
                raise SolverUnknown(f"cannot read a value of {sym}: {val}")
            points.setdefault(scalar(model, other[0], sym), other[0])
        stack.extend(k for k in kids if not z3.is_var(k))
    index = val.var_sort(0)

    def at(point: Any) -> Any:
        return scalar(model, z3.simplify(z3.substitute_vars(body, point)), sym)

    def term(x: Any) -> Any:
        if z3.is_bv_sort(index):
            return z3.BitVecVal(x % (1 << index.size()), index.size())
        return z3.RealVal(x) if index == z3.RealSort() else z3.IntVal(x)
    listed = {k for k, _ in entries}
    if index == z3.BoolSort():
        for b in (False, True):
            if b not in listed:
                entries.append((b, at(z3.BoolVal(b))))
        return arrays.ArrayValue(entries[-1][1], tuple(entries))
    keys = sorted(k for k in points if not isinstance(k, bool))
    if not keys:
        return arrays.ArrayValue(at(term(0)), tuple(entries))
    low, high = keys[0], keys[-1]
    default = at(term(low - 1))
    if at(term(high + 1)) != default:
        raise SolverUnknown(f"cannot read a value of {sym} (no default): {val}")
    if index == z3.RealSort():
        inside = list(keys)
        for a, b in itertools.pairwise(keys):
            if at(term((a + b) / 2)) != default:
                raise SolverUnknown(f"cannot read a value of {sym} (an interval): {val}")
    else:
        if high - low > LAMBDA_SPAN:
            raise SolverUnknown(f"cannot read a value of {sym} (too wide): {val}")
        inside = list(range(int(low), int(high) + 1))
    for k in inside:
        if k not in listed:
            v = at(term(k))
            if v != default:
                entries.append((k, v))
    return arrays.ArrayValue(default, tuple(entries))
