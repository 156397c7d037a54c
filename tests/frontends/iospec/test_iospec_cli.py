"""``kinduct iospec``: exit codes, --json shapes, and real programs (Python and shell) tested
against the summation task: the correct ones pass, the wrong ones fail with the right mismatch
in under 10 s each, a program that loops forever is killed at the time limit."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
import time

import pytest

from kinduct.kernel.cli import main
from tests.conftest import EXAMPLES, ROOT, run_cli

SUM = str(EXAMPLES / "iospec" / "sum.iospec")
PROGRAMS = ROOT / "tests" / "frontends" / "iospec" / "programs"
PY = sys.executable


def program(name: str) -> list[str]:
    path = str(PROGRAMS / name)
    return [PY, path] if name.endswith(".py") else ["sh", path]


def iospec(*args: str) -> subprocess.CompletedProcess:
    """``kinduct iospec ARGS`` in this process (the programs under test still run as their own
    processes); the result in the shape of a finished process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["iospec", *args])
    return subprocess.CompletedProcess(["kinduct", "iospec", *args], code, out.getvalue(),
                                       err.getvalue())


def test_match_exit_codes_and_json():
    ok = iospec("match", SUM, "?2 ?5 ?3 !8 stop")
    assert ok.returncode == 0 and "accepted" in ok.stdout
    assert "?2 !{ε,2} ?5 !{ε,1} ?3 !{8} stop" in ok.stdout
    optional = iospec("match", SUM, "?2 !2 ?5 !1 ?3 !8 stop", "--json")
    data = json.loads(optional.stdout)
    assert optional.returncode == 0 and data["accepted"] is True and data["mismatch"] is None
    assert data["inputs"] == [2, 5, 3] and data["expected_text"] == "?2 !{ε,2} ?5 !{ε,1} ?3 !{8} stop"
    assert data["expected"][1] == {"out": [[], [2]]}
    bad = iospec("match", SUM, "?2 ?5 ?3 !9", "--json")
    data = json.loads(bad.stdout)
    assert bad.returncode == 40 and data["accepted"] is False
    assert data["mismatch"]["kind"] == "output" and data["mismatch"]["got"] == "!9"
    no_run = iospec("match", SUM, "?0 !0")
    assert no_run.returncode == 40 and "not in pos" in no_run.stdout


def test_trace_command():
    out = iospec("trace", SUM, "2", "5", "3")
    assert out.returncode == 0 and out.stdout.strip() == "?2 !{ε,2} ?5 !{ε,1} ?3 !{8} stop"
    data = json.loads(iospec("trace", SUM, "2", "5", "--json").stdout)
    assert data["trace"] is None and "only 2 value(s)" in data["error"]


def test_paths_and_inputs_json():
    proc = iospec("paths", SUM, "--json")
    data = json.loads(proc.stdout)
    assert proc.returncode == 0 and data["satisfiable"] == 25 and len(data["paths"]) == 25
    assert {p["status"] for p in data["paths"]} == {"sat"}
    assert [p["length"] for p in data["paths"]] == list(range(2, 27))
    assert data["bound"] == {"unfoldings": 25, "max_inputs": None}
    single = json.loads(iospec("paths", str(EXAMPLES / "iospec" / "single_path.iospec"), "--json").stdout)
    assert single["satisfiable"] == 1 and single["paths"][0]["inputs"] == ["x_1", "x_2", "x_3"]
    inputs = json.loads(iospec("inputs", SUM, "--json").stdout)
    assert inputs["paths"] == 25 and inputs["tests"] == 125 and len(inputs["inputs"]) == 125
    assert all(len(i["sequence"]) == i["sequence"][0] + 1 for i in inputs["inputs"])


def test_bad_spec_is_exit_3_with_a_located_error(tmp_path):
    bad = tmp_path / "bad.iospec"
    bad.write_text("[> n : pos]\n([len(x_A) = n_C] => E else [> x : int]\n")
    proc = iospec("paths", str(bad))
    assert proc.returncode == 3 and "Traceback" not in proc.stderr
    assert f"{bad}:3:1: error: unexpected end of input" in proc.stderr or ":2:" in proc.stderr
    data = json.loads(iospec("paths", str(bad), "--json").stdout)
    assert data[0]["level"] == "error"
    proc = iospec("test", str(tmp_path / "missing.iospec"), "--", "true")
    assert proc.returncode == 3
    undefined = tmp_path / "undefined.iospec"
    undefined.write_text("[> x : int]\n[{x_C^-1} >]\n")
    for command in ("paths", "inputs"):
        proc = iospec(command, str(undefined))
        assert proc.returncode == 3 and f"{undefined}:2:3: error: x_C^-1 has no value" in proc.stderr
    proc = iospec("test", str(undefined), "--", "true")
    assert proc.returncode == 3
    bad_trace = iospec("match", SUM, "?2 ?x")
    assert bad_trace.returncode == 3 and "<trace>:1:4" in bad_trace.stderr


@pytest.mark.parametrize("args", [
    ("paths", SUM, "--unfoldings", "-1"),
    ("paths", SUM, "--bogus"),
    ("test", SUM),
    ("test", SUM, "--"),
    ("test", SUM, "--tests-per-path", "0", "--", "true"),
    ("test", SUM, "--", "/nonexistent/program"),
    ("inputs", SUM, "--overflow", "1"),
])
def test_bad_command_line_is_exit_2(args):
    proc = iospec(*args)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr


