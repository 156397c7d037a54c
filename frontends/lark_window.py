"""Parsing a window of a big text with lark, as if lark had read the whole text.

The C-RASP and RASP frontends read valid lines with their own fast readers and hand lark only
the statements those do not read (a syntax error, a lexer quirk): lark parses a short window of
text that starts at the beginning of a line, and :func:`shift` moves the places in lark's tree,
or in lark's error, by the lines and characters that precede the window.  A window never
copies the text before it, so each statement handed to lark costs time in its own length only.
"""

from __future__ import annotations

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

_LINES = ("line", "end_line", "container_line", "container_end_line")
_OFFSETS = ("start_pos", "end_pos", "container_start_pos", "container_end_pos")


def _move(obj: object, lines: int, offset: int) -> None:
    for name in _LINES:
        value = getattr(obj, name, None)
        if isinstance(value, int) and value > 0:
            setattr(obj, name, value + lines)
    for name in _OFFSETS:
        value = getattr(obj, name, None)
        if isinstance(value, int) and value >= 0:
            setattr(obj, name, value + offset)


def shift(tree: Tree | Token, lines: int, offset: int) -> None:
    """Add ``lines`` to every line and ``offset`` to every character offset of the tokens and
    node places of ``tree`` (walked without recursion).  Columns do not change: the window
    starts at the beginning of a line."""
    if not lines and not offset:
        return
    stack: list[Tree | Token] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Token):
            _move(node, lines, offset)
        elif isinstance(node, Tree):
            if not node.meta.empty:
                _move(node.meta, lines, offset)
            stack.extend(node.children)


def shift_error(exc: UnexpectedInput, lines: int, offset: int) -> UnexpectedInput:
    """``exc`` with its line, offset and token moved as :func:`shift` moves a tree."""
    if isinstance(exc.line, int) and exc.line > 0:
        exc.line += lines
    if isinstance(exc, UnexpectedCharacters) and exc.pos_in_stream is not None:
        exc.pos_in_stream += offset
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        _move(exc.token, lines, offset)
        if exc.pos_in_stream is not None:
            exc.pos_in_stream += offset
    return exc
