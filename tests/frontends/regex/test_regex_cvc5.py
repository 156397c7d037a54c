"""Regular expressions as the cvc5 regex-proofs paper has them (``../shared/seeds/``):
ranges, multi-letter literals, the SMT-LIB constructors, and ``kinduct regex match|derive``,
checked against Python's ``re`` (an independent matcher) on random regexes and words, and
against the paper's Examples 5 and 6 (derivatives of a*b by "aab")."""

from __future__ import annotations

import json
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinduct.frontends.regex.parser import parse
from kinduct.kernel.errors import InputError
from tests.conftest import EXAMPLES
from tests.frontends.crasp.crasp_cli import run_main

CVC5 = EXAMPLES / "regex" / "cvc5"
SIGMA = "abc"
HEAD = "alphabet 'a', 'b', 'c'\n"

_letters = st.sampled_from(SIGMA)
_leaves = st.one_of(
    st.tuples(st.just("chr"), _letters),
    st.tuples(st.just("rng"), _letters, _letters).map(lambda t: ("rng", *sorted(t[1:]))),
    st.tuples(st.just("word"), st.text(SIGMA, min_size=2, max_size=3)),
    st.just(("any",)), st.just(("eps",)))


def _extend(kids):
    return st.one_of(
        st.tuples(st.sampled_from(["cat", "alt"]), kids, kids),
        st.tuples(st.sampled_from(["star", "plus", "opt"]), kids),
        st.tuples(st.just("loop"), kids, st.integers(0, 2), st.integers(0, 2)).map(
            lambda t: ("loop", t[1], min(t[2:]), max(t[2:]))),
        st.tuples(st.just("pow"), kids, st.integers(0, 3)))


TREES = st.recursive(_leaves, _extend, max_leaves=6)
WORDS = st.lists(st.text(SIGMA, max_size=7), min_size=1, max_size=12)


def infix(t) -> str:
    op = t[0]
    if op == "chr":
        return t[1]
    if op == "rng":
        return f"[{t[1]}-{t[2]}]"
    if op == "word":
        return f"'{t[1]}'"
    if op == "any":
        return "."
    if op == "eps":
        return "()"
    if op in ("cat", "alt"):
        return f"({infix(t[1])}{' ' if op == 'cat' else '|'}{infix(t[2])})"
    if op in ("star", "plus", "opt"):
        return f"({infix(t[1])}){ {'star': '*', 'plus': '+', 'opt': '?'}[op] }"
    body = f"({infix(t[1])})"
    low, high = (t[2], t[3]) if op == "loop" else (t[2], t[2])
    return "(" + body * low + f"{body}?" * (high - low) + ")" if high else "()"


def smtlib(t) -> str:
    op = t[0]
    if op == "chr":
        return f'(str.to_re "{t[1]}")'
    if op == "rng":
        return f'(re.range "{t[1]}" "{t[2]}")'
    if op == "word":
        return f'(str.to_re "{t[1]}")'
    if op == "any":
        return "re.allchar"
    if op == "eps":
        return '(str.to_re "")'
    if op in ("cat", "alt"):
        return f"({'re.++' if op == 'cat' else 're.union'} {smtlib(t[1])} {smtlib(t[2])})"
    if op in ("star", "plus", "opt"):
        return f"({ {'star': 're.*', 'plus': 're.+', 'opt': 're.opt'}[op] } {smtlib(t[1])})"
    if op == "loop":
        return f"((_ re.loop {t[2]} {t[3]}) {smtlib(t[1])})"
    return f"((_ re.^ {t[2]}) {smtlib(t[1])})"


def functional(t) -> str:
    """The cvc5 paper's notation (none, to_re, comp, star, rcon, union, inter, ε)."""
    op = t[0]
    if op in ("chr", "word"):
        return f'to_re("{t[1]}")'
    if op == "rng":
        letters = [c for c in SIGMA if t[1] <= c <= t[2]]
        return "union(" + ", ".join(f'to_re("{c}")' for c in letters) + ")"
    if op == "any":
        return 'union(to_re("a"), to_re("b"), to_re("c"))'
    if op == "eps":
        return "ε"
    if op in ("cat", "alt"):
        return f"{'rcon' if op == 'cat' else 'union'}({functional(t[1])}, {functional(t[2])})"
    if op == "star":
        return f"star({functional(t[1])})"
    if op == "plus":
        return f"rcon({functional(t[1])}, star({functional(t[1])}))"
    if op == "opt":
        return f"union(ε, {functional(t[1])})"
    low, high = (t[2], t[3]) if op == "loop" else (t[2], t[2])
    copies = [functional(t[1])] * low + [f"union(ε, {functional(t[1])})"] * (high - low)
    return "rcon(" + ", ".join(copies or ["ε"]) + ")"


