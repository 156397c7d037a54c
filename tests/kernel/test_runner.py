"""The runner's contracts, with toy engines: the first definitive verdict wins, a trace that does
not replay is an error, a refused certificate turns valid into error, a crashing or refusing
engine leaves the property to the others (unknown with the reason; error when every engine
fails), the deadline holds, a preparation in the runner's process holds up neither another
engine's verdict nor the deadline, and a quick engine decides in the runner's process when it
runs beside others."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence

import pytest
from pysmt.environment import Environment
from pysmt.typing import INT

from kinduct.kernel import registry
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.errors import EngineRefusal
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer, Trace, Verdict
from tests.kernel.toy_systems import counter


class Toy(Engine):
    """An engine whose answers a test scripts: ``behaviour(props)`` yields verdicts."""

    description = "a scripted engine (tests only)"

    def __init__(self, name: str, behaviour: Callable[[Sequence[Property]], Iterator[Verdict]]):
        self.name = name
        self.behaviour = behaviour

    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        yield from self.behaviour(properties)


@pytest.fixture
def toys(monkeypatch):
    """Registers toy engines for one test: ``toys(name, behaviour)``."""
    def add(name: str, behaviour) -> str:
        monkeypatch.setitem(registry.engines(), name, Toy(name, behaviour))
        return name
    return add


def valid_at_once(props):
    for p in props:
        yield Verdict(p.name, Answer.VALID, k=1)


def sleep_then_unknown(props):
    time.sleep(3)
    for p in props:
        yield Verdict(p.name, Answer.UNKNOWN, k=2, message="slow toy gave up")


def test_first_definitive_verdict_wins(toys):
    names = (toys("toy-valid", valid_at_once), toys("toy-slow", sleep_then_unknown))
    (verdict,) = run(counter(), RunOptions(engines=names, timeout=60))
    assert verdict.answer is Answer.VALID and verdict.engine == "toy-valid"


def test_trace_that_does_not_replay_is_an_error(toys):
    def bogus(props):
        for p in props:  # x = 5 at step 0 is not an initial state
            yield Verdict(p.name, Answer.FALSIFIABLE, k=0, trace=Trace.of([{"x": 5}]))
    (verdict,) = run(counter(), RunOptions(engines=(toys("toy-bogus", bogus),), timeout=60))
    assert verdict.answer is Answer.ERROR
    assert "does not replay" in verdict.message


def test_refused_certificate_turns_valid_into_error(toys):
    def wrong_invariant(props):
        for p in props:  # x >= 1 is false initially: not a certificate of x >= 0
            yield Verdict(p.name, Answer.VALID, k=1, invariant="(>= x 1)")
    opts = RunOptions(engines=(toys("toy-cert", wrong_invariant),), timeout=60, certify=True)
    (verdict,) = run(counter(), opts)
    assert verdict.answer is Answer.ERROR
    assert "certificate rejected" in verdict.message


def test_a_good_certificate_is_accepted(toys):
    def right_invariant(props):
        for p in props:
            yield Verdict(p.name, Answer.VALID, k=1, invariant="(>= x 0)")
    opts = RunOptions(engines=(toys("toy-good", right_invariant),), timeout=60, certify=True)
    (verdict,) = run(counter(), opts)
    assert verdict.answer is Answer.VALID and verdict.extra["certified"] is True


def crash(props):
    yield from ()
    raise RuntimeError("toy engine crashed on purpose")


def refuse(props):
    yield from ()
    raise EngineRefusal("toy engine does not do this")


@pytest.mark.parametrize("failing", [crash, refuse], ids=["crash", "refusal"])
def test_a_failing_engine_leaves_the_property_to_the_others(toys, failing):
    names = (toys("toy-failing", failing), toys("toy-slow", sleep_then_unknown))
    (verdict,) = run(counter(), RunOptions(engines=names, timeout=60))
    assert verdict.answer is Answer.UNKNOWN
    assert verdict.message == "slow toy gave up"


@pytest.mark.parametrize("failing", [crash, refuse], ids=["crash", "refusal"])
def test_every_engine_failing_is_an_error_with_the_reason(toys, failing):
    (verdict,) = run(counter(), RunOptions(engines=(toys("toy-failing", failing),), timeout=60))
    assert verdict.answer is Answer.ERROR
    assert "toy engine" in verdict.message


def test_the_deadline_holds(toys):
    def forever(props):
        while props:
            time.sleep(1)
        yield from ()
    (verdict,) = run(counter(), RunOptions(engines=(toys("toy-forever", forever),), timeout=2))
    assert verdict.answer is Answer.UNKNOWN and verdict.timeout


def test_a_timeout_says_so_beside_a_refusal(toys):
    """An engine that declines (IC3 on bit-vector state) is not the reason the others ran out
    of time: the message says timeout first."""
    def forever(props):
        while props:
            time.sleep(1)
        yield from ()
    names = (toys("toy-failing", refuse), toys("toy-forever", forever))
    (verdict,) = run(counter(), RunOptions(engines=names, timeout=2))
    assert verdict.answer is Answer.UNKNOWN and verdict.timeout
    assert verdict.message.startswith("timeout (engine toy-failing refused: toy engine does not")


class SlowPreparation(Toy):
    """A toy whose preparation asks its solver many slow questions (and counts them)."""

    prepares = True

    def __init__(self, name: str) -> None:
        super().__init__(name, valid_at_once)
        self.queries = 0

    def prepare(self, system, make_solver) -> None:
        solver = make_solver()
        for _ in range(100):
            self.queries += 1
            solver.check()
            time.sleep(0.1)


def test_a_preparation_never_holds_up_another_engines_verdict(toys, monkeypatch):
    slow = SlowPreparation("toy-preparing")
    monkeypatch.setitem(registry.engines(), slow.name, slow)
    started = time.monotonic()
    (verdict,) = run(counter(), RunOptions(engines=(toys("toy-valid", valid_at_once), slow.name),
                                           timeout=60))
    assert verdict.answer is Answer.VALID and verdict.engine == "toy-valid"
    assert slow.queries < 100  # the run ended inside the preparation, at one of its queries
    assert time.monotonic() - started < 8


def test_a_preparation_ends_at_the_deadline(monkeypatch):
    slow = SlowPreparation("toy-preparing")
    monkeypatch.setitem(registry.engines(), slow.name, slow)
    started = time.monotonic()
    (verdict,) = run(counter(), RunOptions(engines=(slow.name,), timeout=1.0))
    assert verdict.answer is Answer.UNKNOWN and verdict.timeout
    assert slow.queries < 100
    assert time.monotonic() - started < 5


@pytest.fixture
def quick_toy(monkeypatch):
    """A registered toy with a quick bound that answers valid and records the process it
    answered in (``quick_toy.pids``: only what ran in this process shows up there)."""
    pids: list[int] = []

    def valid_here(props):
        pids.append(os.getpid())
        yield from valid_at_once(props)

    quick = Toy("toy-quick", valid_here)
    quick.quick_bound = 3
    quick.pids = pids
    monkeypatch.setitem(registry.engines(), quick.name, quick)
    return quick


def test_a_quick_engine_decides_in_the_runners_process(toys, quick_toy):
    """On a small system, an engine with a quick bound runs first in the runner's process:
    what it decides needs no engine process (its verdict is recorded in this process)."""
    engines = (quick_toy.name, toys("toy-slow", sleep_then_unknown))
    (verdict,) = run(counter(), RunOptions(engines=engines, timeout=60))
    assert verdict.answer is Answer.VALID and verdict.engine == "toy-quick"
    assert quick_toy.pids == [os.getpid()]


def test_a_quick_engine_alone_runs_in_its_own_process(quick_toy):
    (verdict,) = run(counter(), RunOptions(engines=(quick_toy.name,), timeout=60))
    assert verdict.answer is Answer.VALID and quick_toy.pids == []  # recorded in the child


def quantified_counter() -> TransitionSystem:
    """The counter with a (true) quantified assumption: ``x < 3`` fails at step 3."""
    env = Environment()
    mgr = env.formula_manager
    b = SystemBuilder("qcounter", env=env)
    x, nxt = b.state("x", INT)
    y = mgr.Symbol("y", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_trans(mgr.Equals(nxt, mgr.Plus(x, mgr.Int(1))))
    b.add_assumption(mgr.ForAll([y], mgr.Implies(mgr.GT(y, x), mgr.GE(y, mgr.Plus(x, mgr.Int(1))))))
    b.add_property(Property("P", mgr.LT(x, mgr.Int(3))))
    return b.build()


def test_a_diversified_run_puts_bmc_on_the_other_backend_for_quantified_systems():
    from kinduct.kernel.runner import engine_solvers, expand_engines

    engines = expand_engines(["bmc", "kind"])
    other = registry.other_solver("z3")
    quantified, plain = quantified_counter(), counter()
    assert engine_solvers(quantified, engines, RunOptions(solver="z3", diversify=True)) == {
        "bmc": other, "kind": "z3"}
    assert engine_solvers(quantified, engines, RunOptions(solver="z3")) == {"bmc": "z3", "kind": "z3"}
    assert engine_solvers(plain, engines, RunOptions(solver="z3", diversify=True)) == {
        "bmc": "z3", "kind": "z3"}
    alone = expand_engines(["bmc"])
    assert engine_solvers(quantified, alone, RunOptions(solver="z3", diversify=True)) == {"bmc": "z3"}


def test_the_diverse_engines_verdict_names_its_backend(toys):
    idle = toys("idle", lambda props: iter(()))
    (verdict,) = run(quantified_counter(), RunOptions(engines=("bmc", idle), solver="z3",
                                                      diversify=True, timeout=60))
    assert verdict.answer is Answer.FALSIFIABLE
    assert verdict.solver == registry.other_solver("z3")


def guarded_counter() -> TransitionSystem:
    """The counter with an input ``z`` that a quantified assumption keeps at most 5."""
    env = Environment()
    mgr = env.formula_manager
    b = SystemBuilder("gcounter", env=env)
    x, nxt = b.state("x", INT)
    z = b.input("z", INT)
    y = mgr.Symbol("y", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_trans(mgr.Equals(nxt, mgr.Plus(x, mgr.Int(1))))
    b.add_assumption(mgr.ForAll([y], mgr.Implies(mgr.And(mgr.GT(y, mgr.Int(0)), mgr.LT(y, z)),
                                                  mgr.LT(y, mgr.Int(5)))))
    b.add_property(Property("P", mgr.LT(x, mgr.Int(1))))
    return b.build()


def test_a_trace_breaking_a_quantified_assumption_leaves_the_property_to_others(toys):
    """A solver's model that breaks a quantified formula it was given (z3 has returned such
    arrays) proves nothing: the property stays open, and another engine's trace decides it."""
    from kinduct.kernel.replay import replay_trace
    from kinduct.kernel.system import Unconfirmed

    system = guarded_counter()
    broken = Trace.of([{"x": 0, "z": 10}, {"x": 1, "z": 10}])
    assert isinstance(replay_trace(system, broken, system.property("P")), Unconfirmed)

    def bogus(props):
        yield Verdict("P", Answer.FALSIFIABLE, k=1, trace=broken)

    def late(props):
        time.sleep(0.5)
        yield Verdict("P", Answer.FALSIFIABLE, k=1, trace=Trace.of([{"x": 0, "z": 0}, {"x": 1, "z": 0}]))

    (verdict,) = run(system, RunOptions(engines=(toys("bogus", bogus), toys("late", late)),
                                        timeout=60))
    assert verdict.answer is Answer.FALSIFIABLE and verdict.engine == "late"
