"""Timed copies of a system's variables, the basis of every SAT-based engine."""

from __future__ import annotations

from pysmt.fnode import FNode

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
        return self.env.substituter.substitute(formula, self._map(k))

    def step_vars(self, k: int) -> list[FNode]:
        return [self.timed(v, k) for v in self.system.current_vars]

