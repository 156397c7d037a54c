"""Done-when 5: malformed and ill-typed models give ``file:line:col: error: what was expected``
with the offending line and a caret, exit code 2, and never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from kinduct.kernel.cli import main
from kinduct.kernel.errors import SourceWarning
from tests.conftest import run_cli

BAD = Path(__file__).with_name("bad")

CASES = [
    ("01_missing_semicolon.lus", "4:1", "expected ';' before 'tel'"),
    ("02_missing_tel.lus", "3:8", "expected an equation, 'check', 'assert' or 'tel' before end of file"),
    ("03_bad_character.lus", "3:9", "unexpected character '$'"),
    ("04_missing_expression.lus", "3:7", "expected an expression before ';'"),
    ("05_unknown_name.lus", "3:11", "unknown name 'z'"),
    ("06_type_mismatch_plus.lus", "3:11", "type mismatch: expected int, got bool"),
    ("07_type_mismatch_equation.lus", "3:7", "type mismatch: the left side has type bool, "
     "the right side int"),
    ("08_int_real_mix.lus", "3:13", "type mismatch: expected real, got int"),
    ("09_wrong_arity.lus", "8:7", "node Add expects 2 arguments, got 1"),
    ("10_unknown_node.lus", "3:7", "unknown node 'Missing'"),
    ("11_circular.lus", "4:7", "circular definition: a -> b -> a"),
    ("12_self_circular.lus", "3:7", "circular definition: y -> y"),
    ("13_node_cycle.lus", "8:7", "node call cycle: A -> B -> A"),
    ("14_assume_current_output.lus", "3:10", "assumption mentions output 'y' at the current step; "
     "use 'pre' or move it to a guarantee"),
    ("15_define_input.lus", "3:3", "cannot define input 'x'"),
    ("16_defined_twice.lus", "4:3", "'y' is defined twice (first at line 3)"),
    ("17_if_condition_not_bool.lus", "3:10", "type mismatch: expected bool, got int"),
    ("18_branches_differ.lus", "3:24", "type mismatch: expected int, got bool"),
    ("19_unknown_type.lus", "1:11", "unknown type 'Speed'"),
    ("20_property_not_bool.lus", "4:9", "type mismatch: expected bool, got int"),
    ("21_multi_output_arity.lus", "10:15", "type mismatch: the left side has type "
     "[int, int, int], the right side [int, int]"),
    ("22_pre_in_function.lus", "3:7", "'->' is not allowed in a function"),
    ("23_misplaced_when.lus", "3:7", "'e when c' is only allowed as a case of merge or as the "
     "argument of current: a sampled stream has no value where its clock does not tick"),
    ("24_unsupported_abstract_quantifier.lus", "5:10", "unsupported: a quantifier over the "
     "abstract type T beside sets, maps or recursive datatypes of it (their members are not "
     "bound to the type's domain)"),
    ("25_machine_int_mix.lus", "3:11", "type mismatch: expected uint<8>, got int"),
    ("26_if_block_incomplete.lus", "3:3", "'z' is not defined in every branch of this if block"),
    ("27_mod_on_real.lus", "3:7", "type mismatch: 'mod' expects int, got real"),
    ("28_missing_returns.lus", "1:16", "expected 'returns' before '('"),
    ("29_unknown_field.lus", "5:7", "record type P has no field 'c'"),
    ("30_unterminated_comment.lus", "1:1", "unterminated comment: expected '*)'"),
    ("31_contract_imported_twice.lus", "8:3", "contract 'Spec' is already imported here"),
    ("33_empty_lhs_in_if_block.lus", "8:5", "an equation with no variable on its left side "
     "is not allowed here"),
    ("32_when_block_incomplete.lus", "3:3", "'z' is not defined in every branch of this when "
     "block (an omitted else or otherwise branch included)"),
]


def test_every_bad_file_has_a_case():
    assert sorted(p.name for p in BAD.glob("*.lus")) == sorted(c[0] for c in CASES)
    assert len(CASES) >= 20


@pytest.mark.parametrize("name,where,message", CASES, ids=[c[0] for c in CASES])
def test_error_message(name, where, message, capsys):
    path = BAD / name
    code = main(["check", str(path)])
    err = capsys.readouterr().err
    assert code == 3
    first = err.splitlines()[0]
    assert first == f"kinduct: {path}:{where}: error: {message}"
    # the offending line is quoted, with a caret under the column
    line, col = map(int, where.split(":"))
    src = path.read_text().splitlines()[line - 1]
    lines = err.splitlines()
    assert lines[1] == "  " + src
    assert lines[2] == "  " + " " * (col - 1) + "^"
    assert "Traceback" not in err


@pytest.mark.parametrize("name", ["01_missing_semicolon.lus", "11_circular.lus", "23_misplaced_when.lus"])
def test_real_cli_exit_code(name):
    proc = run_cli("check", BAD / name)
    assert proc.returncode == 3
    assert "Traceback" not in proc.stderr
    assert ": error: " in proc.stderr


def test_unguarded_pre_warning(tmp_path, capsys):
    src = tmp_path / "w.lus"
    src.write_text("node N(x: int) returns (y: int);\nlet\n  y = pre x;\n  check y = y;\ntel\n")
    from kinduct.frontends.lucent.pipeline import load_checked
    with pytest.warns(SourceWarning) as caught:
        load_checked(src)
    assert f"{src}:3:7: warning: unguarded pre" in [str(w.message) for w in caught]
