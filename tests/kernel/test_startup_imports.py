"""Start-up: what ``kinduct`` imports before it does any work (issue 35).

Each case runs the command line in a fresh interpreter and lists the heavy packages it loaded;
``--version`` and ``--help`` need no solver, PySMT, parser generator or table renderer, and a
run on z3 never loads cvc5.  Import lists, not timings: they hold on a busy machine too."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES, ROOT

HEAVY = ("z3", "cvc5", "pysmt", "lark", "rich", "pygls", "lsprotocol")

PROGRAM = """
import contextlib, io, json, sys
import kinduct.kernel.cli as cli
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = cli.main(sys.argv[2:])
    except SystemExit as exc:  # argparse's --help
        code = exc.code
loaded = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1].split(",")))
print(json.dumps({"code": code, "loaded": loaded, "out": out.getvalue()}))
"""


def _loaded(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", PROGRAM, ",".join(HEAVY), *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("check", "--help"),
                                  ("crasp", "equiv", "--help"), ("bench", "--help"),
                                  ("lsp", "--help")],
                         ids=" ".join)
def test_version_and_help_load_no_solver_and_no_parser(args):
    got = _loaded(*args)
    assert got["code"] == 0
    assert got["out"].startswith("kinduct ") if args == ("--version",) else "usage:" in got["out"]
    assert got["loaded"] == []


def test_a_run_on_z3_loads_no_cvc5():
    got = _loaded("check", str(EXAMPLES / "vmt" / "counter.vmt"), "--json", "--solver", "z3",
                  "--engine", "bmc,kind", "--timeout", "60")
    assert got["code"] == 0 and '"valid"' in got["out"]
    assert "z3" in got["loaded"] and "pysmt" in got["loaded"]
    assert "cvc5" not in got["loaded"] and "rich" not in got["loaded"]  # --json: no tables


def test_the_console_script_answers_version_without_the_command_line():
    """``kinduct --version`` (the console script) imports nothing of kinduct beyond itself and
    the reader of the installed version (not ``importlib.metadata``)."""
    code = ("import runpy, sys; sys.argv = ['kinduct', '--version']\n"
            "from kinduct.script import main\n"
            "main()\n"
            "print(sorted(m for m in sys.modules if m.startswith('kinduct.')))\n"
            "print('importlib.metadata' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[0].startswith("kinduct ")
    assert lines[1] == "['kinduct.kernel', 'kinduct.kernel.distributions', 'kinduct.script']"
    assert lines[2] == "False"


def test_a_report_into_a_pipe_is_drawn_without_rich():
    """Where stdout is no terminal the tables are drawn without rich (0.04 s of an easy run)."""
    got = _loaded("check", str(EXAMPLES / "vmt" / "counter_bug.vmt"), "--solver", "z3",
                  "--engine", "bmc", "--timeout", "60")
    assert got["code"] == 40
    assert "┃ property ┃" in got["out"] and "falsifiable" in got["out"]
    assert "rich" not in got["loaded"]


@pytest.mark.parametrize("args", [("check",), ()], ids=["check FILE", "FILE"])
def test_a_check_builds_no_other_commands_parser(args):
    """A check builds ``check``'s parser alone: the modules that build the other commands'
    (crasp, rasp, sample, iospec) are not loaded; ``--help`` lists every command."""
    code = ("import contextlib, io, sys; import kinduct.kernel.cli as cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    cli.main(sys.argv[1:])\n"
            "print(sorted(m for m in sys.modules if m.endswith('.cli')))")
    model = str(EXAMPLES / "vmt" / "counter.vmt")
    proc = subprocess.run([sys.executable, "-c", code, *args, model, "--json", "--engine", "bmc",
                           "--bound", "2"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "['kinduct.kernel.cli']"
    assert "crasp" in _loaded("--help")["out"]
