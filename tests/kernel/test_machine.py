"""The run on a busy machine (kernel/machine.py): what the machine's load means for the runner
(the free cores, one process's share, the stretch of the quick phase's slices, saturation),
and what the runner does with it, through ``run`` and ``RunOptions.cores`` with toy engines
(where an engine answered, the slice it was given) and the ``--cores`` flag.  No assertion on
how long anything took."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence

import pytest

from kinduct.kernel import machine as machine_module
from kinduct.kernel import registry
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.machine import MAX_STRETCH, Machine, measure
from kinduct.kernel.quick import FIRST_SLICE_MAX_NODES, QUICK_SLICE, small
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict
from tests.conftest import run_cli
from tests.kernel.toy_systems import counter, deep_counter, wide_counter


class Recorder(Engine):
    """A quick engine that records, for each call, the process it ran in and the seconds its
    context gave it; it answers valid when ``decides``, else nothing; ``prepares`` as given
    (its preparation does nothing)."""

    description = "a recording engine (tests only)"
    quick_bound = 3

    def __init__(self, name: str, decides: bool, prepares: bool = False) -> None:
        self.name = name
        self.decides = decides
        self.prepares = prepares
        self.calls: list[tuple[int, float | None]] = []

    def prepare(self, system, make_solver) -> None:
        pass

    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        self.calls.append((os.getpid(), ctx.time_left()))
        if self.decides:
            for p in properties:
                yield Verdict(p.name, Answer.VALID, k=1)


@pytest.fixture
def engines(monkeypatch):
    """A first quick engine that decides nothing and a second one, which prepares, that
    decides."""
    first, second = Recorder("rec-first", False), Recorder("rec-second", True, prepares=True)
    for eng in (first, second):
        monkeypatch.setitem(registry.engines(), eng.name, eng)
    return first, second


def on(monkeypatch, machine: Machine) -> None:
    """Runs without ``cores`` see ``machine``."""
    monkeypatch.setattr("kinduct.kernel.runner.measure", lambda: machine)


def test_free_cores_share_and_stretch():
    idle = Machine(cores=2, others=0.0)
    assert (idle.free, idle.share, idle.stretch(), idle.saturated()) == (2, 1.0, 1.0, False)
    one_busy = Machine(cores=2, others=1.0)
    assert (one_busy.free, one_busy.share, one_busy.stretch()) == (1, 1.0, 1.0)
    two_hogs = Machine(cores=2, others=2.0)  # three processes on two cores
    assert two_hogs.free == 0 and two_hogs.share == pytest.approx(2 / 3)
    assert two_hogs.stretch() == pytest.approx(1.5) and not two_hogs.saturated()
    crowded = Machine(cores=2, others=19.0)
    assert crowded.free == 0 and crowded.stretch() == MAX_STRETCH and crowded.saturated()
    assert Machine(cores=4, others=7.9).saturated() is False
    assert Machine(cores=4, others=8.0).saturated() is True


def test_the_measured_machine_is_this_ones():
    m = measure()
    assert 1 <= m.cores <= (os.cpu_count() or 1)
    assert m.others >= 0 and 0 <= m.free <= m.cores


def test_the_estimate_of_the_others_is_bounded_by_the_load_average(monkeypatch):
    monkeypatch.setattr(os, "getloadavg", lambda: (3.0, 0.0, 0.0))
    monkeypatch.setattr(machine_module, "_runnable_now", lambda: 10)
    assert measure().others == 3.0  # a burst now: the average bounds it
    monkeypatch.setattr(machine_module, "_runnable_now", lambda: 2)
    assert measure().others == 1.0  # the average lags: the runnable tasks now, less this one


def test_with_one_free_core_every_quick_engine_runs_in_the_runners_process(monkeypatch, engines):
    first, second = engines
    on(monkeypatch, Machine(cores=2, others=1.0))
    (verdict,) = run(counter(), RunOptions(engines=(first.name, second.name), timeout=60))
    assert verdict.answer is Answer.VALID and verdict.engine == second.name
    assert [pid for pid, _ in first.calls + second.calls] == [os.getpid()] * 2


def test_on_a_saturated_machine_the_engines_after_the_first_get_processes(monkeypatch, engines):
    first, second = engines
    on(monkeypatch, Machine(cores=2, others=8.0))
    (verdict,) = run(counter(), RunOptions(engines=(first.name, second.name), timeout=60))
    assert verdict.answer is Answer.VALID and verdict.engine == second.name
    assert [pid for pid, _ in first.calls] == [os.getpid()]  # the first slice, here
    assert second.calls == []  # recorded in its own process, not in this one


@pytest.mark.parametrize("others", [0.0, 2.0])
def test_a_quick_engine_that_prepares_nothing_gets_a_process_beside_the_quick_phase(
        monkeypatch, engines, others):
    """After the first slice, the quick engines after the first that prepare nothing start
    their processes (one per core the phase leaves free, at least one), beside the rest of the
    phase, which skips them."""
    first, second = engines
    beside = Recorder("rec-beside", True)
    monkeypatch.setitem(registry.engines(), beside.name, beside)
    on(monkeypatch, Machine(cores=2, others=others))
    (verdict,) = run(counter(), RunOptions(engines=(first.name, beside.name, second.name),
                                           timeout=60))
    assert verdict.answer is Answer.VALID
    assert [pid for pid, _ in first.calls] == [os.getpid()]
    assert beside.calls == []  # never in this process
    assert [pid for pid, _ in second.calls] in ([], [os.getpid()])  # raced by the other


def test_cores_given_override_the_machines_load(monkeypatch, engines):
    first, second = engines
    on(monkeypatch, Machine(cores=2, others=8.0))
    run(counter(), RunOptions(engines=(first.name, second.name), timeout=60, cores=1))
    assert [pid for pid, _ in second.calls] == [os.getpid()]


def test_a_busy_machine_stretches_the_first_slice(monkeypatch, engines):
    """The first slice is the estimate's (later ones follow what the process measurably got):
    a quarter of a core makes it four times as long as on a free core."""
    first, second = engines
    names = (first.name, second.name)
    on(monkeypatch, Machine(cores=1, others=0.0))
    run(counter(), RunOptions(engines=names, timeout=60))
    on(monkeypatch, Machine(cores=1, others=3.0))
    run(counter(), RunOptions(engines=names, timeout=60))
    (_, free_slice), (_, busy_slice) = first.calls
    assert free_slice is not None and busy_slice is not None
    assert free_slice <= QUICK_SLICE < busy_slice <= 4 * QUICK_SLICE


def test_the_cores_flag_wants_a_positive_number(tmp_path):
    model = tmp_path / "m.vmt"
    model.write_text("(declare-fun x () Bool)\n")
    proc = run_cli("check", str(model), "--cores", "0")
    assert proc.returncode == 2 and "--cores" in proc.stderr


class Querier(Engine):
    """A first quick engine that asks its solver ``queries`` trivial questions, ``pause``
    seconds apart, and decides nothing; ``finished`` says whether it got through them."""

    description = "a querying engine (tests only)"
    quick_bound = 3
    quick_slice = 10.0

    def __init__(self, name: str, queries: int = 250, pause: float = 0.02) -> None:
        self.name = name
        self.queries, self.pause = queries, pause
        self.finished: list[bool] = []

    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        self.finished.append(False)
        solver = ctx.make_solver()
        for _ in range(self.queries):
            solver.check([])
            time.sleep(self.pause)
        self.finished[-1] = True
        return iter(())


@pytest.mark.parametrize("others", [0.0, 2.0])
def test_the_engines_beside_start_early_in_the_first_slice(monkeypatch, others):
    """On a machine that is not saturated the engine beside starts during the first slice,
    once it has run a moment, and its verdict ends the run before the first slice does."""
    first, beside = Querier("rec-querier"), Recorder("rec-beside", True)
    for eng in (first, beside):
        monkeypatch.setitem(registry.engines(), eng.name, eng)
    on(monkeypatch, Machine(cores=2, others=others))
    (verdict,) = run(counter(), RunOptions(engines=(first.name, beside.name), timeout=60))
    assert verdict.answer is Answer.VALID and verdict.engine == beside.name
    assert beside.calls == []  # in its own process
    assert first.finished == [False]


def test_the_quick_phase_finds_a_counterexample_ten_steps_deep(monkeypatch):
    """``kind``'s slice goes deep enough for FMCAD08's counterexamples at steps 9-12: one at
    step 10 is found in the first slice, so the next quick engine never runs."""
    after = Recorder("rec-after", False, prepares=True)  # never beside: in this process
    monkeypatch.setitem(registry.engines(), after.name, after)
    (verdict,) = run(deep_counter(10), RunOptions(engines=("kind", after.name), timeout=60,
                                                  cores=1))
    assert verdict.answer is Answer.FALSIFIABLE and verdict.engine == "kind"
    assert len(verdict.trace.steps) == 11
    assert after.calls == []


@pytest.mark.parametrize(("excluded", "slices"), [(20, 2), (100, 1), (200, 0)])
def test_the_larger_the_system_the_fewer_quick_slices(engines, excluded, slices):
    """A small system gets every quick engine's slice in this process; a medium one (FMCAD08's
    FIREFLY: 300-350 formula nodes) the first only, the others their processes after it; a
    larger one none."""
    first, second = engines
    system = wide_counter(excluded)
    assert small(system) is (slices == 2)
    assert small(system, FIRST_SLICE_MAX_NODES) is (slices >= 1)
    (verdict,) = run(system, RunOptions(engines=(first.name, second.name), timeout=60, cores=1))
    assert verdict.answer is Answer.VALID and verdict.engine == second.name
    here = [pid for pid, _ in first.calls + second.calls if pid == os.getpid()]
    assert len(here) == slices


def test_on_a_large_system_the_first_engine_runs_alone_until_its_first_bound(monkeypatch):
    """A large system (``system.LARGE_STATE_VARS`` state variables or more; here the limit
    is lowered to this toy's one) and too large for the quick phase (its limit lowered to 0):
    the first engine's process runs alone until it reports its first bound; the others start
    after, and the run still decides (a counterexample six steps deep)."""
    import multiprocessing as mp

    from kinduct.kernel import quick as quick_module
    from kinduct.kernel import system as system_module

    monkeypatch.setattr(system_module, "LARGE_STATE_VARS", 1)
    monkeypatch.setattr(quick_module, "FIRST_SLICE_MAX_NODES", 0)
    alive_at_first_bound: list[int] = []

    def progress(event) -> None:
        if event.kind == "reached" and not alive_at_first_bound:
            alive_at_first_bound.append(len(mp.active_children()))

    (verdict,) = run(deep_counter(6), RunOptions(engines=("kind", "bmc", "ic3"), timeout=60,
                                                 progress=progress))
    assert verdict.answer is Answer.FALSIFIABLE and len(verdict.trace) == 7
    assert alive_at_first_bound == [1]
