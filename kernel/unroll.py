"""Timed copies of a system's variables, the basis of every SAT-based engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pysmt import operators as op
from pysmt.fnode import FNode
from pysmt.formula import FormulaManager

from kinduct.kernel.frontend import gc_paused
from kinduct.kernel.system import TransitionSystem

if TYPE_CHECKING:
    from kinduct.kernel.backend import Solver


class Unroller:
    """Maps formulas over (current, next) variables to formulas over step-indexed copies.

    ``at(f, k)`` renames current variables to their step-k copies and next variables to their
    step-(k+1) copies.  Copies are named ``name@k`` and made when a formula first reads them
    (the step-0 formulas of a large model read its 55,000 current variables and none of their
    55,000 next copies); substitution maps are cached per step.
    """

    def __init__(self, system: TransitionSystem) -> None:
        self.system = system
        self.env = system.env
        self.mgr = system.env.formula_manager
        self._maps: dict[int, dict[FNode, FNode]] = {}
        self._timed: dict[tuple[FNode, int], FNode] = {}
        self._roles: dict[FNode, tuple[FNode, int]] | None = None

    def timed(self, var: FNode, k: int) -> FNode:
        key = (var, k)
        sym = self._timed.get(key)
        if sym is None:
            sym = self.mgr.Symbol(f"{var.symbol_name()}@{k}", var.symbol_type())
            self._timed[key] = sym
        return sym

    def _role_of(self) -> dict[FNode, tuple[FNode, int]]:
        """Each variable's current variable and step offset: (v, 0) for a current variable,
        (v, 1) for v's next copy."""
        if self._roles is None:
            roles = {v: (v, 0) for v in self.system.current_vars}
            for cur, nxt in zip(self.system.state_vars, self.system.next_vars, strict=True):
                roles[nxt] = (cur, 1)
            self._roles = roles
        return self._roles

    def _map(self, k: int) -> dict[FNode, FNode]:
        """The whole renaming of step ``k`` (every copy made)."""
        mapping = self._maps.setdefault(k, {})
        for var, (cur, shift) in self._role_of().items():
            if var not in mapping:
                mapping[var] = self.timed(cur, k + shift)
        return mapping

    def _copier(self, k: int) -> Callable[[FNode], FNode | None]:
        """A variable's step-``k`` copy (made and remembered as its first read makes it); None
        for any other leaf."""
        mapping = self._maps.setdefault(k, {})
        roles = self._role_of()

        def copy(var: FNode) -> FNode | None:
            found = mapping.get(var)
            if found is not None:
                return found
            role = roles.get(var)
            if role is None:
                return None
            mapping[var] = timed = self.timed(role[0], k + role[1])
            return timed

        return copy

    def at(self, formula: FNode, k: int) -> FNode:
        with gc_paused():  # it makes only live terms: the collector would scan them for nothing
            renamed = rename(self.mgr, formula, {}, self._copier(k))
        if renamed is None:  # bound variables: PySMT's substituter
            return self.env.substituter.substitute(formula, self._map(k))
        return renamed

    def assert_at(self, solver: Solver, formula: FNode, k: int) -> None:
        """``solver.add(self.at(formula, k))``, renamed by the backend as it converts where it
        can (:meth:`Solver.add_renamed`: a large model's step-0 formulas are never copied)."""
        if not solver.add_renamed(formula, self._copier(k)):
            solver.add(self.at(formula, k))

    def step_vars(self, k: int) -> list[FNode]:
        return [self.timed(v, k) for v in self.system.current_vars]


_BINDERS = frozenset({op.FORALL, op.EXISTS})


def rename(mgr: FormulaManager, formula: FNode, mapping: dict[FNode, FNode],
           copy: Callable[[FNode], FNode | None] | None = None) -> FNode | None:
    """``formula`` with each term of ``mapping`` replaced (None if it holds a quantifier): the
    same terms PySMT's substituter builds (each node rebuilt with its kind, renamed arguments
    and payload, an uninterpreted function's symbol kept), by one iterative walk of the DAG
    (PySMT's walker costs seconds on the million terms of a large model's unrolling).
    ``copy``: what a leaf outside ``mapping`` is replaced by (None: itself), asked once per
    leaf (as if ``mapping`` held every leaf ``copy`` replaces)."""
    memo: dict[FNode, FNode] = dict(mapping)
    create = mgr.create_node
    stack = [formula]
    while stack:
        node = stack[-1]
        if node in memo:
            stack.pop()
            continue
        if node.node_type() in _BINDERS:
            return None
        args = node.args()
        if not args:
            stack.pop()
            new_leaf = None if copy is None else copy(node)
            memo[node] = node if new_leaf is None else new_leaf
            continue
        pending = [a for a in args if a not in memo]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        new = tuple([memo[a] for a in args])
        memo[node] = node if new == args else \
            create(node.node_type(), new, node._content.payload)  # noqa: SLF001 - PySMT's own field
    return memo[formula]
