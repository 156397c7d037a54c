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
from collections.abc import Callable, Mapping, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel import registry
from kinduct.kernel.backend import ExternalChecker, ExternalRequest, Solver, SolverUnknown
from kinduct.kernel.engine import Engine, EngineContext, make_options
from kinduct.kernel.errors import EngineRefusal, UsageError
from kinduct.kernel.replay import replay_trace
from kinduct.kernel.system import Inconclusive, Property, PropertyKind, TransitionSystem, Unconfirmed
from kinduct.kernel.verdict import Answer, Value, Verdict

_CTX = mp.get_context("fork")


@attrs.frozen
class ProgressEvent:
    """What the runner tells a progress display: ``start`` (the ``engines`` and ``properties``
    of a run), ``verdict`` (an engine's answer, or an unknown with the bound it reached),
    ``done`` or ``failed`` (an engine ended; ``note`` says why it failed)."""

    kind: str
    engine: str | None = None
    verdict: Verdict | None = None
    engines: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    note: str | None = None


@attrs.frozen
class RunOptions:
    """``progress``: called in this process with each :class:`ProgressEvent` (None: quiet)."""

    engines: tuple[str, ...] = ("portfolio",)
    solver: str = attrs.field(factory=registry.default_solver)
    timeout: float | None = None
    max_k: int | None = None
    properties: tuple[str, ...] = ()
    #: ``engine name -> setting -> value``: fields of that engine's :attr:`Engine.Options`.
    engine_settings: dict[str, dict[str, object]] = attrs.field(factory=dict)
    #: Re-check every certificate of a valid verdict with the other SMT backend.
    certify: bool = False
    #: ``solver`` is kinduct's choice, not the user's: on a system with quantified formulas,
    #: ``bmc`` runs on the other SMT backend (:func:`engine_solvers`).
    diversify: bool = False
    progress: Callable[[ProgressEvent], None] | None = attrs.field(default=None, eq=False)
    #: An external checker's own settings, by name (what plugins added to ``check`` through
    #: ``kinduct_add_check_options``, e.g. ``kind2_path``); handed over by
    #: :func:`kinduct.kernel.decide.decide` (``ExternalChecker.configure``).
    checker_options: Mapping[str, object] = attrs.field(factory=dict)


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


#: The engine that runs on the other SMT backend in a diversified run: z3 and cvc5 complete
#: different quantified queries (maps and sets with refined keys: cvc5 finds in a second the
#: counterexamples z3's model search never returns from; z3 proves what cvc5 gives up on).
DIVERSE_ENGINE = "bmc"


def engine_solvers(system: TransitionSystem, engines: Sequence[Engine], opts: RunOptions) -> dict[str, str]:
    """The SMT backend each engine runs on: ``opts.solver``, except :data:`DIVERSE_ENGINE`
    on the other available backend when ``opts.diversify`` is set, the system has quantified
    formulas and other engines run beside it."""
    solvers = {e.name: opts.solver for e in engines}
    if not opts.diversify or len(engines) < 2 or DIVERSE_ENGINE not in solvers:
        return solvers
    if not registry.backend(opts.solver).smt or not system.quantified():
        return solvers
    solvers[DIVERSE_ENGINE] = registry.other_solver(opts.solver)
    return solvers


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


def die_with_parent(parent: int) -> None:
    """Engines lead their own process groups (so timeouts can kill whole trees); ask Linux to
    kill this one if the kinduct process that started it dies, however it dies."""
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def engine_options(engines: Sequence[Engine], settings: dict[str, dict[str, object]]) -> dict[str, object]:
    """Each engine's :attr:`Engine.Options` from the run's settings; a setting for an engine
    that is not registered, or that the engine does not have, is a usage error."""
    for name in settings:
        registry.engine(name)  # an unknown engine name is a usage error
    options = {}
    for eng in engines:
        try:
            options[eng.name] = make_options(eng.Options, settings.get(eng.name, {}))
        except (KeyError, ValueError) as exc:
            raise UsageError(f"engine {eng.name}: {exc.args[0]}") from None
    return options


