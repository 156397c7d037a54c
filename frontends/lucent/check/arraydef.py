"""Array definitions: ``A[i] = e`` defines the array ``A`` element by element (``A[i][j] = e``
for an array of arrays), the index variables ranging over its dimensions, as Kind 2 reads them.

Where the sizes are constants (else :mod:`.symarrays`), a definition is elaborated into one
expression per element: ``e`` is checked once per index tuple with the index variables bound to
constants, and the equation ``A = [e0, e1, …]`` joins them. A definition may read ``A`` itself
at other indices (an *inductive* definition: ``A[i] = if i = 0 then x else A[i-1] + x``). Such
a read, at an index that is constant once the index variables are (after conditions that are
constant are decided), stands for the element it reads, whose expression replaces it; so the
elements depend on each other, never on ``A`` as a whole, and a cycle between elements is
reported as a circular definition. A read under ``pre`` reads the previous step and stays as it
is.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import symarrays
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.types import INT, T
from kinduct.frontends.lucent.core.walk import children, const_value
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope
    from kinduct.frontends.lucent.core.checked import Node

#: Most elements one definition may define, and most expression nodes its elaboration may
#: hold once the elements it reads are substituted (an inductive definition that reads the
#: element before twice doubles at each index).
MAX_ELEMENTS = 4096
MAX_EXPANSION = 200_000

Key = tuple[int, ...]


def define(checker: Checker, stmt: A.ArrayDef, node: Node, scope: Scope,
           defined: dict[str, A.Pos]) -> None:
    """Add to ``node`` the equation of the array definition ``stmt``, a statement of its
    body; ``defined``: where each variable defined so far is defined."""
    if stmt.name in defined:
        raise checker.err(f"'{stmt.name}' is defined twice (first at line "
                          f"{defined[stmt.name].line})", stmt.pos)
    e = elaborate(checker, stmt, node, scope)
    defined[stmt.name] = stmt.pos
    node.eqs.append(([stmt.name], e))


def elaborate(checker: Checker, stmt: A.ArrayDef, node: Node, scope: Scope) -> A.Expr:
    """The array literal that the definition ``stmt`` gives its array."""
    name, pos = stmt.name, stmt.pos
    if not stmt.alone:
        raise _unsupported(checker, "an array definition beside other variables on the left of "
                           "an equation", pos)
    if name not in node.types:
        raise checker.err(f"unknown name '{name}'", pos)
    if name in node.inputs:
        raise checker.err(f"cannot define input '{name}'", pos)
    if len(set(stmt.indices)) != len(stmt.indices):
        raise checker.err("an index variable appears twice in this array definition", pos)
    shapes: list[T] = []
    t = node.types[name]
    for _ in stmt.indices:
        if t.kind not in ("array", "symarray"):
            raise checker.err(f"'{name}' has type {node.types[name]}: it has fewer than "
                              f"{len(stmt.indices)} array dimensions", pos)
        shapes.append(t)
        t = t.items[0]
    if any(s.kind == "symarray" for s in shapes):
        return symarrays.define(checker, stmt, node, scope, shapes, t)
    sizes = [s.size for s in shapes]
    if math.prod(sizes) > MAX_ELEMENTS:
        raise _unsupported(checker, f"an array definition of more than {MAX_ELEMENTS} elements",
                           pos)
    raw: dict[Key, A.Expr] = {}
    for key in itertools.product(*(range(s) for s in sizes)):
        bound = {v: A.Lit(k, "int", pos=stmt.rhs.pos, ty=INT) for v, k in zip(stmt.indices, key,
                                                                             strict=True)}
        with naming.element_instances(node.calls, key):  # an instance per element, as Kind 2
            raw[key] = scope.with_constants(bound).expect(stmt.rhs, t)
    elements = _Elements(checker, name, sizes, raw, pos)
    return _nest(shapes, [], elements.get)


def _nest(shapes: list[T], prefix: list[int], element) -> A.Expr:
    """The array literal of the elements under the index ``prefix``."""
    if len(prefix) == len(shapes):
        return element(tuple(prefix))
    shape = shapes[len(prefix)]
    items = [_nest(shapes, [*prefix, i], element) for i in range(shape.size)]
    return A.ArrayLit(items, pos=items[0].pos if items else A.NOPOS, ty=shape)


def _unsupported(checker: Checker, what: str, pos: A.Pos) -> UnsupportedError:
    located = checker.err("", pos)
    return UnsupportedError(what, SourceLocation(checker.file, pos.line, pos.col),
                            located.source_line)


class _Elements:
    """The element expressions of one definition with the reads of the array itself replaced
    by the elements they read, resolved on demand (a cycle between elements is an error)."""

    def __init__(self, checker: Checker, name: str, sizes: list[int], raw: dict[Key, A.Expr],
                 pos: A.Pos) -> None:
        self.checker = checker
        self.name = name
        self.sizes = sizes
        self.raw = raw
        self.pos = pos
        self.done: dict[Key, A.Expr] = {}
        self.weight: dict[Key, int] = {}
        self.path: list[Key] = []

    def label(self, key: Key) -> str:
        return self.name + "".join(f"[{k}]" for k in key)

    def get(self, key: Key) -> A.Expr:
        if key in self.done:
            return self.done[key]
        if key in self.path:
            cycle = self.path[self.path.index(key):] + [key]
            raise self.checker.err("circular definition: " + " -> ".join(map(self.label, cycle)),
                                   self.pos)
        self.path.append(key)
        self.weight[key] = 0
        e = self._resolve(self.raw[key], key)
        self.path.pop()
        self.done[key] = e
        return e

    def _count(self, key: Key, n: int) -> None:
        self.weight[key] += n
        if self.weight[key] > MAX_EXPANSION:
            raise _unsupported(self.checker, f"an array definition whose elements, with the "
                               f"elements they read, exceed {MAX_EXPANSION} operations", self.pos)

    def _read(self, e: A.Expr) -> Key | None:
        """The element ``e`` reads when it is ``A[c1]…[cn]`` with constant indices in range
        (one index per dimension), else None."""
        indices = self._constant_indices(e)
        if indices is None or len(indices) != len(self.sizes) or \
                not all(0 <= i < s for i, s in zip(indices, self.sizes, strict=True)):
            return None
        return tuple(indices)

    def _outside(self, e: A.Expr) -> bool:
        """Whether ``e`` is ``A[c1]…[ck]`` with constant indices, one out of range."""
        indices = self._constant_indices(e)
        return indices is not None and any(
            not 0 <= i < s for i, s in zip(indices, self.sizes, strict=False))

    def _constant_indices(self, e: A.Expr) -> list[int] | None:
        """``[c1, …, ck]`` when ``e`` is ``A[c1]…[ck]`` (this array) with constant integer
        indices, else None."""
        indices: list[int] = []
        while isinstance(e, A.Index):
            i = const_value(e.index)
            if not isinstance(i, int) or isinstance(i, bool):
                return None
            indices.append(i)
            e = e.arg
        if not (isinstance(e, A.Var) and e.name == self.name):
            return None
        indices.reverse()
        return indices

    def _resolve(self, e: A.Expr, key: Key) -> A.Expr:
        """``e`` with its current reads of the array replaced (in place: the element's
        expression is its own) and its constant conditions decided."""
        self._count(key, 1)
        if isinstance(e, A.Unop) and e.op == "pre":
            return e
        if isinstance(e, A.Ite):
            c = const_value(e.cond)
            if isinstance(c, bool):
                return self._resolve(e.then if c else e.orelse, key)
        read = self._read(e)
        if read is not None:
            element = self.get(read)
            self._count(key, self.weight[read])
            return element
        if self._outside(e):  # an unconstrained value (named by the read), not a read of A
            inner = e
            while isinstance(inner.arg, A.Index):
                inner = inner.arg
            inner.arg = A.ArrayLit([], pos=inner.arg.pos, ty=T("array", items=(inner.ty,)))
            return e
        if isinstance(e, A.Var) and e.name == self.name:
            raise self.checker.err(
                f"circular definition: this definition of '{self.name}' reads '{self.name}' "
                "at the current step other than at constant indices of its elements", e.pos)
        _replace_children(e, lambda x: self._resolve(x, key))
        return e


def _replace_children(e: A.Expr, f) -> None:
    """Replace each child expression ``x`` of ``e`` by ``f(x)``, in place."""
    if isinstance(e, A.Unop | A.Field | A.Ascribe):
        e.arg = f(e.arg)
    elif isinstance(e, A.Index):
        e.arg, e.index = f(e.arg), f(e.index)
    elif isinstance(e, A.Binop):
        e.left, e.right = f(e.left), f(e.right)
    elif isinstance(e, A.Ite):
        e.cond, e.then, e.orelse = f(e.cond), f(e.then), f(e.orelse)
    elif isinstance(e, A.Call):
        e.args = [f(a) for a in e.args]
    elif isinstance(e, A.TupleE | A.ArrayLit):
        e.items = [f(x) for x in e.items]
    elif isinstance(e, A.Caret):
        e.elem = f(e.elem)
    elif isinstance(e, A.Update):
        e.arg, e.index, e.value = f(e.arg), f(e.index), f(e.value)
    elif isinstance(e, A.RecordLit):
        e.fields = [(n, f(x)) for n, x in e.fields]
    else:
        for x in children(e):  # a construct this module does not rebuild: it must not read A
            f(x)
