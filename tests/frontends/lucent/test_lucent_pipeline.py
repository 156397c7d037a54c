"""The pipeline's hand-over to the kernel: a counterexample is simulated once for its replay
(acceptance) and its lift (report), and the lift of a clocked counterexample shows the steps of
that one simulation."""

from __future__ import annotations

from pathlib import Path

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.frontends.lucent.sim.simulate import Simulator
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.report import json_objects
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.verdict import Answer

CLOCKS = Path(__file__).resolve().parent / "clocks"


def test_a_clocked_counterexample_is_simulated_once_for_replay_and_report(monkeypatch):
    (system,) = load_systems(CLOCKS / "shown.lus", LoadOptions())
    made = []
    init = Simulator.__init__

    def counted(self, *args, **kwargs):
        made.append(self)
        init(self, *args, **kwargs)
    monkeypatch.setattr(Simulator, "__init__", counted)
    (verdict,) = run(system, RunOptions(timeout=60))
    assert verdict.answer is Answer.FALSIFIABLE
    replayed = len(made)
    assert replayed == 1  # the runner's acceptance replays the trace on the simulator
    objects = json_objects(system, system.properties, [verdict])
    (prop,) = [o for o in objects if o.get("objectType") == "property"]
    assert len(made) == replayed  # the report's lift reuses that simulation
    (top,) = prop["counterExample"]
    assert top["subnodes"], "the clocked instances are shown"
