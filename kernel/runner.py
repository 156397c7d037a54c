"""Running engines on a system: child processes, first definitive verdict wins, hard timeouts.

Every engine runs in a forked child that leads its own process group, so a timeout kills the
whole tree (solvers, external binaries) and a crash ends one engine, never the run.  Verdicts
come back over a queue; a falsifiable verdict is replayed before it is accepted.
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

import attrs

from kinduct.kernel import registry
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.errors import EngineRefusal, InputError
from kinduct.kernel.replay import replay_trace
from kinduct.kernel.system import Inconclusive, Property, PropertyKind, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict

_CTX = mp.get_context("fork")


@attrs.frozen
class RunOptions:
    engines: tuple[str, ...] = ("portfolio",)
    solver: str = "z3"
    timeout: float | None = None
    max_k: int | None = None
    properties: tuple[str, ...] = ()
    engine_options: dict = attrs.field(factory=dict)


def expand_engines(names: Sequence[str]) -> list[Engine]:
    """Resolve names to engines; meta-engines (``portfolio``) expand to their members."""
    out: list[Engine] = []
    for name in names:
        eng = registry.engine(name)
        members = list(eng.members)
        if members:
            out.extend(e for e in expand_engines(members) if e.name not in {x.name for x in out})
        elif eng.name not in {x.name for x in out}:
            out.append(eng)
    return out


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


def _die_with_parent(parent: int) -> None:
    """Engines lead their own process groups (so timeouts can kill whole trees); ask Linux to
    kill this one if the kinduct process that started it dies, however it dies."""
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _child(engine: Engine, system: TransitionSystem, props: Sequence[Property],
           opts: RunOptions, deadline: float | None, outbox, inbox, nice: int = 0,
           parent: int = 0) -> None:
    os.setsid()
    _die_with_parent(parent)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _limit_memory()
    backend = registry.backend(opts.solver)

    def publish(lemmas: list[str]) -> None:
        outbox.put(("lemmas", engine.name, lemmas))

    def poll() -> list[str]:
        got: list[str] = []
        while True:
            try:
                got.extend(inbox.get_nowait())
            except (queue.Empty, OSError, ValueError):
                return got

    ctx = EngineContext(
        solver_name=opts.solver,
        make_solver=lambda: backend.solver(system.env),
        max_k=opts.max_k,
        deadline=deadline,
        options=dict(opts.engine_options),
        publish_invariants=publish,
        poll_invariants=poll,
    )
    try:
        if engine.needs_transition_relation and system.metadata.get("bounded") is not None:
            raise EngineRefusal(f"{engine.name} needs a transition relation; this problem is "
                                "bounded-only (use --engine bmc)")
        for verdict in engine.check(system, props, ctx):
            outbox.put(("verdict", engine.name, verdict.evolve(engine=verdict.engine or engine.name,
                                                               solver=opts.solver)))
    except EngineRefusal as exc:
        outbox.put(("refused", engine.name, str(exc)))
    except BaseException:  # a crash ends this engine, never the run
        outbox.put(("crash", engine.name, traceback.format_exc(limit=8)))
    finally:
        outbox.put(("done", engine.name, None))
        outbox.close()
        outbox.join_thread()


def _kill_group(proc) -> None:
    if proc.pid is None:
        return
    for sig in (signal.SIGKILL,):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=1.0)


def _map_reachability(prop: Property, verdict: Verdict) -> Verdict:
    """Engines decide the invariant ``not target``; reachability verdicts are its dual."""
    if prop.kind is not PropertyKind.REACHABLE:
        return verdict
    mapping = {Answer.FALSIFIABLE: Answer.REACHABLE, Answer.VALID: Answer.UNREACHABLE}
    return verdict.evolve(answer=mapping.get(verdict.answer, verdict.answer))


def _certify(system: TransitionSystem, prop: Property, verdict: Verdict, solver: str) -> Verdict:
    """``--certify``: re-check a valid verdict's certificate with the other SMT backend; a
    certificate it rejects turns the verdict into an error."""
    from kinduct.kernel.certify import OTHER_BACKEND, certify

    if verdict.invariant is None:
        return verdict
    other = OTHER_BACKEND.get(solver, solver)
    try:
        available = registry.backend(other).available()
    except Exception:
        available = False
    if not available:
        other = solver
    problem = certify(system, prop, verdict.invariant, other)
    extra = {**verdict.extra, "certified": problem is None, "certifiedBy": other}
    if problem is None:
        return verdict.evolve(extra=extra)
    return verdict.evolve(answer=Answer.ERROR, extra=extra,
                          message=f"certificate rejected by {other}: {problem}")


def _accept(system: TransitionSystem, prop: Property, verdict: Verdict) -> Verdict:
    """Replay falsifiable verdicts; a trace that does not replay is an internal error."""
    if verdict.answer is Answer.FALSIFIABLE:
        if verdict.trace is None:
            return verdict.evolve(answer=Answer.ERROR,
                                  message="internal error: falsifiable verdict without a trace")
        problem = None
        if system.metadata.get("bounded") is None:
            problem = replay_trace(system, verdict.trace, prop)
        if problem is None and system.replay is not None:
            problem = system.replay(verdict.trace, prop)
        if isinstance(problem, Inconclusive):
            return verdict.evolve(answer=Answer.UNKNOWN, trace=None, message=str(problem))
        if problem is not None:
            return verdict.evolve(answer=Answer.ERROR,
                                  message=f"internal error: counterexample does not replay: {problem}")
    return verdict


def select_properties(system: TransitionSystem, names: Sequence[str]) -> list[Property]:
    if not names:
        return list(system.properties)
    chosen = []
    known = {p.name: p for p in system.properties}
    for name in names:
        if name not in known:
            raise InputError(f"no property named '{name}' (known: {', '.join(known) or 'none'})")
        chosen.append(known[name])
    return chosen


def run(system: TransitionSystem, opts: RunOptions, start: float | None = None) -> list[Verdict]:
    """Decide the selected properties of ``system``; one verdict per property, in order."""
    start = time.monotonic() if start is None else start
    props = select_properties(system, opts.properties)
    engines = expand_engines(opts.engines)
    registry.backend(opts.solver)  # fail early on an unknown or unavailable solver
    if not props:
        return []
    deadline = None if opts.timeout is None else start + opts.timeout
    # Engines learn who runs beside them (ic3 leaves invariant generation to invgen).
    opts = attrs.evolve(opts, engine_options={**opts.engine_options,
                                              "engines": tuple(e.name for e in engines)})
    by_name = {p.name: p for p in props}
    decided: dict[str, Verdict] = {}
    notes: dict[str, str] = {}

    outbox = _CTX.Queue()
    inboxes = {e.name: _CTX.Queue() for e in engines}
    procs = {}
    for eng in engines:
        nice = getattr(eng, "portfolio_nice", 0) if len(engines) > 1 else 0
        proc = _CTX.Process(target=_child, args=(eng, system, props, opts, deadline, outbox,
                                                 inboxes[eng.name], nice, os.getpid()),
                            daemon=True)
        proc.start()
        procs[eng.name] = proc
    running = set(procs)
    best_unknown: dict[str, Verdict] = {}
    try:
        while running and len(decided) < len(props):
            wait = 0.2 if deadline is None else min(0.2, max(0.0, deadline - time.monotonic()))
            if deadline is not None and time.monotonic() >= deadline:
                break
            try:
                kind, name, payload = outbox.get(timeout=wait)
            except queue.Empty:
                for eng_name in list(running):
                    if not procs[eng_name].is_alive() and outbox.empty():
                        running.discard(eng_name)
                        notes.setdefault(eng_name, f"engine {eng_name} died "
                                                   f"(exit code {procs[eng_name].exitcode})")
                continue
            if kind == "verdict":
                verdict: Verdict = payload
                prop = by_name.get(verdict.property)
                if prop is None or verdict.property in decided:
                    continue
                verdict = verdict.evolve(runtime=time.monotonic() - start)
                if verdict.answer.definitive:
                    verdict = _accept(system, prop, verdict)
                    if verdict.answer is Answer.VALID and opts.engine_options.get("certify"):
                        verdict = _certify(system, prop, verdict, opts.solver)
                    decided[prop.name] = _map_reachability(prop, verdict)
                elif verdict.answer is Answer.ERROR:
                    decided[prop.name] = verdict
                else:
                    best_unknown[prop.name] = verdict
            elif kind == "lemmas":
                for other, box in inboxes.items():
                    if other != name and other in running:
                        box.put(payload)
            elif kind in ("refused", "crash"):
                notes[name] = f"engine {name} {'refused' if kind == 'refused' else 'crashed'}: " \
                              f"{payload.strip().splitlines()[-1] if payload else ''}"
            elif kind == "done":
                running.discard(name)
    finally:
        for proc in procs.values():
            _kill_group(proc)
        outbox.cancel_join_thread()
        for box in inboxes.values():
            box.cancel_join_thread()
    timed_out = deadline is not None and time.monotonic() >= deadline - 0.05
    results: list[Verdict] = []
    for prop in props:
        if prop.name in decided:
            results.append(decided[prop.name])
            continue
        unk = best_unknown.get(prop.name)
        message = unk.message if unk and unk.message else "; ".join(notes.values()) or None
        all_refused = bool(notes) and len(notes) == len(engines) and not unk
        results.append(Verdict(
            property=prop.name,
            answer=Answer.ERROR if all_refused else Answer.UNKNOWN,
            engine=unk.engine if unk else None,
            solver=opts.solver,
            k=unk.k if unk else None,
            runtime=time.monotonic() - start,
            message=message if not timed_out else (message or "timeout"),
            timeout=timed_out,
        ))
    return results
