"""Parser round trip, evaluator agreement (reference vs. numpy) and the paper's Example 1."""

from __future__ import annotations

import json

import numpy as np
from crasp_cli import run_main
from crasp_strategies import program_and_words, programs
from hypothesis import given, settings

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.evaluate import accepts, evaluate
from kinduct.frontends.crasp.parser import load, parse
from kinduct.frontends.crasp.vectorized import Batch, accepted, evaluate_expr, evaluate_rules, update_rules
from tests.conftest import EXAMPLES, run_cli

DYCK = EXAMPLES / "crasp" / "dyck1.crasp"
WORD = "[[][]]][]"


def test_dyck_example_values():
    values = evaluate(load(DYCK), list(WORD))
    assert values["Cl"] == [1, 2, 2, 3, 3, 3, 3, 4, 4]
    assert values["Cr"] == [0, 0, 1, 1, 2, 3, 4, 4, 5]
    # D: true only at position 6, as in the paper.
    assert [j + 1 for j, v in enumerate(values["D"]) if v] == [6]
    # V is the first violation: true only at 7, as in the paper's table (Cl < Cr holds again at 9).
    assert [j + 1 for j, v in enumerate(values["V"]) if v] == [7]
    assert [j + 1 for j, (a, b) in enumerate(zip(values["Cl"], values["Cr"], strict=True)) if a < b] == [7, 9]


def test_dyck_example_is_the_papers_language(capsys):
    """The example's V differs from the paper's rule text only to match its table: same language."""
    verbatim = EXAMPLES / "crasp" / "pairs" / "equiv" / "dyck1.a.crasp"
    assert "V  := Cl < Cr\n" in verbatim.read_text()
    code, out, _ = run_main(capsys, "crasp", "equiv", DYCK, verbatim, "--json")
    assert code == 0
    assert '"valid"' in out


def test_eval_cli_table_and_json(capsys):
    proc = run_cli("crasp", "eval", DYCK, WORD)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == list(WORD)
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:6]}
    assert rows["Cl"] == "1 2 2 3 3 3 3 4 4".split()
    assert rows["Cr"] == "0 0 1 1 2 3 4 4 5".split()
    assert rows["D"] == ["⊥"] * 5 + ["⊤"] + ["⊥"] * 3
    assert rows["V"] == ["⊥"] * 6 + ["⊤", "⊥", "⊥"]
    assert lines[-1] == "rejected (D at position 9)"
    code, out, _ = run_main(capsys, "crasp", "eval", DYCK, WORD, "--json")
    data = json.loads(out)
    assert data["word"] == list(WORD)
    assert data["rules"]["Cl"] == [1, 2, 2, 3, 3, 3, 3, 4, 4]
    assert data["rules"]["D"] == [False] * 5 + [True] + [False] * 3
    assert data["rules"]["Cr"] == [0, 0, 1, 1, 2, 3, 4, 4, 5]
    assert data["rules"]["V"] == [False] * 6 + [True] + [False] * 2
    assert data["accepted"] is False
    code, out, _ = run_main(capsys, "crasp", "eval", DYCK, "[[]]", "--json")
    assert json.loads(out)["accepted"] is True


def test_eval_spaced_letters(tmp_path, capsys):
    prog = tmp_path / "p.crasp"
    prog.write_text("alphabet 'ab', 'c'\nX := #('ab') > #('c')\n")
    data = json.loads(run_main(capsys, "crasp", "eval", prog, "ab c ab", "--json")[1])
    assert data == {"word": ["ab", "c", "ab"], "rules": {"X": [True, False, True]}, "accepted": True}


def test_unicode_forms_parse_like_ascii():
    uni = parse("alphabet 'a', 'b'\nC := #'a'\nX := ¬(C ≤ 2) ∧ ⊤ ∨ C ≠ 1 ∧ ⊥ ∨ C ≥ 3\n")
    asc = parse("alphabet 'a', 'b'\nC := #('a')\nX := not (C <= 2) and true or C != 1 and false or C >= 3\n")
    assert uni == asc


def test_precedence():
    p = parse("alphabet 'a'\nC := #'a'\nN := C > 1 ? C + 1 : 2 - C - 1\n"
              "X := not 'a' and C = 1 or true and N < 2\n")
    n = p.rule("N").expr
    assert n == A.Cond(A.Compare(">", A.Ref("C"), A.IntConst(1)), A.Add(A.Ref("C"), A.IntConst(1)),
                       A.Sub(A.Sub(A.IntConst(2), A.Ref("C")), A.IntConst(1)))
    x = p.rule("X").expr
    assert x == A.Or(A.And(A.Not(A.Letter("a")), A.Compare("=", A.Ref("C"), A.IntConst(1))),
                     A.And(A.BoolConst(True), A.Compare("<", A.Ref("N"), A.IntConst(2))))


@settings(max_examples=150, deadline=None)
@given(programs())
def test_printer_round_trips(p):
    assert parse(A.to_source(p)) == p


@settings(max_examples=150, deadline=None)
@given(program_and_words())
def test_vectorised_agrees_with_reference(pw):
    p, words = pw
    batch = Batch.from_words(words, p.alphabet)
    values = evaluate_rules(p, batch)
    acc = accepted(p, batch, values)
    for row, w in enumerate(words):
        ref = evaluate(p, w)
        for r in p.rules:
            got = values[r.name][row, : len(w)].tolist()
            assert got == ref[r.name], (r.name, w)
        assert bool(acc[row]) == accepts(p, w)


@settings(max_examples=60, deadline=None)
@given(program_and_words(max_rules=4))
def test_update_rules_recomputes_dependents(pw):
    p, words = pw
    batch = Batch.from_words(words, p.alphabet)
    values = evaluate_rules(p, batch)
    first = p.rules[0]
    # Replace the first rule by a same-kind expression over the same alphabet.
    new_expr = A.BoolConst(True) if first.kind is A.Kind.BOOL else A.IntConst(2)
    q = p.replace_rule(first.name, new_expr)
    fresh = evaluate_rules(q, batch)
    updated = update_rules(q, batch, values, first.name)
    for name in fresh:
        assert np.array_equal(np.asarray(fresh[name]), np.asarray(updated[name]))
    assert np.array_equal(np.asarray(evaluate_expr(new_expr, batch, values)),
                          np.broadcast_to(np.asarray(evaluate_expr(new_expr, batch, values)), batch.shape))


def test_empty_word_rejected():
    p = parse("alphabet 'a'\nX := true\n")
    assert accepts(p, []) is False
    assert accepted(p, Batch.from_words([[], ["a"]], p.alphabet)).tolist() == [False, True]


def test_large_constants_and_long_words_do_not_overflow():
    p = parse("alphabet 'a', 'b'\nC := #('a') + 40000\nX := C - 40000 > 1500 and #[0,1500]('a') > 1000\n")
    words = [["a"] * 1600 + ["b"] * 5, ["a", "b"] * 30]
    batch = Batch.from_words(words, p.alphabet)
    values = evaluate_rules(p, batch)
    assert int(values["C"][0, 1599]) == 41600
    assert accepted(p, batch, values).tolist() == [accepts(p, w) for w in words] == [True, False]
    short = Batch.from_words([["a", "a", "a"]], p.alphabet)
    assert int(evaluate_rules(p, short)["C"][0, 2]) == 40003
