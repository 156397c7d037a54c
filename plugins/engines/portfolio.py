"""The default meta-engine: its members run in parallel child processes (see the runner)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kinduct.kernel import registry
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Verdict

#: Preferred members in priority order; those not installed are skipped.  All run at once on
#: the two cores: ``kind`` (its base case is a BMC) and ``ic3`` do most of the work, ``chc``
#: (Horn clauses for z3's Spacer) and ``ic3ia`` (predicate abstraction) take the hard end,
#: ``invgen`` runs once and exits after publishing its invariants, ``bmc`` runs at a lower
#: priority (``niceness``) for deep counterexamples.  On a small system the quick phase runs
#: ``kind``, ``ic3``, ``chc`` and ``ic3ia`` in this order before any process starts.
PREFERRED = ("kind", "ic3", "chc", "ic3ia", "invgen", "bmc")


class Portfolio(Engine):
    name = "portfolio"
    description = "engines in parallel processes; first definitive verdict wins"

    @property
    def members(self) -> Sequence[str]:  # type: ignore[override]
        known = registry.engines()
        return tuple(n for n in PREFERRED if n in known)

    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        raise RuntimeError("portfolio is expanded by the runner and never runs itself")
