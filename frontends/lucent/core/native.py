"""The native layout of recursive datatypes' constructor fields: the components of a field's
type each stored as one native field (:func:`paths`), how a value splits into them and is joined
back; and which recursive datatypes a datatype reaches."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinduct.frontends.lucent.core.types import T, recursive


def one(t: T) -> bool:
    """Whether a value of ``t`` is one native field (all but records, tuples and arrays)."""
    return t.kind not in ("record", "tuple", "array")


def paths(t: T) -> list[T]:
    """The types of the native fields of a Lucent field of type ``t``, in order."""
    if one(t):
        return [t]
    if t.kind == "record":
        return [p for _, ft in t.items for p in paths(ft)]
    if t.kind == "array":
        return [p for _ in range(t.size) for p in paths(t.items[0])]
    return [p for it in t.items for p in paths(it)]


def split(value: Any, t: T) -> list[Any]:
    """A Lucent field's value or term as its native fields' (in :func:`paths`' order)."""
    if one(t):
        return [value]
    if t.kind == "record":
        return [x for f, ft in t.items for x in split(value[f], ft)]
    its = [t.items[0]] * t.size if t.kind == "array" else list(t.items)
    return [x for v, it in zip(value, its, strict=True) for x in split(v, it)]


def join(t: T, read: Callable[[T, str], Any], path: str = "") -> Any:
    """A Lucent field's value or term from its native fields', ``read(type, path)`` in order
    (``path``: the native field's place in the Lucent field, as :func:`~.types.scalar_paths`
    names it)."""
    if one(t):
        return read(t, path)
    if t.kind == "record":
        return {f: join(ft, read, f"{path}.{f}") for f, ft in t.items}
    if t.kind == "array":
        return [join(t.items[0], read, f"{path}[{i}]") for i in range(t.size)]
    return [join(it, read, f"{path}.%{i}") for i, it in enumerate(t.items)]


def recursive_leaves(t: T) -> list[T]:
    """The recursive datatypes among the native fields of a field's type."""
    return [p for p in paths(t) if recursive(p)]


def base(t: T) -> int | None:
    """The first constructor of ``t`` that builds a finite value from default values (the
    simulator's default), or None where every one needs a value of ``t`` itself."""
    group_ = reachable(t)
    found: dict[T, int] = {}
    changed = True
    while changed:
        changed = False
        for x in group_:
            if x in found:
                continue
            for i, (_, fields) in enumerate(x.items):
                if all(lt in found for _, ft in fields for lt in recursive_leaves(ft)):
                    found[x] = i
                    changed = True
                    break
    return found.get(t)


def reachable(t: T) -> list[T]:
    """``t`` and the recursive datatypes its fields name, transitively."""
    out = [t]
    for x in out:
        for _, fields in x.items:
            for _, ft in fields:
                out.extend(lt for lt in recursive_leaves(ft) if lt not in out)
    return out


#: Where a component of a field the value's constructor does not have comes from.
Junk = Callable[[str, T], Any]
