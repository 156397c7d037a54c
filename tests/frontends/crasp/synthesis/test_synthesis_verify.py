"""A program that fits the data is not reported as the language unless proved (issue 42):
``crasp learn DATA --language L`` / ``--verify SPEC`` give "proved equal" or "fits the data,
language not verified" with a counterexample word.  Membership here is plain Python."""

from __future__ import annotations

import json
import re

import pytest

from kinduct.frontends.crasp.evaluate import accepts
from kinduct.frontends.crasp.parser import parse
from kinduct.frontends.crasp.synthesis.languages import language
from kinduct.frontends.crasp.synthesis.verify import check_language
from tests.conftest import EXAMPLES
from tests.frontends.crasp.crasp_cli import run_main


def anbncn(w: str) -> bool:
    n = len(w) // 3
    return n > 0 and w == "a" * n + "b" * n + "c" * n


def depth_at_most(w: str, bound: int) -> bool:
    depth = 0
    for c in w:
        depth += 1 if c == "[" else -1
        if depth < 0 or depth > bound:
            return False
    return depth == 0


@pytest.mark.parametrize("name,program,member", [
    # equal counts only: accepts the permutations of abc (the 'bac')
    ("anbncn", "alphabet 'a', 'b', 'c'\nS := #('a') = #('b') and #('b') = #('c')\n", anbncn),
    # even length with as many a's as b's: accepts ba (and babaaa's kin)
    ("tomita2", "alphabet 'a', 'b'\nT := #('a') = #('b') and period(2, 0)\n",
     lambda w: re.fullmatch("(ab)*", w) is not None and w != ""),
    # Dyck-1 without the depth bound: accepts deeper nesting than D3
    ("d3", "alphabet '[', ']'\nV := #(#('[') < #(']')) = 0 and #('[') = #(']')\n",
     lambda w: depth_at_most(w, 3)),
])
def test_wrong_programs_get_a_counterexample(name, program, member):
    p = parse(program)
    check = check_language(p, language(name), None, None, 0, 30.0)
    assert not check.proved and check.counterexample is not None
    word = "".join(check.counterexample)
    assert accepts(p, list(word)) is check.program_accepts
    assert member(word) is not check.program_accepts
    # the shortest one: no shorter word separates them
    assert "not verified: counterexample" in check.summary and repr(word) in check.summary


def test_d3_counterexample_is_the_shortest_deeper_word():
    p = parse("alphabet '[', ']'\nV := #(#('[') < #(']')) = 0 and #('[') = #(']')\n")
    check = check_language(p, language("d3"), None, None, 0, 30.0)
    assert "".join(check.counterexample) == "[[[[]]]]"


def test_wrong_only_on_long_words_is_caught_by_held_out_words():
    # right on every word up to length 16, wrong beyond (long words with more b's)
    p = parse("alphabet 'a', 'b'\nM := #('a') >= #('b') or #(true) > 16\n")
    check = check_language(p, language("majority"), None, None, 0, 30.0)
    assert check.counterexample is not None and "held-out" in check.how
    word = "".join(check.counterexample)
    assert len(word) > 16 and word.count("a") < word.count("b") and check.program_accepts


def test_right_program_is_proved_by_the_model_checker():
    p = parse("alphabet 'a', 'b'\nT := not (#('b') > 0)\n")
    check = check_language(p, language("tomita1"), None, None, 0, 60.0)
    assert check.proved and check.counterexample is None
    assert check.summary.startswith("fits the data; language proved equal to Tomita 1")


def test_no_reference_program_is_not_verified_without_counterexample():
    # Parity has no C-RASP reference: nothing to prove against
    p = parse("alphabet 'a', 'b'\nP := #('a') >= 0\n")
    check = check_language(p, language("parity"), None, None, 0, 30.0)
    assert check.counterexample is not None  # 'a' is not in Parity
    right = parse("alphabet 'a'\nE := period(2, 0)\n")
    check = check_language(right, language("aastar"), None, None, 0, 0)
    assert not check.proved and check.counterexample is None
    assert "no proof asked" in check.how and "not verified" in check.summary


def _learn(capsys, tmp_path, rows, *extra):
    data = tmp_path / "data.csv"
    data.write_text("word,label\n" + "".join(f"{w},{int(lab)}\n" for w, lab in rows))
    code, out, err = run_main(capsys, "crasp", "learn", data, "--timeout", "30", "--seed", "3",
                              *extra, "--json")
    assert "Traceback" not in err
    return code, json.loads(out)


def test_cli_reports_the_language_check(capsys, tmp_path):
    rows = [(w, anbncn(w)) for w in ("abc", "aabbcc", "aaabbbccc", "ab", "abcc", "aabbc", "cba",
                                     "a", "c", "abcabc", "aabbbcc")]
    code, got = _learn(capsys, tmp_path, rows, "--language", "anbncn")
    assert code == 0 and got["found"]
    lang = got["language"]
    program = parse(got["program"])
    if lang["proved"]:
        # proved by the model checker: no word up to length 7 may disagree
        import itertools
        for n in range(1, 8):
            for letters in itertools.product("abc", repeat=n):
                assert accepts(program, list(letters)) is anbncn("".join(letters))
    else:
        assert "not verified" in lang["summary"]
        word = lang["counterexample"]
        assert word is not None and accepts(program, list(word)) is not anbncn(word)


def test_cli_verify_spec_and_no_spec(capsys, tmp_path):
    rows = [(w, "b" not in w) for w in ("a", "aa", "aaa", "b", "ab", "ba", "bb", "aab")]
    code, got = _learn(capsys, tmp_path, rows, "--verify", EXAMPLES / "regex" / "tomita1.regex")
    assert code == 0
    lang = got["language"]
    program = parse(got["program"])
    if not lang["proved"]:
        word = lang["counterexample"]
        assert word is not None and accepts(program, list(word)) is ("b" in word)
    code, got = _learn(capsys, tmp_path, rows)
    assert got["language"]["proved"] is False
    assert "no specification" in got["language"]["summary"]


def test_counterexample_shorter_than_the_data_comes_with_one_at_its_lengths():
    # a program learned from AnBnCn words of length >= 3: it accepts 'c', which no training
    # word could forbid, and also a wrong word of length 3
    p = parse("alphabet 'a', 'b', 'c'\n"
              "B1 := #[0,0]('a') = #[0,1]('b') or 'c'\n"
              "B2 := 'b' and 0 = #(B1)\n"
              "B3 := not #(B1) = #(B2) or #(B2) < #('a')\n"
              "B4 := (B3 ? #(B3) : #('b')) <= #('c')\n")
    check = check_language(p, language("anbncn"), None, None, 0, 10.0, min_length=3)
    short, inside = "".join(check.counterexample), "".join(check.in_range)
    assert len(short) < 3 <= len(inside)
    for word in (short, inside):
        assert accepts(p, list(word)) is not anbncn(word)
    assert f"at those lengths {inside!r}" in check.summary
    assert check.as_dict()["counterexample_in_range"] == inside
