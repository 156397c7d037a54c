"""The lazy s-op and selector graph a RASP program builds.

RASP is lazy functional: ``s3 = s1 + s2`` is a function of the input, not a sequence.  Running
a program therefore builds a DAG of :class:`Node` objects; the evaluator, the compiler to
layers and heads, and the SMT encoding all walk the same DAG.  Nodes are hash-consed (one
object per structure) so that two calls building ``select(indices, indices, <=)`` give the
very same selector, which is what lets aggregates share an attention head.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from kinduct.frontends.rasp.ops import INFIX, key, show

SELECTOR_KINDS = {"select", "sel_and", "sel_or", "sel_not", "select_best"}

_ids = itertools.count()


@dataclass(frozen=True)
class Loc:
    file: str | None
    line: int | None
    column: int | None


@dataclass(eq=False)
class Node:
    """One s-op or selector.

    kind: ``tokens`` (value: conversion str/int/float/bool/asis), ``indices``, ``const``
    (value: the broadcast constant), ``map`` (op over args), ``aggregate`` (args: selector,
    values; value: default), ``select`` (args: key, query; op: comparison), ``sel_and``,
    ``sel_or``, ``sel_not``, ``select_best`` (args: selector, score key, score query: the
    paper's appendix B.2 ``select_best(sel, score(key, query))``; query q keeps the selected
    keys k of the highest score ``key[k] * query[q]``, all of them on a tie).
    """

    kind: str
    op: str | None = None
    args: tuple[Node, ...] = ()
    value: Any = None
    loc: Loc | None = None
    name: str | None = None
    name_rank: int = -1    # who named it: 0 library code, 1 a user function, 2 a user global
    uid: int = field(default_factory=lambda: next(_ids))

    @property
    def is_selector(self) -> bool:
        return self.kind in SELECTOR_KINDS

    def label(self) -> str:
        """The assigned name, or a short rendering of the expression."""
        return self.name or self.expr()

    def expr(self, depth: int = 2) -> str:
        def sub(n: Node) -> str:
            return n.name if n.name else (n.expr(depth - 1) if depth > 0 else "...")
        k = self.kind
        if k == "tokens":
            return "tokens" if self.value == "str" else f"tokens_{self.value}"
        if k == "indices":
            return "indices"
        if k == "const":
            return show(self.value) if not isinstance(self.value, str) else f'"{self.value}"'
        if k == "map":
            a = [sub(x) for x in self.args]
            if self.op == "ite":
                return f"{a[1]} if {a[0]} else {a[2]}"
            if self.op in INFIX and len(a) == 2:
                return f"({a[0]} {self.op} {a[1]})"
            if self.op == "neg":
                return f"-{a[0]}"
            if self.op == "not":
                return f"not {a[0]}"
            return f"{self.op}({', '.join(a)})"
        if k == "aggregate":
            return f"aggregate({sub(self.args[0])}, {sub(self.args[1])}, {show(self.value)})"
        if k == "select":
            return f"select({sub(self.args[0])}, {sub(self.args[1])}, {self.op})"
        if k == "sel_not":
            return f"not {sub(self.args[0])}"
        if k == "select_best":
            a = [sub(x) for x in self.args]
            return f"select_best({a[0]}, score({a[1]}, {a[2]}))"
        return f"({sub(self.args[0])} {'and' if k == 'sel_and' else 'or'} {sub(self.args[1])})"

    def __repr__(self) -> str:
        return f"<{self.kind} {self.label()}>"


@dataclass(frozen=True)
class Scorer:
    """``score(key, query)`` (appendix B.2): the matrix ``key[k] * query[q]``.  Not an s-op nor
    a selector: its only use is as ``select_best``'s second argument."""

    key: Node
    query: Node


class Graph:
    """The hash-consing table of one program."""

    def __init__(self) -> None:
        self._table: dict[tuple, Node] = {}

    def make(self, kind: str, op: str | None = None, args: tuple[Node, ...] = (),
             value: Any = None, loc: Loc | None = None) -> Node:
        vkey = key(value) if value is not None else None
        k = (kind, op, tuple(a.uid for a in args), vkey)
        node = self._table.get(k)
        if node is None:
            node = Node(kind, op, args, value, loc)
            self._table[k] = node
        return node


def walk(roots: list[Node]) -> Iterator[Node]:
    """Every node reachable from ``roots``, children before parents."""
    seen: set[int] = set()
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(r, False) for r in reversed(roots)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node.uid in seen:
            continue
        seen.add(node.uid)
        stack.append((node, True))
        for a in reversed(node.args):
            if a.uid not in seen:
                stack.append((a, False))
    return iter(order)
