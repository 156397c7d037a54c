"""The ``.regex`` reader (``regex/reader.py``) against lark's reading of the whole text.

The oracle is the parser before the reader: lark's tree, then a transformer applying the
algebra's binary constructors in the tree's shape.  On random expressions, mutated character
by character, both give the same term or the same located error; long chains are read in
linear time; deep terms are refused at a place.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedInput, VisitError

from kinduct.frontends.regex import parser as P
from kinduct.frontends.regex.terms import EMPTY, EPS, Algebra
from kinduct.kernel.errors import InputError
from tests.frontends.regex.regex_strategies import source, trees


class _Oracle(Transformer):
    def __init__(self, algebra: Algebra, text: str) -> None:
        super().__init__()
        self.R, self.text = algebra, text
        self.bad_range: tuple[str, int, int] | None = None

    def _check(self, tok) -> str:
        ch = tok.value[1] if tok.type == "QUOTED" else tok.value
        if ch not in self.R.sigma:
            letters = ", ".join(repr(x) for x in self.R.alphabet)
            raise InputError.at(f"letter {ch!r} is not in the alphabet ({letters})", None,
                                self.text, tok.line, tok.column)
        return ch

    def letter(self, items):
        return self.R.chars([self._check(items[0])])

    def word(self, items):
        tok = items[0]
        letters = []
        for k, ch in enumerate(tok.value[1:-1]):
            letters.append(self._check(Token("BARE", ch, line=tok.line, column=tok.column + 1 + k)))
        return self.R.cat(*(self.R.chars([ch]) for ch in letters))

    def klass(self, items):
        letters = []
        for it in items:
            if it.data == "range":
                lo, hi = (t.value[1] if t.type == "QUOTED" else t.value for t in it.children)
                if lo > hi and self.bad_range is None:
                    self.bad_range = (f"the range {lo!r}-{hi!r} is empty ({lo!r} comes after "
                                      f"{hi!r})", it.children[0].line, it.children[0].column)
                letters += [x for x in self.R.alphabet if lo <= x <= hi]
            else:
                letters.append(self._check(it.children[0]))
        return self.R.chars(letters)

    def any(self, _items):
        return self.R.any()

    def eps(self, _items):
        return EPS

    def empty(self, _items):
        return EMPTY

    union = v_args(inline=True)(lambda self, a, b: self.R.alt(a, b))
    intersect = v_args(inline=True)(lambda self, a, b: self.R.inter(a, b))
    concat = v_args(inline=True)(lambda self, a, b: self.R.cat(a, b))
    complement = v_args(inline=True)(lambda self, a: self.R.neg(a))
    star = v_args(inline=True)(lambda self, a: self.R.star(a))
    plus = v_args(inline=True)(lambda self, a: self.R.plus(a))
    opt = v_args(inline=True)(lambda self, a: self.R.opt(a))


def oracle(text: str):
    try:
        tree = P.lark_parser().parse(text)
    except UnexpectedInput as exc:
        raise P.syntax_error(exc, text, None) from None
    letters = [P.Letter(t.value[1], t.line, t.column) for t in tree.children[0].children]
    alphabet = P.alphabet_of(letters, text, None)
    built = _Oracle(Algebra(alphabet), text)
    try:
        term = built.transform(tree.children[1])
    except VisitError as exc:
        raise exc.orig_exc from None
    if built.bad_range is not None:
        raise InputError.at(built.bad_range[0], None, text, *built.bad_range[1:])
    return alphabet, term


def _outcome(read, text: str):
    try:
        return ("ok", *read(text))
    except InputError as exc:
        return ("error", str(exc))


def assert_same(text: str) -> None:
    def fast(t):
        regex = P.parse(t)
        return regex.alphabet, regex.term

    assert _outcome(fast, text) == _outcome(oracle, text), text


VOCAB = ["(", ")", "[", "]", "|", "&", "~", "*", "+", "?", ".", ",", "'", "'c'", "'|'", "c",
         "--", "-", '"', "\n", "\t", "\f", "\v", "ab", "()", "a b", "alphabet", "é", "' '",
         "[a-b]", "b-a", "'ab'", '"ba"', '""', "'a'-'b'", "a-c", "∅", "ε", "∪", "∩", "·", "aεb"]


@st.composite
def mutated(draw) -> str:
    body = source(draw(trees))
    for _ in range(draw(st.integers(0, 3))):
        j = draw(st.integers(0, len(body)))
        op = draw(st.sampled_from(["insert", "delete", "space"]))
        if op == "insert":
            body = body[:j] + draw(st.sampled_from(VOCAB)) + body[j:]
        elif op == "delete":
            body = body[:j] + body[j + 1:]
        else:
            body = body[:j] + draw(st.sampled_from([" ", "\n", " -- c\n"])) + body[j:]
    head = draw(st.sampled_from(["alphabet 'a', 'b'\n", "alphabet 'a','b' ", "-- h\nalphabet 'b', 'a'\n",
                                 "alphabet 'a', 'b', 'a'\n", "alphabet 'a' ,\n", "alphabet\n",
                                 "alphabet ' ', 'a', 'b'\n", ""]))
    return head + body + draw(st.sampled_from(["\n", "", "  -- end\n"]))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_random_expressions_read_as_lark_reads_them(text):
    assert_same(text)


A = "alphabet 'a', 'b'\n"


@pytest.mark.parametrize("text", [
    A + "ab~a*b|(a&~b)+?()[ab]['a'b].", A + "~~a", A + "(((a)))*", A + "a|b|a", A + "[]", A + "( )",
    A + "alphabet", "alphabet'a'a", "alphabeta", A + "a ||b", A + "a)", A + "(a", A + "[a", A + "~",
    A + "a |", "alphabet 'a',", "", "-- only\n", A + "c", A + "[c]", A + "'c'", A + "a -- c\n|b",
    A + "a\f|b\r\n", A + "a\vb", A + "'ab'", A + '"a"', A + "a - b",
    A + "[a-b]*", A + "[ab-b]", A + "[b-a]", A + "[b-a][c]", A + "[a-]", A + "[-a]", A + "[a-b-a]",
    A + "['a'-'b'a]", A + "[a-bb]", A + "[a-z]", A + "'ab'*b", A + '"ab"+|""', A + "'ac'",
    A + "'ab", A + "('ab')*", A + "~'ab'", A + "[c-a]c",
    A + "∅ ∪ (ε · a*) · b", A + "a·b·", A + "·a", A + "a ∩ b ∪ ε", A + "[ε]", A + "(∅)*", A + "a··b",
])
def test_cases_read_as_lark_reads_them(text):
    assert_same(text)


@pytest.mark.parametrize("prefix", ["", "(", "((", "a(", "a|(", "(a|", "(a&", "(a ", "(~", "(a|b&",
                                    "a|", "a&", "~", "a (", "(a|~"])
def test_the_end_of_the_text_is_worded_as_lark_words_it(prefix):
    """At the end of the text the reader words the error itself (lark would read the whole
    text to find it): "expected an expression" exactly where lark expects a bare letter."""
    for last in ["a", "'a'", ".", "[a]", "(a)", "a*", "a+", "a?", "()", "", "~a", "~(a)*", "|", "&",
                 "~", "(", "[", "[a", "a b"]:
        assert_same(A + prefix + last)


@pytest.mark.slow  # 5-9 s: a 20,000-word union
def test_long_chains_read_in_linear_time():
    """A union of 20,000 words (lark's tree: 20,000 nested unions) is one algebra call."""
    words = [format(i, "b").replace("0", "a").replace("1", "b") for i in range(1, 20_001)]
    start = time.process_time()
    regex = P.parse(A + "\n| ".join(words) + "\n")
    assert len(regex.term.parts) == 20_000
    assert regex.accepts("bab") and not regex.accepts("abab")
    assert time.process_time() - start < 20


@pytest.mark.parametrize("body, where, what", [
    ("(" * 150 + "a" + ")b|a" * 150, "2:100", f"nests deeper than {P.MAX_DEPTH} levels"),
    ("(" * 150 + "ab" + ")&aa*|b" * 150, "2:", f"nests deeper than {P.MAX_DEPTH} levels"),
    ("~(a|" * 150 + "ab" + ")" * 150, "2:", f"nests deeper than {P.MAX_DEPTH} levels"),
    ("a" + "+?" * 60, "2:", "expands to too many terms"),
    ("(" * 40 + "a|b" + ")+" * 40, "2:", "expands to too many terms"),
])
def test_deep_or_exploding_terms_are_refused_at_a_place(body, where, what):
    start = time.process_time()
    with pytest.raises(InputError) as err:
        P.parse(A + body + "\n", "deep.regex")
    assert str(err.value).startswith(f"deep.regex:{where}") and what in str(err.value)
    assert time.process_time() - start < 20


def test_deep_parentheses_around_one_operand_are_read():
    regex = P.parse(A + "(" * 100_000 + "a" + ")" * 100_000 + "\n")
    assert regex.accepts("a")
