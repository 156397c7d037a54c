"""Timed copies of a system's variables, the basis of every SAT-based engine."""

from __future__ import annotations

from pysmt import operators as op
from pysmt.fnode import FNode
from pysmt.formula import FormulaManager

from kinduct.kernel.frontend import gc_paused
from kinduct.kernel.system import TransitionSystem


class Unroller:
    """Maps formulas over (current, next) variables to formulas over step-indexed copies.

    ``at(f, k)`` renames current variables to their step-k copies and next variables to their
    step-(k+1) copies.  Copies are named ``name@k``; substitution maps are cached per step.
    """

    def __init__(self, system: TransitionSystem) -> None:
        self.system = system
        self.env = system.env
        self.mgr = system.env.formula_manager
        self._maps: dict[int, dict[FNode, FNode]] = {}
        self._timed: dict[tuple[FNode, int], FNode] = {}

    def timed(self, var: FNode, k: int) -> FNode:
        key = (var, k)
        sym = self._timed.get(key)
        if sym is None:
            sym = self.mgr.Symbol(f"{var.symbol_name()}@{k}", var.symbol_type())
            self._timed[key] = sym
        return sym

    def _map(self, k: int) -> dict[FNode, FNode]:
        mapping = self._maps.get(k)
        if mapping is None:
            mapping = {v: self.timed(v, k) for v in self.system.current_vars}
            for cur, nxt in zip(self.system.state_vars, self.system.next_vars, strict=True):
                mapping[nxt] = self.timed(cur, k + 1)
            self._maps[k] = mapping
        return mapping

    def at(self, formula: FNode, k: int) -> FNode:
        mapping = self._map(k)
        with gc_paused():  # it makes only live terms: the collector would scan them for nothing
            renamed = rename(self.mgr, formula, mapping)
        if renamed is None:  # bound variables: PySMT's substituter
            return self.env.substituter.substitute(formula, mapping)
        return renamed

    def step_vars(self, k: int) -> list[FNode]:
        return [self.timed(v, k) for v in self.system.current_vars]


_BINDERS = frozenset({op.FORALL, op.EXISTS})


def rename(mgr: FormulaManager, formula: FNode, mapping: dict[FNode, FNode]) -> FNode | None:
    """``formula`` with each term of ``mapping`` replaced (None if it holds a quantifier): the
    same terms PySMT's substituter builds (each node rebuilt with its kind, renamed arguments
    and payload, an uninterpreted function's symbol kept), by one iterative walk of the DAG
    (PySMT's walker costs seconds on the million terms of a large model's unrolling)."""
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
        pending = [a for a in args if a not in memo]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        new = tuple([memo[a] for a in args])
        memo[node] = node if new == args else \
            create(node.node_type(), new, node._content.payload)  # noqa: SLF001 - PySMT's own field
    return memo[formula]