def python(t) -> str:
    op = t[0]
    if op == "chr":
        return t[1]
    if op == "rng":
        return f"[{t[1]}-{t[2]}]"
    if op == "word":
        return f"(?:{t[1]})"
    if op == "any":
        return "[abc]"
    if op == "eps":
        return "(?:)"
    if op == "cat":
        return f"(?:{python(t[1])})(?:{python(t[2])})"
    if op == "alt":
        return f"(?:{python(t[1])}|{python(t[2])})"
    if op in ("star", "plus", "opt"):
        return f"(?:{python(t[1])}){ {'star': '*', 'plus': '+', 'opt': '?'}[op] }"
    if op == "loop":
        return f"(?:{python(t[1])}){{{t[2]},{t[3]}}}"
    return f"(?:{python(t[1])}){{{t[2]}}}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES, WORDS)
def test_match_agrees_with_python_re(tree, words):
    pattern = re.compile(python(tree))
    a = parse(HEAD + infix(tree) + "\n")
    b = parse(HEAD + smtlib(tree) + "\n")
    c = parse(HEAD + functional(tree) + "\n")
    for w in words:
        want = pattern.fullmatch(w) is not None
        assert a.accepts(w) is want, (infix(tree), w)
        assert b.accepts(w) is want, (smtlib(tree), w)
        assert c.accepts(w) is want, (functional(tree), w)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES, st.text(SIGMA, max_size=4), WORDS)
def test_derivative_by_a_prefix_matches_the_rest(tree, prefix, rests):
    # the derivative by u matches v exactly when the regex matches uv (Brzozowski)
    pattern = re.compile(python(tree))
    r = parse(HEAD + smtlib(tree) + "\n")
    d = r.term
    for letter in prefix:
        d = r.algebra.deriv(d, letter)
    for v in rests:
        assert r.algebra.matches(d, v) is (pattern.fullmatch(prefix + v) is not None)
    assert r.algebra.nullable(d) is (pattern.fullmatch(prefix) is not None)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES, TREES, WORDS)
def test_boolean_constructors(t1, t2, words):
    p1, p2 = re.compile(python(t1)), re.compile(python(t2))
    s1, s2 = smtlib(t1), smtlib(t2)
    forms = {
        "inter": (f"(re.inter {s1} {s2})", f"({infix(t1)})&({infix(t2)})", lambda x, y: x and y),
        "diff": (f"(re.diff {s1} {s2})", f"({infix(t1)})&~({infix(t2)})", lambda x, y: x and not y),
        "comp": (f"(re.comp {s1})", f"~({infix(t1)})", lambda x, y: not x),
        "union": (f"(re.union {s1} {s2} re.none)", f"({infix(t1)})|({infix(t2)})",
                  lambda x, y: x or y),
    }
    for smt_text, infix_text, combine in forms.values():
        smt, inf = parse(HEAD + smt_text + "\n"), parse(HEAD + infix_text + "\n")
        for w in words:
            want = combine(p1.fullmatch(w) is not None, p2.fullmatch(w) is not None)
            assert smt.accepts(w) is want and inf.accepts(w) is want, (smt_text, w)


def test_paper_examples_5_and_6(capsys):
    # Example 6: with the simplifications, the derivative of a*b by "a" remains a*b, and the
    # final derivative by "aab" is simply ε, which is nullable
    for name in ("astarb.regex", "astarb_smtlib.regex", "astarb_paper.regex"):
        code, out, err = run_main(capsys, "regex", "derive", CVC5 / name, "aab", "--json")
        assert code == 0, err
        got = json.loads(out)
        assert got["regex"] == "a*b"
        assert [s["derivative"] for s in got["steps"]] == ["a*b", "a*b", "()"]
        assert [s["nullable"] for s in got["steps"]] == [False, False, True]
        assert got["derivative"] == "()" and got["nullable"] is True


def test_paper_example5_expressions_are_its_simplified_derivatives():
    # Example 5 prints the unsimplified derivatives of a*b (by "a", then by "aab"); the
    # normal form turns them into Example 6's: a*b and ε
    head = "alphabet 'a', 'b'\n"
    by_a = parse(head + "∅ ∪ (ε · a*) · b\n")
    final = parse(head + "∅ ∪ (∅ ∪ (ε ∪ ((((∅ · a*) ∪ (∅ · a*)) ∪ (∅ · a*)) · b)))\n")
    assert str(by_a.term) == "a*b" and str(final.term) == "()"
    ab = parse(head + "a*b\n")
    assert by_a.term == ab.algebra.deriv(ab.term, "a")
    assert final.algebra.nullable(final.term)