def _child(engine: Engine, system: TransitionSystem, props: Sequence[Property],
           opts: RunOptions, deadline: float | None, outbox, inbox, nice: int = 0,
           parent: int = 0, options: object = None, companions: tuple[str, ...] = (),
           solver: str | None = None) -> None:
    os.setsid()
    die_with_parent(parent)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _limit_memory()
    solver = solver or opts.solver
    backend = registry.backend(solver)

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
        solver_name=solver,
        make_solver=lambda: backend.solver(system.env),
        max_k=opts.max_k,
        deadline=deadline,
        options=options if options is not None else engine.Options(),
        companions=companions,
        publish_invariants=publish,
        poll_invariants=poll,
    )
    try:
        if engine.needs_transition_relation and system.bounded is not None:
            raise EngineRefusal(f"{engine.name} needs a transition relation; this problem is "
                                "bounded-only (use --engine bmc)")
        for verdict in engine.check(system, props, ctx):
            outbox.put(("verdict", engine.name, verdict.evolve(engine=verdict.engine or engine.name,
                                                               solver=solver)))
    except EngineRefusal as exc:
        outbox.put(("refused", engine.name, str(exc)))
    except BaseException:  # a crash ends this engine, never the run
        outbox.put(("crash", engine.name, traceback.format_exc(limit=8)))
    finally:
        outbox.put(("done", engine.name, None))
        outbox.close()
        outbox.join_thread()


class _Stop(BaseException):
    """Raised inside a preparation when the run no longer needs it (deadline, all decided)."""


class _Bounded(Solver):
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

    def push(self) -> None:
        self._inner.push()

    def pop(self) -> None:
        self._inner.pop()

    def check(self, assumptions: Sequence[FNode] = ()) -> bool:
        self._between()
        if self._deadline is not None:
            self._inner.limit_time(max(0.01, self._deadline - time.monotonic()))
        try:
            return self._inner.check(assumptions)
        except SolverUnknown:
            self._between()  # stopped by the deadline: a preparation ends with the run
            raise

    def values(self, symbols: Sequence[FNode]) -> dict[FNode, Value]:
        return self._inner.values(symbols)

    def unsat_core(self) -> list[FNode]:
        return self._inner.unsat_core()

    def reset(self) -> None:
        self._inner.reset()

    def close(self) -> None:
        self._inner.close()


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
    from kinduct.kernel.certify import certify

    if verdict.invariant is None:
        return verdict
    other = registry.other_solver(solver)
    problem = certify(system, prop, verdict.invariant, other)
    extra = {**verdict.extra, "certified": problem is None, "certifiedBy": other}
    if problem is None:
        return verdict.evolve(extra=extra)
    return verdict.evolve(answer=Answer.ERROR, extra=extra,
                          message=f"certificate rejected by {other}: {problem}")


