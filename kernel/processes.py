"""Engine processes: how one is forked and what it runs, its memory budget, its death with
the kinduct process that started it, and the killing of its whole process group.

Every engine runs in a forked child that leads its own process group, so a timeout kills the
whole tree (solvers, external binaries) and a crash ends one engine, never the run.  The child
sends the runner tagged messages over a queue (:data:`VERDICT`, :data:`LEMMAS`, :data:`REACHED`,
:data:`SETTLED`, :data:`REFUSED`, :data:`CRASH`, :data:`DONE`) and reads the invariants its
companions publish from its inbox.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import resource
import signal
import time
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kinduct.kernel.errors import EngineRefusal
from kinduct.kernel.sentinel import die_with_parent, kill_group

if TYPE_CHECKING:  # light at start-up: the watchdog imports this module before any engine
    from kinduct.kernel.engine import Engine
    from kinduct.kernel.system import Property, TransitionSystem

#: How engine processes are made: a fork inherits the system and the preparation's analysis.
FORK = mp.get_context("fork")

#: The messages an engine process sends: ``(tag, engine name, payload)``; a :data:`REACHED`
#: payload is ``(property names, k)`` (:attr:`EngineContext.reached`).
VERDICT, LEMMAS, REFUSED, CRASH, DONE = "verdict", "lemmas", "refused", "crash", "done"
REACHED = "reached"
#: The engine's head start is over (:attr:`EngineContext.settle`); no payload.
SETTLED = "settled"

#: Address-space cap per engine process (bytes); ``KINDUCT_ENGINE_MEMORY_MB`` overrides it.
#: Memory exhaustion then ends one engine (a crash row), never the machine or the run.
DEFAULT_ENGINE_MEMORY_MB = 8192


def _virtual_size() -> int:
    """This process's current address-space size in bytes (0 when unknown)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _limit_memory() -> None:
    megabytes = int(os.environ.get("KINDUCT_ENGINE_MEMORY_MB", DEFAULT_ENGINE_MEMORY_MB))
    if megabytes > 0:
        # A forked engine inherits its parent's address space (large inside a long-running
        # host such as a test session or a synthesis loop): the budget comes on top of it.
        limit = _virtual_size() + megabytes * 1024 * 1024
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def stop_all(procs: Sequence[mp.process.BaseProcess], wait: float = 1.0) -> None:
    """Kill every engine process's group at once, then reap them for at most ``wait`` seconds
    in all (a killed process is reaped later if it is slow to go: never waited on here)."""
    for proc in procs:
        if proc.pid is not None:
            kill_group(proc.pid)
    until = time.monotonic() + wait
    for proc in procs:
        if proc.pid is not None:
            proc.join(timeout=max(0.0, until - time.monotonic()))


def engine_process(engine: Engine, system: TransitionSystem, props: Sequence[Property],
                   max_k: int | None, deadline: float | None, outbox, inbox, nice: int = 0,
                   parent: int = 0, options: object = None, companions: tuple[str, ...] = (),
                   solver: str = "") -> None:
    """The body of an engine's process: its own session, its niceness and memory budget, then
    :meth:`Engine.check` with its verdicts, invariants and failures sent on ``outbox``."""
    from kinduct.kernel import registry
    from kinduct.kernel.engine import EngineContext

    os.setsid()
    die_with_parent(parent)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _limit_memory()
    backend = registry.backend(solver)

    def publish(lemmas: list[str]) -> None:
        outbox.put((LEMMAS, engine.name, lemmas))

    def poll() -> list[str]:
        got: list[str] = []
        while True:
            try:
                got.extend(inbox.get_nowait())
            except (queue.Empty, OSError, ValueError):
                return got

    def reached(names: Sequence[str], k: int) -> None:
        outbox.put((REACHED, engine.name, (tuple(names), k)))

    def settle() -> None:
        outbox.put((SETTLED, engine.name, None))

    ctx = EngineContext(
        solver_name=solver,
        make_solver=lambda: backend.solver(system.env),
        max_k=max_k,
        deadline=deadline,
        options=options if options is not None else engine.Options(),
        companions=companions,
        publish_invariants=publish,
        poll_invariants=poll,
        reached=reached,
        settle=settle,
    )
    try:
        if engine.needs_transition_relation and system.bounded is not None:
            raise EngineRefusal(f"{engine.name} needs a transition relation; this problem is "
                                "bounded-only (use --engine bmc)")
        for verdict in engine.check(system, props, ctx):
            outbox.put((VERDICT, engine.name, verdict.evolve(engine=verdict.engine or engine.name,
                                                             solver=solver)))
    except EngineRefusal as exc:
        outbox.put((REFUSED, engine.name, str(exc)))
    except BaseException:  # a crash ends this engine, never the run
        outbox.put((CRASH, engine.name, traceback.format_exc(limit=8)))
    finally:
        outbox.put((DONE, engine.name, None))
        outbox.close()
        outbox.join_thread()
