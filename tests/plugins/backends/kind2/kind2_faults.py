"""Where Kind 2 v3.0.0 contradicts itself, so a disagreement with kinduct is not kinduct's.

Kind 2 can prove a property valid in one analysis and, in another, print a counterexample (to a
different property) whose execution already violates it: e.g. it proves an imported contract's
``_one_mode_active`` while its counterexample to a guarantee shows a step with no mode active
(``tests/data/kind2/kind2_fault``).  Such a counterexample replays on kinduct's system, so it
is a genuine execution refuting Kind 2's own "valid"; the differential test accepts kinduct's
falsifiable answer there, and only there.
"""

from __future__ import annotations

from collections.abc import Iterable

from kinduct.kernel.replay import replay_trace
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Trace, Verdict


def refuted_by_own_trace(system: TransitionSystem, prop_name: str,
                         theirs: Iterable[Verdict]) -> Verdict | None:
    """The first of Kind 2's verdicts whose trace is an execution of ``system`` violating
    ``prop_name`` at some step, or None."""
    prop = next(p for p in system.properties if p.name == prop_name)
    for verdict in theirs:
        trace = verdict.trace
        if trace is None:
            continue
        for end in range(1, len(trace) + 1):
            if replay_trace(system, Trace(trace.steps[:end]), prop) is None:
                return verdict
    return None