class _Unconfirmed(Exception):  # noqa: N818 - a result, not an error
    """:func:`_accept`'s answer for a counterexample the solver's model does not support: the
    property stays open (``verdict``: its ``unknown`` form)."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict


def _accept(system: TransitionSystem, prop: Property, verdict: Verdict) -> Verdict:
    """Replay falsifiable verdicts; a trace that does not replay is an internal error."""
    if verdict.answer is Answer.FALSIFIABLE:
        if verdict.trace is None:
            return verdict.evolve(answer=Answer.ERROR,
                                  message="internal error: falsifiable verdict without a trace")
        problem = None
        if system.bounded is None:
            problem = replay_trace(system, verdict.trace, prop)
        if problem is None and system.replay is not None:
            problem = system.replay(verdict.trace, prop)
        if isinstance(problem, Unconfirmed):
            raise _Unconfirmed(verdict.evolve(answer=Answer.UNKNOWN, trace=None,
                                              message=str(problem)))
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
            raise UsageError(f"no property named '{name}' (known: {', '.join(known) or 'none'})")
        chosen.append(known[name])
    return chosen


def run(system: TransitionSystem, opts: RunOptions, start: float | None = None) -> list[Verdict]:
    """Decide the selected properties of ``system``; one verdict per property, in order."""
    start = time.monotonic() if start is None else start
    props = select_properties(system, opts.properties)
    engines = expand_engines(opts.engines)
    checker = registry.backend(opts.solver)  # fail early on an unknown or unavailable solver
    if not props:
        return []
    deadline = None if opts.timeout is None else start + opts.timeout
    if isinstance(checker, ExternalChecker):
        return _run_external(checker, system, props, opts, start, deadline)
    return _Portfolio(system, props, engines, opts, start, deadline).run()


#: Seconds each engine with a :attr:`Engine.quick_bound` gets in the runner's process.
QUICK_SLICE = 0.25
#: Formula nodes (``init``, ``trans``, assumptions) of a system small enough for that phase:
#: C-RASP queries have 29-113, FMCAD08's VMT models 100-1,500.  At 4,000 the phase slowed the
#: later engines on DRAGON_4 (1,000 nodes; 12 s without it, 19-24 s with it, not explained).
QUICK_MAX_NODES = 200


def _small(system: TransitionSystem) -> bool:
    """Whether ``system``'s formulas have at most :data:`QUICK_MAX_NODES` distinct nodes
    (counted until the limit is passed)."""
    seen: set[FNode] = set()
    stack = [system.init, system.trans, *system.assumptions]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if len(seen) > QUICK_MAX_NODES:
            return False
        stack.extend(node.args())
    return True


class _Portfolio:
    """One run of engine processes: the messages they send, the verdicts accepted so far."""

    def __init__(self, system: TransitionSystem, props: Sequence[Property], engines: list[Engine],
                 opts: RunOptions, start: float, deadline: float | None) -> None:
        self.system, self.props, self.engines = system, props, engines
        self.opts, self.start, self.deadline = opts, start, deadline
        self.options = engine_options(engines, opts.engine_settings)
        self.solvers = engine_solvers(system, engines, opts)
        self.by_name = {p.name: p for p in props}
        self.decided: dict[str, Verdict] = {}
        self.best_unknown: dict[str, Verdict] = {}
        self.notes: dict[str, str] = {}
        self.outbox = _CTX.Queue()
        self.inboxes = {e.name: _CTX.Queue() for e in engines}
        self.procs: dict[str, mp.Process] = {}
        self.running: set[str] = set()
        self.tell = opts.progress or (lambda event: None)

    def run(self) -> list[Verdict]:
        # Engines that prepare (an analysis of the system shared by their processes) start after
        # the others, so the preparation never delays a quick counterexample; while it runs in
        # this process, the others' messages are read before each of its solver queries.
        self.tell(ProgressEvent("start", engines=tuple(e.name for e in self.engines),
                                properties=tuple(self.by_name)))
        try:
            self._quick()
            for eng in self.engines:
                if not eng.prepares and not self._finished():
                    self._launch(eng)
            preparing = [e for e in self.engines if e.prepares]
            if preparing and not self._finished() and self._prepare(preparing):
                for eng in preparing:
                    self._launch(eng)
            while self.running and not self._finished():
                self._read(0.2)
        finally:
            for proc in self.procs.values():
                _kill_group(proc)
            self.outbox.cancel_join_thread()
            for box in self.inboxes.values():
                box.cancel_join_thread()
        timed_out = self.deadline is not None and time.monotonic() >= self.deadline - 0.05
        return _results(self.props, self.decided, self.best_unknown, self.notes,
                        len(self.engines), self.opts.solver, self.start, timed_out)

    def _finished(self) -> bool:
        return len(self.decided) >= len(self.props) or (
            self.deadline is not None and time.monotonic() >= self.deadline)

    def _quick(self) -> None:
        """Engines with a :attr:`Engine.quick_bound`, in this process, on a small system in a
        run of several engines: their definitive verdicts are taken as any other; an unknown,
        an error or a crash here only leaves the property to the engines' processes."""
        quick = [e for e in self.engines if e.quick_bound is not None]
        if len(self.engines) < 2 or not quick or not _small(self.system):
            return
        backend = registry.backend(self.opts.solver)
        for eng in quick:
            if self._finished():
                return
            deadline = time.monotonic() + (QUICK_SLICE if eng.quick_slice is None
                                           else eng.quick_slice)
            deadline = deadline if self.deadline is None else min(deadline, self.deadline)
            bound = eng.quick_bound if self.opts.max_k is None else min(eng.quick_bound,
                                                                         self.opts.max_k)

            def make_solver(d: float = deadline) -> Solver:
                return _Bounded(backend.solver(self.system.env), d)

            # No engine runs beside a quick one: it does its own invariant discovery.
            ctx = EngineContext(solver_name=self.opts.solver, deadline=deadline, max_k=bound,
                                make_solver=make_solver, options=self.options[eng.name])
            try:
                if eng.prepares:
                    eng.prepare(self.system, make_solver)
                for verdict in eng.check(self.system, self._open(), ctx):
                    if verdict.answer.definitive:
                        self._handle("verdict", eng.name,
                                     verdict.evolve(engine=verdict.engine or eng.name,
                                                    solver=self.opts.solver))
            except Exception:  # noqa: S112 - the engines' processes take the property on
                continue

    def _companions(self, eng: Engine) -> tuple[str, ...]:
        """The engines beside ``eng`` in this run (ic3 leaves invariant generation to invgen)."""
        return tuple(e.name for e in self.engines if e.name != eng.name)

    def _open(self) -> list[Property]:
        return [p for p in self.props if p.name not in self.decided]

    def _prepare(self, engines: list[Engine]) -> bool:
        """:meth:`Engine.prepare` in this process; False when the run ended meanwhile.  A
        failure here is left to the engine's own process, which meets it again and reports it
        like any other crash or refusal."""
        backend = registry.backend(self.opts.solver)

        def between() -> None:
            self._read(0.0)
            if self._finished():
                raise _Stop

        def make_solver() -> Solver:
            return _Bounded(backend.solver(self.system.env), self.deadline, between)

        for eng in engines:
            try:
                eng.prepare(self.system, make_solver)
            except _Stop:
                return False
            except Exception:  # noqa: S112 - met again, and reported, in the engine's process
                continue
        return not self._finished()

    def _launch(self, eng: Engine) -> None:
        nice = eng.niceness if len(self.engines) > 1 else 0
        proc = _CTX.Process(target=_child, args=(eng, self.system, self._open(), self.opts,
                                                 self.deadline, self.outbox,
                                                 self.inboxes[eng.name], nice, os.getpid(),
                                                 self.options[eng.name], self._companions(eng),
                                                 self.solvers[eng.name]),
                            daemon=True)
        proc.start()
        self.procs[eng.name] = proc
        self.running.add(eng.name)

    def _read(self, wait: float) -> None:
        """Handle the engines' messages that arrive within ``wait`` seconds (bounded by the
        deadline); none at all when ``wait`` is 0 and the queue is empty."""
        if self.deadline is not None:
            wait = min(wait, max(0.0, self.deadline - time.monotonic()))
        while not self._finished():
            try:
                kind, name, payload = self.outbox.get(timeout=wait) if wait else \
                    self.outbox.get_nowait()
            except queue.Empty:
                for eng_name in list(self.running):
                    if not self.procs[eng_name].is_alive() and self.outbox.empty():
                        self.running.discard(eng_name)
                        self.notes.setdefault(eng_name, f"engine {eng_name} died (exit code "
                                                        f"{self.procs[eng_name].exitcode})")
                return
            self._handle(kind, name, payload)
            wait = 0.0

    def _handle(self, kind: str, name: str, payload: object) -> None:
        if kind == "verdict":
            verdict = _take(self.system, self.by_name, payload, self.opts, self.start,
                            self.decided, self.best_unknown)
            if verdict is not None:
                self.tell(ProgressEvent("verdict", name, verdict))
        elif kind == "lemmas":
            for other, box in self.inboxes.items():
                if other != name and other in self.running:
                    box.put(payload)
        elif kind in ("refused", "crash"):
            text = payload.strip().splitlines()[-1] if payload else ""
            self.notes[name] = f"engine {name} {'refused' if kind == 'refused' else 'crashed'}: " \
                               f"{text}"
            self.tell(ProgressEvent("failed", name, note=self.notes[name]))
        elif kind == "done":
            self.running.discard(name)
            self.tell(ProgressEvent("done", name))


