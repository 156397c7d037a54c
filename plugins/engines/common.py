"""Pieces every SAT-based engine shares: trace extraction and known-invariant intake."""

from __future__ import annotations

from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.lemmas import parse_lemmas
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Trace


def extract_trace(solver: Solver, unroller: Unroller, last: int, first: int = 0) -> Trace:
    """Read steps ``first..last`` of the current model in one batch."""
    system = unroller.system
    timed = [(k, v, unroller.timed(v, k)) for k in range(first, last + 1)
             for v in system.current_vars]
    values = solver.values([t for _, _, t in timed])
    steps: list[dict] = [{} for _ in range(first, last + 1)]
    for k, var, t in timed:
        steps[k - first][var.symbol_name()] = values[t]
    return Trace.of(steps)


def state_vector(unroller: Unroller, k: int) -> list[FNode]:
    return [unroller.timed(v, k) for v in unroller.system.state_vars]


class InvariantIntake:
    """Lemmas published by other engines, parsed once, ready to assert at any step."""

    def __init__(self, system: TransitionSystem, ctx: EngineContext) -> None:
        self.system = system
        self.ctx = ctx
        self.lemmas: list[FNode] = []

    def poll(self) -> list[FNode]:
        """Newly arrived lemmas (over current-step variables)."""
        texts = self.ctx.poll_invariants()
        if not texts:
            return []
        fresh = parse_lemmas(self.system, texts)
        self.lemmas.extend(fresh)
        return fresh


def conjuncts(formula: FNode) -> list[FNode]:
    """The top-level conjuncts of ``formula`` (nested ``and`` flattened)."""
    out: list[FNode] = []
    stack = [formula]
    while stack:
        f = stack.pop()
        if f.is_and():
            stack.extend(reversed(f.args()))
        elif not f.is_true():
            out.append(f)
    return out
