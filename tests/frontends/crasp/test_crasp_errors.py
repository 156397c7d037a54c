"""Malformed programs: exact messages at file:line:col with a caret, exit code 2, no traceback."""

from __future__ import annotations

import pytest

from kinduct.frontends.crasp.parser import MAX_DEPTH, MAX_DIGITS, MAX_WINDOW
from kinduct.kernel.cli import main
from kinduct.kernel.errors import InputError
from tests.conftest import run_cli

CASES = [
    ("unknown", "alphabet 'a', 'b'\nX := Y > 0\n", "2:6", "unknown rule 'Y'"),
    ("forward", "alphabet 'a', 'b'\nX := Y\nY := 'a'\n", "2:6",
     "rule 'Y' is used before its definition (line 3); a rule may only read earlier rules"),
    ("cyclic", "alphabet 'a', 'b'\nX := X or 'a'\n", "2:6", "rule 'X' refers to itself (cyclic definition)"),
    ("count-as-bool", "alphabet 'a', 'b'\nC := #('a')\nX := C and 'b'\n", "3:6",
     "type error: `C` is a count, but a Boolean is expected here"),
    ("bool-as-count", "alphabet 'a', 'b'\nX := #('a') + 'a' > 1\n", "2:15",
     "type error: `'a'` is a Boolean, but a count is expected here"),
    ("letter", "alphabet 'a', 'b'\nX := #('c') > 0\n", "2:8", "letter 'c' is not in the alphabet ('a', 'b')"),
    ("duplicate-rule", "alphabet 'a', 'b'\nX := 'a'\nX := 'b'\n", "3:1",
     "rule 'X' is defined twice (first at line 2)"),
    ("duplicate-letter", "alphabet 'a', 'b', 'a'\nX := 'a'\n", "1:20",
     "letter 'a' appears twice in the alphabet"),
    ("no-alphabet", "X := 'a'\n", "1:1", "a program starts with its alphabet, e.g. alphabet 'a', 'b'"),
    ("incomplete", "alphabet 'a', 'b'\nX := #('a') >\n", "2:14",
     "unexpected end of line, expected an expression"),
    ("paren", "alphabet 'a', 'b'\nX := ('a' and 'b'\n", "2:18", "unexpected end of line, expected ')'"),
    ("period", "alphabet 'a', 'b'\nX := period(2, 2)\n", "2:16",
     "period offset 2 must be less than the modulus 2"),
    ("period-zero", "alphabet 'a', 'b'\nX := period(0, 0)\n", "2:13", "period modulus must be at least 1"),
    ("window", "alphabet 'a', 'b'\nX := #[3,1]('a') > 0\n", "2:8",
     "window start 3 must not exceed its end 1 (#[rs,re] counts positions j-re..j-rs)"),
    ("last-count", "alphabet 'a', 'b'\nC := #('a')\n", "2:1",
     "the last rule 'C' decides acceptance and must be Boolean, but it is a count "
     "(add a Boolean rule or an `accept` line)"),
    ("accept-unknown", "alphabet 'a', 'b'\nX := 'a'\naccept Z\n", "3:8", "accept names an unknown rule 'Z'"),
    ("no-rules", "alphabet 'a', 'b'\n-- nothing else\n", "2:1",
     "the program has no rules (expected `Name := expression` lines after the alphabet)"),
    ("character", "alphabet 'a', 'b'\nX := #('a') @ 2\n", "2:13", "unexpected character '@'"),
    ("quote", "alphabet 'a, 'b'\nX := 'a'\n", "1:10",
     "unterminated or empty quoted letter (letters are written 'a', without spaces)"),
    ("keyword", "alphabet 'a'\nmin := 'a'\n", "2:1", "'min' is a keyword and cannot name a rule"),
    ("two-operands", "alphabet 'a'\nX := 'a' 'a'\n", "2:10",
     "unexpected ''a'', expected an operator, the end of the line or another rule "
     "(`Name := expression`)"),
    ("second-rule-unknown", "alphabet 'a'\nX := 'a' Y := Z\n", "2:15", "unknown rule 'Z'"),
    ("assign", "alphabet 'a'\nX = 'a'\n", "2:3", "unexpected '=', expected ':='"),
    ("chain", "alphabet 'a', 'b'\nX := 1 < 2 < 3\n", "2:12",
     "comparisons do not chain: write `a < b and b < c` (unexpected '<')"),
]


