"""The reports' tables and lines as data, printed by rich on a terminal and, where rich would
print no colour (a pipe, a file), drawn here without importing rich.

rich's import and its first table cost about 0.04 s of CPU, an eighth of an easy model's whole
run.  A :class:`TextTable` or :class:`Styled` line given to a rich console renders through
rich (``__rich__``); given to a :class:`PlainConsole` it is written as rich would write it on
that console (``HEAVY_HEAD`` box, one space of padding, the title on the left), which
:func:`plain_table` can do whenever the table fits the console's width and every character
is printable ASCII.  Anything else a :class:`PlainConsole` hands to a rich console made on
first need, so its output is rich's in every case.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text


class Styled(NamedTuple):
    """A line or a cell: ``text`` as written (never read as markup), in rich's ``style`` (e.g.
    ``"red"``, ``"dim"``; empty: none) where the console shows styles."""

    text: str
    style: str = ""

    def __rich__(self) -> Text:
        from rich.text import Text

        return Text(self.text, style=self.style)


class Column(NamedTuple):
    """A column: its ``header``, its cells flush right (``right``) or left, and a
    ``min_width`` in characters (0: as wide as its widest cell)."""

    header: str
    right: bool = False
    min_width: int = 0


class TextTable(NamedTuple):
    """A table of text cells (a :class:`Styled` cell keeps its style on a terminal) under a
    ``title`` (empty: none).  No cell is ever cut short: where the console is too narrow, rich
    folds long cells onto several lines."""

    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[str | Styled, ...], ...]

    def __rich__(self) -> Table:
        from rich.table import Table
        from rich.text import Text

        table = Table(title=Text(self.title, style="table.title") if self.title else None,
                      title_justify="left")
        for col in self.columns:
            table.add_column(Text(col.header), justify="right" if col.right else "left",
                             overflow="fold", min_width=col.min_width or None)
        for row in self.rows:
            table.add_row(*(cell.__rich__() if isinstance(cell, Styled) else Text(cell)
                            for cell in row))
        return table


def _text(cell: str | Styled) -> str:
    return cell.text if isinstance(cell, Styled) else cell


def _plain_text(text: str) -> bool:
    """Text rich writes as it is, one cell a character: printable ASCII with no space at
    either end (rich strips those, as it justifies)."""
    return text.isascii() and text.isprintable() and text == text.strip()


def plain_table(table: TextTable, width: int) -> str | None:
    """``table`` as rich draws it on a ``width``-column console that shows no styles, with its
    trailing newline; None when rich would lay it out otherwise (it does not fit in ``width``,
    or a cell's characters are not all printable ASCII), so the caller asks rich."""
    texts = [[_text(c) for c in row] for row in table.rows]
    if any(len(row) != len(table.columns) for row in texts):
        return None
    every = [table.title, *(c.header for c in table.columns), *(t for row in texts for t in row)]
    if not all(_plain_text(t) for t in every):
        return None
    widths = [max([col.min_width, len(col.header), *(len(row[i]) for row in texts)])
              for i, col in enumerate(table.columns)]
    total = sum(w + 3 for w in widths) + 1
    if total > width or not widths:
        return None

    def line(cells: Sequence[str], bar: str) -> str:
        padded = (c.rjust(w) if col.right else c.ljust(w)
                  for c, w, col in zip(cells, widths, table.columns, strict=True))
        return bar + "".join(f" {c} {bar}" for c in padded)

    def rule(left: str, fill: str, cross: str, right: str) -> str:
        return left + cross.join(fill * (w + 2) for w in widths) + right

    out = [table.title] if table.title else []
    out.append(rule("┏", "━", "┳", "┓"))
    out.append(line([c.header for c in table.columns], "┃"))
    out.append(rule("┡", "━", "╇", "┩"))
    out.extend(line(row, "│") for row in texts)
    out.append(rule("└", "─", "┴", "┘"))
    return "\n".join(out) + "\n"


def rich_is_terminal(stream: Any, environ: dict[str, str] | os._Environ[str]) -> bool:
    """Whether a rich console on ``stream`` counts it as a terminal (styles and colours on),
    by rich's rules: ``TTY_COMPATIBLE`` 0/1 decides, else ``FORCE_COLOR`` set non-empty, else
    the stream's ``isatty``."""
    tty_compatible = environ.get("TTY_COMPATIBLE", "")
    if tty_compatible in ("0", "1"):
        return tty_compatible == "1"
    force_color = environ.get("FORCE_COLOR")
    if force_color is not None:
        return force_color != ""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # a closed stream
        return False


def rich_width(environ: dict[str, str] | os._Environ[str]) -> int:
    """The width a rich console takes when not told one: ``COLUMNS``, else the size of the
    first of stdin, stdout and stderr that is a terminal, else 80."""
    width = 0
    for fd in (0, 1, 2):
        try:
            width = os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):
            continue
        break
    columns = environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        width = int(columns)
    return width or 80


class PlainConsole:
    """Stands in for a rich console (``Console(highlight=False, soft_wrap=True)`` on ``file``,
    None: stdout) where that console would show no styles: the reports' :class:`TextTable`
    and :class:`Styled` lines are written directly; anything else, and a table
    :func:`plain_table` declines, goes to a rich console made on first need (with this one's
    ``width``)."""

    is_terminal = False

    def __init__(self, width: int, file: TextIO | None = None) -> None:
        self.width = width
        self.file = file
        self._rich: Console | None = None

    def print(self, item: object = "") -> None:
        out = self.file if self.file is not None else sys.stdout
        if isinstance(item, Styled) and _plain_text(item.text):
            out.write(item.text + "\n")
            return
        if isinstance(item, TextTable):
            drawn = plain_table(item, self.width)
            if drawn is not None:
                out.write(drawn)
                return
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(file=self.file, highlight=False, soft_wrap=True)
        self._rich.width = self.width
        self._rich.print(item)


def plain_console_fits() -> bool:
    """Whether a rich console on stdout would show no styles and draw boxes in Unicode (stdout
    not a terminal by rich's rules, a UTF encoding, not Windows, not under IPython), so a
    :class:`PlainConsole` writes what it would."""
    encoding = (getattr(sys.stdout, "encoding", None) or "utf-8").lower()
    return (not rich_is_terminal(sys.stdout, os.environ) and encoding.startswith("utf")
            and sys.platform != "win32" and "IPython" not in sys.modules)
