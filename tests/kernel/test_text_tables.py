"""The reports' tables without rich (kernel/text_tables.py): where stdout is not a terminal they
are drawn by kinduct itself, and must read exactly as rich draws them (rich is the oracle)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from kinduct.kernel.text_tables import Column, PlainConsole, Styled, TextTable, plain_table
from tests.conftest import EXAMPLES

PRINTABLE = st.characters(min_codepoint=32, max_codepoint=126)
WORDS = st.text(alphabet=PRINTABLE, max_size=12)


def rich_text(item: object, width: int) -> str:
    """What the reports' rich console (``highlight=False, soft_wrap=True``) prints for ``item``
    on a ``width``-column file that is not a terminal."""
    out = io.StringIO()
    Console(file=out, width=width, highlight=False, soft_wrap=True, force_terminal=False,
            force_jupyter=False, legacy_windows=False).print(item)
    return out.getvalue()


def plain_text(item: object, width: int) -> str:
    out = io.StringIO()
    PlainConsole(width, out).print(item)
    return out.getvalue()


@st.composite
def tables(draw) -> TextTable:
    n = draw(st.integers(1, 5))
    columns = tuple(Column(draw(WORDS), draw(st.booleans()), draw(st.integers(0, 6)))
                    for _ in range(n))
    cell = st.one_of(WORDS, WORDS.map(lambda t: Styled(t, "red")))
    rows = tuple(tuple(draw(cell) for _ in range(n)) for _ in range(draw(st.integers(0, 4))))
    return TextTable(draw(st.text(alphabet=PRINTABLE, max_size=90)), columns, rows)


@settings(max_examples=100, deadline=None)
@given(tables(), st.integers(8, 100))
def test_a_table_drawn_without_rich_reads_as_rich_draws_it(table, width):
    drawn = plain_table(table, width)
    if drawn is not None:
        assert drawn == rich_text(table, width)
    assert plain_text(table, width) == rich_text(table, width)  # declined: rich draws it


def test_an_ordinary_table_is_drawn_without_rich():
    table = TextTable("top", (Column("property"), Column("k", right=True)),
                      (("OK", Styled("valid", "green")), ("P[1]", "12")))
    assert plain_table(table, 80) == (
        "top\n"
        "┏━━━━━━━━━━┳━━━━━━━┓\n"
        "┃ property ┃     k ┃\n"
        "┡━━━━━━━━━━╇━━━━━━━┩\n"
        "│ OK       │ valid │\n"
        "│ P[1]     │    12 │\n"
        "└──────────┴───────┘\n")


def test_a_table_wider_than_the_console_is_left_to_rich():
    table = TextTable("t", (Column("stream"), Column("0", right=True)), (("x" * 50, "1" * 50),))
    assert plain_table(table, 80) is None
    assert plain_text(table, 80) == rich_text(table, 80)
    assert "…" not in plain_text(table, 80)  # rich folds the cells, never cuts them


def test_styled_lines_are_written_as_they_are():
    for text in ("P: timeout [dim] :smile: \\[x]", "", "x" * 150, "é and tabs\tinside"):
        assert plain_text(Styled(text, "dim"), 80) == rich_text(Styled(text, "dim"), 80)


@pytest.mark.parametrize(("model", "engine"), [("counter_bug.vmt", "bmc"), ("counter.vmt", "ic3")])
def test_a_report_reads_as_rich_prints_it(model, engine):
    """A counterexample's tables, and a valid verdict's invariant line."""
    from kinduct.kernel.decide import decide
    from kinduct.kernel.frontend import LoadOptions
    from kinduct.kernel.loading import load_systems
    from kinduct.kernel.report import human_report
    from kinduct.kernel.runner import RunOptions

    (system,) = load_systems(EXAMPLES / "vmt" / model, None, LoadOptions())
    verdicts = decide(system, RunOptions(engines=(engine,), solver="z3", timeout=60))
    assert any(v.trace is not None or v.invariant is not None for v in verdicts)
    for width in (80, 30):
        rich_out, plain_out = io.StringIO(), io.StringIO()
        human_report(Console(file=rich_out, width=width, highlight=False, soft_wrap=True),
                     system, list(system.properties), verdicts, invariants=True)
        human_report(PlainConsole(width, plain_out), system, list(system.properties), verdicts,
                     invariants=True)
        assert plain_out.getvalue() == rich_out.getvalue()
        assert ("counterexample for" if engine == "bmc" else "invariant for") in plain_out.getvalue()
