"""Fuzzing the frontends with mutated example models (issue 21): never a traceback, an internal
error or an unexpected exit code, and every input error located.  A few seconds in total;
``benchmarks/fuzz.py`` is the long version (and covers Lucent too)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.mutate import Mutation, examples, mutations, run_case

#: The frontends this test covers (Lucent runs in benchmarks/fuzz.py; see the report there).
FRONTENDS = ("vmt", "crasp", "rasp")


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_mutated_examples_end_cleanly(frontend):
    files = examples([frontend])
    assert files

    @settings(max_examples=25, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(original=st.sampled_from(files), mutants=mutations())
    def case(original: Path, mutants: list[Mutation]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            outcome = run_case(original, mutants, Path(tmp))
        problem = outcome.problem()
        assert problem is None, (f"{original.name} {mutants}: {problem}\n"
                                 f"{' '.join(outcome.command)}\n{outcome.stderr}")

    case()


def test_the_oracle_catches_what_it_must():
    """The checks of a run are not vacuous: an unlocated input error and a traceback fail."""
    from tests.fuzz.mutate import Outcome

    assert Outcome(("x",), 2, "kinduct: error: bad\n").problem() == "an input error without file:line:col"
    assert Outcome(("x",), 1, "Traceback (most recent call last):\n").problem() == "a traceback on stderr"
    assert Outcome(("x",), 1, "kinduct: internal error: X\n").problem() == "an internal error"
    assert Outcome(("x",), 2, "kinduct: m.crasp:2:5: error: bad\n  x\n  ^\n").problem() is None
    assert Outcome(("x",), 0, "").problem() is None
