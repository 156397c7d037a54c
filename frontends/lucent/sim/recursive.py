"""Recursive algebraic datatypes on the simulator (trees of ``kernel.datatypes.Tree``) and in
counterexamples (their text, read back by :func:`parse`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.native import join
from kinduct.frontends.lucent.core.types import (
    T,
    ctor_index,
    recursive,
)
from kinduct.frontends.lucent.sim import native
from kinduct.frontends.lucent.sim.defaults import default_value
from kinduct.kernel import datatypes as kd
from kinduct.kernel.datatypes import Tree
from kinduct.kernel.report import format_value

if TYPE_CHECKING:
    pass

#: Kinds of types a field of a recursive datatype may have besides recursive datatypes.


def evaluate(inst: Any, e: A.Expr) -> Any:
    """The simulator's value of a constructor, tester or selector of a recursive datatype."""
    if isinstance(e, A.Construct):
        return Tree(e.ctor, tuple(inst.eval(a) for a in e.args))
    if isinstance(e, A.Tester):
        return inst.eval(e.arg).ctor == e.ctor
    assert isinstance(e, A.Field)
    v = inst.eval(e.arg)
    ctor, field = e.name.split(".", 1)
    name = inst.prefix + naming.field_choice(e)
    if v.ctor == ctor:
        fields = e.arg.ty.items[ctor_index(e.arg.ty, ctor)][1]
        return native.rejunk(v.args[next(k for k, (f, _) in enumerate(fields) if f == field)],
                             e.ty, lambda key, ft: inst.sim.oracle(f"{name}%junk{key}", ft,
                                                                   inst.step_no))
    if not getattr(e, "owed", False):  # a pattern's read, used only where the pattern matches
            return default_value(e.ty)
    return inst.sim.oracle(name, e.ty, inst.step_no)


def from_trace(value: Any, t: T, scalar: Any) -> Tree:
    """A trace's value of ``t`` (its text) as the simulator's tree; ``scalar(v, ft)`` reads
    the fields of the other types."""
    tree = kd.from_text(value)

    def walk(v: Any, ty: T) -> Any:
        if not recursive(ty):
            return native.value(v, ty, scalar)
        fields = ty.items[ctor_index(ty, v.ctor)][1]
        args = iter(v.args)  # one per native field
        return Tree(v.ctor, tuple(join(ft, lambda p, _: walk(next(args), p))
                                  for _, ft in fields))
    return walk(tree, t)


def text(v: Any, t: T, scalar: Any) -> str:
    """A datatype's value in Lucent's syntax: ``Cons(1, Nil)``; ``scalar(v, ft)`` shows the
    scalar fields."""
    if isinstance(v, dict):  # a non-recursive datatype's value
        v = native.tree(v, t)
    if not isinstance(v, Tree):
        return str(v)
    fields = t.items[ctor_index(t, v.ctor)][1]
    if not fields:
        return v.ctor

    def show(x: Any, ft: T) -> str:
        if recursive(ft):
            return text(x, ft, scalar)
        if ft.kind == "enum" and isinstance(x, int) and 0 <= x < len(ft.items):
            return ft.items[x]
        if ft.kind == "adt":
            return text(native.tree(x, ft), ft, scalar)
        if ft.kind == "record":
            return "{" + "; ".join(f"{f} = {show(x[f], t)}" for f, t in ft.items) + "}"
        if ft.kind in ("array", "tuple"):
            its = [ft.items[0]] * ft.size if ft.kind == "array" else list(ft.items)
            return "[" + ", ".join(show(y, t) for y, t in zip(x, its, strict=True)) + "]"
        shown = scalar(x, ft)
        return shown if isinstance(shown, str) else format_value(x)
    return f"{v.ctor}({', '.join(show(x, ft) for x, (_, ft) in zip(v.args, fields, strict=True))})"


def parse(text: str, t: T, scalar: Any) -> Any:
    """A value of the datatype ``t`` written in Lucent's syntax (``Cons(1, Nil)``, a record
    field as ``{f = 1; g = Nil}``, an array or tuple field as ``[1, 2]``; ``kinduct
    simulate``'s inputs); ``scalar(text, ft)`` reads the scalar fields.  ValueError where it is
    not one."""
    tokens = [x for x in re.findall(r"[A-Za-z_][A-Za-z0-9_]*|[-+]?[0-9][0-9./]*|[(),]|\S",
                                    text)]
    pos = 0

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError("unexpected end")
        pos += 1
        return tokens[pos - 1]

    def expect(token: str) -> None:
        if take() != token:
            raise ValueError(f"expected '{token}'")

    def value(ty: T) -> Any:
        if ty.kind == "record":  # {f = v; g = w}
            expect("{")
            out = {}
            for k, (f, ft) in enumerate(ty.items):
                if k:
                    expect(";")
                expect(f)
                expect("=")
                out[f] = value(ft)
            expect("}")
            return out
        if ty.kind in ("array", "tuple"):  # [v, w]
            its = [ty.items[0]] * ty.size if ty.kind == "array" else list(ty.items)
            expect("[")
            items = []
            for k, it in enumerate(its):
                if k:
                    expect(",")
                items.append(value(it))
            expect("]")
            return items
        if ty.kind != "adt":
            return scalar(take(), ty)
        ctor = take()
        fields = ty.items[ctor_index(ty, ctor)][1] if any(c == ctor for c, _ in ty.items) else None
        if fields is None:
            raise ValueError(f"no constructor {ctor} of {ty}")
        args = []
        if fields:
            expect("(")
            for k, (_, ft) in enumerate(fields):
                if k:
                    expect(",")
                args.append(value(ft))
            expect(")")
        return Tree(ctor, tuple(args)) if recursive(ty) else native.from_tree(
            Tree(ctor, tuple(args)), ty)
    out = value(t)
    if pos != len(tokens):
        raise ValueError("trailing text")
    return out