def test_match_command(capsys):
    code, out, _ = run_main(capsys, "regex", "match", CVC5 / "astarb.regex", "aab")
    assert code == 0 and out.strip() == "aab matches a*b"
    code, out, _ = run_main(capsys, "regex", "match", CVC5 / "astarb.regex", "aba", "--json")
    assert code == 0 and json.loads(out) == {"regex": "a*b", "word": "aba", "matches": False}
    code, out, _ = run_main(capsys, "regex", "match", CVC5 / "astarb.regex", "", "--json")
    assert json.loads(out)["matches"] is False  # a*b needs its b
    code, out, _ = run_main(capsys, "regex", "derive", CVC5 / "astarb.regex", "ab")
    assert "d/da: a*b    nullable: no" in out and "nullable: yes (the word matches)" in out


def test_ranges_and_words_examples(capsys):
    pattern = re.compile("(?:ab[b-c])+")
    for name in ("ranges.regex", "ranges_smtlib.regex"):
        for word in ("abb", "abcabb", "ab", "abd", "abbab", "abcabc"):
            code, out, _ = run_main(capsys, "regex", "match", CVC5 / name, word, "--json")
            assert code == 0
            assert json.loads(out)["matches"] is (pattern.fullmatch(word) is not None), word


@pytest.mark.parametrize("args,code,message", [
    (["match", CVC5 / "astarb.regex", "abx"], 2, "letter 'x' of the word is not in the alphabet"),
    (["derive", EXAMPLES / "crasp" / "dyck1.crasp", "[]"], 3, "dyck1.crasp:"),
    (["match", CVC5 / "missing.regex", "a"], 3, "missing.regex: no such file"),
])
def test_command_errors(capsys, args, code, message):
    got, out, err = run_main(capsys, "regex", *args)
    assert got == code, out + err
    assert message in err and "Traceback" not in err


def test_crasp_eval_points_to_regex_match(capsys):
    code, _, err = run_main(capsys, "crasp", "eval", CVC5 / "astarb.regex", "aab")
    assert code == 2 and "kinduct regex match" in err


@pytest.mark.parametrize("body,where,message", [
    ("[c-a]", "2:2", "the range 'c'-'a' is empty"),
    ("a-b", "2:2", "a range is written inside a class"),
    ("'ad'", "2:3", "letter 'd' is not in the alphabet"),
    ('(re.++ (str.to_re "ad"))', "2:21", "letter 'd' is not in the alphabet"),
    ("(re.foo a)", "2:2", "unknown regular expression operator 're.foo'"),
    ("(re.* re.all re.all)", "2:1", "re.* takes 1 argument(s), got 2"),
    ("(re.++ re.all", "2:14", "expected ')'"),
    ("(re.++ re.all) a", "2:16", "unexpected text after the term"),
    ("((_ re.loop 2) re.all)", "2:2", "takes 2 numeral(s), got 1"),
    ("((_ re.^ 5000) re.all)", "2:10", "too large"),
    ("(re.union" * 150 + " re.all" + ")" * 150, "2:", "nests deeper than"),
    ("(str.to_re a)", "2:12", "expected a string literal"),
    ('rcon(to_re("a") to_re("b"))', "2:17", "missing ',' before 'to_re'"),
    ('rcon(to_re("a"),)', "2:17", "unexpected ')' after ','"),
    ('star(to_re("a"), ε)', "2:1", "star takes 1 argument(s), got 2"),
    ('star((to_re("a")))', "2:6", "unexpected '('"),
    ('(re.++ re.all, re.all)', "2:14", "unexpected character ','"),
    # loops and nested re.+ that would print to billions of nodes are refused at once
    ('((_ re.^ 1000) ((_ re.^ 1000) ((_ re.^ 1000) (str.to_re "ab"))))', "2:17",
     "expands to too many terms"),
    ("(re.+ " * 70 + '(str.to_re "ab")' + ")" * 70, "2:", "expands to too many terms"),
])
def test_syntax_errors_are_located(body, where, message):
    start = time.process_time()
    with pytest.raises(InputError) as info:
        parse(HEAD + body + "\n", "r.regex")
    assert f"r.regex:{where}" in str(info.value) and message in str(info.value), str(info.value)
    assert time.process_time() - start < 10


def test_smtlib_range_edge_cases_follow_smtlib():
    # re.range with an end that is not one character, or backwards, is the empty language
    for body in ('(re.range "c" "a")', '(re.range "ab" "c")', '(re.range "" "c")',
                 '((_ re.loop 3 1) (str.to_re "a"))'):
        r = parse(HEAD + body + "\n")
        assert not any(r.accepts(w) for w in ("", "a", "b", "c", "aa", "aaa"))
    # a range may reach beyond the alphabet: its letters of the alphabet
    assert parse(HEAD + "[a-z]\n").accepts("c")
