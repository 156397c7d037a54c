"""Recursive algebraic datatypes in the SMT translation: one SMT datatype per group of mutually
recursive types (``kernel.datatypes``), constructors, testers and selectors as its terms; a
selector applied to another constructor's value reads a fresh choice where its obligation is
owed (``check.recursive`` checks them)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from pysmt.environment import Environment
from pysmt.typing import PySMTType

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.native import join, paths, reachable, split
from kinduct.frontends.lucent.core.types import (
    T,
    ctor_index,
)
from kinduct.frontends.lucent.smt import native
from kinduct.kernel import datatypes as kd

if TYPE_CHECKING:
    pass

#: Kinds of types a field of a recursive datatype may have besides recursive datatypes.


def sort(env: Environment, t: T) -> PySMTType:
    """The native datatype sort of ``t`` in ``env``, declared (with the datatypes it names
    that are not declared yet) on first use."""
    reg = kd.registry(env)
    st = kd.sort_type(env, t.name)
    if st in reg.sorts:
        return st
    todo = [x for x in reachable(t) if kd.sort_type(env, x.name) not in reg.sorts]
    kd.declare(env, [kd.Datatype(x.name, tuple(
        kd.Constructor(c, tuple((f"{f}.{k}", native.sort(env, p)) for f, ft in fields
                                for k, p in enumerate(paths(ft))))
        for c, fields in x.items)) for x in todo])
    return st


def _sort(env: Environment, t: T) -> kd.Sort:
    return kd.registry(env).sorts[sort(env, t)]


def construct(env: Environment, e: A.Construct, args: list[Any]) -> Any:
    """``e`` applied to the terms of its arguments (structured: one SMT field per leaf)."""
    fields = e.ty.items[e.index][1]
    return kd.construct(env, _sort(env, e.ty), e.index, [
        native.to_native(env, x, p) for a, (_, ft) in zip(args, fields, strict=True)
        for x, p in zip(split(a, ft), paths(ft), strict=True)])


def test(env: Environment, e: A.Tester, arg: Any) -> Any:
    t = e.arg.ty
    return kd.test(env, _sort(env, t), ctor_index(t, e.ctor), arg)


def select(inst: Any, e: A.Field, arg: Any) -> Any:
    """``e`` (a selector of a recursive datatype's field): the field, or where ``arg`` was
    built by another constructor and ``e`` is written in the program, a fresh choice."""
    env = inst.tr.b.env
    t = e.arg.ty
    ctor, field = e.name.split(".", 1)
    i = ctor_index(t, ctor)
    fields = t.items[i][1]
    j = next(k for k, (f, _) in enumerate(fields) if f == field)
    s = _sort(env, t)
    at = itertools.count(sum(len(paths(ft)) for _, ft in fields[:j]))
    name = naming.field_choice(e)

    def junk(key: str, ft: T) -> Any:
        return inst.fresh(f"{name}%junk{key}", ft)
    value = join(e.ty, lambda p, path: native.from_native(
        env, kd.select(env, s, i, next(at), arg), p, junk, inst.ite, path))
    if not getattr(e, "owed", False):
        return value
    return inst.ite(kd.test(env, s, i, arg), value, inst.fresh(name, e.ty))
