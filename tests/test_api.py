"""The Python API: the documented example runs, and ``kinduct.check`` agrees with the CLI."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest

import kinduct
from kinduct.kernel.errors import InputError, UsageError
from tests.conftest import EXAMPLES, ROOT, properties, run_json

DOC = ROOT / "docs" / "api.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_five_line_example_in_the_docs_runs(monkeypatch):
    example = _python_blocks()[0]
    assert len(example.strip().splitlines()) <= 5
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(DOC), "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("y > 0 => l > y valid ") and lines[0].endswith(" None")
    assert lines[1].startswith("z > 0 falsifiable 0 {'x': [")


def test_the_pysmt_example_in_the_docs_runs():
    exec(compile(_python_blocks()[1], str(DOC), "exec"), {})


@pytest.mark.parametrize("engine", ["bmc", "kind", "ic3", "invgen"])
def test_shortcuts_formulas_work_with_every_engine(engine):
    """Formulas from ``pysmt.shortcuts`` (the global environment) in a system whose own
    environment is another one: every engine decides it."""
    from pysmt.environment import Environment
    from pysmt.shortcuts import GE, LT, Equals, Int, Plus, Symbol
    from pysmt.typing import INT

    x, xn = Symbol("x", INT), Symbol("x'", INT)
    system = kinduct.TransitionSystem(
        env=Environment(), state_vars=(x,), next_vars=(xn,), input_vars=(), init=Equals(x, Int(0)),
        trans=Equals(xn, Plus(x, Int(1))),
        properties=(kinduct.Property("nonneg", GE(x, Int(0))), kinduct.Property("small", LT(x, Int(3)))))
    # bmc never proves 'nonneg': it runs until the limit
    report = kinduct.check(system, engine=engine, timeout=4 if engine == "bmc" else 60)
    small = report["small"]
    if engine == "invgen":  # it only proves
        assert small.answer == "unknown"
    else:
        assert small.answer == "falsifiable" and small.k == 3
        assert small.counterexample["x"] == [0, 1, 2, 3]
    assert report["nonneg"].answer == ("unknown" if engine == "bmc" else "valid")


@pytest.mark.parametrize("model", ["vmt/counter_bug.vmt", "vmt/twin_counters.vmt",
                                   "lucent/combine.lus", "lucent/compositional.lus"])
def test_check_gives_the_cli_verdicts(model):
    path = EXAMPLES / model
    report = kinduct.check(path, timeout=60)
    code, objs = run_json("check", path, "--timeout", "60")
    assert {p.name: p.answer for p in report.properties} == {
        n: p["answer"]["value"] for n, p in properties(objs).items()}
    assert report.exit_code == code
    assert [o["objectType"] for o in report.to_json()] == [
        o["objectType"] for o in objs if o["objectType"] not in ("kind2Options", "log")]


def test_check_with_the_external_checker_gives_the_cli_verdicts(kind2):
    """``solver="kind2"`` goes through the same decision as ``kinduct check --solver kind2``."""
    path = EXAMPLES / "lucent" / "combine.lus"
    report = kinduct.check(path, solver="kind2", timeout=60)
    code, objs = run_json("check", path, "--solver", "kind2", "--timeout", "60")
    assert {p.name: p.answer for p in report.properties} == {
        n: p["answer"]["value"] for n, p in properties(objs).items()} == {
        "y > 0 => l > y": "valid", "z > 0": "falsifiable"}
    assert report.exit_code == code == 40


def test_load_and_errors(tmp_path):
    system = kinduct.load(EXAMPLES / "lucent" / "combine.lus")
    assert {p.name for p in system.properties} == {"y > 0 => l > y", "z > 0"}
    with pytest.raises(InputError) as info:
        kinduct.check(tmp_path / "missing.lus")
    assert info.value.exit_code == InputError.exit_code
    with pytest.raises(UsageError):
        kinduct.check(EXAMPLES / "vmt" / "counter.vmt", engine="magic")
    fifo = tmp_path / "fifo.lus"
    os.mkfifo(fifo)
    with pytest.raises(InputError):
        kinduct.load(fifo)


def test_version():
    assert re.match(r"\d+\.\d+", kinduct.__version__)


def test_modular_compositional_check_refines_as_the_cli(tmp_path):
    """``kinduct.check(..., modular=True, compositional=True)``: the abstraction's answer, then
    the refinement's, as analyses; one final result per property; the CLI's exit code."""
    path = tmp_path / "m.lus"
    path.write_text("""
node Twice(x: int) returns (y: int);
(*@contract guarantee y >= x; *)
let
  y = 2 * x - x;
tel
node Top(a: int) returns (b: int);
let
  b = Twice(a);
  check b = a;
tel
""")
    report = kinduct.check(path, timeout=60, modular=True, compositional=True)
    code, objs = run_json("check", path, "--timeout", "60", "--modular", "--compositional")
    assert report["b = a"].answer == "valid"
    assert [(s.name, [v.answer.value for v in verdicts]) for s, verdicts in report.analyses] == [
        ("Twice", ["valid"]), ("Top", ["falsifiable"]), ("Top", ["valid"])]
    assert report.exit_code == code == 40
    assert [o["objectType"] for o in report.to_json()] == [
        o["objectType"] for o in objs if o["objectType"] not in ("kind2Options", "log")]
