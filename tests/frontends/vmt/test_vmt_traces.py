"""Counterexamples printed as JSON replay on the model (Done-when 5), on third-party models."""

from __future__ import annotations

import csv
from fractions import Fraction

import pytest

from kinduct.kernel import registry
from kinduct.kernel.acceptance import accept
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.replay import replay_trace
from kinduct.kernel.verdict import Answer, Trace, Verdict
from tests.conftest import BENCH, properties, run_json

SUITE = BENCH / "vmt" / "lustre"


def _falsifiable_models(n: int) -> list[str]:
    if not SUITE.exists():
        return []
    with open(SUITE / "manifest.csv") as fh:
        rows = [r["file"] for r in csv.DictReader(fh) if r["expected"] == "falsifiable"]
    return rows[:: max(1, len(rows) // n)][:n]


def _trace_from_json(prop: dict) -> Trace:
    block = prop["counterExample"][0]
    steps: dict[int, dict] = {}
    for stream in block["streams"]:
        for k, value in stream["instantValues"]:
            if isinstance(value, dict):
                value = Fraction(value["num"], value["den"])
            steps.setdefault(k, {})[stream["name"]] = value
    return Trace.of([steps[k] for k in sorted(steps)])


@pytest.mark.parametrize("name", _falsifiable_models(6))
def test_json_counterexample_replays(name):
    path = SUITE / name
    code, objs = run_json("check", path, "--engine", "bmc", "--timeout", "60")
    prop = properties(objs)["P0"]
    assert prop["answer"]["value"] == "falsifiable"
    system = registry.frontend("vmt").load(path, LoadOptions())
    trace = _trace_from_json(prop)
    assert len(trace) == prop["k"] + 1
    assert replay_trace(system, trace, system.property("P0")) is None


def test_a_corrupted_trace_is_an_internal_error_not_a_verdict():
    name = _falsifiable_models(1)
    if not name:
        pytest.skip("no shared benchmarks")
    path = SUITE / name[0]
    code, objs = run_json("check", path, "--engine", "bmc", "--timeout", "60")
    prop = properties(objs)["P0"]
    system = registry.frontend("vmt").load(path, LoadOptions())
    trace = _trace_from_json(prop)
    # BMC's counterexamples are shortest, so without its last step the trace violates nothing.
    short = Trace.of(trace.steps[:-1])
    assert replay_trace(system, short, system.property("P0")) is not None
    verdict = accept(system, system.property("P0"),
                     Verdict("P0", Answer.FALSIFIABLE, engine="bmc", trace=short)).verdict
    assert verdict.answer is Answer.ERROR and "does not replay" in verdict.message