def _take(system: TransitionSystem, by_name: dict[str, Property], verdict: Verdict,
          opts: RunOptions, start: float, decided: dict[str, Verdict],
          best_unknown: dict[str, Verdict]) -> Verdict | None:
    """The single acceptance path of every verdict (an engine's or an external checker's):
    replay, certification, reachability mapping; the first definitive verdict wins, and of the
    unknown ones the one with the largest bound reached is kept.  Returns the verdict as
    received (None when it concerns no open property)."""
    prop = by_name.get(verdict.property)
    if prop is None or verdict.property in decided:
        return None
    verdict = verdict.evolve(runtime=time.monotonic() - start)
    if verdict.answer.definitive:
        try:
            accepted = _accept(system, prop, verdict)
        except _Unconfirmed as unconfirmed:  # another engine may still settle it
            best_unknown.setdefault(prop.name, unconfirmed.verdict)
            return verdict
        if accepted.answer is Answer.VALID and opts.certify:
            accepted = _certify(system, prop, accepted, opts.solver)
        decided[prop.name] = _map_reachability(prop, accepted)
    elif verdict.answer is Answer.ERROR:
        decided[prop.name] = verdict
    else:
        known = best_unknown.get(prop.name)
        if known is None or (verdict.k or -1) >= (known.k or -1):
            best_unknown[prop.name] = verdict  # the largest bound reached
    return verdict


