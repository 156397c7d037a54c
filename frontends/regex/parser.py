"""Parse ``.regex`` files into normalised terms, with located errors.

Syntax (``regex.lark``): ``--`` comments; ``alphabet 'a', 'b'`` (distinct single characters,
quoted); then one expression.  Letters are bare (``a``) or quoted (``'['``); a quoted word
(``'ab'``, ``"ab"``; ``""`` is the empty word) is one atom; ``.`` is any letter; ``[ab]`` a
class, with ranges ``[a-c]`` (the alphabet's letters from ``a`` to ``c``); juxtaposition
concatenates; postfix ``*``, ``+``, ``?``; prefix ``~``
complements relative to the alphabet's words; ``&`` intersects; ``|`` unites; ``()`` is the
empty word.  Postfix operators and ``~`` bind tightest (``~a*`` is ``~(a*)``), then
concatenation, then ``&``, then ``|``.  An expression starting with an SMT-LIB regex operator
(``(re.++ …)``, ``(str.to_re "ab")``, ...) is an SMT-LIB term, read by
:mod:`~kinduct.frontends.regex.smtlib`.

:mod:`~kinduct.frontends.regex.reader` reads the text; lark words the syntax errors, reading the
text up to the line where the reader stopped.  A term nests at most :data:`MAX_DEPTH` deep
(chains ``a|b|c`` and ``abc`` are flat; parentheses around one operand add nothing): the
printer and the derivatives recurse on terms; and it expands to at most :data:`MAX_EXPANSION`
nodes beyond four per character of the text.  Errors come in this order: syntax, the depth
limit, the alphabet, then the first letter not in the alphabet.
"""

from __future__ import annotations

import functools
from pathlib import Path

import attrs
from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from kinduct.frontends.regex.reader import Decline, Letter, Reader, Tokens, read_alphabet
from kinduct.frontends.regex.smtlib import parse_term, starts_smtlib
from kinduct.frontends.regex.terms import Algebra, Term
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import gc_paused, read_source

_GRAMMAR = Path(__file__).with_name("regex.lark")

#: Deepest term (each ``|``, ``&`` and concatenation chain, ``~`` and postfix operator is one
#: level, ``+`` two: ``r+`` is ``r r*``).
MAX_DEPTH = 100
#: Largest term, in nodes counted as often as they are printed, beyond four per character of
#: the text: ``r+`` is ``r r*``, so each nested ``+`` doubles what unions sort by.
MAX_EXPANSION = 1_000_000

_NAMES = {"QUOTED": "a quoted letter", "WORD": "a quoted word", "MINUS": "'-'",
          "BARE": "a letter", "LPAR": "'('", "RPAR": "')'",
          "LSQB": "'['", "RSQB": "']'", "DOT": "'.'", "TILDE": "'~'", "VBAR": "'|'",
          "AMPERSAND": "'&'", "STAR": "'*'", "PLUS": "'+'", "QMARK": "'?'", "COMMA": "','",
          "ALPHABET": "'alphabet'", "$END": "end of input"}


@attrs.frozen
class Regex:
    """A parsed specification: its alphabet, the algebra its terms live in, and the term."""

    alphabet: tuple[str, ...]
    algebra: Algebra = attrs.field(eq=False, repr=False)
    term: Term
    source: str

    def accepts(self, word) -> bool:
        """Membership by derivatives (the frontend's own evaluator)."""
        return self.algebra.matches(self.term, word)


@functools.cache
def lark_parser() -> Lark:
    # Only syntax errors are asked of lark, and their places come from tokens.
    return Lark(_GRAMMAR.read_text(encoding="utf-8"), parser="lalr")


def syntax_error(exc: UnexpectedInput, text: str, file: str | None) -> InputError:
    line, col = exc.line, exc.column
    if isinstance(exc, UnexpectedCharacters):
        msg = ("a quoted letter is one character between single quotes, e.g. '['"
               if exc.char in "'\"" else f"unexpected character {exc.char!r}")
    elif isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        expected = sorted(_NAMES.get(n) or _terminal(n) for n in exc.expected)
        msg = f"unexpected {exc.token.value!r}, expected one of: {', '.join(expected)}"
        if exc.token.value == "-":
            msg += " (a range is written inside a class: [a-c])"
    else:
        lines = text.rstrip().splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        msg = "unexpected end of input, expected " + (
            "an expression" if isinstance(exc, UnexpectedToken) and "BARE" in exc.expected
            else "more input")
    return InputError.at(msg, file, text, line, col)


