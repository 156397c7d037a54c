"""One timeout shared by several analyses (``kernel/schedule.py``), on a fake clock: each
analysis decides in a time the test chooses, so the shares are exact."""

from __future__ import annotations

import pytest

from kinduct.kernel import schedule
from kinduct.kernel.verdict import Answer, Verdict


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr(schedule.time, "monotonic", fake.monotonic)
    return fake


def _analyses(clock: _Clock, plans: list[list[tuple[str, float | None]]]):
    """``plans[i][turn]``: the answer of analysis ``i`` at that turn, and the seconds it takes
    (None: it runs until its deadline and answers unknown on timeout)."""
    calls: list[tuple[int, float | None, tuple[str, ...] | None]] = []

    def decide(i: int, until: float | None, names):
        turn = sum(1 for c in calls if c[0] == i)
        calls.append((i, until, None if names is None else tuple(names)))
        answer, takes = plans[i][turn]
        if takes is None:
            clock.now = until
            return [Verdict(f"p{i}", Answer.UNKNOWN, timeout=True)]
        clock.now += takes
        return [Verdict(f"p{i}", Answer(answer))]

    return calls, decide


def test_each_analysis_gets_an_equal_share_of_what_is_left(clock):
    calls, decide = _analyses(clock, [[("unknown", None)], [("valid", 1.0)], [("unknown", None)]])
    results = schedule.decide_in_turn(3, 30.0, 0.0, decide)
    # 10 s each; the second leaves 9 s unused, which the third gets
    assert [(i, until) for i, until, _ in calls] == [(0, 10.0), (1, 20.0), (2, 30.0)]
    assert [r[0].answer for r in results] == [Answer.UNKNOWN, Answer.VALID, Answer.UNKNOWN]


def test_time_left_at_the_end_goes_back_to_what_a_share_cut_off(clock):
    calls, decide = _analyses(clock, [[("unknown", None), ("valid", 3.0)], [("valid", 1.0)]])
    results = schedule.decide_in_turn(2, 30.0, 0.0, decide)
    assert calls == [(0, 15.0, None), (1, 30.0, None), (0, 30.0, ("p0",))]
    assert [r[0].answer for r in results] == [Answer.VALID, Answer.VALID]


def test_an_undecided_second_turn_keeps_the_first_answer(clock):
    calls, decide = _analyses(clock, [[("unknown", None), ("unknown", 2.0)], [("valid", 1.0)]])
    results = schedule.decide_in_turn(2, 30.0, 0.0, decide)
    assert len(calls) == 3
    assert results[0][0].timeout  # the first turn's unknown, cut off by its share


def test_without_a_timeout_or_with_one_analysis_nothing_is_shared(clock):
    calls, decide = _analyses(clock, [[("valid", 1.0)], [("valid", 1.0)]])
    schedule.decide_in_turn(2, None, 0.0, decide)
    calls2, decide2 = _analyses(clock, [[("unknown", None)]])
    schedule.decide_in_turn(1, 30.0, 0.0, decide2)
    assert [until for _, until, _ in calls] == [None, None]
    assert calls2 == [(0, 30.0, None)]
