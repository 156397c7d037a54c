"""Running engines on a system: first definitive verdict wins, hard timeouts.

The engines run in processes of their own (:mod:`kinduct.kernel.processes`), after a quick
phase in this process on small systems (:mod:`kinduct.kernel.quick`); every verdict, theirs or
an external checker's, takes one acceptance path (:mod:`kinduct.kernel.acceptance`).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from kinduct.kernel import registry
from kinduct.kernel.acceptance import Ledger
from kinduct.kernel.backend import ExternalChecker, ExternalRequest, Solver
from kinduct.kernel.cone import Cone, cone_of
from kinduct.kernel.engine import Engine, make_options
from kinduct.kernel.errors import UsageError
from kinduct.kernel.machine import given, grouped_scheduling, measure, set_group_niceness
from kinduct.kernel.processes import (
    CRASH,
    DONE,
    FORK,
    LEMMAS,
    REACHED,
    REFUSED,
    SETTLED,
    VERDICT,
    engine_process,
    stop_all,
)
from kinduct.kernel.quick import FIRST_SLICE_MAX_NODES, Bounded, Sharing, quick_phase, small
from kinduct.kernel.system import Property, TransitionSystem, large
from kinduct.kernel.verdict import Answer, Verdict

if TYPE_CHECKING:  # the queues' module is imported at the first launch
    from multiprocessing.queues import Queue


@attrs.frozen
class ProgressEvent:
    """What the runner tells a progress display: ``start`` (the ``engines`` and ``properties``
    of a run), ``verdict`` (an engine's answer, or an unknown with the bound it reached),
    ``reached`` (``engine`` has shown the ``properties`` safe at steps ``0..k``: its depth),
    ``done`` or ``failed`` (an engine ended; ``note`` says why it failed); ``settled``: a
    ``verdict`` that leaves no property of the run open."""

    kind: str
    engine: str | None = None
    verdict: Verdict | None = None
    engines: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    note: str | None = None
    k: int | None = None
    settled: bool = False


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
    #: The cores the run may use as free ones (``--cores``); None: the cores the machine has
    #: free now (:func:`kinduct.kernel.machine.measure`): they decide how long the quick
    #: phase's slices are and whether the engines run one after the other first or all at
    #: once (:mod:`kinduct.kernel.machine`).
    cores: int | None = None
    #: The engines work on the cone of influence of ``properties`` (:mod:`kinduct.kernel.cone`;
    #: ``check --property``): counterexamples are extended to the whole system and replayed
    #: there, valid verdicts hold on it.
    cone: bool = False


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
    cone = cone_of(system, props) if opts.cone else None
    if cone is not None:  # the engines work on the selected properties' cone of influence
        sliced = _Portfolio(system, props, engines, opts, start, deadline, cone)
        results = sliced.run()
        if not sliced.abandoned:
            return results
        # a counterexample of the slice that does not extend: the whole system, from scratch
    return _Portfolio(system, props, engines, opts, start, deadline).run()


class Interrupted(KeyboardInterrupt):  # noqa: N818 - a KeyboardInterrupt that says what it stopped
    """Ctrl-C (SIGINT) during a run: ``verdicts`` are the run's verdicts so far, one per
    property in order (the undecided ones ``unknown`` with the bound they reached,
    "interrupted")."""

    def __init__(self, verdicts: list[Verdict]) -> None:
        super().__init__("interrupted")
        self.verdicts = verdicts


def interrupted(verdicts: list[Verdict]) -> list[Verdict]:
    """``verdicts`` of a run stopped by Ctrl-C: the undecided ones say so."""
    return [v if v.answer.definitive or v.answer is Answer.ERROR else
            v.evolve(message="interrupted", timeout=False) for v in verdicts]


#: The longest the first engine runs alone on a large system (seconds; :meth:`_Portfolio.
#: _head_start`).
HEAD_START_SECONDS = 20.0

#: Seconds into the quick phase's first slice after which the engines beside it start
#: (:class:`kinduct.kernel.quick.Sharing`): ``chc``-decided models (FMCAD08's SYNAPSE, MOESI,
#: cd; C-RASP's containsab, tomita2/7) no longer wait for ``kind``'s whole slice.  Not sooner:
#: ``kind`` decides FMCAD08's easy models in 0.005-0.08 s of its slice, and a fork there (the
#: queues, the process, its end) would cost them a few hundredths of a second.
BESIDE_EARLY = 0.1


#: The niceness of the scheduling groups of the engine processes beside one with a head start
#: (:meth:`Engine.head_start`) while it lasts (back to 0 after it): it then has about a core
#: of two beside five others (``invgen``'s term graph on FMCAD08's microwaves needs 1.5-3 s
#: of processor time, for which it had a third of a core; at 5 it had about 0.75).  19 (a
#: group weight of 15 against 1024 at 0), so that the engines it spares share the other core
#: between them rather than with the rest.
HEAD_START_NICE = 19

#: The niceness of the groups of the engines the one ahead spares (:attr:`Engine.
#: head_start_spares`) while its head start lasts: two at 5 (weight 335 each) and three at
#: :data:`HEAD_START_NICE` weigh less together than the engine ahead at 0 (1024), so the
#: kernel leaves it a core and the two about half of the other one each.
HEAD_START_SPARED_NICE = 5

#: Seconds after an engine with a head start is launched before the others are lowered: what
#: decides an easy system at once (``kind`` at k = 1 on FMCAD08's DRAGON models, 0.4 s) is
#: not starved behind a head start meant for a proof that takes seconds (at group niceness 19
#: ``kind`` waited for ``invgen`` to settle: 0.8 s).
HEAD_START_GRACE = 0.5


class _Stop(BaseException):
    """Raised inside a preparation when the run no longer needs it (deadline, all decided)."""


class _Portfolio:
    """One run of engine processes: the messages they send, the verdicts accepted so far.

    With a ``cone`` (:mod:`kinduct.kernel.cone`) the engines work on its slice of ``system``
    and each counterexample is extended to the whole system before it is accepted there; one
    that does not extend ends the run ``abandoned``."""

    def __init__(self, system: TransitionSystem, props: Sequence[Property], engines: list[Engine],
                 opts: RunOptions, start: float, deadline: float | None,
                 cone: Cone | None = None) -> None:
        self.props, self.engines, self.cone = props, engines, cone
        #: What the engines work on (the ledger accepts verdicts on the whole ``system``).
        self.system = system if cone is None else cone.system
        self.abandoned = False
        self.opts, self.start, self.deadline = opts, start, deadline
        self.options = engine_options(engines, opts.engine_settings)
        self.machine = measure() if opts.cores is None else given(opts.cores)
        self.solvers = engine_solvers(self.system, engines, opts)
        self.ledger = Ledger(system, props, start, opts.solver, opts.certify)
        self.notes: dict[str, str] = {}
        # Made at the first launch: a run the quick phase decides never needs them (the
        # queues cost about 17 ms of a 0.27 s easy run, measured by the startup helper).
        self.outbox: Queue | None = None
        self.inboxes: dict[str, Queue] = {}
        self.procs: dict[str, mp.Process] = {}
        self.running: set[str] = set()
        #: The engines that have reported a bound reached.
        self.reached: set[str] = set()
        self.tell = opts.progress or (lambda event: None)
        #: Engine name -> seconds of its head start (:meth:`_head_starts`); those not over yet,
        #: with when they end once launched; each process's group niceness as set.
        self.head_starts = self._head_starts()
        self.heading = set(self.head_starts)
        self.head_ends: dict[str, float] = {}
        self.head_begins: dict[str, float] = {}
        self.group_nice: dict[str, int] = {}

    def run(self) -> list[Verdict]:
        # Engines that prepare (an analysis of the system shared by their processes) start after
        # the others, so the preparation never delays a quick counterexample; while it runs in
        # this process, the others' messages are read before each of its solver queries.
        self.tell(ProgressEvent("start", engines=tuple(e.name for e in self.engines),
                                properties=tuple(p.name for p in self.props)))
        stopped = False
        try:
            self._quick()
            for eng in self.engines:
                if not eng.prepares and eng.name not in self.procs and not self._finished():
                    self._launch(eng)
                    self._head_start(eng)
            preparing = [e for e in self.engines if e.prepares]
            if preparing:
                self._behind_head_starts(preparing)
            if preparing and not self._finished() and self._prepare(preparing):
                for eng in preparing:
                    self._launch(eng)
            while self.running and not self._finished():
                self._read(0.2)
        except KeyboardInterrupt:
            stopped = True
        finally:
            stop_all(list(self.procs.values()))
            for box in [*self.inboxes.values(), *([self.outbox] if self.outbox is not None else [])]:
                box.cancel_join_thread()
        timed_out = self.deadline is not None and time.monotonic() >= self.deadline - 0.05
        results = self.ledger.results(self.notes, len(self.engines), timed_out and not stopped)
        if stopped:
            raise Interrupted(interrupted(results))
        return results

    def _head_start(self, eng: Engine) -> None:
        """On a large system (:func:`~kinduct.kernel.system.large`), the first
        engine launched runs alone until its first bound is reached (its step-0 base case: a
        step-0 counterexample of a 1 MB Lucent model then has both cores, for the engine and
        the replay, instead of a sixth of them each among six processes converting the same
        model), it stops, the run ends, or :data:`HEAD_START_SECONDS` pass."""
        if self.procs.keys() != {eng.name} or len(self.engines) < 2 or not large(self.system):
            return
        until = time.monotonic() + HEAD_START_SECONDS
        while eng.name in self.running and eng.name not in self.reached and \
                not self._finished() and time.monotonic() < until:
            self._read(min(0.2, max(0.0, until - time.monotonic())))

    def _behind_head_starts(self, preparing: list[Engine]) -> None:
        """While a head start lowers every engine of ``preparing`` to :data:`HEAD_START_NICE`,
        their preparation waits (the others' messages read meanwhile): in this process, whose
        group stays at 0, it took half of the second core from the engines spared (0.5 s of
        processor time on FMCAD08's microwave29, for engines that then get almost nothing
        until the head start ends)."""
        def lowered() -> bool:
            ahead = self.heading & self.head_ends.keys()
            spared = self._spared(ahead)
            return bool(ahead) and not any(e.name in ahead | spared for e in preparing)

        while lowered() and self.running and not self._finished():
            self._read(0.2)

    def _spared(self, ahead: set[str]) -> set[str]:
        """The engines that those in ``ahead`` spare (:attr:`Engine.head_start_spares`)."""
        return {n for e in self.engines if e.name in ahead for n in e.head_start_spares}

    def _head_starts(self) -> dict[str, float]:
        """The engines with a head start in this run (:meth:`Engine.head_start`) and its
        seconds: in a run of several engines on a system too large for the quick phase (whose
        engines run in this process first, one beside it), on a machine with every core free
        (beside another busy process the nicer groups lose their share to it, not to the
        engine ahead: in a run at load 12 microwave02/14/17/18/20/37 took 1.2-1.5x Kind 2's
        time with a head start on a core said free), where the kernel schedules engine
        processes by their groups
        (:func:`~kinduct.kernel.machine.grouped_scheduling`: there the others' groups can be
        made nicer for a while and back again without privileges)."""
        busy = self.machine.free < self.machine.cores
        if len(self.engines) < 2 or busy or not grouped_scheduling() or \
                small(self.system, FIRST_SLICE_MAX_NODES):
            return {}
        starts = {e.name: e.head_start(self.system, self.options[e.name]) for e in self.engines}
        return {name: s for name, s in starts.items() if s > 0}

    def _prioritise(self) -> None:
        """End the head starts whose time is up, then bring each running engine's group to the
        niceness it should have now: :data:`HEAD_START_NICE` beside a head start
        (:data:`HEAD_START_SPARED_NICE` for those the engines ahead spare,
        :attr:`Engine.head_start_spares`), else 0 (a change the kernel refuses for now is
        tried again at the next call)."""
        now = time.monotonic()
        self.heading -= {n for n, end in self.head_ends.items() if now >= end}
        # launched (a large system's first engine, running alone before the others are
        # launched, is not lowered for nothing) and past its grace (HEAD_START_GRACE)
        ahead = {n for n in self.heading & self.head_ends.keys() if now >= self.head_begins[n]}
        spared = self._spared(ahead)
        for name in self.running:
            want = 0 if not ahead or name in self.head_starts else \
                HEAD_START_SPARED_NICE if name in spared else HEAD_START_NICE
            pid = self.procs[name].pid
            if self.group_nice.get(name, 0) != want and pid is not None and \
                    set_group_niceness(pid, want):
                self.group_nice[name] = want

    def _finished(self) -> bool:
        return self.abandoned or self.ledger.complete() or (
            self.deadline is not None and time.monotonic() >= self.deadline)

    def _quick(self) -> None:
        # The engines beside start early in the first slice rather than after it (an easy
        # model the first slice decides in :data:`BESIDE_EARLY` seconds forks nothing).
        sharing = Sharing(self.machine.stretch(), self.machine.saturated(), self._beside,
                          self._between, BESIDE_EARLY)
        try:
            quick_phase(self.system, self.engines, self.options, self.opts.solver,
                        self.opts.max_k, self.deadline, self._finished, self.ledger.open,
                        lambda name, verdict: self._handle(VERDICT, name, verdict), sharing)
        except _Stop:  # an engine process decided what was left
            pass

    def _beside(self) -> tuple[str, ...]:
        """Engine processes beside the rest of the quick phase: the quick engines after the
        first that prepare nothing (``chc``), in the run's order, one per core the phase leaves
        free and at least one (at its own niceness: ``chc``'s 5 costs the phase about a tenth
        of its share of a busy core); their names."""
        chosen = [e for e in self.engines[1:] if e.quick_bound is not None and not e.prepares]
        chosen = chosen[:max(1, self.machine.free - 1)]
        for eng in chosen:
            self._launch(eng)
        return tuple(e.name for e in chosen)

    def _between(self) -> None:
        """Before each solver query of work in this process: the engines' messages; the work
        stops (:class:`_Stop`) once the run is over."""
        self._read(0.0)
        if self._finished():
            raise _Stop

    def _companions(self, eng: Engine) -> tuple[str, ...]:
        """The engines beside ``eng`` in this run (ic3 leaves invariant generation to invgen)."""
        return tuple(e.name for e in self.engines if e.name != eng.name)

    def _prepare(self, engines: list[Engine]) -> bool:
        """:meth:`Engine.prepare` in this process; False when the run ended meanwhile.  A
        failure here is left to the engine's own process, which meets it again and reports it
        like any other crash or refusal."""
        backend = registry.backend(self.opts.solver)

        def make_solver() -> Solver:
            return Bounded(backend.solver(self.system.env), self.deadline, self._between)

        for eng in engines:
            try:
                eng.prepare(self.system, make_solver)
            except _Stop:
                return False
            except Exception:  # noqa: S112 - met again, and reported, in the engine's process
                continue
        return not self._finished()

    def _launch(self, eng: Engine) -> None:
        if self.outbox is None:
            self.outbox = FORK.Queue()
            self.inboxes = {e.name: FORK.Queue() for e in self.engines}
        nice = eng.niceness if len(self.engines) > 1 else 0
        proc = FORK.Process(target=engine_process,
                            args=(eng, self.system, self.ledger.open(), self.opts.max_k,
                                  self.deadline, self.outbox, self.inboxes[eng.name], nice,
                                  os.getpid(), self.options[eng.name], self._companions(eng),
                                  self.solvers[eng.name]),
                            daemon=True)
        proc.start()
        self.procs[eng.name] = proc
        self.running.add(eng.name)
        if eng.name in self.head_starts:
            self.head_begins[eng.name] = time.monotonic() + HEAD_START_GRACE
            self.head_ends[eng.name] = time.monotonic() + self.head_starts[eng.name]

    def _read(self, wait: float) -> None:
        """Handle the engines' messages that arrive within ``wait`` seconds (bounded by the
        deadline); none at all when ``wait`` is 0 and the queue is empty."""
        if self.outbox is None:  # no engine process yet
            return
        if self.head_starts:
            self._prioritise()
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
        if kind == VERDICT and self.cone is not None and payload.answer is Answer.FALSIFIABLE \
                and payload.trace is not None:
            trace = self.cone.extend(payload.trace)
            if trace is None:
                self.abandoned = True
                return
            payload = payload.evolve(trace=trace)
        if kind == VERDICT:
            verdict = self.ledger.take(payload)
            if verdict is not None:  # as accepted (replayed, certified, mapped) when it settles
                self.tell(ProgressEvent("verdict", name,
                                        self.ledger.decided.get(verdict.property, verdict),
                                        settled=self.ledger.complete()))
        elif kind == REACHED:
            names, k = payload
            self.reached.add(name)
            self.ledger.reach(names, k, name)
            self.tell(ProgressEvent("reached", name, k=k, properties=tuple(names)))
        elif kind == LEMMAS:
            for other, box in self.inboxes.items():
                if other != name and other in self.running:
                    box.put(payload)
        elif kind in (REFUSED, CRASH):
            text = payload.strip().splitlines()[-1] if payload else ""
            self.notes[name] = f"engine {name} {'refused' if kind == REFUSED else 'crashed'}: " \
                               f"{text}"
            self.tell(ProgressEvent("failed", name, note=self.notes[name]))
        elif kind == SETTLED:
            self.heading.discard(name)
        elif kind == DONE:
            self.running.discard(name)
            self.heading.discard(name)
            self.tell(ProgressEvent("done", name))


def _run_external(checker: ExternalChecker, system: TransitionSystem, props: Sequence[Property],
                  opts: RunOptions, start: float, deadline: float | None) -> list[Verdict]:
    """Hand the whole problem to an external checker (in this process: it runs its own
    binary under the deadline); its verdicts take the same acceptance path as engines'."""
    checker.validate_engines(opts.engines)
    ledger = Ledger(system, props, start, opts.solver, opts.certify)
    request = ExternalRequest(engines=tuple(opts.engines), max_k=opts.max_k, deadline=deadline)
    try:
        for verdict in checker.check_system(system, props, request):
            ledger.take(verdict.evolve(solver=opts.solver))
    except KeyboardInterrupt:
        raise Interrupted(interrupted(ledger.results({}, 1, False))) from None
    timed_out = deadline is not None and time.monotonic() >= deadline - 0.05
    return ledger.results({}, 1, timed_out)