@pytest.mark.parametrize(("name", "text", "where", "message"), CASES, ids=[c[0] for c in CASES])
def test_malformed_program(tmp_path, capsys, name, text, where, message):
    path = tmp_path / f"{name}.crasp"
    path.write_text(text)
    # In-process for speed; test_cli_exit_code_and_message runs the installed script.
    assert main(["crasp", "eval", str(path), "ab"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err
    head, source, caret = err.rstrip("\n").split("\n")
    assert head == f"kinduct: {path}:{where}: error: {message}"
    line, col = map(int, where.split(":"))
    assert source == "  " + text.splitlines()[line - 1]
    assert caret == "  " + " " * (col - 1) + "^"


def test_bad_word_and_missing_file(tmp_path, capsys):
    assert main(["crasp", "eval", "examples/crasp/dyck1.crasp", "[x]"]) == 3
    assert capsys.readouterr().err == ("kinduct: error: letter 'x' at position 2 of the word is not in the "
                           "alphabet ('[', ']')\n")
    assert main(["crasp", "equiv", str(tmp_path / "nope.crasp"), "examples/crasp/dyck1.crasp"]) == 3
    assert "no such file" in capsys.readouterr().err


def test_check_command_on_malformed_program(tmp_path, capsys):
    path = tmp_path / "bad.crasp"
    path.write_text("alphabet 'a'\nX := #('a')\n")
    assert main(["check", str(path)]) == 3
    assert "must be Boolean" in capsys.readouterr().err


def test_cli_exit_code_and_message(tmp_path):
    path = tmp_path / "bad.crasp"
    path.write_text("alphabet 'a', 'b'\nC := #('a')\nX := C and 'b'\n")
    proc = run_cli("crasp", "empty", path)
    assert proc.returncode == 3
    assert proc.stderr == (f"kinduct: {path}:3:6: error: type error: `C` is a count, but a Boolean is "
                           "expected here\n  X := C and 'b'\n       ^\n")


# Hostile programs (issue 21): limits hold before anything is built, each refusal is located.
A = "alphabet 'a', 'b'\n"
HOSTILE = [
    ("deep-not", A + "X := " + "not " * 5000 + "'a'\n", "2:810",
     f"the expression nests deeper than {MAX_DEPTH} operators (split it into several rules)"),
    ("long-sum", A + "C := " + " + ".join(["#('a')"] * 3000) + "\nX := C > 0\n", "2:",
     f"nests deeper than {MAX_DEPTH} operators"),
    ("long-and", A + "X := " + " and ".join(["'a'"] * 3000) + "\n", "2:", "nests deeper than"),
    ("huge-literal", A + "X := #('a') > " + "9" * 20000 + "\n", "2:15",
     f"integer literal of 20000 digits (at most {MAX_DIGITS} digits are accepted)"),
    ("huge-window", A + "X := #[0," + "1" + "0" * 30 + "]('a') > 0\n", "2:10",
     "integer literal of 31 digits"),
    ("large-window", A + "X := #[0,100000000]('a') > 0\n", "2:10",
     f"window end 100000000 is too large (at most {MAX_WINDOW}"),
    ("huge-period", A + "X := period(" + "1" + "0" * 30 + ", 3)\n", "2:13", "integer literal of 31"),
    ("nul-byte", A + "X := 'a'\x00\n", "2:9", "unexpected character '\\x00'"),
]


@pytest.mark.parametrize(("name", "text", "where", "message"), HOSTILE, ids=[c[0] for c in HOSTILE])
@pytest.mark.parametrize("command", ["eval", "empty"])
def test_hostile_program(tmp_path, capsys, name, text, where, message, command):
    path = tmp_path / f"{name}.crasp"
    path.write_text(text)
    argv = ["crasp", "eval", str(path), "ab"] if command == "eval" else ["crasp", "empty", str(path)]
    assert main(argv) == InputError.exit_code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    head = err.splitlines()[0]
    assert head.startswith(f"kinduct: {path}:{where}"), head
    assert message in head
    assert err.splitlines()[-1].strip() == "^"


def test_depth_limit_is_not_hit_below_it(tmp_path, capsys):
    """200 nested operators evaluate, check and translate (no recursion error)."""
    path = tmp_path / "deep.crasp"
    path.write_text(A + "X := " + "not " * (MAX_DEPTH - 1) + "'a'\n")
    assert main(["crasp", "eval", str(path), "ab", "--json"]) == 0
    assert main(["crasp", "empty", str(path), "--engine", "bmc", "--bound", "2"]) in (0, 20, 30, 40)


def test_word_of_120000_letters_evaluates(capsys):
    word = "[]" * 60000
    assert main(["crasp", "eval", "examples/crasp/dyck1.crasp", word, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith('"accepted": true}')


def test_not_utf8_is_located(tmp_path, capsys):
    path = tmp_path / "latin1.crasp"
    path.write_bytes(b"alphabet 'a'\nX := '\xe9'\n")
    assert main(["crasp", "eval", str(path), "a"]) == InputError.exit_code
    err = capsys.readouterr().err
    assert err.startswith(f"kinduct: {path}:2:7: error: not UTF-8: byte 0xe9 at byte offset 19")
