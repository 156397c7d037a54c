"""What ``check/``'s feature modules see of the checker's two hubs, and the little they share.

The hubs are :class:`.checker.Checker` (the program: declarations, types, constants, node
elaboration) and :class:`.typecheck.Scope` (the typing of expressions inside one node). Both
import the feature modules, so a feature module must not import them back: it annotates
with the protocols :class:`Checker` and :class:`Scope` below, which list exactly what the
feature modules (and ``Scope`` of ``Checker``) read and call. The hubs satisfy them
structurally; nothing here is imported by the hubs but the shared definitions at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.types import T

if TYPE_CHECKING:
    from kinduct.frontends.lucent.core.checked import Mode, Node, Prop
    from kinduct.frontends.lucent.core.clocks import Clock
    from kinduct.frontends.lucent.core.types import Refinement
    from kinduct.frontends.lucent.core.walk import Instant
    from kinduct.kernel.errors import InputError


class Checker(Protocol):
    """The program being checked (:class:`.checker.Checker`)."""

    prog: A.Program
    file: str
    text: str
    types: dict[str, T]
    enum_values: dict[str, tuple[T, int]]
    ctors: dict[str, tuple[T, int]]
    poly_types: dict[str, A.TypeDecl]
    poly_ctors: dict[str, tuple[str, int]]
    consts: dict[str, A.Expr]
    free_consts: dict[str, T]
    decls: dict[str, A.NodeDecl]
    contracts: dict[str, A.NodeDecl]
    warnings: list[str]
    const_obligations: list[Prop]
    const_names: set[str]
    pending_names: set[str]
    instant: Instant
    strict: bool
    type_params: dict[str, tuple[T, Refinement]]
    type_param_names: dict[str, str]
    finished: list[str]
    node_consts: dict[str, A.Expr]
    unknown_consts: dict[str, str]
    symbolic_node: str | None

    def err(self, msg: str, pos: A.Pos) -> InputError: ...

    def elaborate(self, d: A.NodeDecl, done: dict[str, Node],
                  params: dict[str, A.Expr] | None = None) -> Node: ...

    def resolve_type(self, te: A.TypeExpr, name: str = "",
                     scope: Any = None) -> tuple[T, Refinement]:
        """``scope``: a node's :class:`Scope`, a ``constants.Deferred`` or None."""
        ...

    def const_int(self, e: A.Expr) -> int: ...

    def top_scope(self, env: dict[str, T], strict_consts: bool) -> Scope: ...

    def obligation(self, node: Node, e: A.Expr, ref: Refinement, pos: A.Pos,
                   contract: bool = False, site: str = "", source: str = "Guarantee") -> None: ...

    def ghost(self, node: Node, scope: Scope, prefix: str, name: str, t: T,
              pos: A.Pos) -> str: ...


class Scope(Protocol):
    """Name resolution and typing inside one node (:class:`.typecheck.Scope`)."""

    c: Checker
    node: Node | None
    env: dict[str, T]
    done: dict[str, Node]
    local_consts: dict[str, A.Expr]
    modes: dict[str, Mode]
    pending_modes: dict[str, Callable[[], None]]
    guarded: bool
    last: dict[str, A.Expr] | None
    clock: Clock | None
    strict_consts: bool
    hint: T | None

    def err(self, msg: str, pos: A.Pos) -> InputError: ...

    def with_constants(self, values: dict[str, A.Expr]) -> Scope: ...

    def unify(self, want: T, got: T, pos: A.Pos) -> None: ...

    def expect(self, e: A.Expr, t: T) -> A.Expr: ...

    def check_as(self, e: A.Expr, t: T | None) -> A.Expr: ...

    def make_pre(self, arg: A.Expr, pos: A.Pos) -> A.Unop: ...

    def check(self, e: A.Expr) -> A.Expr: ...

    def check_call(self, e: A.Call) -> A.Expr: ...

    def clocked(self, e: A.Expr) -> A.Expr: ...


#: Arrays are expanded into one stream per element: a larger size is refused before anything
#: is allocated (Kind 2 keeps arrays symbolic; kinduct does not).
MAX_ARRAY_SIZE = 100_000


class Unresolved(Exception):
    """A constant expression names something not known yet (a constant declared later)."""


def typed_var(name: str, t: T, pos: A.Pos) -> A.Var:
    """The checked variable ``name`` of type ``t``."""
    return A.Var(name, pos=pos, ty=t)


def compatible_flat(a: list[T], b: list[T]) -> bool:
    """Whether two flattened type lists agree element by element."""
    return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))
