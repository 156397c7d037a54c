"""Queries between any two acceptors with .regex on either side: the pairs in
examples/regex/pairs decided right with the shortest separating word, the automaton route
agreeing with the model checker, --words K, a lone .lus node, located errors."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from kinduct.frontends.crasp.queries import acceptors, automaton_verdicts, decide_words
from kinduct.kernel.cli import main
from kinduct.kernel.errors import InputError
from kinduct.kernel.runner import RunOptions
from kinduct.kernel.verdict import Answer
from tests.conftest import EXAMPLES

PAIRS = EXAMPLES / "regex" / "pairs"


def _pairs(kind: str) -> list[tuple[str, Path, Path]]:
    out = []
    for a in sorted((PAIRS / kind).glob("*.a.*")):
        name = a.name.split(".a.")[0]
        [b] = list((PAIRS / kind).glob(f"{name}.b.*"))
        out.append((name, a, b))
    return out


def member(side, w) -> bool:
    return all(x in side.alphabet for x in w) and side.accepts(list(w))


def brute(query: str, sa, sb, max_len: int = 8):
    """The shortest answering word (alphabet order among equals), by enumeration."""
    alphabet = list(dict.fromkeys(sa.alphabet + (sb.alphabet if sb else ())))
    for n in range(1, max_len + 1):
        for w in itertools.product(alphabet, repeat=n):
            in_a, in_b = member(sa, w), member(sb, w) if sb else False
            if {"empty": in_a, "universal": not in_a, "include": in_a and not in_b,
                    "equiv": in_a != in_b}[query]:
                return list(w)
    return None


def test_enough_pairs():
    assert len(_pairs("equiv")) >= 8 and len(_pairs("inequiv")) >= 8


def _query_cli(capsys, *args):
    code = main(["crasp", *map(str, args), "--json", "--timeout", "60"])
    objs = json.loads(capsys.readouterr().out)
    [prop] = [o for o in objs if o.get("objectType") == "property"]
    return code, prop


#: regex/crasp pairs whose equivalence the model checker proves in a few seconds; the other
#: proofs run with -m slow.
QUICK = {"existential"}


def _param(name, a, b):
    slow = a.suffix != b.suffix and name not in QUICK
    return pytest.param(name, a, b, id=name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("name, a, b", [_param(*p) for p in _pairs("equiv")])
def test_equivalent_pairs(name, a, b, capsys):
    sa, sb = acceptors([a, b])
    assert brute("equiv", sa, sb, 8) is None
    code, prop = _query_cli(capsys, "equiv", a, b)
    assert (code, prop["answer"]["value"] if isinstance(prop["answer"], dict) else prop["answer"]) \
        == (0, "valid")
    for x, y in ((a, b), (b, a)):
        code, _ = _query_cli(capsys, "include", x, y)
        assert code == 0


#: mixed pairs answered by the model checker in the default suite; the others run with -m slow
QUICK_MIXED = {"majority-regex", "tomita4-crasp"}


def _inequiv_param(name, a, b):
    slow = a.suffix != b.suffix and name not in QUICK_MIXED
    return pytest.param(name, a, b, id=name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("name, a, b", [_inequiv_param(*p) for p in _pairs("inequiv")])
def test_inequivalent_pairs_give_the_shortest_word(name, a, b, capsys):
    sa, sb = acceptors([a, b])
    code, prop = _query_cli(capsys, "equiv", a, b)
    assert code == 40
    expected = brute("equiv", sa, sb)
    assert expected is not None
    assert len(prop["word"]) == len(expected)
    assert member(sa, prop["word"]) != member(sb, prop["word"])
    for x, y, sx, sy in ((a, b, sa, sb), (b, a, sb, sa)):
        want = brute("include", sx, sy)
        if want is None and a.suffix != b.suffix:
            continue  # a proof by the model checker: test_mixed_inclusions_are_proved (slow)
        code, prop = _query_cli(capsys, "include", x, y)
        if want is None:
            assert code == 0
        else:
            assert code == 40 and len(prop["word"]) == len(want)
            assert member(sx, prop["word"]) and not member(sy, prop["word"])


@pytest.mark.slow
@pytest.mark.parametrize("name, a, b", [pytest.param(*p, id=p[0]) for p in _pairs("inequiv")
                                        if p[1].suffix != p[2].suffix])
def test_mixed_inclusions_are_proved(name, a, b, capsys):
    sa, sb = acceptors([a, b])
    for x, y, sx, sy in ((a, b, sa, sb), (b, a, sb, sa)):
        if brute("include", sx, sy) is None:
            code, _ = _query_cli(capsys, "include", x, y)
            assert code in (0, 30)  # valid, or unknown at the limit; never falsifiable


@pytest.mark.parametrize("name", ["tomita2-astarbstar", "tomita4-five", "interleave"])
def test_automaton_route_agrees_with_the_checker(name):
    a, b = PAIRS / "inequiv" / f"{name}.a.regex", PAIRS / "inequiv" / f"{name}.b.regex"
    sides = acceptors([a, b])
    _, auto = automaton_verdicts("equiv", sides, 3)
    _, checked = decide_words("equiv", sides, 3, RunOptions(timeout=60))
    assert [v.answer for v in auto] == [v.answer for v in checked] == [Answer.FALSIFIABLE] * 3
    # shortest first on both routes: the same lengths; the checker's words are answers too
    assert [len(v.extra["word"]) for v in auto] == [len(v.extra["word"]) for v in checked]
    words = [v.extra["word"] for v in checked]
    assert len({tuple(w) for w in words}) == 3
    assert all(member(sides[0], w) != member(sides[1], w) for w in words)


def test_automaton_route_agrees_with_the_checker_on_a_proof():
    sides = acceptors([PAIRS / "equiv" / "demorgan.a.regex", PAIRS / "equiv" / "demorgan.b.regex"])
    assert automaton_verdicts("equiv", sides)[1][0].answer is Answer.VALID
    assert decide_words("equiv", sides, 1, RunOptions(timeout=60))[1][0].answer is Answer.VALID


def test_words_k_cli(capsys):
    a, b = PAIRS / "inequiv" / "tomita2-astarbstar.a.regex", PAIRS / "inequiv" / "tomita2-astarbstar.b.regex"
    code = main(["crasp", "equiv", str(a), str(b), "--words", "4"])
    out = capsys.readouterr().out
    assert code == 40
    assert "4 answering word(s), shortest first:\n  a\n  b\n  aa\n  bb\n" in out
    code, prop = _query_cli(capsys, "equiv", a, b, "--words", "4", "--via", "checker")
    assert code == 40 and [len(w) for w in prop["words"]] == [1, 1, 2, 2]


def test_regex_against_a_lone_lucent_node(capsys):
    # a lone .lus node reads the letters 0 and 1 (issue 20: it used to be refused)
    code, prop = _query_cli(capsys, "universal", EXAMPLES / "crasp" / "lucent" / "existential.lus")
    assert code == 40 and prop["word"] == ["1"]
    code, _ = _query_cli(capsys, "equiv", EXAMPLES / "regex" / "existential.regex",
                         EXAMPLES / "crasp" / "lucent" / "existential.lus")
    assert code == 0


def test_regex_check_finds_the_shortest_member(capsys, tmp_path):
    p = tmp_path / "r.regex"
    p.write_text("alphabet 'a', 'b'\n(ab)+ & .*b.*b.*\n")
    code = main(["check", str(p), "--json", "--engine", "bmc", "--timeout", "120"])
    objs = json.loads(capsys.readouterr().out)
    [prop] = [o for o in objs if o.get("objectType") == "property"]
    assert (code, prop["answer"]["value"]) == (0, "reachable"), prop
    steps = prop["witness"][0]["streams"][0]["instantValues"]
    assert [v for _, v in steps] == list("abab")


@pytest.mark.parametrize("text, where, what", [
    ("alphabet 'a', 'b'\na | c\n", "2:5", "letter 'c' is not in the alphabet"),
    ("alphabet 'a', 'b'\n(a b\n", "2:5", "unexpected end of input"),
    ("alphabet 'a', 'a'\na\n", "1:15", "appears twice"),
    ("alphabet 'a'\na |\n", "2:4", "expected an expression"),
    ("alphabet a\na\n", "1:10", "unexpected 'a'"),
    ("alphabet 'a'\na ** )\n", "2:6", "unexpected ')'"),
    ("alphabet 'ab'\na\n", "1:10", "quoted letter"),
])
def test_located_errors(tmp_path, capsys, text, where, what):
    p = tmp_path / "bad.regex"
    p.write_text(text)
    code = main(["crasp", "empty", str(p)])
    err = capsys.readouterr().err
    assert code == InputError.exit_code
    assert f"bad.regex:{where}: error:" in err and what in err and "^" in err
    assert "Traceback" not in err
