"""The command line for people and for scripts written for Kind 2: tables that never hide a
value, Kind 2's spellings, JSON that is always one array, exit codes, hostile files."""

from __future__ import annotations

import json
import os

import pytest
from rich.console import Console

from kinduct.kernel.cli import build_parser
from kinduct.kernel.errors import InputError, UsageError
from tests.conftest import EXAMPLES, properties, run_cli
from tests.kind2_schema import validate

LONG = """node Long(reset: bool) returns (x: int);
let
  x = 0 -> if reset then 0 else pre x + 1000;
  check x < 29000;
tel
"""


@pytest.fixture
def long_model(tmp_path):
    path = tmp_path / "long.lus"
    path.write_text(LONG)
    return path


def test_thirty_step_counterexample_piped_shows_every_value(long_model):
    proc = run_cli("check", long_model, "--engine", "bmc", "--timeout", "60")
    assert proc.returncode == 40, proc.stderr
    assert "…" not in proc.stdout
    row = next(line for line in proc.stdout.splitlines() if line.startswith("│ x ") and "output" in line)
    cells = [c.strip() for c in row.strip("│").split("│")]
    assert cells[2:] == [str(1000 * k) for k in range(30)]


def test_long_trace_on_a_terminal_is_folded_into_tables_that_fit():
    from kinduct.kernel.report import print_stream_table

    console = Console(force_terminal=True, width=80, record=True, color_system=None)
    rows = [("a_rather_long_stream_name", "input", [str(10 ** 6 * k) for k in range(30)]),
            ("flag", "local", ["true" if k % 2 else "false" for k in range(30)])]
    print_stream_table(console, "counterexample", ("stream", "class"), rows, 30)
    text = console.export_text()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    seen = [c.strip() for line in text.splitlines() if line.startswith("│ a_rather")
            for c in line.strip("│").split("│")[2:]]
    assert seen == [str(10 ** 6 * k) for k in range(30)]
    assert text.count("│ flag ") > 1  # every folded table repeats the stream names


def test_values_print_in_lustre_syntax():
    from fractions import Fraction

    from kinduct.kernel.report import format_value

    assert format_value(True) == "true"
    assert format_value({"num": 3, "den": 2}) == "1.5"
    assert format_value({"num": 1, "den": 3}) == "1/3"
    assert format_value(2, "real") == "2.0"
    assert format_value([Fraction(1, 4), Fraction(2)]) == "[0.25, 2.0]"


def test_bad_model_under_json_is_one_array_with_a_located_log(tmp_path):
    bad = tmp_path / "bad.lus"
    bad.write_text("node N(x: int) returns (y: int);\nlet\n  y = x +;\ntel\n")
    proc = run_cli("check", bad, "--json")
    assert proc.returncode == InputError.exit_code
    objs = json.loads(proc.stdout)
    validate(objs)
    logs = [o for o in objs if o["objectType"] == "log" and o["level"] == "error"]
    assert len(logs) == 1
    assert (logs[0]["file"], logs[0]["line"], logs[0]["column"]) == (str(bad), 3, 10)
    assert "Traceback" not in proc.stderr


def test_usage_error_under_json_is_still_one_array():
    proc = run_cli("check", EXAMPLES / "vmt" / "counter.vmt", "-json", "--engine", "magic")
    assert proc.returncode == UsageError.exit_code
    objs = json.loads(proc.stdout)
    validate(objs)
    assert "unknown engine 'magic'" in objs[-1]["value"]


def test_kind2_spellings():
    proc = run_cli(EXAMPLES / "lucent" / "compositional.lus", "-json", "--enable", "BMC",
                   "--enable", "IND", "--timeout", "0", "--lus_main", "Top", "--smt_solver", "Z3",
                   "--compositional", "false", "--modular", "false")
    assert proc.returncode == 0, proc.stderr
    objs = json.loads(proc.stdout)
    validate(objs)
    options = next(o for o in objs if o["objectType"] == "kind2Options")
    assert options["enabled"] == ["bmc", "ind"] and options["timeout"] == 0.0
    start = next(o for o in objs if o["objectType"] == "analysisStart")
    assert start["top"] == "Top"
    assert {p["answer"]["value"] for p in properties(objs).values()} == {"valid"}
    assert {p["answer"]["source"] for p in properties(objs).values()} <= {"bmc", "kind"}


