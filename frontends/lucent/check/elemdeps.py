"""Circular definitions between arrays that are no cycles between their elements: arrays defined
element by element (``A[k] = B[k+1] + y; B[k] = C[k-1] - 2; C[k] = A[k-1] + B[k];``, Kind 2's
inductive definitions across several arrays) read each other as wholes, but each element reads
only elements of lower rank.  Where the streams of a cycle are refined into their elements
(an array whose equation is the array literal of an element-wise definition, read at constant
indices), and the elements' reads have no cycle, the cycle is no circular definition; the
simulator evaluates such arrays as wholes, so :func:`~.calldeps.untangle` breaks it for it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Node
from kinduct.frontends.lucent.core.walk import children, const_value

Key = tuple[int, ...]
Element = tuple[str, Key]

#: Most elements examined for one group of mutually dependent streams (beyond, the cycle
#: stays a circular definition).
MAX_ELEMENTS = 100_000


def _sccs(graph: Mapping[Any, set[Any]]) -> Iterator[list[Any]]:
    """The strongly connected components of ``graph`` with a cycle (iterative Tarjan; the
    vertices are sortable)."""
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    on: set[Any] = set()
    stack: list[Any] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    pushed = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in graph.get(v, ()):
                    yield comp


def _elements(e: A.Expr, key: Key = ()) -> Iterator[tuple[Key, A.Expr]]:
    """The elements of an element-wise definition's array literal, by index."""
    if isinstance(e, A.ArrayLit) and e.ty is not None and e.ty.kind == "array":
        for i, x in enumerate(e.items):
            yield from _elements(x, (*key, i))
    else:
        yield key, e


def _read_key(e: A.Expr) -> tuple[str, Key] | None:
    """``X[c1]…[cn]`` with constant indices: ``X`` and the indices, else None."""
    indices: list[int] = []
    while isinstance(e, A.Index) and e.arg.ty is not None and e.arg.ty.kind == "array":
        i = const_value(e.index)
        if not isinstance(i, int) or isinstance(i, bool):
            return None
        indices.append(i)
        e = e.arg
    if not isinstance(e, A.Var) or not indices:
        return None
    return e.name, tuple(reversed(indices))


class _Refiner:
    def __init__(self, node: Node, group: set[str], phase: int | None) -> None:
        self.phase = phase
        self.group = group
        self.keys: dict[str, list[Key]] = {}
        #: Each element's expression (None: a stream not defined alone, read as a whole).
        self.exprs: dict[Element, A.Expr | None] = {}
        defs = {n: e for names, e in node.eqs for n in names if len(names) == 1}
        for n in sorted(group):
            e = defs.get(n)
            parts: list[tuple[Key, A.Expr | None]] = list(_elements(e)) if e is not None \
                else [((), None)]
            self.keys[n] = [k for k, _ in parts]
            for k, x in parts:
                self.exprs[(n, k)] = x

    def _matching(self, name: str, key: Key) -> list[Element]:
        """The elements of ``name`` that a read at ``key`` may read (out of range: none)."""
        keys = self.keys[name]
        depth = len(keys[0]) if keys else 0
        if depth == 0:
            return [(name, ())]
        k = key[:depth]
        return [(name, x) for x in keys if x[:len(k)] == k]

    def reads(self, e: A.Expr | None) -> set[Element]:
        out: set[Element] = set()
        stack = [e] if e is not None else []
        while stack:
            x = stack.pop()
            read = _read_key(x)
            if read is not None and read[0] in self.group:
                out.update(self._matching(*read))
                continue
            if isinstance(x, A.Var):
                if x.name in self.group:
                    out.update((x.name, k) for k in self.keys[x.name])
            elif isinstance(x, A.Unop) and x.op == "pre":
                continue
            elif self.phase is not None and isinstance(x, A.Binop) and x.op == "->" and \
                    getattr(x, "clock", None) is None:
                stack.append(x.left if self.phase == 0 else x.right)
            else:
                stack.extend(children(x))
        return out


def refine(node: Node, graph: dict[str, set[str]], phase: int | None) -> dict[str, set[str]]:
    """``graph`` (what each stream of ``node`` reads at the current step, at ``phase``) without
    the cycles that its arrays' elements do not have."""
    result = {n: set(d) for n, d in graph.items()}
    for comp in _sccs(graph):
        group = set(comp)
        refiner = _Refiner(node, group, phase)
        if len(refiner.exprs) > MAX_ELEMENTS:
            continue
        deps: dict[Element, set[Element]] = {}
        for (n, k), e in refiner.exprs.items():
            deps[(n, k)] = refiner.reads(e) if e is not None else {
                (m, j) for m in graph[n] & group for j in refiner.keys[m]}
        if next(_sccs(deps), None) is None:
            for n in group:
                result[n] = result[n] - group
    return result
