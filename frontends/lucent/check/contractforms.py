"""Contract items in the forms Kind 2 also accepts: ghost variables defined together
(``var a, b: int = N(x);``, one tuple-valued equation) and modes referred to (``::m``) before
their declaration.  A mode is elaborated when first referred to, or at its place otherwise;
modes whose requirements refer to each other in a cycle are a located error."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check.scope_api import typed_var
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Mode
from kinduct.frontends.lucent.core.types import BOOL, flat, tuple_of

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope
    from kinduct.frontends.lucent.core.checked import Node


def define_ghosts(checker: Checker, item: A.ContractItem, node: Node, scope: Scope,
                  prefix: str) -> None:
    """The ghost variables of ``item`` (``var a, b: int, c: bool = e;``), declared before ``e``
    is checked (it may read their previous values), defined by one equation."""
    names, types = [], []
    for name, texpr, pos in item.ghosts:
        t, ref = checker.resolve_type(texpr)
        gname = checker.ghost(node, scope, prefix, name, t, pos)
        names.append(gname)
        types.append(t)
        checker.obligation(node, typed_var(gname, t, pos), ref, pos, contract=True, site=prefix)
    rhs = scope.check(item.expr)
    want = tuple_of(types)
    if flat(want) != flat(rhs.ty):
        raise checker.err(f"type mismatch: the ghost variables have type {want}, the right "
                          f"side {rhs.ty}", item.expr.pos)
    node.eqs.append((names, rhs))


class PendingMode:
    """The elaboration of one ``mode`` item, run once: at its place among the contract's items
    or, earlier, where a requirement or guarantee refers to it."""

    def __init__(self, checker: Checker, item: A.ContractItem, node: Node, scope: Scope,
                 prefix: str, contract: str) -> None:
        self.checker, self.item, self.node, self.scope = checker, item, node, scope
        self.prefix, self.contract = prefix, contract
        self.state = "new"

    def __call__(self) -> None:
        if self.state == "done":
            return
        item = self.item
        if self.state == "running":
            raise self.checker.err(f"circular mode definitions: mode '{item.name}' requires "
                                   "itself through mode references", item.pos)
        self.state = "running"
        scope, prefix = self.scope, self.prefix
        reqs = [scope.expect(x, BOOL) for _, x, _ in item.requires]
        ens = [(prefix + (n or f"{item.name}.ensure[L{p.line}C{p.col}]"),
                scope.expect(x, BOOL), p) for n, x, p in item.ensures]
        mode = Mode(item.name, reqs, ens, item.pos, prefix, self.contract)
        self.node.modes.append(mode)
        scope.modes[item.name] = mode
        self.state = "done"


def announce_modes(checker: Checker, items: list[A.ContractItem], node: Node, scope: Scope,
                   prefix: str, contract: str) -> dict[int, PendingMode]:
    """The modes among ``items``, made known to ``scope`` before any is elaborated; each
    item's elaboration, keyed by ``id(item)``."""
    pending = {}
    for item in items:
        if item.kind == "mode":
            pending[id(item)] = PendingMode(checker, item, node, scope, prefix, contract)
            scope.pending_modes.setdefault(item.name, pending[id(item)])
    return pending


__all__ = ["announce_modes", "define_ghosts", "PendingMode"]
