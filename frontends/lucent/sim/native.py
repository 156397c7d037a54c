"""The values of recursive datatypes' native fields on the simulator and in counterexamples
(``smt.native`` stores them in SMT datatypes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinduct.frontends.lucent.core.native import Junk, join
from kinduct.frontends.lucent.core.types import Adt, T, recursive
from kinduct.frontends.lucent.sim.defaults import default_value
from kinduct.kernel.datatypes import Tree

# ---- sorts and terms ----


def rejunk(v: Any, t: T, junk: Junk, path: str = "") -> Any:
    """The simulator's value of a field read out of a tree (``v``, of type ``t``): the
    fields of the other constructors of its datatype values are ``junk`` choices, named as
    :func:`from_native` names them."""
    if t.kind == "record":
        return {f: rejunk(v[f], ft, junk, f"{path}.{f}") for f, ft in t.items}
    if t.kind == "array":
        return [rejunk(x, t.items[0], junk, f"{path}[{i}]") for i, x in enumerate(v)]
    if t.kind == "tuple":
        return [rejunk(x, it, junk, f"{path}.%{i}") for i, (x, it) in
                enumerate(zip(v, t.items, strict=True))]
    if t.kind != "adt" or recursive(t):
        return v
    out: dict[str, Any] = {"%tag": v["%tag"]}
    for i, (ctor, fields) in enumerate(t.items):
        for f, ft in fields:
            key = f"{path}.{ctor}.{f}"
            out[f"{ctor}.{f}"] = rejunk(v[f"{ctor}.{f}"], ft, junk, key) if i == v["%tag"] \
                else junk(key, ft)
    return Adt(out, t)


def value(v: Any, t: T, other: Callable[[Any, T], Any]) -> Any:
    """The simulator's value of a native field of type ``t`` from a trace's tree value
    ``v``; ``other(v, t)`` reads the other native fields."""
    if t.kind == "enum":
        return t.items.index(v.ctor)
    if t.kind != "adt" or recursive(t):
        return other(v, t)
    i = next(k for k, (c, _) in enumerate(t.items) if c == v.ctor)
    args = iter(v.args)
    out: dict[str, Any] = {"%tag": i}
    for k, (ctor, fields) in enumerate(t.items):
        for f, ft in fields:
            out[f"{ctor}.{f}"] = join(ft, lambda p, _: value(next(args), p, other)) \
                if k == i else default_value(ft)
    return Adt(out, t)


def tree(v: Any, t: T) -> Tree:
    """A simulator's value of a non-recursive datatype as a tree of its active fields (for
    printing)."""
    ctor, fields = t.items[v["%tag"]]
    return Tree(ctor, tuple(v[f"{ctor}.{f}"] for f, _ in fields))


def from_tree(v: Tree, t: T) -> Adt:
    """The simulator's value of a non-recursive datatype from a tree of its constructor's
    fields (the other constructors' fields at their defaults)."""
    i = next(k for k, (c, _) in enumerate(t.items) if c == v.ctor)
    active = dict(zip((f for f, _ in t.items[i][1]), v.args, strict=True))
    return Adt({"%tag": i, **{f"{c}.{f}": active[f] if k == i else default_value(ft)
                              for k, (c, fields) in enumerate(t.items) for f, ft in fields}}, t)
