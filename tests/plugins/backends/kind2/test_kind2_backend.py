"""The Kind 2 backend against recorded Kind 2 JSON, through a fake ``kind2`` on PATH (the
real binary is tested in ``test_real_kind2.py``)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from kinduct.kernel import registry
from kinduct.kernel.errors import InputError, UsageError
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import Origin
from kinduct.kernel.verdict import Answer
from kinduct.plugins.backends.kind2 import Kind2Backend, enable_flags
from kinduct.plugins.backends.kind2 import backend as kind2_backend
from kinduct.plugins.backends.kind2.output import parse_objects
from tests.conftest import EXAMPLES, properties, run_cli
from tests.kind2_schema import validate

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[2] / "data" / "kind2"
VMT = EXAMPLES / "vmt"


@pytest.fixture
def fake_kind2(tmp_path):
    """A directory holding an executable ``kind2`` that prints recorded JSON; returns a
    function building the environment for one recorded answer."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "kind2"
    script.write_text(f"#!{sys.executable}\n" + (HERE / "fake_kind2.py").read_text())
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    log = tmp_path / "calls.jsonl"

    def env(recording: str, **extra: str) -> dict[str, str]:
        return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                "FAKE_KIND2_JSON": str(DATA / recording), "FAKE_KIND2_LOG": str(log),
                **{f"FAKE_KIND2_{k.upper()}": v for k, v in extra.items()}}

    env.script = script  # type: ignore[attr-defined]
    env.calls = lambda: [json.loads(line) for line in log.read_text().splitlines()]  # type: ignore
    return env


def check_json(env: dict[str, str], *args: str, timeout: float = 60):
    proc = run_cli("check", *args, "--solver", "kind2", "--json", env=env, timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    objs = json.loads(proc.stdout)
    validate(objs)
    return proc.returncode, objs


def test_falsifiable_with_counterexample(fake_kind2):
    env = fake_kind2("counter_bug_falsifiable.json")
    code, objs = check_json(env, VMT / "counter_bug.vmt", "--engine", "kind", "--timeout", "20")
    assert code == 40
    prop = properties(objs)["P0"]
    assert prop["answer"] == {"source": "kind2/bmc", "value": "falsifiable"}
    assert prop["solver"] == "kind2"
    assert prop["k"] == 7
    streams = {s["name"]: s for s in prop["counterExample"][0]["streams"]}
    assert [v for _, v in streams["x"]["instantValues"]] == list(range(8))
    assert [v for _, v in streams["reset"]["instantValues"]] == [False] * 8
    (call,) = fake_kind2.calls()
    argv = call["argv"]
    assert "-json" in argv
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--enable"] == ["BMC", "IND"]
    assert float(argv[argv.index("--timeout") + 1]) <= 20
    assert argv[-1].endswith(".lus")
    assert "node counter_bug(x: int; reset: bool) returns (P0: bool);" in call["input"]
    assert "--%PROPERTY P0;" in call["input"]


def test_valid_answers_in_any_order(fake_kind2):
    env = fake_kind2("twin_counters_valid.json")
    code, objs = check_json(env, VMT / "twin_counters.vmt", "--engine", "portfolio")
    assert code == 0
    props = properties(objs)
    assert {n: (p["answer"]["value"], p["k"]) for n, p in props.items()} == {
        "P0": ("valid", 1), "P1": ("valid", 1)}
    assert [o["name"] for o in objs if o["objectType"] == "property"] == ["P0", "P1"]
    (call,) = fake_kind2.calls()
    assert "--enable" not in call["argv"]  # portfolio: Kind 2's own defaults


def test_counterexample_that_does_not_replay_is_an_error(fake_kind2):
    env = fake_kind2("counter_bug_bad_cex.json")
    code, objs = check_json(env, VMT / "counter_bug.vmt")
    prop = properties(objs)["P0"]
    assert prop["answer"]["value"] == "unknown"
    assert "does not replay" in prop["error"]
    assert code == 1


def test_parse_error_becomes_error_verdicts(fake_kind2):
    env = fake_kind2("parse_error.json", exit="3")
    code, objs = check_json(env, VMT / "twin_counters.vmt")
    props = properties(objs)
    assert set(props) == {"P0", "P1"}
    for p in props.values():
        assert "exit code 3" in p["error"] and "Syntax error" in p["error"]
    assert code == 1


def test_overrun_is_killed_and_unknown(fake_kind2):
    env = fake_kind2("undecided_truncated.json", sleep="60")
    code, objs = check_json(env, VMT / "undecided.vmt", "--timeout", "1", timeout=40)
    prop = properties(objs)["P0"]
    assert prop["answer"]["value"] == "unknown"
    assert prop["runtime"]["timeout"] is True
    assert code == 30


def test_bound_and_engines_map_to_kind2_flags(fake_kind2):
    env = fake_kind2("counter_bug_falsifiable.json")
    check_json(env, VMT / "counter_bug.vmt", "--engine", "bmc,ic3,invgen", "--bound", "12")
    argv = fake_kind2.calls()[0]["argv"]
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--enable"] == [
        "BMC", "IC3", "INVGEN", "INVGENOS"]
    assert argv[argv.index("--unroll_max") + 1] == "12"


