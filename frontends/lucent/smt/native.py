"""The native fields of a recursive datatype's constructor (:mod:`.recursive`).

A Lucent field is split into native fields like :func:`~.types.scalar_paths` splits a value
into streams, except that an enumeration, a non-recursive datatype and a recursive datatype
are each one native field:

- an enumeration is a native enumeration (a datatype of nullary constructors), so every
  subtree's value is in range (an integer field would need its range owed by every subtree);
- a non-recursive datatype is a native datatype of its constructors (whose fields are split
  alike), converted from and to the frontend's expansion (:class:`~.types.Adt`: a tag and every
  constructor's fields); native equality compares the tag's constructor's fields only, as
  Lucent's ``=`` does;
- a recursive datatype is its own native sort.

Conversions go through ``ite`` chains on the index (the tag) and the testers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from pysmt.environment import Environment
from pysmt.typing import PySMTType

from kinduct.frontends.lucent.core.types import Adt, T, recursive
from kinduct.kernel import datatypes as kd
from kinduct.kernel.datatypes import Tree


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


# ---- sorts and terms ----

def sort(env: Environment, t: T) -> PySMTType:
    """The native sort of a native field of type ``t``."""
    if recursive(t):
        return kd.sort_type(env, t.name)
    if t.kind in ("enum", "adt"):
        return _declared(env, t).type
    from kinduct.frontends.lucent.smt.translate import smt_type
    return smt_type(t)


def _declared(env: Environment, t: T) -> kd.Sort:
    """The native datatype of an enumeration or a non-recursive datatype (declared on first
    use, after those its fields need)."""
    reg = kd.registry(env)
    # an enumeration's values name it; a datatype's name is unique in the program
    name = f"enum {{{', '.join(t.items)}}}" if t.kind == "enum" else t.name
    st = kd.sort_type(env, name)
    if st not in reg.sorts:
        ctors = tuple(kd.Constructor(v) for v in t.items) if t.kind == "enum" else tuple(
            kd.Constructor(c, tuple((f"{f}.{k}", sort(env, p)) for f, ft in fields
                                    for k, p in enumerate(paths(ft))))
            for c, fields in t.items)
        kd.declare(env, [kd.Datatype(name, ctors)])
    return reg.sorts[st]


def to_native(env: Environment, term: Any, t: T) -> Any:
    """A native field's term from the frontend's term of type ``t``."""
    if t.kind not in ("enum", "adt") or recursive(t):
        return term
    s, mgr = _declared(env, t), env.formula_manager
    tag = term if t.kind == "enum" else term["%tag"]
    built = []
    for i, (ctor, fields) in enumerate(_ctors(t)):
        built.append(kd.construct(env, s, i, [
            to_native(env, x, p) for f, ft in fields
            for x, p in zip(split(term[f"{ctor}.{f}"], ft), paths(ft), strict=True)]))
    acc = built[-1]
    for i in range(len(built) - 2, -1, -1):
        acc = mgr.Ite(mgr.Equals(tag, mgr.Int(i)), built[i], acc)
    return acc


#: The choice of a field of a datatype's value read out of a tree, for a constructor other
#: than the value's: (its name, relative to the read, and its type) to the choice's term.
Junk = Callable[[str, T], Any]


def from_native(env: Environment, term: Any, t: T, junk: Junk, ite: Callable, path: str = ""
                ) -> Any:
    """The frontend's term of type ``t`` from a native field's term.  A datatype's fields of
    constructors other than the value's are ``junk`` choices (named by ``path`` and the
    field), as a constructed value's are: arbitrary, not the solver's (functional) selectors,
    so that the simulator replays them; ``ite`` chooses between structured terms."""
    if t.kind not in ("enum", "adt") or recursive(t):
        return term
    s, mgr = _declared(env, t), env.formula_manager
    n = len(t.items)
    tag = mgr.Int(n - 1)
    for i in range(n - 2, -1, -1):
        tag = mgr.Ite(kd.test(env, s, i, term), mgr.Int(i), tag)
    if t.kind == "enum":
        return tag
    out: dict[str, Any] = {"%tag": tag}
    for i, (ctor, fields) in enumerate(t.items):
        at = itertools.count()
        for f, ft in fields:
            key = f"{path}.{ctor}.{f}"
            value = join(ft, lambda p, sub, i=i, at=at, key=key: from_native(
                env, kd.select(env, s, i, next(at), term), p, junk, ite, key + sub))
            out[f"{ctor}.{f}"] = ite(kd.test(env, s, i, term), value, junk(key, ft))
    return Adt(out, t)


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


def _ctors(t: T) -> list[tuple[str, tuple]]:
    return [(v, ()) for v in t.items] if t.kind == "enum" else list(t.items)


# ---- values ----

def value(v: Any, t: T, other: Callable[[Any, T], Any]) -> Any:
    """The simulator's value of a native field of type ``t`` from a trace's tree value
    ``v``; ``other(v, t)`` reads the other native fields."""
    if t.kind == "enum":
        return t.items.index(v.ctor)
    if t.kind != "adt" or recursive(t):
        return other(v, t)
    from kinduct.frontends.lucent.sim.simulate import default_value
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
    from kinduct.frontends.lucent.sim.simulate import default_value
    i = next(k for k, (c, _) in enumerate(t.items) if c == v.ctor)
    active = dict(zip((f for f, _ in t.items[i][1]), v.args, strict=True))
    return Adt({"%tag": i, **{f"{c}.{f}": active[f] if k == i else default_value(ft)
                              for k, (c, fields) in enumerate(t.items) for f, ft in fields}}, t)
