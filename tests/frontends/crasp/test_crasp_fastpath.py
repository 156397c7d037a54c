"""The line reader (``crasp/lines.py``) against lark's reading of the whole text.

The oracle is the parser as it was before the fast path: lark's tree of the whole program, the
depth and digit limits walked on that tree, then the same alphabet, name and type checks.  On
random programs, mutated token by token (lark's lexer quirks, unicode operators, stray
characters, long literals), both give the same program with the same positions or the same
located error.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Tree
from lark.exceptions import UnexpectedInput

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp import parser as P
from kinduct.frontends.crasp.ast import to_source
from kinduct.kernel.errors import InputError
from tests.frontends.crasp.crasp_strategies import programs


def _oracle_limits(tree: Tree, text: str) -> None:
    stack: list[tuple[Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > P.MAX_DEPTH + 2:
            raise P.located_error(f"the expression nests deeper than {P.MAX_DEPTH} operators (split it into "
                         "several rules)", P.position_of(node.meta), text, None)
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth + 1))
            elif child.type == "INT" and len(child) > P.MAX_DIGITS:
                raise P.located_error(f"integer literal of {len(child)} digits (at most {P.MAX_DIGITS} "
                             "digits are accepted)", P.position_of(child), text, None)


def oracle(text: str) -> A.Program:
    """The whole text read by lark (the parser before the line reader)."""
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = P.lark_parser().parse(text)
    except UnexpectedInput as exc:
        raise P.syntax_error(exc, text, None) from None
    _oracle_limits(tree, text)
    builder = P.TreeBuilder({}, {})
    items = builder.transform(tree)
    _, letters, _ = items[0]
    alphabet: list[str] = []
    for letter, pos in letters:
        if letter in alphabet:
            raise P.located_error(f"letter '{letter}' appears twice in the alphabet", pos, text, None)
        alphabet.append(letter)
    rules, accept = [], None
    for item in items[1:]:
        if item[0] == "rule":
            rules.append((item[1], item[2], item[3]))
        else:
            if accept is not None:
                raise P.located_error("only one 'accept' declaration is allowed", item[2], text, None)
            accept = (item[1], item[2])
    return P.check_program(tuple(alphabet), rules, accept, text, None, builder.params)


def _outcome(read, text: str):
    try:
        program = read(text)
    except InputError as exc:
        return ("error", str(exc))
    places = [(r.pos, [e.pos for e in A.walk(r.expr)]) for r in program.rules]
    return ("ok", program, places)


def assert_same(text: str) -> None:
    assert _outcome(P.parse, text) == _outcome(oracle, text), text


# Tokens for mutations: lark's contextual lexer reads `X := and` as a reference (and `a andx`
# as `a` followed by a second rule `andx`); unicode spellings; limits; characters no token starts with.
VOCAB = ["(", ")", "#", "#[0,1]", "#[2,1]", "[", "]", ",", "?", ":", ":=", "+", "-", "<", "<=", "=",
         "!=", "≤", "≠", "and", "or", "not", "¬", "!", "&&", "||", "∧", "∨", "⊤", "⊥", "true",
         "false", "min(", "max(", "period(1,0)", "period", "'a'", "'b'", '"a"', "x", "andx", "orb",
         "notx", "accept", "alphabet", "min", "1", "007", "9" * 19, "--", "\t", "\r", "@", "é", "'",
         "C1", "B0", "\f", ")", "(", "((",
         # the paper's notations (issue 42): lark reads them, the line reader must agree
         "#[", "#]", "2%0", "%", "#_{0,1}", "#_{", "}", "C_{[}", "C_[", "C_]", "a", "b", "\\land",
         "\\neg", "\\#", "\\leq"]


@st.composite
def mutated(draw) -> str:
    program = draw(programs(max_rules=4, depth=3))
    lines = to_source(program).splitlines()
    for _ in range(draw(st.integers(0, 3))):
        k = draw(st.integers(0, len(lines) - 1))
        toks = lines[k].split(" ")
        op = draw(st.sampled_from(["insert", "delete", "replace", "glue", "dup-line", "drop-line"]))
        j = draw(st.integers(0, len(toks) - 1))
        if op == "insert":
            toks.insert(j, draw(st.sampled_from(VOCAB)))
        elif op == "delete" and len(toks) > 1:
            del toks[j]
        elif op == "replace":
            toks[j] = draw(st.sampled_from(VOCAB))
        elif op == "glue" and j + 1 < len(toks):
            toks[j:j + 2] = [toks[j] + toks[j + 1]]
        elif op == "dup-line":
            lines.insert(k, lines[k])
        elif op == "drop-line" and len(lines) > 1:
            del lines[k]
            continue
        lines[k] = " ".join(toks)
    sep = draw(st.sampled_from(["\n", "\r\n", "\n\n", "\n-- c\n"]))
    return sep.join(lines) + draw(st.sampled_from(["\n", "", "\r\n", "\n  \n"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_random_lines_read_as_lark_reads_them(text):
    assert_same(text)


@settings(max_examples=60, deadline=None)
@given(programs(max_rules=5, depth=4))
def test_valid_programs_read_as_lark_reads_them(program):
    assert_same(to_source(program))


A2 = "alphabet 'a', 'b'\n"

QUIRKS = [
    A2 + "X := 'a' andx\n",          # lark: a second rule andx without ':=' (an error)
    A2 + "x := 'a'\nX := x orb\n",
    A2 + "X := and\n",               # a reference to a rule named `and`
    A2 + "X := 'a'\naccept not\n",
    A2 + "true := 'a'\n",
    A2 + "X := 'a'\nalphabet := 'a'\n",
    "-- c\n\n  alphabet 'a' -- the letters\r\nX := 'a' ∧ ¬'a' ∨ ⊤\r\n",
    "alphabet \"a\", 'bc'\nX := #[0,1](('bc')) ≥ (1) ? 2 : 3\n",
    A2 + "X := min(1, max(2, 3)) + #'a' - period(2, 1)\n",  # a type error, after the syntax
    A2 + "X := ((((((1 + 2)))))) < 3 ? 1 : 2 ? 3 : 4\n",
    A2 + "X := 1 < 2 < 3\n",
    A2 + "X := 'a' ? 1 : 2\nY := X > 1 and not not X = 1\n",
    A2 + "X := not 'a' ? 1 : 2 \t\n",
    "",
    "\n\n-- nothing\n",
    "alphabet\n",
    A2 + "X := 'a'\n\f\n",
    A2 + "X := 'a' @\n",
    A2 + "X := 1 +\n",
    A2 + "X := (1 + 2\n",
    A2 + "X := (1 + 2))\n",
    A2 + "X := min(1 2)\n",
    A2 + "X := period(1,)\n",
    A2 + "X := #[1](1)\n",
    A2 + "X := 'a'\nY := 'b' Z := 1\n",
    A2 + "X := " + "9" * 5000 + " > 1\n",
    A2 + "X := #[0," + "9" * 30 + "]('a') > 1\n",
    A2 + "X := period(" + "1" * 20 + ", 0)\n",
    A2 + "X := " + "not " * 300 + "'a'\nY := 1 > " + "9" * 20 + "\n",
    A2 + "Y := 1 > " + "9" * 20 + "\nX := " + "not " * 300 + "'a'\n",
    A2 + "X := " + " + ".join(["1"] * 250) + " > " + "9" * 20 + "\n",
    A2 + "X := " + "(" * 3000 + "'a'" + ")" * 3000 + "\n",
    A2 + "X := " + "(" * 3000 + "'a'" + ")" * 2999 + "\n",
    A2 + "X := " + "1 + " * 201 + "1 > 0\n",
    A2 + "X := " + "1 + " * 200 + "1 > 0\n",
    A2 + "X := " + "min(" * 250 + "1" + ", 1)" * 250 + " > 0\n",
]


@pytest.mark.parametrize("text", QUIRKS)
def test_quirks_and_limits_read_as_lark_reads_them(text):
    assert_same(text)


def test_deep_parentheses_read_without_recursion_in_linear_time():
    """Parentheses do not count towards the depth limit: a million of them are read."""
    n = 1_000_000
    text = A2 + "X := " + "(" * n + "'a'" + ")" * n + "\n"
    start = time.process_time()
    program = P.parse(text)
    assert program.rules[0].expr == A.Letter("a")
    assert time.process_time() - start < 20


def test_lark_reads_single_lines_after_the_alphabet(monkeypatch):
    """A syntax error late in a big program, or many lines only lark reads (a lexer quirk), cost
    lark the line alone: it reads the alphabet's line and that line."""
    body = "".join(f"C{i} := #('a') + {i}\n" for i in range(20_000))
    text = A2 + body + "B := C1 > 2 +\n"
    # `2%1` (the paper's period) is read by lark only
    quirky = A2 + "x := 'a'\n" + "".join(f"B{i} := x and 2%1\n" for i in range(2_000))
    windows: list[int] = []
    real = P.lark_parser

    class Spy:
        def parse(self, window):
            windows.append(len(window))
            return real().parse(window)

        def __getattr__(self, name):
            return getattr(real(), name)

    monkeypatch.setattr(P, "lark_parser", Spy)
    with pytest.raises(InputError) as err:
        P.parse(text, "big.crasp")
    assert str(err.value).startswith("big.crasp:20002:14: error: unexpected end of line, expected "
                                     "an expression")
    assert windows == [len(A2) + len("B := C1 > 2 +\n")]
    windows.clear()
    program = P.parse(quirky, "quirky.crasp")
    assert program.rules[-1] == A.Rule("B1999", A.And(A.Ref("x"), A.Period(2, 1)), A.Kind.BOOL)
    assert program.rules[-1].expr.right.pos == (2002, 16)
    assert len(windows) == 2_000 and max(windows) < 40
