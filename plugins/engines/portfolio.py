"""The default meta-engine: its members run in parallel child processes (see the runner)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kinduct.kernel import registry
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Verdict

#: Preferred members in priority order; those not installed are skipped.  All run at once on
#: the two cores: ``kind`` (its base case is a BMC) and ``ic3`` do most of the work, ``ic3ia``
#: (predicate abstraction) and ``chc`` (Horn clauses for z3's Spacer) take the hard end,
#: ``invgen`` runs once and exits after publishing its invariants, ``bmc`` runs at a lower
#: priority (``niceness``) for deep counterexamples.  On a small system the quick phase runs
#: ``kind``, ``ic3`` and ``ic3ia`` in this order in the runner's process, and ``chc``, which
#: prepares nothing, in a process beside them from 0.1 s into ``kind``'s slice
#: (``runner.BESIDE_EARLY``; on a system of 200-400 formula nodes the phase is ``kind``'s slice
#: alone, ``kernel/quick.py``; on a saturated
#: machine every engine after ``kind`` gets its process at once: ``kernel/machine.py``).  Measured
#: at load 14-20 (``benchmarks/acceptors_vs_kind2.py``): with ``ic3ia`` before ``chc`` the
#: Lucent acceptors took 3.3 s (majority) and 13-16 s (dyck1), with ``chc`` first 9.4 s and
#: 24 s; on the C-RASP pairs (``crasp_vs_spacer.py``) the three orders tried were within noise
#: (15-17 of 24 queries faster than Spacer's query).
PREFERRED = ("kind", "ic3", "ic3ia", "chc", "invgen", "bmc")


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
