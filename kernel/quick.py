"""Work in the runner's own process: solver queries bounded by the run's deadline, and the
quick phase, which tries the engines with a :attr:`Engine.quick_bound` on a small system before
any process is forked (C-RASP queries are decided there in hundredths of a second)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel import registry
from kinduct.kernel.backend import Solver, SolverUnknown
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.machine import slowdown
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Value, Verdict

#: Seconds each engine with a :attr:`Engine.quick_bound` gets in the runner's process.
QUICK_SLICE = 0.25
#: Formula nodes (``init``, ``trans``, assumptions) of a system small enough for that phase:
#: C-RASP queries have 29-113, FMCAD08's VMT models 100-1,500.  At 4,000 the phase slowed the
#: later engines on DRAGON_4 (1,000 nodes; 12 s without it, 19-24 s with it, not explained).
QUICK_MAX_NODES = 200
#: Formula nodes of a system on which the phase runs its first slice only (the others' processes
#: start after it, as on a saturated machine): FMCAD08's FIREFLY, ILLINOIS and ticket3i models
#: (300-350 nodes) are decided by that slice (``kind``) or by ``chc`` beside it, which then has
#: a core of its own from early in the slice; the whole phase there delayed ``bmc``'s deep
#: counterexamples (metros, swimmingpool: 0.5-0.8 s became 3.5-11 s at load 9) and lost
#: FIREFLY_7 at 30 s.
FIRST_SLICE_MAX_NODES = 400


class Bounded(Solver):
    """A solver for work in the runner's own process (the quick phase, the preparation):
    every query is bounded by ``deadline`` (a native solver call may hold the interpreter, so
    no timer can interrupt it), and ``between`` runs before each query (the preparation reads
    its engines' messages there, so it never holds up their verdicts)."""

    def __init__(self, inner: Solver, deadline: float | None,
                 between: Callable[[], None] = lambda: None) -> None:
        super().__init__(inner.env)
        self.name = inner.name
        self._inner = inner
        self._between = between
        self._deadline = deadline

    def add(self, formula: FNode) -> None:
        self._inner.add(formula)

    def add_renamed(self, formula: FNode, leaf: Callable[[FNode], FNode | None]) -> bool:
        return self._inner.add_renamed(formula, leaf)

    def push(self) -> None:
        self._inner.push()

    def pop(self) -> None:
        self._inner.pop()

    def check(self, assumptions: Sequence[FNode] = ()) -> bool:
        return self._bounded(self._inner.check, assumptions)

    def check_afresh(self, assumptions: Sequence[FNode] = (), after: float | None = None) -> bool:
        return self._bounded(lambda a: self._inner.check_afresh(a, after), assumptions)

    def _bounded(self, check: Callable[[Sequence[FNode]], bool],
                 assumptions: Sequence[FNode]) -> bool:
        self._between()
        if self._deadline is not None:
            self._inner.limit_time(max(0.01, self._deadline - time.monotonic()))
        try:
            return check(assumptions)
        except SolverUnknown:
            self._between()  # stopped by the deadline: a preparation ends with the run
            raise

    def expect_quantifiers(self) -> None:
        self._inner.expect_quantifiers()

    def values(self, symbols: Sequence[FNode]) -> dict[FNode, Value]:
        return self._inner.values(symbols)

    def unsat_core(self) -> list[FNode]:
        return self._inner.unsat_core()

    def reset(self) -> None:
        self._inner.reset()

    def close(self) -> None:
        self._inner.close()


def nodes(system: TransitionSystem, limit: int) -> int:
    """How many distinct nodes ``system``'s formulas have, counted until ``limit`` is passed
    (so at most ``limit + 1``)."""
    seen: set[FNode] = set()
    stack = [system.init, system.trans, *system.assumptions]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if len(seen) > limit:
            break
        stack.extend(node.args())
    return len(seen)


def small(system: TransitionSystem, limit: int = QUICK_MAX_NODES) -> bool:
    """Whether ``system``'s formulas have at most ``limit`` distinct nodes."""
    return nodes(system, limit) <= limit


def cpu_seconds() -> float:
    """CPU time of this process and of its children that ended (an engine may run a solver
    in a child it waits for, e.g. an interpolation)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Stretch:
    """The factor by which the quick phase stretches its slices: at first the machine's
    estimate (:meth:`~kinduct.kernel.machine.Machine.stretch`), then what this process measurably
    got: the wall-clock time of the slices so far over the CPU time it spent in them (at most
    :data:`~kinduct.kernel.machine.MAX_STRETCH`)."""

    #: Wall-clock seconds of slices below which the measurement is not trusted yet.
    MIN_MEASURED = 0.05

    def __init__(self, estimate: float) -> None:
        self.estimate = estimate
        self.wall = 0.0
        self.cpu = 0.0

    def factor(self) -> float:
        if self.wall < self.MIN_MEASURED or self.cpu <= 0.0:
            return self.estimate
        return slowdown(self.wall, self.cpu)

    def record(self, wall: float, cpu: float) -> None:
        self.wall += wall
        self.cpu += cpu


@attrs.frozen
class Sharing:
    """How the quick phase shares the machine (:mod:`kinduct.kernel.machine`): ``stretch``, the
    machine's estimate of the factor a slice needs on it (:class:`Stretch`); ``saturated``: no
    core to spare, so only the first engine's slice runs here and the others get their
    processes at once; ``beside()``, called once after the first slice when the phase goes on:
    starts engine processes on the cores still free and names them (the phase skips them);
    ``between()``, before each solver query: reads their messages (it may end the phase by
    raising, once the run is over)."""

    stretch: float = 1.0
    saturated: bool = False
    beside: Callable[[], Sequence[str]] = lambda: ()
    between: Callable[[], None] = lambda: None
    #: Seconds into the first slice after which ``beside()`` is called, before a query of the
    #: first engine (None: after the first slice).
    early: float | None = None


def quick_phase(system: TransitionSystem, engines: Sequence[Engine], options: dict[str, object],
                solver: str, max_k: int | None, deadline: float | None,
                finished: Callable[[], bool], open_props: Callable[[], list[Property]],
                take: Callable[[str, Verdict], None], sharing: Sharing = Sharing()) -> None:
    """Engines with a :attr:`Engine.quick_bound`, in this process, on a small system in a run
    of several engines (the first of them only on a system of up to
    :data:`FIRST_SLICE_MAX_NODES` nodes, or on a saturated machine): each definitive verdict
    goes to ``take`` (engine name, verdict) as any other; an unknown, an error or a crash here
    only leaves the property to the engines' processes.  ``finished``: whether the run is over;
    ``open_props``: what is left; ``sharing``: how the phase shares the machine
    (:class:`Sharing`)."""
    quick = [e for e in engines if e.quick_bound is not None]
    if len(engines) < 2 or not quick:
        return
    size = nodes(system, FIRST_SLICE_MAX_NODES)
    if size > FIRST_SLICE_MAX_NODES:
        return
    quick = quick[:1] if sharing.saturated or size > QUICK_MAX_NODES else quick
    backend = registry.backend(solver)
    measured = Stretch(sharing.stretch)
    elsewhere: set[str] = set()
    beside_done = False
    phase_began = time.monotonic()

    def start_beside() -> None:
        nonlocal beside_done
        if not beside_done and not sharing.saturated:
            beside_done = True
            elsewhere.update(sharing.beside())

    def between() -> None:
        # the first slice has run long enough that it may not decide alone: the engines
        # beside start now, on the cores the phase leaves free
        if sharing.early is not None and time.monotonic() - phase_began >= sharing.early:
            start_beside()
        sharing.between()

    for i, eng in enumerate(quick):
        if finished():
            return
        if i == 1:
            start_beside()
        if eng.name in elsewhere:
            continue
        began, began_cpu = time.monotonic(), cpu_seconds()
        base = QUICK_SLICE if eng.quick_slice is None else eng.quick_slice
        until = began + base * measured.factor()
        until = until if deadline is None else min(until, deadline)
        bound = eng.quick_bound if max_k is None else min(eng.quick_bound, max_k)

        def make_solver(d: float = until) -> Solver:
            return Bounded(backend.solver(system.env), d, between)

        # No companions: a quick engine does its own invariant discovery (the engine processes
        # beside the phase, if any, publish only what decides a property).
        ctx = EngineContext(solver_name=solver, deadline=until, max_k=bound,
                            make_solver=make_solver, options=options[eng.name])
        try:
            if eng.prepares:
                eng.prepare(system, make_solver)
            for verdict in eng.check(system, open_props(), ctx):
                if verdict.answer.definitive:
                    take(eng.name, verdict.evolve(engine=verdict.engine or eng.name,
                                                  solver=solver))
        except Exception:  # noqa: S112 - the engines' processes take the property on
            pass
        measured.record(time.monotonic() - began, cpu_seconds() - began_cpu)
