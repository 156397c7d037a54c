"""An engine's head start in a run (``Engine.head_start``): where the kernel schedules by
session groups (Linux autogroup), the groups of the engines beside it are nicer while it lasts
and back to 0 once it settles or its time is up; none on a system small enough for the quick
phase.  What the engines' processes see is read from ``/proc/self/autogroup`` in them, not
from the runner."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from kinduct.kernel import registry
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.machine import grouped_scheduling, set_group_niceness
from kinduct.kernel.processes import FORK
from kinduct.kernel.runner import HEAD_START_NICE, HEAD_START_SPARED_NICE, RunOptions, run
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict
from tests.kernel.toy_systems import counter, wide_counter

pytestmark = pytest.mark.skipif(not grouped_scheduling(),
                                reason="the kernel does not schedule by session groups here")


def group_nice(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/autogroup") as fh:
        return int(re.search(r"nice (-?\d+)", fh.read()).group(1))


def back(seen: list[int]) -> bool:
    """Whether the niceness values ``seen`` (in order) were above 0 and are back to 0."""
    return max(seen) > 0 and seen[-1] == 0


class Watcher(Engine):
    """Reads its process's group niceness for ``seconds``; valid once it has seen it go up
    and back to 0, else unknown with what it saw (also written to ``log`` when given)."""

    description = "reads its scheduling group's niceness (tests only)"

    def __init__(self, seconds: float = 6.0, name: str = "toy-watcher",
                 log: Path | None = None) -> None:
        self.seconds, self.name, self.log = seconds, name, log

    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        seen = [group_nice()]
        until = time.monotonic() + self.seconds
        while time.monotonic() < until and not back(seen):
            now = group_nice()
            if now != seen[-1]:
                seen.append(now)
            time.sleep(0.02)
        answer = Answer.VALID if back(seen) else Answer.UNKNOWN
        if self.log is not None:
            self.log.write_text(" ".join(map(str, seen)))
        for p in properties:
            yield Verdict(p.name, answer, k=1, message=f"group niceness seen: {seen}")


class Leader(Engine):
    """Has a head start of ``seconds``; settles after ``settle_after`` seconds (None: never),
    its own group still at 0 then (else it crashes); ends 3 s later."""

    description = "an engine with a head start (tests only)"
    name = "toy-leader"

    def __init__(self, seconds: float, settle_after: float | None,
                 spares: tuple[str, ...] = ()) -> None:
        self.seconds, self.settle_after = seconds, settle_after
        self.head_start_spares = spares

    def head_start(self, system: TransitionSystem, options: object) -> float:
        return self.seconds

    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        if self.settle_after is not None:
            time.sleep(self.settle_after)
            assert group_nice() == 0
            ctx.settle()
        time.sleep(3)  # then ends, deciding nothing
        yield from ()


class Preparer(Engine):
    """Prepares in the runner's process, noting whether ``marker`` existed then; decides
    nothing."""

    description = "notes when it was prepared (tests only)"
    name = "toy-preparer"
    prepares = True

    def __init__(self, marker: Path, log: Path) -> None:
        self.marker, self.log = marker, log

    def prepare(self, system: TransitionSystem, make_solver: object) -> None:
        self.log.write_text("after" if self.marker.exists() else "before")

    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        yield from ()


class MarkingLeader(Leader):
    """A :class:`Leader` that writes ``marker`` just before it settles."""

    name = "toy-marking-leader"

    def __init__(self, marker: Path, spares: tuple[str, ...] = ()) -> None:
        super().__init__(30.0, 1.0, spares)
        self.marker = marker

    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        time.sleep(self.settle_after)
        self.marker.write_text("settled")
        ctx.settle()
        time.sleep(1)
        yield from ()


@pytest.fixture
def engines(monkeypatch):
    def add(*engs: Engine) -> tuple[str, ...]:
        for eng in engs:
            monkeypatch.setitem(registry.engines(), eng.name, eng)
        return tuple(e.name for e in engs)
    return add


@pytest.mark.parametrize(("seconds", "settle_after"), [(30.0, 1.0), (1.0, None)],
                         ids=["settled-by-the-engine", "time-up"])
def test_engines_beside_a_head_start_run_nicer_until_it_ends(engines, seconds, settle_after):
    # the watcher is launched first: it is made nicer all the same
    names = engines(Watcher(), Leader(seconds, settle_after))
    started = time.monotonic()
    (verdict,) = run(wide_counter(200), RunOptions(engines=names, timeout=20, cores=2))
    assert verdict.answer is Answer.VALID, verdict.message
    assert verdict.engine == "toy-watcher"
    assert time.monotonic() - started < 10


def test_an_engine_the_head_start_spares_is_lowered_less(engines, tmp_path):
    log, other = tmp_path / "spared", tmp_path / "other"
    names = engines(Watcher(log=other), Watcher(seconds=1.5, name="toy-spared", log=log),
                    Leader(2.0, None, spares=("toy-spared",)))
    (verdict,) = run(wide_counter(200), RunOptions(engines=names, timeout=20, cores=2))
    assert verdict.answer is Answer.VALID and verdict.engine == "toy-watcher"  # it was on
    seen = [int(n) for n in log.read_text().split()]
    assert 0 < max(seen) < HEAD_START_NICE  # lowered, less than the others
    assert max(seen) == HEAD_START_SPARED_NICE
    assert max(int(n) for n in other.read_text().split()) == HEAD_START_NICE


@pytest.mark.parametrize("spared", [False, True], ids=["lowered", "spared"])
def test_a_preparation_for_engines_the_head_start_lowers_waits_for_its_end(engines, tmp_path,
                                                                            spared):
    marker, log = tmp_path / "settled", tmp_path / "prepared"
    names = engines(MarkingLeader(marker, spares=("toy-preparer",) if spared else ()),
                    Preparer(marker, log))
    run(wide_counter(200), RunOptions(engines=names, timeout=20, cores=2))
    assert log.read_text() == ("before" if spared else "after")


def test_no_head_start_on_a_system_for_the_quick_phase(engines):
    names = engines(Watcher(seconds=1.5), Leader(30.0, None))
    (verdict,) = run(counter(), RunOptions(engines=names, timeout=20, cores=2))
    assert verdict.answer is Answer.UNKNOWN
    assert "[0]" in verdict.message


def test_group_niceness_is_set_only_for_a_session_leader():
    ours = group_nice()
    ready, go = FORK.Event(), FORK.Event()

    def child(lead: bool) -> None:
        if lead:
            os.setsid()
        ready.set()
        go.wait(10)

    for lead in (False, True):
        ready.clear()
        go.clear()
        proc = FORK.Process(target=child, args=(lead,), daemon=True)
        proc.start()
        try:
            assert ready.wait(10)
            assert set_group_niceness(proc.pid, 7) is lead
            assert group_nice(proc.pid) == (7 if lead else ours)
            assert group_nice() == ours
        finally:
            go.set()
            proc.join(10)