def run_test(name: str, *extra: str) -> tuple[int, dict, float]:
    start = time.monotonic()
    proc = iospec("test", SUM, "--json", *extra, "--", *program(name))
    elapsed = time.monotonic() - start
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), elapsed


@pytest.mark.parametrize("name", ["sum_ok.py", "sum_prompts.sh"])
def test_correct_programs_pass(name):
    code, data, _ = run_test(name, "--unfoldings", "4", "--tests-per-path", "2")
    assert code == 0 and data["result"] == "passed" and data["failure"] is None
    assert data["paths"] == 4 and data["tests"] == data["passed"] == 8


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sum_ok.sh", "sum_prompts.sh", "sum_ok.py"])
def test_correct_programs_pass_all_125_tests(name):
    code, data, _ = run_test(name)
    assert code == 0, data["failure"]
    assert (data["paths"], data["tests"], data["passed"]) == (25, 125, 125)


@pytest.mark.parametrize("name, kind, got", [
    ("sum_one_too_few.py", "alignment", "!0"),
    ("sum_one_too_few.sh", "alignment", "!0"),
    ("sum_wrong.py", "output", None),
    ("sum_wrong.sh", "output", None),
    ("sum_silent.py", "alignment", "stop"),
    ("sum_silent.sh", "alignment", "stop"),
    ("sum_one_too_many.py", "alignment", "?⊥"),
    ("sum_loops.py", "timeout", None),
    ("sum_loops.sh", "timeout", None),
])
def test_wrong_programs_fail_with_the_right_mismatch(name, kind, got):
    # a looping program is given 1 s, not the default's whole limit
    code, data, elapsed = run_test(name, *(("--time-limit", "1") if kind == "timeout" else ()))
    assert code == 40 and data["result"] == "failed"
    failure = data["failure"]
    assert failure["kind"] == kind, failure
    assert elapsed < 10
    n, *xs = failure["inputs"]
    assert len(xs) == n  # a valid input sequence of the task
    expected_sum = sum(xs)
    assert failure["expected"][-1] == {"out": [[expected_sum]]}
    if got is not None:
        assert failure["mismatch"]["got"] == got
    if kind == "output":
        printed = [e["out"] for e in failure["trace"] if "out" in e]
        assert printed and printed[-1] != expected_sum
    if kind == "timeout":
        assert failure["run"]["status"] == "timeout" and failure["run"]["exit_status"] is None
        assert failure["mismatch"] is None and "did not finish" in failure["message"]
    # the shortest path fails first: one number to add
    assert n == 1 and data["tests"] == 1


def test_text_report_of_a_failure():
    # the installed console script, end to end
    proc = run_cli("iospec", "test", SUM, "--", *program("sum_one_too_few.py"))
    assert proc.returncode == 40
    assert "input sequence:" in proc.stdout and "program's trace:" in proc.stdout
    assert "expected:" in proc.stdout and "alignment mismatch: Expected: input ?" in proc.stdout


def test_a_looping_process_group_is_killed(tmp_path):
    marker = tmp_path / "alive"
    script = tmp_path / "spawn.sh"
    # the child outlives its parent's exit unless the whole group is killed
    script.write_text(f"read n\n(sleep 2; touch {marker}) &\nwhile :; do :; done\n")
    start = time.monotonic()
    proc = iospec("test", SUM, "--time-limit", "0.5", "--unfoldings", "1", "--", "sh", str(script))
    assert proc.returncode == 40 and "timeout" in proc.stdout
    assert time.monotonic() - start < 10
    time.sleep(2.2)  # a child that outlived the kill would have touched the marker by now
    assert not marker.exists()


def test_a_game_specification():
    guessing = str(EXAMPLES / "iospec" / "guessing.iospec")
    ok = iospec("test", guessing, "--max-inputs", "3", "--tests-per-path", "1", "--json",
                "--", PY, str(PROGRAMS / "guess.py"))
    data = json.loads(ok.stdout)
    assert ok.returncode == 0 and data["paths"] == 7 and data["passed"] == data["tests"] >= 7
    bad = iospec("test", guessing, "--max-inputs", "3", "--json",
                 "--", "sh", str(PROGRAMS / "guess_swapped.sh"))
    failure = json.loads(bad.stdout)["failure"]
    assert bad.returncode == 40 and failure["kind"] == "output"
    assert failure["inputs"][-1] == 42 and len(failure["inputs"]) == 2  # a shortest failing path


def test_outputs_without_newline_before_a_read_are_outputs(tmp_path):
    script = tmp_path / "noline.sh"
    script.write_text('read n\ni=$n; t=0\nwhile [ $i -gt 0 ]; do printf "%d" $i; read x; '
                      't=$((t+x)); i=$((i-1)); done\nprintf "%d" $t\n')
    proc = iospec("test", SUM, "--unfoldings", "3", "--json", "--", "sh", str(script))
    data = json.loads(proc.stdout)
    assert proc.returncode == 0 and data["tests"] == data["passed"] == 15


@pytest.mark.skipif(shutil.which("node") is None, reason="no node here")
def test_an_event_loop_program():
    proc = iospec("test", SUM, "--unfoldings", "2", "--tests-per-path", "2", "--json",
                  "--", "node", str(PROGRAMS / "sum_events.js"))
    data = json.loads(proc.stdout)
    assert proc.returncode == 0 and data["tests"] == data["passed"] == 4, data["failure"]
