"""Sets and maps (the primer's "Sets and Maps"): their syntax nodes, before and after checking.

Source forms: :class:`SetLit` (``{a, b}``, ``{}@<T>``) and :class:`MapLit` (``map[k := v; …]``,
``map[]@<K, V>``), built by the parser (:func:`set_literal`, :func:`map_literal`). Checked forms
(``check.collections``): :class:`SetLit` (typed ``set<T>``), :class:`EmptyMap` (with a ``uid``:
the values it holds at keys it does not bind are a choice), :class:`MapUpdate`,
:class:`MapRead`, :class:`SetOp` (``union``, ``inter``, ``diff``, ``restrict``), :class:`Member`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kinduct.frontends.lucent.core import ast as A


class CExpr(A.Expr):
    """A set or map expression (checked or not): the walkers read :meth:`kids`."""

    def kids(self) -> list[A.Expr]:
        raise NotImplementedError


@dataclass(eq=False)
class SetLit(CExpr):
    items: list[A.Expr]
    annot: list[A.TypeExpr] | None = None  # {}@<T>

    def kids(self) -> list[A.Expr]:
        return list(self.items)



@dataclass(eq=False)
class MapLit(CExpr):
    """The source form ``map[k := v; …]@<K, V>``, checked into updates of an :class:`EmptyMap`."""

    pairs: list[tuple[A.Expr, A.Expr]]
    annot: list[A.TypeExpr] | None = None

    def kids(self) -> list[A.Expr]:
        return [x for p in self.pairs for x in p]



@dataclass(eq=False)
class EmptyMap(CExpr):
    def kids(self) -> list[A.Expr]:
        return []


@dataclass(eq=False)
class MapUpdate(CExpr):
    arg: A.Expr
    key: A.Expr
    value: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.arg, self.key, self.value]


@dataclass(eq=False)
class MapRead(CExpr):
    arg: A.Expr
    key: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.arg, self.key]


@dataclass(eq=False)
class SetOp(CExpr):
    op: str  # union | inter | diff | restrict (a map without the keys of a set)
    left: A.Expr
    right: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.left, self.right]


@dataclass(eq=False)
class Member(CExpr):
    key: A.Expr
    coll: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.key, self.coll]


def set_literal(items: list[Any], pos: A.Pos) -> SetLit:
    """``{a, b}`` or ``{}@<T>`` from the parser's items (an expression list, type arguments)."""
    exprs = next((i for i in items if isinstance(i, list) and
                  all(isinstance(x, A.Expr) for x in i) and i), [])
    annot = next((i for i in items if isinstance(i, list) and i and
                  all(isinstance(x, A.TypeExpr) for x in i)), None)
    return SetLit(list(exprs), annot, pos=pos)


def map_literal(items: list[Any], pos: A.Pos) -> MapLit:
    """``map[k := v; …]`` or ``map[]@<K, V>`` from the parser's items."""
    exprs = [i for i in items if isinstance(i, A.Expr)]
    annot = next((i for i in items if isinstance(i, list)), None)
    return MapLit(list(zip(exprs[::2], exprs[1::2], strict=True)), annot, pos=pos)
