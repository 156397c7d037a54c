"""The simulator's canonical text of a value, equal exactly where Lucent's ``=`` holds: a
set lists its elements sorted, a map its bound keys sorted with their values (not the cells
outside them), a datatype value its constructor's own fields.  Replays compare the calls of
functions (imported ones, ``choose``) by it: equal arguments must give equal results."""

from __future__ import annotations

from typing import Any

from kinduct.frontends.lucent.core.types import Recursive, T, map_value
from kinduct.frontends.lucent.sim.collections_sim import key_of, value_of


def text(v: Any, t: T) -> str:
    """The canonical text of the value ``v`` of type ``t``."""
    if t.kind == "set":
        elem = t.items[0]
        return "{" + ", ".join(sorted(text(value_of(k, elem), elem) for k in v)) + "}"
    if t.kind == "map":
        key, value = t.items
        return "map[" + "; ".join(sorted(f"{text(value_of(k, key), key)} := {text(map_value(v, k), value)}"
                                         for k in v["%dom"])) + "]"
    if t.kind == "adt" and (isinstance(t.items, Recursive) or not isinstance(v, dict)):
        from kinduct.frontends.lucent.sim import recursive  # a tree: its constructor's own fields
        return recursive.text(v, t, text)
    if t.kind == "adt":
        tag = v["%tag"]
        ctor, fields = t.items[tag]
        return f"{ctor}(" + ", ".join(text(v[f"{ctor}.{f}"], ft) for f, ft in fields) + ")"
    if t.kind == "record":
        return "{" + "; ".join(f"{f} = {text(v[f], ft)}" for f, ft in t.items) + "}"
    if t.kind == "tuple":
        return "(" + ", ".join(text(x, it) for x, it in zip(v, t.items, strict=True)) + ")"
    if t.kind == "array":
        return "[" + ", ".join(text(x, t.items[0]) for x in v) + "]"
    return repr(key_of(v, t)[0])


def texts(values: list[Any], types: list[T]) -> str:
    """The canonical text of a list of values (a call's arguments or results)."""
    return "(" + ", ".join(text(v, t) for v, t in zip(values, types, strict=True)) + ")"