def _terminal(name: str) -> str:
    """How lark's terminal ``name`` is written (``'∅'``), or its name."""
    try:
        pattern = lark_parser().get_terminal(name).pattern
    except KeyError:
        return name
    return f"'{pattern.value}'" if pattern.type == "str" else name


def alphabet_of(letters: list[Letter], text: str, file: str | None) -> tuple[str, ...]:
    seen: list[str] = []
    for ch, line, col in letters:
        if ch in seen:
            raise InputError.at(f"letter {ch!r} appears twice in the alphabet", file, text, line, col)
        if ch.isspace():
            raise InputError.at("a letter cannot be a space", file, text, line, col)
        seen.append(ch)
    return tuple(seen)


@gc_paused()
def parse(text: str, file: str | Path | None = None) -> Regex:
    """Parse a ``.regex`` specification; raise :class:`InputError` on any problem."""
    file_s = str(file) if file is not None else None
    tokens = Tokens(text)
    try:
        letters = read_alphabet(tokens)
        algebra = Algebra(tuple(dict.fromkeys(ch for ch, _, _ in letters)))
        start = _offset(text, tokens.current)
        if start is not None and starts_smtlib(text[start:]):
            term = parse_term(algebra, text, start, file_s, MAX_DEPTH,
                              MAX_EXPANSION + 4 * len(text))
            return Regex(alphabet_of(letters, text, file_s), algebra, term, text)
        reader = Reader(algebra, MAX_DEPTH, MAX_EXPANSION + 4 * len(text))
        term = reader.read(tokens)
    except Decline as stop:
        if stop.line == 0:  # the end of the text, where lark would stop too
            lines = text.rstrip().splitlines() or [""]
            expected = "an expression" if stop.expression else "more input"
            raise InputError.at(f"unexpected end of input, expected {expected}", file_s, text,
                                len(lines), len(lines[-1]) + 1) from None
        raise _lark_error(text, file_s, stop.line) from None
    if reader.too_big is not None:
        limit, place = reader.too_big
        raise InputError.at(f"the regular expression nests deeper than {MAX_DEPTH} levels"
                            if limit == "depth" else "the regular expression expands to too many "
                            "terms (r+ is r r*: nested + double it)", file_s, text, *place)
    alphabet = alphabet_of(letters, text, file_s)
    if reader.unknown is not None:
        ch, line, col = reader.unknown
        shown = ", ".join(repr(x) for x in alphabet)
        raise InputError.at(f"letter {ch!r} is not in the alphabet ({shown})", file_s, text, line, col)
    if reader.bad_range is not None:
        lo, hi, line, col = reader.bad_range
        raise InputError.at(f"the range {lo!r}-{hi!r} is empty ({lo!r} comes after {hi!r})",
                            file_s, text, line, col)
    return Regex(alphabet, algebra, term, text)


def _offset(text: str, token: tuple[str, int, int] | None) -> int | None:
    """Where ``token`` (line, column) starts in ``text``."""
    if token is None:
        return None
    _, line, col = token
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + col - 1


def _lark_error(text: str, file: str | None, line: int) -> InputError:
    """lark's error for a text the reader stopped in at ``line``: lark reads the text to the
    end of that line (or else the whole text)."""
    end = -1
    for _ in range(line):
        end = text.find("\n", end + 1)
        if end < 0:
            break
    prefix = text if end < 0 else text[:end + 1]
    for candidate in dict.fromkeys((prefix, text)):
        try:
            lark_parser().parse(candidate)
        except UnexpectedInput as exc:
            at_end = isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
            if not at_end or len(candidate) == len(text):
                return syntax_error(exc, text, file)
    raise AssertionError("the reader refused a text lark reads")  # pragma: no cover


def load(path: str | Path) -> Regex:
    p = Path(path)
    return parse(read_source(p), p)
