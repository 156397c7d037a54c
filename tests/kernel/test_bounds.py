"""An ``unknown`` says how far it got: every engine reports the steps it has shown safe, and the
run keeps the largest bound per property (Kind 2's ``trueFor``) in the JSON, the table and the
bench CSV."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import time

import pytest
from pysmt.environment import Environment
from pysmt.typing import INT

from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import Property, PropertyKind, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer
from tests.conftest import EXAMPLES, KINDUCT, ROOT, properties, run_cli, run_json
from tests.kind2_schema import validate

COMBINE = EXAMPLES / "lucent" / "combine.lus"


def evens(reach: bool = False) -> TransitionSystem:
    """x = 0, then x + 2: ``x != 7`` holds but is k-inductive for no k (unbounded integers)."""
    env = Environment()
    mgr = env.formula_manager
    b = SystemBuilder("evens", env=env)
    x, nxt = b.state("x", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_trans(mgr.Equals(nxt, mgr.Plus(x, mgr.Int(2))))
    if reach:
        b.add_property(Property("R", mgr.Equals(x, mgr.Int(7)), kind=PropertyKind.REACHABLE))
    else:
        b.add_property(Property("P", mgr.Not(mgr.Equals(x, mgr.Int(7)))))
    return b.build()


@pytest.mark.parametrize("engine", ["bmc", "kind"])
def test_an_unknown_carries_the_largest_bound_its_engine_reached(engine):
    (verdict,) = run(evens(), RunOptions(engines=(engine,), timeout=2))
    assert verdict.answer is Answer.UNKNOWN and verdict.timeout
    assert verdict.k is not None and verdict.k >= 5, verdict
    assert verdict.engine == engine


def far() -> TransitionSystem:
    """x = 0, then x + 1: ``x != 10**6`` fails, at a depth no engine reaches in seconds."""
    env = Environment()
    mgr = env.formula_manager
    b = SystemBuilder("far", env=env)
    x, nxt = b.state("x", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_trans(mgr.Equals(nxt, mgr.Plus(x, mgr.Int(1))))
    b.add_property(Property("P", mgr.Not(mgr.Equals(x, mgr.Int(10**6)))))
    return b.build()


def test_ic3_reports_its_frames_as_a_bound():
    (verdict,) = run(far(), RunOptions(engines=("ic3",), timeout=3,
                                       engine_settings={"ic3": {"invgen": False}}))
    assert verdict.answer is Answer.UNKNOWN
    assert verdict.k is not None and verdict.k >= 1, verdict


def test_bmc_json_has_true_for_and_the_table_says_safe_to():
    code, objs = run_json("check", COMBINE, "--engine", "bmc", "--timeout", "3")
    validate(objs)
    props = properties(objs)
    unknown = [p for p in props.values() if p["answer"]["value"] == "unknown"]
    assert code == 40 and len(unknown) == 1, props
    assert unknown[0]["trueFor"] > 10, unknown[0]
    assert unknown[0]["runtime"]["timeout"] is True
    proc = run_cli("check", COMBINE, "--engine", "bmc", "--timeout", "2")
    assert "safe to " in proc.stdout, proc.stdout


def test_a_reachability_unknown_says_unreachable_for(tmp_path):
    path = tmp_path / "evens.lus"
    path.write_text("node N() returns (x: int);\nlet\n  x = 0 -> pre x + 2;\n"
                    "  check reachable x = 7;\ntel\n")
    code, objs = run_json("check", path, "--engine", "bmc", "--timeout", "2")
    (prop,) = properties(objs).values()
    assert prop["answer"]["value"] == "unknown" and "trueFor" not in prop, prop
    assert prop["unreachableFor"] > 3, prop


@pytest.mark.slow  # a 5 s timeout waited out
def test_bench_csv_has_the_bound_of_an_unknown(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "combine.lus").write_text(COMBINE.read_text())
    out = tmp_path / "out.csv"
    proc = run_cli("bench", suite, "--engine", "bmc", "--timeout", "5", "--jobs", "1",
                   "--csv", out, timeout=60)
    assert out.exists(), proc.stderr
    rows = [r for r in csv.DictReader(out.open()) if r["verdict"] == "unknown"]
    assert len(rows) == 1 and int(rows[0]["k"]) > 10, rows


def _engines_started(pid: int, wait: float = 60) -> None:
    """Wait until the kinduct process ``pid`` has forked engine processes."""
    import psutil

    until = time.monotonic() + wait
    proc = psutil.Process(pid)
    while time.monotonic() < until and not proc.children():
        time.sleep(0.1)


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "table"])
def test_ctrl_c_prints_what_was_decided_and_exits_130(as_json):
    """combine.lus: bmc falsifies ``z > 0`` at once and never decides the other property;
    SIGINT after that prints both (the other unknown with its bound), exit 130."""
    cmd = [str(KINDUCT), "check", str(COMBINE), "--engine", "bmc", *(["--json"] if as_json else [])]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    try:
        _engines_started(proc.pid)
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    if as_json:
        props = properties(json.loads(out))
        validate(json.loads(out))
        assert props["z > 0"]["answer"]["value"] == "falsifiable", props
        (other,) = [p for name, p in props.items() if name != "z > 0"]
        assert other["answer"]["value"] == "unknown" and other["trueFor"] > 3, other
        assert other["reason"] == "interrupted"
    else:
        assert "falsifiable" in out and "unknown" in out and "safe to " in out, out


def test_the_watchdogs_fallback_report_keeps_verdicts_and_bounds():
    """What the watchdog prints when it ends a starved run follows the run's progress."""
    from kinduct.kernel.fallback import PartialReport
    from kinduct.kernel.runner import ProgressEvent
    from kinduct.kernel.verdict import Verdict

    published: list[str] = []
    report = PartialReport([evens()], [], True, 5.0, 1.2, published.append)
    (prop,) = properties(json.loads(published[-1])).values()
    assert prop["answer"]["value"] == "unknown" and "trueFor" not in prop
    report(ProgressEvent("reached", "bmc", k=7, properties=("P",)))
    (prop,) = properties(json.loads(published[-1])).values()
    assert prop["trueFor"] == 7 and prop["answer"]["source"] == "bmc"
    report(ProgressEvent("verdict", "kind", Verdict("P", Answer.VALID, engine="kind", k=2)))
    objs = json.loads(published[-1])
    validate(objs)
    (prop,) = properties(objs).values()
    assert prop["answer"]["value"] == "valid" and prop["k"] == 2
    assert objs[-1]["objectType"] == "log" and "timeout" in objs[-1]["value"]


