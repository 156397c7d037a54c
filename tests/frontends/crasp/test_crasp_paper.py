"""The C-RASP paper's own notations (``../shared/seeds/crasp-paper.txt``), read as printed.

Example 1 (bare letters, ``#[``, subscripted names, ``∧``), ``m%o`` (Definition 0.2.2) and
``#_{rs,re}`` (Definition 0.2.3), LaTeX operator names; each checked against values computed
here from the paper's definitions, not by kinduct's evaluator, and against the existing
notation by structural equality of the parsed programs.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.evaluate import accepts, evaluate
from kinduct.frontends.crasp.parser import parse
from kinduct.kernel.errors import InputError
from tests.conftest import EXAMPLES
from tests.frontends.crasp.crasp_cli import run_main

PAPER = EXAMPLES / "crasp" / "paper"

#: The paper's execution table of Example 1 over [[][]]][] (its rows, ⊤ = True).
_T, _F = True, False
TABLE = {
    "C_{[}": [1, 2, 2, 3, 3, 3, 3, 4, 4],
    "C_{]}": [0, 0, 1, 1, 2, 3, 4, 4, 5],
    "V": [_F, _F, _F, _F, _F, _F, _T, _F, _F],
    "D": [_F, _F, _F, _F, _F, _T, _F, _F, _F],
}


def test_example1_as_printed_gives_the_papers_table(capsys):
    code, out, err = run_main(capsys, "crasp", "eval", PAPER / "example1.crasp", "[[][]]][]",
                              "--json")
    assert code == 0, err
    values = json.loads(out)["rules"]
    word = "[[][]]][]"
    opened = [word[: j + 1].count("[") for j in range(len(word))]
    closed = [word[: j + 1].count("]") for j in range(len(word))]
    assert values["C_{[}"] == TABLE["C_{[}"] == opened
    assert values["C_{]}"] == TABLE["C_{]}"] == closed
    assert values["D"] == TABLE["D"]
    # V := C[ < C] by the paper's definition; its table shows ⊥ at position 9 although
    # C[ = 4 < 5 = C] there (the table marks the first violation only): the definition wins.
    assert values["V"][:8] == TABLE["V"][:8]
    assert values["V"][8] is (opened[8] < closed[8]) is True
    assert json.loads(out)["accepted"] is False


def test_example1_as_printed_is_the_quoted_program():
    printed = parse((PAPER / "example1.crasp").read_text())
    quoted = parse("alphabet '[', ']'\nC_{[} := #('[')\nC_{]} := #(']')\n"
                   "V := C_{[} < C_{]}\nD := #(V) = 0 and C_{[} = C_{]}\n")
    assert printed == quoted


def test_example1_as_copied_from_the_pdf():
    # subscripts copied inline: C[ and C] for C_{[} and C_{]}
    copied = parse("alphabet [, ]\nC[ := #[\nC] := #]\nV := C[ < C]\nD := #V=0 ∧ C[=C]\n")
    printed = parse((PAPER / "example1.crasp").read_text())
    assert [r.name for r in copied.rules] == ["C[", "C]", "V", "D"]
    word = list("[[][]]][]")
    assert evaluate(copied, word)["D"] == evaluate(printed, word)["D"] == TABLE["D"]


def test_example1_in_two_columns_as_printed():
    # the paper typesets Example 1 as a two-column array: two rules on a line
    two = parse("alphabet [, ]\nC[ := #[    C] := #]\nV := C[ < C]    D := #V=0 ∧ C[=C]\n")
    one = parse("alphabet [, ]\nC[ := #[\nC] := #]\nV := C[ < C]\nD := #V=0 ∧ C[=C]\n")
    assert two == one
    assert [r.pos for r in two.rules] == [(2, 1), (2, 13), (3, 1), (3, 17)]


def _dyck(word: str) -> bool:
    depth = 0
    for c in word:
        depth += 1 if c == "[" else -1
        if depth < 0:
            return False
    return depth == 0


def test_example1_recognises_dyck_words():
    program = parse((PAPER / "example1.crasp").read_text())
    for n in range(1, 9):
        for letters in itertools.product("[]", repeat=n):
            word = "".join(letters)
            assert accepts(program, list(word)) is _dyck(word), word


def test_example1_equivalent_to_dyck1_by_the_model_checker(capsys):
    code, out, err = run_main(capsys, "crasp", "equiv", PAPER / "example1.crasp",
                              EXAMPLES / "crasp" / "dyck1.crasp", "--timeout", "60")
    assert code == 0, out + err
    assert "valid" in out


def test_subscripted_names_give_valid_lustre(capsys):
    code, out, _ = run_main(capsys, "crasp", "to-lustre", PAPER / "example1.crasp")
    assert code == 0
    assert "{" not in out and "A_C_open" in out and "A_C_close" in out


@pytest.mark.parametrize("m,o", [(1, 0), (2, 0), (2, 1), (3, 2), (5, 0)])
def test_modulo_is_period(m, o):
    a = parse(f"alphabet a, b\nP := {m}%{o}\n")
    b = parse(f"alphabet 'a', 'b'\nP := period({m}, {o})\n")
    assert a == b
    word = list("ab" * 6)
    # Definition 0.2.2: m%o is true at positions j (1-based) with j mod m = o
    assert evaluate(a, word)["P"] == [j % m == o for j in range(1, len(word) + 1)]


def test_modulo_spacing_and_use_in_expressions():
    p = parse("alphabet a, b\nE := #(2 % 0 ∧ a)\nQ := E ≥ 1 ∨ 3%1\n")
    word = list("babab")
    # a at positions 2 and 4 (both even)
    assert evaluate(p, word)["E"] == [0, 1, 1, 2, 2]


def test_subscript_window_is_bracket_window():
    a = parse("alphabet a, b\nW := #_{1,3}(a)\nX := W > 0\n")
    b = parse("alphabet 'a', 'b'\nW := #[1,3]('a')\nX := W > 0\n")
    assert a == b
    rng = random.Random(7)
    for _ in range(50):
        word = [rng.choice("ab") for _ in range(rng.randint(1, 12))]
        # Definition 0.2.3: positions i with j - re <= i <= j - rs (1-based, i >= 1)
        want = [sum(1 for i in range(max(1, j - 3), j - 1 + 1) if word[i - 1] == "a")
                for j in range(1, len(word) + 1)]
        assert evaluate(a, word)["W"] == want


def test_hash_bracket_is_a_count_unless_a_window_follows():
    p = parse("alphabet [, ], a\nO := #[\nC := #]\nW := #[0,1] a\nB := O < C + W\n")
    rules = {r.name: r.expr for r in p.rules}
    assert rules["O"] == A.Count(A.Letter("["))
    assert rules["C"] == A.Count(A.Letter("]"))
    assert rules["W"] == A.Window(0, 1, A.Letter("a"))
    q = parse("alphabet [, ]\nB := #[ < #] + 1\n")
    assert q.rules[0].expr == A.Compare("<", A.Count(A.Letter("[")),
                                        A.Add(A.Count(A.Letter("]")), A.IntConst(1)))


def test_latex_operators():
    a = parse(r"alphabet a, b" "\n"
              r"C := \max(\#a, \#_{0,1} b) - \min(1, #a)" "\n"
              r"B := \neg (C \leq 2 \land C \neq 0) \lor \top \land \lnot \bot \lor C \geq 1"
              "\n")
    b = parse("alphabet 'a', 'b'\n"
              "C := max(#('a'), #[0,1]('b')) - min(1, #('a'))\n"
              "B := not (C <= 2 and C != 0) or true and not false or C >= 1\n")
    assert a == b


def test_bare_letter_names_and_rules_win():
    p = parse("alphabet a, b\nX := #a - #b\nY := a ∧ X > 0\n")
    assert p.rules[0].expr == A.Sub(A.Count(A.Letter("a")), A.Count(A.Letter("b")))
    # a rule named like a letter is the rule wherever the name is used
    q = parse("alphabet a, b\na := #b\nY := a > 1\n")
    assert q.rules[1].expr == A.Compare(">", A.Ref("a"), A.IntConst(1))


@pytest.mark.parametrize("text,line,col,message", [
    ("alphabet a, b\nX := #[\n", 2, 6, "letter '[' is not in the alphabet"),
    ("alphabet a, b\nX := c\n", 2, 6, "unknown rule 'c'"),
    ("alphabet a, b\nCount := #a\nX := Cuont > 1\n", 3, 6,
     "unknown rule 'Cuont' (did you mean 'Count'?)"),
    ("alphabet a, b\nX := 2%2\n", 2, 8, "period offset 2 must be less than the modulus 2"),
    ("alphabet a, b\nX := #_{3,1}(a) = 0\n", 2, 9, "window start 3 must not exceed its end 1"),
    ("alphabet a, b\nX := 2%\n", 2, 8, "unexpected end of line"),
])
def test_paper_notation_errors_are_located(text, line, col, message):
    with pytest.raises(InputError) as info:
        parse(text, "p.crasp")
    rendered = str(info.value)
    assert f"p.crasp:{line}:{col}" in rendered and message in rendered, rendered
