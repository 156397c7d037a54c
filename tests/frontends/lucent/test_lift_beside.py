"""A large counterexample's checks and lift run partly in forked processes (the kernel's replay
beside the simulator's, the contract values beside the blocks: from
``kernel/beside.FORK_FROM_VALUES`` values).  Forced on small models here (the limit set to 0),
the report is the one made in one process, field for field, and a counterexample that does not
replay is refused with the same message."""

from __future__ import annotations

import json
import sys

import pytest

from kinduct.kernel import acceptance
from kinduct.kernel import beside as beside_module
from kinduct.kernel.cli import main
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.loading import load_systems
from kinduct.kernel.verdict import Answer, Trace, Verdict
from tests.conftest import EXAMPLES, ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from scale_models import gen_model  # noqa: E402


def _report(capsys, path, *args) -> list[dict]:
    code = main([str(path), "--json", "--timeout", "60", *args])
    out = capsys.readouterr().out
    objs = [o for o in json.loads(out) if o.get("objectType") == "property"]
    for o in objs:
        o.pop("runtime", None)
    return [code, objs]


@pytest.mark.parametrize("model", ["generated", "compositional_spurious.lus"])
def test_the_report_is_the_same_with_the_work_beside(model, tmp_path, capsys, monkeypatch):
    if model == "generated":  # contracts in every node, a property falsified at step 0
        path = tmp_path / "gen.lus"
        path.write_text(gen_model(12_000))
        args = ["--engine", "bmc", "--property", "falsifiable"]
    else:
        path, args = EXAMPLES / "lucent" / model, ["--engine", "kind"]  # one engine: the same race
    alone = _report(capsys, path, *args)
    monkeypatch.setattr(beside_module, "FORK_FROM_VALUES", 0)
    beside = _report(capsys, path, *args)
    assert beside == alone
    falsified = [o for o in alone[1] if o["answer"]["value"] == "falsifiable"]
    assert falsified and all(o["counterExample"] for o in falsified)
    if model == "generated":  # the contract sections are in the blocks
        assert "guaranteesTrace" in json.dumps(falsified)


def test_a_trace_that_does_not_replay_is_refused_alike(tmp_path, monkeypatch):
    path = tmp_path / "gen.lus"
    path.write_text(gen_model(12_000))
    (system,) = load_systems(path, None, LoadOptions())[:1]
    prop = next(p for p in system.properties if p.name == "falsifiable")
    # a step-0 trace with every value zero/false: `ok` is true there, so no violation
    values = {v.symbol_name(): (False if v.symbol_type().is_bool_type() else 0)
              for v in system.current_vars if v.symbol_type().is_bool_type()
              or v.symbol_type().is_int_type()}
    verdict = Verdict(prop.name, Answer.FALSIFIABLE, engine="test", k=0,
                      trace=Trace(steps=[values]))
    alone = acceptance.accept(system, prop, verdict).verdict
    monkeypatch.setattr(beside_module, "FORK_FROM_VALUES", 0)
    beside = acceptance.accept(system, prop, verdict).verdict
    assert alone.answer is not Answer.FALSIFIABLE
    assert (beside.answer, beside.message) == (alone.answer, alone.message)