def test_a_verdict_that_settles_the_last_run_renders_no_fallback():
    """The last run's report follows a verdict that settles it at once: no fallback is
    rendered for it (a large counterexample's lift and transfer cost seconds); one that leaves
    a property open, or settles a run that another follows, still gives one."""
    from kinduct.kernel.fallback import PartialReport
    from kinduct.kernel.runner import ProgressEvent
    from kinduct.kernel.verdict import Verdict

    published: list[str] = []
    report = PartialReport([evens(), evens()], [], True, 5.0, 1.2, published.append)
    valid = Verdict("P", Answer.VALID, engine="kind", k=2)
    report(ProgressEvent("verdict", "kind", valid, settled=True))  # the first of two runs
    assert len(published) == 2 and '"valid"' in published[-1]
    report.current = 1
    report(ProgressEvent("verdict", "kind", valid, settled=False))
    assert len(published) == 3
    report(ProgressEvent("verdict", "kind", Verdict("Q", Answer.VALID, engine="kind", k=1),
                         settled=True))
    assert len(published) == 3


def test_the_progress_line_shows_each_engines_depth():
    import io

    from rich.console import Console

    from kinduct.kernel.progress import LiveProgress
    from kinduct.kernel.runner import ProgressEvent

    out = Console(file=io.StringIO(), width=120)
    live = LiveProgress(time.monotonic(), out)
    live(ProgressEvent("start", engines=("bmc", "ic3"), properties=("P",)))
    live(ProgressEvent("reached", "bmc", k=41, properties=("P",)))
    live(ProgressEvent("reached", "ic3", k=3, properties=("P",)))
    out.print(live.render())
    text = out.file.getvalue()
    assert "bmc: running, k = 41" in text and "ic3: running, k = 3" in text, text
