"""Small defects of the command line against Kind 2's conventions: a model with nothing to
analyse is an input error, ``rasp check --assert`` needs a Boolean s-op, a synthesis that
proves nothing is not an internal error."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXAMPLES, run_cli


@pytest.mark.parametrize("text", ["", "\n  \n"], ids=["empty", "blank"])
def test_a_lucent_file_without_a_node_is_an_input_error(tmp_path, text):
    model = tmp_path / "m.lus"
    model.write_text(text)
    proc = run_cli("check", model, timeout=60)
    assert proc.returncode == 3, proc.stderr
    assert "m.lus" in proc.stderr and "no component" in proc.stderr
    proc = run_cli("check", model, "--json", timeout=60)
    assert proc.returncode == 3
    objects = json.loads(proc.stdout)  # Kind 2 writes its options first on error runs too
    assert [o["objectType"] for o in objects if o["objectType"] != "kind2Options"] == ["log"]
    assert objects[-1]["level"] == "error"


def test_a_node_without_properties_is_still_fine(tmp_path):
    model = tmp_path / "m.lus"
    model.write_text("node N(x: int) returns (y: int);\nlet\n  y = x;\ntel\n")
    proc = run_cli("check", model, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_declarations_alone_are_not_an_error(tmp_path):
    """Kind 2's suite accepts files of constants, types and contracts alone (typecheck-pass)."""
    model = tmp_path / "m.lus"
    model.write_text("const C: int = 2;\ntype T = int;\n-- and a comment\n")
    assert run_cli("check", model, timeout=60).returncode == 0


def test_nodes_with_nothing_to_analyse_are_not_an_error(tmp_path):
    """Kind 2 v3.0.0: "No analyzable nodes found, skipping analysis", exit 0 (its suite's
    success/imported_node_calling_regular_node.lus): only a node missing altogether is an error."""
    model = tmp_path / "m.lus"
    model.write_text("node f(x, z: int) returns (y: int);\nlet\n  y = x + (0 -> pre z);\ntel\n"
                     "node imported top(x: int) returns (y: int);\n"
                     "(*@contract\n  var g: int = f(x, y);\n  assume g > 0;\n  guarantee y > g;\n*)\n")
    proc = run_cli("check", model, timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("sop, shown", [("balance", "1"), ("dyck1_ptf", "'P'")])
def test_rasp_assert_refuses_a_non_boolean_sop_with_its_location(sop, shown):
    proc = run_cli("rasp", "check", EXAMPLES / "rasp" / "dyck1.rasp", "--assert", sop,
                   "--alphabet", "()", "--max-length", "3", timeout=60)
    assert proc.returncode == 3, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert "dyck1.rasp:" in first and "Boolean s-op is needed" in first and shown in first
    assert "^" in proc.stderr and "Traceback" not in proc.stderr


def test_rasp_assert_takes_a_boolean_sop(tmp_path):
    program = tmp_path / "b.rasp"
    program.write_text('ok = tokens == "a" or tokens == "b";\n')
    proc = run_cli("rasp", "check", program, "--assert", "ok", "--alphabet", "ab",
                   "--max-length", "2", "--timeout", "30", timeout=90)
    assert proc.returncode == 0, proc.stderr


def test_crasp_learn_that_proves_nothing_is_not_an_internal_error():
    proc = run_cli("crasp", "learn", "--spec", EXAMPLES / "regex" / "tomita2.regex",
                   "--shape", "1,1,1", "--iterations", "50", "--timeout", "2", timeout=90)
    assert "not proved" in proc.stderr, proc.stderr
    assert proc.returncode == 30
