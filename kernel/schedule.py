"""One timeout for several systems (a Lucent file with several top nodes): how the time is
shared between the analyses, which run one after the other.

Each analysis first gets an equal share of the time left (so that a first system whose
properties stay open cannot take all of it), and what an analysis leaves unused goes to the
later ones.  The time still left at the end goes again, in order, to the properties a share cut
off (answered ``unknown`` on timeout), each such analysis run again up to the whole timeout;
a definitive verdict of that second turn replaces the first turn's ``unknown``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from kinduct.kernel.verdict import Answer, Verdict

#: ``decide(index, timeout, properties)``: the verdicts of analysis ``index`` run until
#: ``timeout`` seconds after the common start (None: no limit), on ``properties`` (None: all
#: of its selected properties).
Decide = Callable[[int, float | None, Sequence[str] | None], list[Verdict]]

#: Seconds below which a second turn is not worth starting.
MIN_SECOND_TURN = 0.5


def decide_in_turn(count: int, timeout: float | None, start: float, decide: Decide) -> list[list[Verdict]]:
    """The verdicts of ``count`` analyses run in turn under ``timeout`` seconds from ``start``."""
    if timeout is None or count <= 1:
        return [decide(i, timeout, None) for i in range(count)]
    results: list[list[Verdict]] = []
    for i in range(count):
        now = time.monotonic() - start
        share = max(timeout - now, 0.0) / (count - i)
        results.append(decide(i, min(timeout, now + share), None))
    for i, verdicts in enumerate(results):
        cut = [v.property for v in verdicts if v.answer is Answer.UNKNOWN and v.timeout]
        if not cut or timeout - (time.monotonic() - start) < MIN_SECOND_TURN:
            continue
        again = {v.property: v for v in decide(i, timeout, cut) if v.answer.definitive}
        results[i] = [again.get(v.property, v) for v in verdicts]
    return results