def test_kind2_path_option(fake_kind2, tmp_path):
    env = fake_kind2("counter_bug_falsifiable.json")
    env["PATH"] = os.environ.get("PATH", "")  # the fake is no longer on PATH
    code, objs = check_json(env, VMT / "counter_bug.vmt", "--kind2-path", str(fake_kind2.script))
    assert code == 40 and properties(objs)["P0"]["answer"]["value"] == "falsifiable"
    proc = run_cli("check", VMT / "counter_bug.vmt", "--solver", "kind2", "--kind2-path",
                   str(tmp_path / "nowhere"), env={"PATH": env["PATH"]})
    assert proc.returncode == 4
    assert "not an executable Kind 2 binary" in proc.stderr


def test_unavailable_without_binary(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(kind2_backend, "PROJECT", tmp_path)  # no .kind2/bin/kind2 here
    backend = Kind2Backend()
    assert not backend.available()
    assert "make kind2" in backend.unavailable_reason()


def test_found_in_the_built_folder(tmp_path, monkeypatch, fake_kind2):
    """Without kind2 on PATH, the binary ``make kind2`` builds (.kind2/bin/kind2) is used."""
    built = tmp_path / "work" / ".kind2" / "bin"
    built.mkdir(parents=True)
    shutil.copy(fake_kind2.script, built / "kind2")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.chdir(tmp_path / "work")
    assert Kind2Backend().binary() == str(Path(".kind2/bin/kind2").absolute())


def test_unknown_engine_is_a_usage_error(fake_kind2):
    proc = run_cli("check", VMT / "counter_bug.vmt", "--solver", "kind2", "--engine", "magic",
                   env=fake_kind2("counter_bug_falsifiable.json"))
    assert proc.returncode == UsageError.exit_code
    assert "engine 'magic'" in proc.stderr


def test_enable_flags():
    assert enable_flags(["kind"]) == ["--enable", "BMC", "--enable", "IND"]
    assert enable_flags(["bmc", "kind"]) == ["--enable", "BMC", "--enable", "IND"]
    assert enable_flags(["kind", "portfolio"]) == []
    with pytest.raises(InputError):
        enable_flags(["nope"])


def test_lucent_file_passes_through_and_partial_trace_is_completed(fake_kind2, monkeypatch):
    """A .lus file from the Lucent frontend goes to Kind 2 as is; Kind 2 names only source
    streams, and the system's state (x) is recovered by solving along init and trans."""
    from kinduct.frontends.vmt.reader import read_vmt

    env = fake_kind2("counter_lus_falsifiable.json")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    system = read_vmt(VMT / "counter_bug.vmt")
    system = system.evolve(origin=Origin(str(DATA / "counter.lus"), "lucent"))
    (verdict,) = run(system, RunOptions(engines=("kind",), solver="kind2", timeout=20))
    assert verdict.answer is Answer.FALSIFIABLE, verdict.message
    assert verdict.trace is not None
    assert verdict.trace.column("x") == list(range(8))
    assert verdict.k == 7
    (call,) = fake_kind2.calls()
    assert call["argv"][-1] == str(DATA / "counter.lus")


@pytest.mark.skipif("lucent" not in registry.frontends(), reason="the Lucent frontend is not registered")
def test_lucent_pass_through_from_the_command_line(fake_kind2):
    env = fake_kind2("counter_lus_falsifiable.json")
    code, objs = check_json(env, DATA / "counter.lus", "--engine", "bmc", "--timeout", "20")
    assert code == 40
    prop = properties(objs)["P0"]
    assert prop["answer"] == {"source": "kind2/bmc", "value": "falsifiable"}
    streams = {s["name"]: s for s in prop["counterExample"][0]["streams"]}
    assert [v for _, v in streams["x"]["instantValues"]] == list(range(8))
    argv = fake_kind2.calls()[0]["argv"]
    assert argv[-1] == str(DATA / "counter.lus")
    assert argv[argv.index("--lus_main") + 1] == "counter"


def test_truncated_output_keeps_complete_objects():
    objs = parse_objects((DATA / "undecided_truncated.json").read_text())
    assert [o["objectType"] for o in objs] == ["kind2Options", "analysisStart", "progress"]
    assert parse_objects("") == []
    assert parse_objects((DATA / "parse_error.json").read_text())[0]["level"] == "error"
