"""Located input errors: one line, the source excerpt and a caret under the column."""

from __future__ import annotations

from kinduct.kernel.errors import EXCERPT_WIDTH, InputError


def test_short_line_shown_whole_with_the_caret_under_the_column():
    text = "let\n  y = x +;\n"
    rendered = InputError.at("expected an expression", "m.lus", text, 2, 10).render()
    head, line, caret = rendered.splitlines()
    assert head == "m.lus:2:10: error: expected an expression"
    assert line == "    y = x +;"
    assert caret.index("^") == line.index(";")


def test_long_line_cut_around_the_column():
    source = "x + " * 30_000 + "@ + x"
    column = source.index("@") + 1
    rendered = InputError.at("unexpected character '@'", "m.lus", source, 1, column).render()
    _, line, caret = rendered.splitlines()
    assert len(line) <= EXCERPT_WIDTH + 2 + 6
    assert line.strip().startswith("...") and not line.endswith("...")  # the column is near the end
    assert line[caret.index("^")] == "@"
