"""The ``kinduct`` command line end to end: verdicts, JSON contract, exit codes, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from kinduct.kernel import registry
from kinduct.kernel.errors import InputError, UsageError
from tests.conftest import EXAMPLES, KINDUCT, ROOT, properties, run_cli, run_json
from tests.kind2_schema import validate

VMT = EXAMPLES / "vmt"


def test_plugins_lists_builtins_and_kind2_unavailable():
    proc = run_cli("plugins")
    assert proc.returncode == 0
    out = proc.stdout
    for name in ("vmt", "bmc", "kind", "portfolio", "z3", "cvc5"):
        assert name in out
    rows = {line.split("│")[2].strip(): line for line in out.splitlines() if line.count("│") > 3}
    assert "available" in rows["z3"] and "unavailable" not in rows["z3"]
    assert "available" in rows["cvc5"] and "unavailable" not in rows["cvc5"]
    if "kind2" in rows:  # on PATH, or built by `make kind2` into .kind2/bin
        assert ("unavailable" in rows["kind2"]) == (not registry.backends()["kind2"].available())


@pytest.mark.parametrize("engine", ["bmc", "kind", "portfolio"])
@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_falsifiable_json_every_engine_and_solver(engine, solver):
    code, objs = run_json("check", VMT / "counter_bug.vmt", "--engine", engine, "--solver",
                          solver, "--timeout", "20")
    validate(objs)
    prop = properties(objs)["P0"]
    assert prop["answer"]["value"] == "falsifiable"
    assert prop["k"] == 7
    assert code == 40
    streams = {s["name"]: s for s in prop["counterExample"][0]["streams"]}
    assert [v for _, v in streams["x"]["instantValues"]] == list(range(8))


@pytest.mark.parametrize("engine", ["kind", "portfolio"])
@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_valid_json(engine, solver):
    code, objs = run_json("check", VMT / "twin_counters.vmt", "--engine", engine, "--solver",
                          solver, "--timeout", "20")
    validate(objs)
    props = properties(objs)
    assert {p["answer"]["value"] for p in props.values()} == {"valid"}
    assert code == 0


def test_bmc_alone_cannot_prove_and_says_unknown_with_bound():
    code, objs = run_json("check", VMT / "counter.vmt", "--engine", "bmc", "--bound", "5")
    validate(objs)
    assert properties(objs)["P0"]["answer"]["value"] == "unknown"
    assert code == 30


def test_human_output_shows_table_and_counterexample():
    proc = run_cli("check", VMT / "counter_bug.vmt", "--engine", "bmc")
    assert proc.returncode == 40
    assert "falsifiable" in proc.stdout and "counterexample" in proc.stdout


def _one_line_error(proc, *fragments, code=InputError.exit_code):
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    first = proc.stderr.strip().splitlines()[0]
    for fragment in fragments:
        assert fragment in first, first


def test_missing_file(tmp_path):
    _one_line_error(run_cli("check", tmp_path / "nope.vmt"), "nope.vmt", "no such file")


def test_unknown_engine():
    _one_line_error(run_cli("check", VMT / "counter.vmt", "--engine", "magic"),
                    "unknown engine 'magic'", code=UsageError.exit_code)


def test_unknown_solver():
    _one_line_error(run_cli("check", VMT / "counter.vmt", "--solver", "yices"),
                    "unknown solver 'yices'", code=UsageError.exit_code)


def test_unknown_extension(tmp_path):
    f = tmp_path / "model.xyz"
    f.write_text("hello")
    _one_line_error(run_cli("check", f), "no frontend reads")


def test_malformed_vmt_has_file_line(tmp_path):
    f = tmp_path / "bad.vmt"
    f.write_text("(declare-fun x () Int)\n(define-fun p () Bool (! (<= x 1 :invar-property 0))\n")
    proc = run_cli("check", f)
    _one_line_error(proc, "bad.vmt:", "malformed VMT")


def test_malformed_vmt_unknown_symbol(tmp_path):
    f = tmp_path / "bad2.vmt"
    f.write_text("(declare-fun x () Int)\n(define-fun p () Bool (! (<= y 1) :invar-property 0))\n")
    proc = run_cli("check", f)
    _one_line_error(proc, "bad2.vmt:2:30: error: malformed VMT: unknown symbol 'y'")
    assert proc.stderr.splitlines()[2].strip() == "^"


def test_unknown_property_name():
    _one_line_error(run_cli("check", VMT / "counter.vmt", "--property", "nope"),
                    "no property named 'nope'", code=UsageError.exit_code)


def test_timeout_returns_unknown_and_leaves_no_children():
    start = time.monotonic()
    proc = subprocess.Popen([str(KINDUCT), "check", str(VMT / "undecided.vmt"), "--timeout", "5",
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, start_new_session=True)
    me = psutil.Process(proc.pid)
    seen: set[int] = set()
    while proc.poll() is None:
        try:
            seen |= {c.pid for c in me.children(recursive=True)}
        except psutil.NoSuchProcess:
            break
        time.sleep(0.2)
    out, err = proc.communicate()
    elapsed = time.monotonic() - start
    assert elapsed < 15  # a hang, not a speed check: benchmarks/timeout_overrun.py measures
    assert proc.returncode == 30, err
    assert properties(__import__("json").loads(out))["P0"]["answer"]["value"] == "unknown"
    assert seen, "the portfolio should have run engines in child processes"
    time.sleep(0.3)
    alive = [pid for pid in seen if psutil.pid_exists(pid)
             and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive


def test_engines_die_when_kinduct_is_killed():
    """A killed kinduct (e.g. by a harness's own timeout) leaves no engine running."""
    proc = subprocess.Popen([str(KINDUCT), "check", str(VMT / "undecided.vmt")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    me = psutil.Process(proc.pid)
    children: list[psutil.Process] = []
    deadline = time.monotonic() + 60
    while len(children) < 2 and time.monotonic() < deadline:
        children = me.children(recursive=True)
        time.sleep(0.1)
    assert children, "engines should run in child processes"
    proc.kill()
    proc.wait()
    _, alive = psutil.wait_procs(children, timeout=10)
    for p in alive:
        p.kill()
    assert not alive


def test_human_output_shows_names_with_brackets_verbatim(tmp_path):
    """Property names such as Lucent's ``z[L3C34]`` must not be eaten as rich markup."""
    model = tmp_path / "bracket.vmt"
    model.write_text((VMT / "counter_bug.vmt").read_text())
    proc = run_cli("check", model, "--engine", "bmc")
    assert proc.returncode == 40
    assert "P0" in proc.stdout  # sanity: the table is printed
    from rich.console import Console

    from kinduct.kernel.report import human_report
    from kinduct.kernel.verdict import Answer, Verdict

    console = Console(record=True, width=120)
    from kinduct.kernel import registry
    from kinduct.kernel.frontend import LoadOptions

    system = registry.frontend("vmt").load(model, LoadOptions())
    renamed = system.with_properties([system.properties[0].__class__(
        "z[L3C34]", system.properties[0].formula)])
    human_report(console, renamed, list(renamed.properties),
                 [Verdict("z[L3C34]", Answer.VALID, engine="kind", k=1)])
    assert "z[L3C34]" in console.export_text()


def test_exit_codes_follow_kind2():
    """2 for a bad command line, 3 for bad input, 4 for a solver that cannot run."""
    from kinduct.kernel.errors import SolverUnavailable

    assert (UsageError.exit_code, InputError.exit_code, SolverUnavailable.exit_code) == (2, 3, 4)
    assert run_cli("check", VMT / "counter.vmt", "--no-such-flag").returncode == UsageError.exit_code


@pytest.mark.parametrize("how", ["spawned", "forked"])
def test_sentinel_kills_a_run_stuck_in_native_code(how):
    """The watchdog's thread cannot run while a native call holds the interpreter (here a
    regular expression's catastrophic backtracking, as cvc5's check does): the sentinel (a
    script spawned, or a fork where no interpreter can be spawned) prints the fallback report
    and ends the process instead of letting it hang."""
    script = ("import re, sys, time; from kinduct.kernel import watchdog; "
              + ("sys.executable = '/no/such/python'; " if how == "forked" else "")
              + "watchdog.arm(time.monotonic(), 0.5, True); watchdog.fallback('[\"fallback\"]'); "
              "re.match(r'(a+)+$', 'a' * 64 + 'b')")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert time.monotonic() - start < 10
    assert proc.returncode == -signal.SIGKILL
    assert json.loads(proc.stdout) == ["fallback"]
    assert "a solver call did not return" in proc.stderr


def test_the_sentinel_prints_a_large_fallback_whole():
    """A fallback of 40 MB (a 1 MB model's counterexample) reaches the sentinel whole, after
    smaller ones, and is what it prints when it ends a stuck run."""
    script = ("import re, sys, time, json; from kinduct.kernel import watchdog; "
              "watchdog.arm(time.monotonic(), 3.0, True); "
              "[watchdog.fallback(json.dumps(['small', i])) for i in range(3)]; "
              "watchdog.fallback(json.dumps(['big', 'x' * 40_000_000, 'end'])); "
              "re.match(r'(a+)+$', 'a' * 64 + 'b')")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == -signal.SIGKILL
    got = json.loads(proc.stdout)
    assert got[0] == "big" and got[2] == "end" and len(got[1]) == 40_000_000


def test_the_sentinel_is_a_small_script_of_its_own():
    """Armed, the watchdog spawns its sentinel as ``python -I -S .../sentinel.py`` (not a fork
    of the run, whose pages the run would then pay to copy), and the sentinel ends with it."""
    script = ("import json, time, psutil; from kinduct.kernel import watchdog; "
              "watchdog.arm(time.monotonic(), 30, True); "
              "print(json.dumps([(c.pid, c.cmdline()) for c in psutil.Process().children()])); "
              "watchdog.done(0)")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    ((pid, cmdline),) = json.loads(proc.stdout)
    assert cmdline[1:3] == ["-I", "-S"] and cmdline[3].endswith("sentinel.py")
    deadline = time.monotonic() + 10
    while True:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        assert time.monotonic() < deadline, "the sentinel outlived its run"
        time.sleep(0.05)


def _watched(body: str, timeout: float = 1.0) -> tuple[subprocess.CompletedProcess, float]:
    script = ("import sys, time; from kinduct.kernel import watchdog; "
              f"watchdog.arm(time.monotonic(), {timeout}, True); " + body)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    return proc, time.monotonic() - start


def test_watchdog_prints_the_fallback_of_a_busy_run():
    """A run still computing after its limit ends with the fallback report and exit 30."""
    proc, wall = _watched("watchdog.fallback('[1, 2]\\n'); sum(i for i in range(10**10))")
    assert proc.returncode == 30
    assert json.loads(proc.stdout) == [1, 2]
    assert "timeout" in proc.stderr
    assert wall < 10


def test_watchdog_never_adds_to_a_report_already_begun():
    """A report that has begun is the only output, even when the run then overstays."""
    proc, _ = _watched("watchdog.fallback('[1]'); print('[\"report\"]'); sys.stdout.flush(); "
                       "time.sleep(30)")
    assert proc.returncode == 30
    assert json.loads(proc.stdout) == ["report"]


def test_watchdog_ends_a_finished_run_at_once_with_its_code():
    proc, wall = _watched("print('[]'); watchdog.done(40)", timeout=30)
    assert (proc.returncode, proc.stdout.strip()) == (40, "[]")
    assert wall < 10


def test_timeout_holds_with_cvc5_on_nonlinear_division(tmp_path):
    """Regression: the quick phase's in-process cvc5 query on ``q * y = x`` with ``q = x div y``
    never returned, and cvc5 holds the interpreter, so the run hung past ``--timeout``."""
    model = tmp_path / "div.lus"
    model.write_text("""
node N(x, y: int; a, b: real) returns (q: int; r: real);
let
  q = if y <> 0 then x div y else 0;
  r = if b <> 0.0 then a / b else 0.0;
  check "qy" y > 0 and x >= 0 => q * y <= x;
  check "mod" y > 0 => x mod y >= 0;
  check "rb" b > 0.0 and a > 0.0 => r > 0.0;
  check "bad" y > 0 => q * y = x;
tel
""")
    start = time.monotonic()
    proc = run_cli("check", model, "--solver", "cvc5", "--timeout", "5", "--json")
    assert time.monotonic() - start < 15  # a hang, not a speed check
    assert proc.returncode in (30, 40), proc.stderr


def test_a_run_still_busy_after_its_timeout_prints_every_property_unknown():
    """A run whose analysis overstays (here a ``decide`` that sleeps, as a starved machine
    would make it) ends 1.2 s after ``--timeout`` with the report it rendered before the
    analysis began: every property unknown on timeout, in one JSON array, exit 30."""
    model = VMT / "counter.vmt"
    script = ("import sys, time; import kinduct.kernel.decide as d; "
              "d.decide = lambda *a, **k: time.sleep(60); "
              f"sys.argv = ['kinduct', 'check', {str(model)!r}, '--timeout', '1', '--json']; "
              "from kinduct.kernel.cli import main; sys.exit(main())")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert time.monotonic() - start < 20
    assert proc.returncode == 30
    objects = json.loads(proc.stdout)
    props = properties(objects)
    assert props and all(p["answer"]["value"] == "unknown" and p["runtime"]["timeout"]
                         for p in props.values())
    assert [o["objectType"] for o in objects][:2] == ["kind2Options", "analysisStart"]