def test_unknown_reports_the_largest_safe_bound():
    proc = run_cli("check", EXAMPLES / "vmt" / "counter.vmt", "--engine", "bmc", "--bound", "4",
                   "--json")
    objs = json.loads(proc.stdout)
    validate(objs)
    prop = properties(objs)["P0"]
    assert prop["answer"]["value"] == "unknown" and prop["trueFor"] == 4 and "k" not in prop
    human = run_cli("check", EXAMPLES / "vmt" / "counter.vmt", "--engine", "bmc", "--bound", "4")
    assert "safe to 4" in human.stdout


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "-0.5", "soon", "1e999"])
def test_timeout_must_be_positive_and_finite(value):
    proc = run_cli("check", EXAMPLES / "vmt" / "counter.vmt", "--timeout", value)
    assert proc.returncode == UsageError.exit_code, proc.stderr
    assert "--timeout" in proc.stderr and "Traceback" not in proc.stderr


def test_version_flag():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("kinduct ")


def test_timeout_zero_means_no_limit():
    args = build_parser().parse_args(["check", "x.vmt", "--timeout", "0"])
    assert args.timeout is None


def test_non_regular_files_are_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.lus"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path, "/dev/zero"):
        proc = run_cli("check", path, "--frontend", "lucent", timeout=60)
        assert proc.returncode == InputError.exit_code, (path, proc.stderr)
        assert str(path) in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("suffix", [".lus", ".vmt", ".crasp", ".rasp"])
def test_bytes_that_are_not_utf8_are_a_located_error(tmp_path, suffix):
    path = tmp_path / f"latin1{suffix}"
    path.write_bytes(b"-- comment\n  caf\xe9\n")
    proc = run_cli("check", path)
    assert proc.returncode == InputError.exit_code, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert f"{path}:2:6: error: not UTF-8" in first and "byte offset 16" in first


def test_every_command_help_shows_defaults_exit_codes_and_an_example():
    parser = build_parser()
    todo = [parser]
    seen = 0
    while todo:
        p = todo.pop()
        text = p.format_help()
        assert "exit codes" in text and "example:" in text, p.prog
        seen += 1
        for action in p._actions:
            if hasattr(action, "choices") and isinstance(action.choices, dict):
                todo.extend(action.choices.values())
    assert seen > 5
    check = next(a for a in parser._actions if isinstance(a.choices, dict)).choices["check"]
    text = " ".join(check.format_help().split())
    assert "(default: portfolio)" in text and "(default: no limit)" in text


def test_unknown_property_is_an_error_with_modular_analyses_too():
    proc = run_cli("check", EXAMPLES / "lucent" / "compositional.lus", "--modular",
                   "--property", "nope")
    assert proc.returncode == UsageError.exit_code
    assert "no property named 'nope'" in proc.stderr


def test_ctrl_c_while_the_solver_stack_loads_is_quiet():
    """SIGINT once the process is loading z3 (start-up, before the command runs): exit 130,
    no KeyboardInterrupt traceback."""
    import signal
    import subprocess
    import time

    from tests.conftest import KINDUCT, ROOT

    proc = subprocess.Popen([str(KINDUCT), "check", str(EXAMPLES / "vmt" / "counter.vmt")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    maps = f"/proc/{proc.pid}/maps"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with open(maps) as fh:
                if "libz3" in fh.read():
                    break
        except OSError:
            pass
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert proc.returncode == 130, (proc.returncode, err)


def test_warnings_are_located_log_objects_under_json(tmp_path):
    src = tmp_path / "w.lus"
    src.write_text("node N(x: int) returns (y: int);\nlet\n  y = pre x;\n  check y = y;\ntel\n")
    proc = run_cli("check", src, "--json", "--timeout", "60")
    objs = json.loads(proc.stdout)
    validate(objs)
    warns = [o for o in objs if o["objectType"] == "log" and o["level"] == "warn"]
    assert [(w["file"], w["line"], w["column"], w["value"]) for w in warns] == [
        (str(src), 3, 7, "unguarded pre")]
    human = run_cli("check", src, "--timeout", "60")
    assert f"{src}:3:7: warning: unguarded pre" in human.stderr
