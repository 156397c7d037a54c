"""Hostile VMT input (issue 21): every bad model is refused with a located one-line error."""

from __future__ import annotations

import pytest

from kinduct.frontends.vmt.lexer import MAX_DIGITS
from kinduct.frontends.vmt.reader import parse_vmt
from kinduct.kernel.errors import InputError
from tests.conftest import EXAMPLES

COUNTER = (EXAMPLES / "vmt" / "counter.vmt").read_text()


def _with(old: str, new: str) -> str:
    assert old in COUNTER
    return COUNTER.replace(old, new)


# (name, text, expected line:col, message fragment)
CASES = [
    ("duplicate property index",
     COUNTER + "\n(define-fun p2 () Bool (! (>= x 0) :invar-property 0))\n", (10, 52), "used twice"),
    ("property index not a numeral", _with(":invar-property 0", ":invar-property foo"), (8, 55),
     "must be a numeral"),
    ("20,000-digit numeral", _with("(<= x 10)", "(<= x " + "9" * 20000 + ")"), (8, 35),
     f"at most {MAX_DIGITS} digits"),
    ("20,000-digit decimal", _with("(<= x 10)", "(<= x 1." + "9" * 20000 + ")"), (8, 35),
     f"at most {MAX_DIGITS} digits"),
    ("20,000-digit property index", _with(":invar-property 0", ":invar-property " + "9" * 20000),
     (8, 55), "digits"),
    (":next on a term", _with("(! x :next xn)", "(! (+ x 1) :next xn)"), (5, 42), "not a variable"),
    ("two next copies", COUNTER + "\n(define-fun sv.y () Int (! x :next reset))\n", (5, 36),
     "two next-state copies"),
    ("shared next copy", COUNTER + "\n(declare-fun y () Int)(define-fun sv.y () Int (! y :next xn))\n",
     (5, 36), "next copy of both"),
    ("next copy of another type", _with("(declare-fun xn () Int)", "(declare-fun xn () Bool)"),
     (7, 72), "not well-formed"),
    ("non-Boolean property", _with("(! (<= x 10) :invar-property 0)", "(! x :invar-property 0)"),
     (8, 1), "Typing error"),
    ("unknown symbol", _with("(+ x 1)", "(+ x y)"), (7, 69), "unknown symbol 'y'"),
    ("unknown command", "(((", (1, 2), "unknown command"),
    ("stray closing parenthesis", ")))", (1, 1), "Expected '('"),
    ("truncated", COUNTER[: len(COUNTER) // 2], (6, 2), "unknown command"),
    ("missing closing parenthesis", COUNTER.rstrip()[:-1], (8, 57), "Expected ')'"),
    ("empty file", "", (1, 1), "no :invar-property"),
    ("no property", COUNTER.split("(define-fun prop")[0], (7, 87), "no :invar-property"),
    ("unterminated quoted symbol", "(declare-fun |x () Int)", (1, 14), "unterminated quoted"),
    ("unterminated string", '(set-info :source "abc)', (1, 19), "unterminated string"),
    ("unsupported annotation", _with(":invar-property 0", ":live-property 0"), (8, 39),
     "unsupported"),
    ("huge bit-vector", _with("(declare-fun reset () Bool)", "(declare-fun b () (_ BitVec 100000000))"),
     (4, 29), "bit-vector width 100000000 is too large"),
    ("NUL byte", _with("(<= x 10)", "(<= x\x00 10)"), (8, 33), "unknown symbol 'x\\x00'"),
]


@pytest.mark.parametrize("name,text,where,fragment", CASES, ids=[c[0] for c in CASES])
def test_bad_vmt_is_refused_with_a_location(name, text, where, fragment):
    with pytest.raises(InputError) as info:
        parse_vmt(text, "bad.vmt")
    err = info.value
    assert err.location is not None and err.location.file == "bad.vmt"
    assert (err.location.line, err.location.column) == where, err.render()
    assert fragment in err.message, err.render()
    head = err.render().splitlines()[0]
    assert head.startswith(f"bad.vmt:{where[0]}:{where[1]}: error: ")


def test_deep_nesting_within_the_limit_is_read():
    deep = "(ite (= x 0) 1 " * 3000 + "0" + ")" * 3000
    system = parse_vmt(_with("(<= x 10)", f"(<= x (+ 10 {deep}))"), "deep.vmt")
    assert [p.name for p in system.properties] == ["P0"]


def test_properties_sorted_by_index():
    text = COUNTER + "\n(define-fun q () Bool (! (>= x 0) :invar-property 10))\n" \
                     "(define-fun r () Bool (! (>= x -1) :invar-property 2))\n"
    assert [p.name for p in parse_vmt(text, "m.vmt").properties] == ["P0", "P2", "P10"]
