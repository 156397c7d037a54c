"""A fast, located SMT-LIB token stream for PySMT's parser, with the input limits of VMT files.

PySMT's own tokenizer reads one character at a time in Python (under 1 MB/s) and counts lines
from 0; :class:`Tokens` matches whole tokens with one regular expression over the text, offers
the interface PySMT's :class:`~pysmt.smtlib.parser.SmtLibParser` consumes (``consume``,
``consume_maybe``, ``add_extra_token``, ``pos_info``), and knows where every token is, so every
error can name ``line:column``.

Limits, checked as tokens are read, before PySMT builds anything from them:

- :data:`MAX_DEPTH` nested parentheses;
- :data:`MAX_DIGITS` digits in a numeral or decimal (Python refuses to convert more than 4300,
  and no model needs more);
- :data:`MAX_BV_WIDTH` bits in a bit-vector sort.

Keywords (``:next``, ``:invar-property`` ...) are recorded with the token that follows them and
its place (:attr:`Tokens.keywords`), for the checks the reader makes after parsing.
"""

from __future__ import annotations

import re
from collections import deque

import attrs
from pysmt.exceptions import PysmtSyntaxError

from kinduct.kernel.errors import InputError

#: Deepest nesting of parentheses accepted (PySMT's parser and walkers are iterative; this
#: bounds memory, not recursion).
MAX_DEPTH = 100_000
#: Most digits in one numeral or decimal literal.
MAX_DIGITS = 1000
#: Widest bit-vector sort ``(_ BitVec N)`` (solvers bit-blast them).
MAX_BV_WIDTH = 1 << 16

_TOKEN = re.compile(r"""
    [ \t\r\n\f\v]*
    (?:
    (?P<comment>;[^\n]*)
  | (?P<paren>[()])
  | (?P<quoted>\|[^|]*\|)
  | (?P<string>"(?:[^"]|"")*")
  | (?P<atom>[^ \t\r\n\f\v()|";]+)
  | (?P<bad>[|"])
    )
""", re.VERBOSE)
_NUMERAL = re.compile(r"[0-9]+(?:\.[0-9]*)?")


@attrs.frozen
class Keyword:
    """An attribute such as ``:next`` with the token after it, both located."""

    name: str
    value: str | None
    line: int
    column: int
    value_line: int
    value_column: int


class Tokens:
    """SMT-LIB tokens of ``text`` in the shape PySMT's parser reads them."""

    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self._matches = _TOKEN.finditer(text)
        self._extra: deque[str] = deque()
        self._pending_keyword: tuple[str, int] | None = None
        self._previous = self._before_previous = ""  # the two tokens before the current one
        self.keywords: list[Keyword] = []
        self.depth = 0
        #: Offsets of the last token read (start, end) and of the '(' opening the current command.
        self.offset = 0
        self.end = 0
        self.command_start = 0
        # Line counting is incremental: the line of offset ``_line_at``.
        self._line_at = 0
        self._line = 1

    # -- positions ------------------------------------------------------------------------

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of ``offset`` (offsets must not go backwards much)."""
        if offset >= self._line_at:
            self._line += self.text.count("\n", self._line_at, offset)
        else:
            self._line -= self.text.count("\n", offset, self._line_at)
        self._line_at = offset
        col = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return self._line, col

    @property
    def pos_info(self) -> tuple[int, int]:
        return self.line_col(self.offset)

    def error(self, message: str, offset: int | None = None) -> InputError:
        line, col = self.line_col(self.offset if offset is None else offset)
        return InputError.at(message, self.filename, self.text, line, col)

    # -- PySMT's interface ----------------------------------------------------------------

    def add_extra_token(self, token: str) -> None:
        self._extra.append(token)

    def consume_maybe(self) -> str:
        """The next token; ``StopIteration`` at the end of the text."""
        if self._extra:
            return self._extra.popleft()
        for m in self._matches:
            kind = m.lastgroup
            if kind == "comment" or kind is None:  # a comment, or spaces at the end
                continue
            start = m.start(kind)
            self.offset = start
            self.end = m.end()
            token = m.group(kind)
            if kind == "paren":
                if token == "(":
                    if self.depth == 0:
                        self.command_start = start
                    self.depth += 1
                    if self.depth > MAX_DEPTH:
                        raise self.error(f"parentheses nest deeper than {MAX_DEPTH} levels")
                else:
                    self.depth -= 1
            elif kind == "quoted":
                token = token[1:-1]
            elif kind == "bad":
                raise self.error("unterminated quoted symbol" if token == "|" else
                                 "unterminated string literal")
            elif token[:1].isdigit() and _NUMERAL.fullmatch(token):
                if len(token) > MAX_DIGITS:
                    raise self.error(f"numeral of {len(token)} characters (at most {MAX_DIGITS} "
                                     "digits are accepted)")
                if (self._before_previous, self._previous) == ("_", "BitVec") \
                        and int(token) > MAX_BV_WIDTH:
                    raise self.error(f"bit-vector width {token} is too large (at most "
                                     f"{MAX_BV_WIDTH})")
            self._before_previous, self._previous = self._previous, token
            if self._pending_keyword is not None or token.startswith(":"):
                self._note_keyword(token, kind, start)
            return token
        raise StopIteration

    def consume(self, msg: str | None = None) -> str:
        try:
            return self.consume_maybe()
        except StopIteration:
            self.offset = len(self.text.rstrip())
            raise PysmtSyntaxError(msg or "unexpected end of input", self.pos_info) from None

    def raw_read(self) -> str:  # PySMT reads raw characters only in interactive mode
        raise PysmtSyntaxError("unexpected raw read", self.pos_info)

    def _note_keyword(self, token: str, kind: str | None, start: int) -> None:
        pending = self._pending_keyword
        if pending is not None:
            self._pending_keyword = None
            name, at = pending
            line, col = self.line_col(at)
            vline, vcol = self.line_col(start)
            value = None if kind == "paren" else token
            self.keywords.append(Keyword(name, value, line, col, vline, vcol))
        if kind == "atom" and token.startswith(":"):
            self._pending_keyword = (token, start)
