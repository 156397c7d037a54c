"""Every type's default value on the simulator, and the two value classes it builds that
are not plain Python values: :class:`Fun` (a map's or ``lift``'s function of keys, used by
``collections_sim``) and :class:`SymList` (an array of symbolic size, used by
``symarrays_sim``).  The feature modules import them from here; nothing here imports them."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from kinduct.frontends.lucent.core.native import base
from kinduct.frontends.lucent.core.types import (
    Adt,
    T,
    adt_fields,
    assemble,
    recursive_type,
    scalar_paths,
)
from kinduct.kernel.datatypes import Tree


class Fun:
    """A total function of keys (curried over their leaves, as an SMT array): ``default``
    (a value, or a :class:`Fun` of the next leaves) but at the leaves of ``entries``."""

    def __init__(self, default: Any, entries: dict[Any, Any] | None = None) -> None:
        self.default = default
        self.entries = dict(entries or {})

    def get(self, key: tuple) -> Any:
        v = self.entries.get(key[0], self.default)
        return v.get(key[1:]) if len(key) > 1 else v

    def set(self, key: tuple, value: Any) -> Fun:
        inner = value if len(key) == 1 else self.get(key[:1]).set(key[1:], value)
        return Fun(self.default, {**self.entries, key[0]: inner})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fun):
            return False
        return self.default == other.default and all(
            self.entries.get(k, self.default) == other.entries.get(k, other.default)
            for k in set(self.entries) | set(other.entries))

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Fun({self.default!r}, {self.entries!r})"


class SymList(list):
    """The elements of an array of symbolic size; ``whole``: the element at any index (an
    oracle's array, out-of-range reads included), or None."""

    def __init__(self, items: Any, whole: Callable[[int], Any] | None = None) -> None:
        super().__init__(items)
        self.whole = whole

    def at(self, i: int, default: Callable[[], Any]) -> Any:
        if 0 <= i < len(self):
            return self[i]
        return self.whole(i) if self.whole is not None else default()


def default_value(t: T) -> Any:
    """The simulator's default value of type ``t`` (an input nothing has given a value)."""
    if t.kind in ("set", "map", "lift"):
        return _collection_default(t)
    if t.kind in ("symarray", "ilift"):  # no elements known; an ilift leaf: a function
        return SymList([]) if t.kind == "symarray" else Fun(default_value(t.items[0]))
    if t.kind == "bool":
        return False
    if t.kind == "real":
        return Fraction(0)
    if t.kind == "record":
        return {f: default_value(ft) for f, ft in t.items}
    if t.kind == "adt" and recursive_type(t):
        return _recursive_default(t)
    if t.kind == "adt":
        return Adt({"%tag": 0, **{k: default_value(ft) for k, ft in adt_fields(t)}}, t)
    if t.kind == "array":
        return [default_value(t.items[0]) for _ in range(t.size)]
    if t.kind == "tuple":
        return [default_value(i) for i in t.items]
    return 0


def _collection_default(t: T) -> Any:
    """The simulator's default value of a set, map or ``lift`` leaf type."""
    if t.kind == "set":
        return frozenset()
    if t.kind == "lift":
        value: Any = default_value(t.items[1])
        for _ in scalar_paths(t.items[0]):
            value = Fun(value)
        return value
    return assemble("", t, lambda _n, lt: default_value(lt))


def _recursive_default(t: T) -> Tree:
    """A value of a recursive datatype ``t``: its first constructor that builds a finite
    value, of defaults."""
    i = base(t)
    assert i is not None  # checked at the declaration
    ctor, fields = t.items[i]
    return Tree(ctor, tuple(default_value(ft) for _, ft in fields))
