"""The RASP reader (``rasp/reader.py``) against lark's reading of the whole text.

The oracle is the parser before the reader: lark's tree of the whole program and the nesting
walk of that tree.  On the standard library, the examples and random token-level mutations of
them, both give equal trees with the same places on every node and token, or the same located
error.
"""

from __future__ import annotations

import time
from pathlib import Path

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Token, Tree

from kinduct.frontends.rasp import syntax as S
from kinduct.kernel.errors import InputError
from tests.conftest import EXAMPLES

SOURCES = [Path(S.__file__).with_name("stdlib.rasp").read_text()] + [
    p.read_text() for p in sorted((EXAMPLES / "rasp").glob("*.rasp"))]


def oracle(text: str) -> Tree:
    """The whole text parsed by lark, nesting walked on the whole tree."""
    try:
        tree = S.parser().parse(text)
    except lark.UnexpectedInput as exc:
        raise S.syntax_error(exc, text, "f.rasp") from None
    S.check_nesting(tree, list(range(len(tree.children))), text, "f.rasp")
    return tree


def _places(tree: Tree) -> list:
    out = []
    for node in tree.iter_subtrees_topdown():
        meta = node.meta
        out.append((str(node.data), getattr(meta, "line", None), getattr(meta, "column", None)))
        out.extend((t.type, t.line, t.column, t.start_pos, t.end_pos) for t in node.children
                   if isinstance(t, Token))
    return out


def _outcome(read, text: str):
    try:
        tree = read(text)
    except InputError as exc:
        return ("error", str(exc))
    return ("ok", tree, [type(n.data) for n in tree.iter_subtrees()], _places(tree))


def assert_same(text: str) -> None:
    assert _outcome(lambda t: S.parse(t, "f.rasp"), text) == _outcome(oracle, text), text


VOCAB = ["(", ")", "[", "]", "{", "}", ",", ":", ";", "=", "==", "!=", "<", "+", "-", "*", "%",
         "^", "not", "and", "or", "in", "if", "else", "for", "def", "return", "load", "andx",
         "iff", "x", "f(", "1", "2.5", '"a"', "'b'", "#", "@", "\t", "\f", "\v", "\r", "\n", "\"",
         "[x for x in y]", "{1: 2}", "select(indices, indices, ==)", "== )", "k=1", "1.", "é"]


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from(SOURCES))
    lines = text.split("\n")
    start = draw(st.integers(0, max(len(lines) - 12, 0)))
    lines = lines[start:start + draw(st.integers(1, 12))]
    for _ in range(draw(st.integers(0, 3))):
        k = draw(st.integers(0, len(lines) - 1))
        toks = lines[k].split(" ")
        op = draw(st.sampled_from(["insert", "delete", "replace", "glue"]))
        j = draw(st.integers(0, len(toks) - 1))
        if op == "insert":
            toks.insert(j, draw(st.sampled_from(VOCAB)))
        elif op == "delete" and len(toks) > 1:
            del toks[j]
        elif op == "replace":
            toks[j] = draw(st.sampled_from(VOCAB))
        elif op == "glue" and j + 1 < len(toks):
            toks[j:j + 2] = [toks[j] + toks[j + 1]]
        lines[k] = " ".join(toks)
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n", "  # end"]))


@pytest.mark.parametrize("text", SOURCES, ids=range(len(SOURCES)))
def test_library_and_examples_read_as_lark_reads_them(text):
    assert_same(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_random_statements_read_as_lark_reads_them(text):
    assert_same(text)


QUIRKS = [
    "x = a andx b;",                 # lark: a and x b -> an error at b
    "x = a andx;",
    "if = 1; return = 2;",           # names at the top level, keywords in a body
    "def f() { return = 1; return 2; }",
    "x = not 1 == not 2;",
    "x = -2^-3^4 % 5 * 6 - - 7;",
    "x = a if b else c if d else e;",
    "x = a if b if c else d else e;",
    "x = f()()[0](k=1, ==, y)[1:2];",
    "x = [ ]; y = { }; z = {1: 2, 3: 4}; w = {k: v for k, v in q};",
    "x = [1, 2,];",
    "x = 1 < 2 < 3;",
    "x = 1 in 2 in 3;",
    "for i in {1: 2} { x = i; } y = 1;",
    "for i in range(3) { for j in [] { ; } }",
    "def f(a, b = 1 + 2, c) { def g() { return 1; } ; return a, b; }",
    "def f() { x = 1; }",
    "load \"x.rasp\"; load x;",
    "x = 1\ny = 2;",
    "x = (((1));",
    "x = 1 @ 2;",
    "x = \"abc\ny\";",
    "x = 1;\x00",
    "s = " + "(" * 300 + "1" + ")" * 300 + ";",
    "s = " + "abs(" * 60 + "1" + ")" * 60 + ";",
    "s = " + "[" * 45 + "1" + "]" * 45 + ";",
    "s = " + "not " * 99 + "1;",
    "s = " + "not " * 100 + "1;",
    "s = " + "f(" * 33 + ")" * 33 + ";",
    "s = " + "f(" * 34 + ")" * 34 + ";",
    "s = " + " + ".join(["1"] * 99) + ";\nt = 1;",
    "s = " + " + ".join(["1"] * 120) + ";\nt = " + "-" * 120 + "1;",
    "for i in x { " * 50 + "}" * 50,
    "for i in x { " * 50 + "}" * 49,
    "",
    "# only a comment",
    ";;;",
    "x = 1; # c\n\n\ty = 'a' + \"b\";\r\n",
]


@pytest.mark.parametrize("text", QUIRKS, ids=range(len(QUIRKS)))
def test_quirks_and_limits_read_as_lark_reads_them(text):
    assert_same(text)


def test_long_statements_and_chunks():
    """Statements across the reader's chunks of lines, and a long one read again, are read
    as lark reads them."""
    text = "".join(f"x{i} = f(a,\n  b) + [1,\n 2][0];\n" for i in range(3000))
    text += "def g(a) {\n" + "".join(f"  y{i} = a;\n" for i in range(5000)) + "  return a;\n}\n"
    assert_same(text)


def test_deep_parentheses_are_read_by_lark_in_linear_time():
    """Parentheses do not nest nodes; past the reader's recursion, lark reads the statement."""
    n = 50_000
    text = "x = 1;\ns = " + "(" * n + "1" + ")" * n + ";\ny = 2;\n"
    start = time.process_time()
    tree = S.parse(text, "f.rasp")
    assert [c.data for c in tree.children] == ["assign"] * 3
    assert tree.children[2].meta.line == 3
    assert time.process_time() - start < 30
