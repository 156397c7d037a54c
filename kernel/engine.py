"""What an engine is, and what the kernel hands it when it runs."""

from __future__ import annotations

import abc
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Verdict


@attrs.define
class EngineContext:
    """Everything an engine may use besides the system itself.

    - ``make_solver()``: a fresh solver of the chosen backend bound to the system's environment.
    - ``max_k``: the bound to stop at (None: until killed).
    - ``deadline``: ``time.monotonic()`` value at which the run is killed (informational).
    - ``publish_invariants`` / ``known_invariants``: lemmas proved by one engine, shared with the
      others (SMT-LIB text so they cross process boundaries).
    """

    solver_name: str
    make_solver: Callable[[], Solver]
    max_k: int | None = None
    deadline: float | None = None
    options: dict[str, Any] = attrs.field(factory=dict)
    publish_invariants: Callable[[list[str]], None] = lambda lemmas: None
    poll_invariants: Callable[[], list[str]] = lambda: []
    log: Callable[[str], None] = lambda msg: None

    def time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()


class Engine(abc.ABC):
    """An engine decides invariant properties of a transition system.

    :meth:`check` yields a :class:`Verdict` for a property as soon as it is decided and may
    yield ``unknown`` verdicts for what it gives up on.  It receives only invariant
    obligations; the runner maps reachability back.
    """

    name: str
    description: str = ""
    needs_transition_relation: bool = True
    #: A meta-engine expands to several engines run in parallel by the runner.
    members: Sequence[str] = ()
    #: ``nice`` increment of this engine's process when it runs beside others.
    niceness: int = 0
    #: True when :meth:`prepare` does work: the runner forks the other engines first, so
    #: that the preparation never delays them.
    prepares: bool = False

    def prepare(self, system: TransitionSystem, make_solver: Callable[[], Solver]) -> None:
        """Work on ``system`` done once in the runner's process before this engine's process is
        forked, which inherits its results (engines that share an analysis of the system compute
        it once per run this way).  It must not depend on the properties selected."""
        return None

    @abc.abstractmethod
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]: ...


def obligations(system: TransitionSystem, properties: Sequence[Property]) -> list[FNode]:
    return [p.obligation(system.env) for p in properties]