def _results(props: Sequence[Property], decided: dict[str, Verdict],
             best_unknown: dict[str, Verdict], notes: dict[str, str], sources: int, solver: str,
             start: float, timed_out: bool) -> list[Verdict]:
    """One verdict per property, in order: decided ones, else unknown (or error when every
    one of the ``sources`` refused)."""
    results: list[Verdict] = []
    for prop in props:
        if prop.name in decided:
            results.append(decided[prop.name])
            continue
        unk = best_unknown.get(prop.name)
        noted = "; ".join(notes.values())
        if unk and unk.message:
            message = unk.message
        elif timed_out:  # the time ran out; what failed beside is said too
            message = f"timeout ({noted})" if noted else "timeout"
        else:
            message = noted or None
        all_refused = bool(notes) and len(notes) == sources and not unk
        results.append(Verdict(
            property=prop.name,
            answer=Answer.ERROR if all_refused else Answer.UNKNOWN,
            engine=unk.engine if unk else None,
            solver=solver,
            k=unk.k if unk else None,
            runtime=time.monotonic() - start,
            message=message,
            timeout=timed_out,
        ))
    return results


def _run_external(checker: ExternalChecker, system: TransitionSystem, props: Sequence[Property],
                  opts: RunOptions, start: float, deadline: float | None) -> list[Verdict]:
    """Hand the whole problem to an external checker (in this process: it runs its own
    binary under the deadline); its verdicts take the same acceptance path as engines'."""
    checker.validate_engines(opts.engines)
    by_name = {p.name: p for p in props}
    decided: dict[str, Verdict] = {}
    best_unknown: dict[str, Verdict] = {}
    request = ExternalRequest(engines=tuple(opts.engines), max_k=opts.max_k, deadline=deadline)
    for verdict in checker.check_system(system, props, request):
        _take(system, by_name, verdict.evolve(solver=opts.solver), opts, start, decided,
              best_unknown)
    timed_out = deadline is not None and time.monotonic() >= deadline - 0.05
    return _results(props, decided, best_unknown, {}, 1, opts.solver, start, timed_out)
