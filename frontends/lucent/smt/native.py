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

from kinduct.frontends.lucent.core.native import Junk, join, paths, split
from kinduct.frontends.lucent.core.types import Adt, T, recursive
from kinduct.frontends.lucent.smt.sorts import scalar_sort
from kinduct.kernel import datatypes as kd

# ---- sorts and terms ----

def sort(env: Environment, t: T) -> PySMTType:
    """The native sort of a native field of type ``t``."""
    if recursive(t):
        return kd.sort_type(env, t.name)
    if t.kind in ("enum", "adt"):
        return _declared(env, t).type
    return scalar_sort(t)


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


def _ctors(t: T) -> list[tuple[str, tuple]]:
    return [(v, ()) for v in t.items] if t.kind == "enum" else list(t.items)


# ---- values ----
