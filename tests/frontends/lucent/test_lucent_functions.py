"""Imported functions and ``choose`` are mathematical functions at every distance in time:
each result is an uninterpreted function of the arguments (``Translator.congruence``), which
the engines share across steps, the kernel's replay interprets, and the Kind 2 printer writes
as an imported function."""

from __future__ import annotations

import json

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from tests.conftest import run_cli
from tests.frontends.lucent.helpers import write

SOLVERS = ["z3", "cvc5"]

#: ``two steps apart`` needs ``F`` to agree with itself two steps back (the memories of the
#: previous step alone left it unknown).
TWO_STEPS = """
function imported F(x: int) returns (y: int);
node M(x: int) returns (ok: bool);
var c, px2, py2: int;
let
  c = 0 -> pre c + 1;
  px2 = 0 -> pre (0 -> pre x);
  py2 = 0 -> pre (0 -> pre F(x));
  ok = c >= 2 and px2 = x => F(x) = py2;
  check "two steps apart" ok;
  check "not constant" F(x) = F(0);
tel
"""

#: ``choose`` over a set that recurs after a change: the same value again.
RECURRING_SET = """
node R(b: bool) returns (r: int);
var t: set<int>; c: int;
let
  c = 0 -> pre c + 1;
  t = if b then {1, 2} else {3};
  r = choose { x: int | x in t };
  check "recurring" (c >= 2 and t = pre (pre t) and not (t = pre t)) => (r = pre (pre r));
  check "not constant" r = 3;
tel
"""


def _answers(path, solver: str) -> dict[str, str]:
    return {v.property: v.answer.value for system in load_systems(path, LoadOptions())
            for v in run(system, RunOptions(timeout=60, solver=solver))}


@pytest.mark.parametrize("solver", SOLVERS)
def test_an_imported_function_agrees_with_itself_steps_apart(tmp_path, solver):
    path = write(tmp_path, TWO_STEPS)
    assert _answers(path, solver) == {"two steps apart": "valid", "not constant": "falsifiable"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_choose_of_a_recurring_set_is_the_same_value(tmp_path, solver):
    path = write(tmp_path, RECURRING_SET)
    assert _answers(path, solver) == {"recurring": "valid", "not constant": "falsifiable"}


def test_the_real_kind2_agrees_on_the_printed_system(tmp_path, kind2):
    """The kernel system (with its uninterpreted function) printed as Lustre for Kind 2."""
    path = write(tmp_path, TWO_STEPS)
    (system,) = load_systems(path, LoadOptions())
    ours = {v.property: v.answer for v in run(system, RunOptions(timeout=60))}
    theirs = {v.property: v.answer for v in run(system, RunOptions(solver="kind2", timeout=60))}
    assert ours == theirs


def test_kind2_on_the_source_agrees(tmp_path, kind2):
    path = write(tmp_path, TWO_STEPS)
    proc = run_cli("check", path, "--solver", "kind2", "--json", "--timeout", "60")
    got = {o["name"]: o["answer"]["value"] for o in json.loads(proc.stdout, strict=False)
           if o.get("objectType") == "property"}
    assert got == {"two steps apart": "valid", "not constant": "falsifiable"}
