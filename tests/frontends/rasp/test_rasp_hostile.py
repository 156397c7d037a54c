"""Hostile RASP input (issue 21) and the REPL's reading of inputs (issue 19), ``draw`` (issue 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kinduct.frontends.rasp.cli import MAX_CHECK_LENGTH
from kinduct.frontends.rasp.evaluate import MAX_INPUT, split_input
from kinduct.frontends.rasp.interp import MAX_DIGITS
from kinduct.frontends.rasp.syntax import MAX_NESTING
from kinduct.kernel.errors import InputError
from tests.conftest import EXAMPLES
from tests.frontends.rasp.rasp_helpers import kinduct, kinduct_json

RASP = EXAMPLES / "rasp"

# (name, program, where, message fragment): every one refused at file:line:col.
HOSTILE = [
    ("deep-not", "s = " + "not " * 3000 + "True;\n", "1:", f"nests deeper than {MAX_NESTING} levels"),
    ("long-sum", "s = " + " + ".join(["indices"] * 3000) + ";\n", "1:", "nests deeper than"),
    ("deep-parens-call", "s = " + "abs(" * 500 + "1" + ")" * 500 + ";\n", "1:", "nests deeper"),
    ("huge-literal", "s = indices + " + "9" * 20000 + ";\n", "1:15",
     f"number of 20000 digits (at most {MAX_DIGITS}"),
    ("huge-decimal", "s = indices + 1." + "5" * 500 + ";\n", "1:15", "digits"),
    ("huge-range", "x = range(1000000000000000);\ns = tokens;\n", "1:5", "range() of more than"),
    ("range-in-comprehension", "x = [i for i in range(100000000)];\ns = tokens;\n", "1:",
     "range() of more than"),
    ("power-tower", "x = 9^9^9^9;\ns = tokens;\n", "1:", "exponent too large"),
    ("huge-power", "x = 10^100000000;\ns = tokens;\n", "1:5", "exponent too large"),
    ("endless-recursion", "def f(x) { return f(x); }\ns = f(1);\n", "1:", "recursion too deep"),
    ("nul-byte", "s = tokens;\x00\n", "1:12", "unexpected character '\\x00'"),
]


@pytest.mark.parametrize(("name", "source", "where", "message"), HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_program_is_refused_with_a_location(capsys, tmp_path: Path, name, source, where,
                                                    message):
    prog = tmp_path / f"{name}.rasp"
    prog.write_text(source)
    code, _, err = kinduct(capsys, "rasp", "eval", prog, "s", "ab")
    assert code == InputError.exit_code, err
    assert "Traceback" not in err
    head = err.splitlines()[0]
    assert head.startswith(f"kinduct: {prog}:{where}"), head
    assert message in head, head
    assert err.rstrip().splitlines()[-1].strip() == "^"


def test_not_utf8_is_located(capsys, tmp_path: Path):
    prog = tmp_path / "latin1.rasp"
    prog.write_bytes(b"s = tokens;\n# caf\xe9\n")
    code, _, err = kinduct(capsys, "rasp", "eval", prog, "s", "ab")
    assert code == InputError.exit_code
    assert err.startswith(f"kinduct: {prog}:2:6: error: not UTF-8: byte 0xe9 at byte offset 17")


def test_long_inputs_and_lengths_are_refused_clearly(capsys):
    code, _, err = kinduct(capsys, "rasp", "eval", RASP / "hist.rasp", "hist", "ab" * 60000)
    assert code == InputError.exit_code and f"at most {MAX_INPUT}" in err
    code, _, err = kinduct(capsys, "rasp", "check", RASP / "hist.rasp", "--assert", "hist",
                           "--alphabet", "ab", "--max-length", "1000000000")
    assert code == InputError.exit_code and f"at most {MAX_CHECK_LENGTH}" in err


def test_input_of_the_longest_length_evaluates(capsys):
    code, out = kinduct_json(capsys, "rasp", "eval", RASP / "reverse.rasp", "reverse", "ab" * 100)
    assert code == 0 and out["output"] == list("ba" * 100)


# Issue 19: a string is a sequence of characters; token lists are written as the REPL's lists.
@pytest.mark.parametrize(("text", "tokens"), [
    ("hiya howdy", list("hiya howdy")),
    ("hello", list("hello")),
    (" a", [" ", "a"]),
    ("[12, 3, 4]", ["12", "3", "4"]),
    ("[ca, 'bb', \"aa\"]", ["ca", "bb", "aa"]),
    ("[a]", ["a"]),
])
def test_inputs_read_as_the_repl_reads_them(text, tokens):
    assert split_input(text) == tokens


def test_hist_counts_the_space(capsys):
    code, out = kinduct_json(capsys, "rasp", "eval", RASP / "hist.rasp", "hist", "hiya howdy")
    assert code == 0
    assert out["input"] == list("hiya howdy")
    assert out["output"] == [2, 1, 2, 1, 1, 2, 1, 1, 1, 2]
    code, text, _ = kinduct(capsys, "rasp", "eval", RASP / "hist.rasp", "hist", "hiya howdy")
    assert text.strip() == "hist('hiya howdy') = [2, 1, 2, 1, 1, 2, 1, 1, 1, 2]"


def test_token_list_output_is_written_as_a_list(capsys):
    code, text, _ = kinduct(capsys, "rasp", "eval", RASP / "sort.rasp", "sort_nobos", "[ca, bb, aa]")
    assert code == 0 and text.strip() == "sort_nobos([ca, bb, aa]) = [aa, bb, ca]"


def test_empty_token_in_a_list_is_an_error(capsys):
    code, _, err = kinduct(capsys, "rasp", "eval", RASP / "sort.rasp", "sort_nobos", "[ca,, aa]")
    assert code == InputError.exit_code and "empty token" in err


# Issue 20: draw wraps long titles instead of clipping, shows values, and draws no blank panel.
def test_draw_picture_titles_values_and_panels(capsys, tmp_path: Path, monkeypatch):
    from matplotlib.figure import Figure

    saved: list[Figure] = []
    original = Figure.savefig

    def keep(self, *args, **kwargs):
        saved.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    prog = tmp_path / "long.rasp"
    long_name = "a_selector_with_a_remarkably_long_name_that_would_not_fit_in_a_title"
    prog.write_text(f"{long_name} = select(tokens, tokens, ==);\n"
                    f"out = aggregate({long_name}, indices, 0);\n")
    code, _, err = kinduct(capsys, "rasp", "draw", prog, "out", "aab", "--out", tmp_path / "a.png")
    assert code == 0, err
    code, _, err = kinduct(capsys, "rasp", "draw", RASP / "most_freq.rasp", "most_freq",
                           "--out", tmp_path / "b.png")
    assert code == 0, err
    with_input, without_input = saved
    titles = [ax.get_title() for ax in with_input.axes]
    assert any(long_name in t.replace("\n", "") for t in titles)
    assert not any("..." in t for t in titles)
    texts = [t.get_text() for ax in with_input.axes for t in ax.texts]
    # aggregate(sel, indices) on "aab": positions 0 and 1 average 0 and 1, position 2 is 2
    assert texts.count("0.5") == 2 and "2" in texts
    # most_freq has 2 + 1 + 1 heads on a 3 x 2 grid: only the four heads get panels, each
    # with its selector written in it.
    assert len(without_input.axes) == 4
    assert all(ax.texts and ax.texts[0].get_text() for ax in without_input.axes)
