"""Parse ``.regex`` files into normalised terms, with located errors.

Syntax (``regex.lark``): ``--`` comments; ``alphabet 'a', 'b'`` (distinct single characters,
quoted); then one expression.  Letters are bare (``a``) or quoted (``'['``); ``.`` is any
letter; ``[ab]`` a class; juxtaposition concatenates; postfix ``*``, ``+``, ``?``; prefix ``~``
complements relative to the alphabet's words; ``&`` intersects; ``|`` unites; ``()`` is the
empty word.  Postfix operators and ``~`` bind tightest (``~a*`` is ``~(a*)``), then
concatenation, then ``&``, then ``|``.
"""

from __future__ import annotations

import functools
from pathlib import Path

import attrs
from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from kinduct.frontends.regex.terms import EPS, Algebra, Term
from kinduct.kernel.errors import InputError

_GRAMMAR = Path(__file__).with_name("regex.lark")

_NAMES = {"QUOTED": "a quoted letter", "BARE": "a letter", "LPAR": "'('", "RPAR": "')'",
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
def _lark() -> Lark:
    return Lark(_GRAMMAR.read_text(encoding="utf-8"), parser="lalr", propagate_positions=True)


def _letter(tok: Token) -> str:
    return tok.value[1] if tok.type == "QUOTED" else tok.value


class _Build(Transformer):
    def __init__(self, algebra: Algebra, text: str, file: str | None) -> None:
        super().__init__()
        self.R = algebra
        self.text = text
        self.file = file

    def _check(self, tok: Token) -> str:
        ch = _letter(tok)
        if ch not in self.R.sigma:
            letters = ", ".join(repr(x) for x in self.R.alphabet)
            raise InputError.at(f"letter {ch!r} is not in the alphabet ({letters})", self.file,
                                self.text, tok.line, tok.column)
        return ch

    def letter(self, items):
        return self.R.chars([self._check(items[0])])

    def klass(self, items):
        return self.R.chars([self._check(it.children[0]) for it in items])

    def any(self, _items):
        return self.R.any()

    def eps(self, _items):
        return EPS

    @v_args(inline=True)
    def union(self, a, b):
        return self.R.alt(a, b)

    @v_args(inline=True)
    def intersect(self, a, b):
        return self.R.inter(a, b)

    @v_args(inline=True)
    def concat(self, a, b):
        return self.R.cat(a, b)

    @v_args(inline=True)
    def complement(self, a):
        return self.R.neg(a)

    @v_args(inline=True)
    def star(self, a):
        return self.R.star(a)

    @v_args(inline=True)
    def plus(self, a):
        return self.R.plus(a)

    @v_args(inline=True)
    def opt(self, a):
        return self.R.opt(a)


def _syntax_error(exc: UnexpectedInput, text: str, file: str | None) -> InputError:
    line, col = exc.line, exc.column
    if isinstance(exc, UnexpectedCharacters):
        msg = ("a quoted letter is one character between single quotes, e.g. '['"
               if exc.char in "'\"" else f"unexpected character {exc.char!r}")
    elif isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        expected = sorted(_NAMES.get(n, n) for n in exc.expected)
        msg = f"unexpected {exc.token.value!r}, expected one of: {', '.join(expected)}"
    else:
        lines = text.rstrip().splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        msg = "unexpected end of input, expected " + (
            "an expression" if isinstance(exc, UnexpectedToken) and "BARE" in exc.expected
            else "more input")
    return InputError.at(msg, file, text, line, col)


def _alphabet(tree, text: str, file: str | None) -> tuple[str, ...]:
    letters: list[str] = []
    for tok in tree.children:
        ch = _letter(tok)
        if ch in letters:
            raise InputError.at(f"letter {ch!r} appears twice in the alphabet", file, text,
                                tok.line, tok.column)
        if ch.isspace():
            raise InputError.at("a letter cannot be a space", file, text, tok.line, tok.column)
        letters.append(ch)
    return tuple(letters)


def parse(text: str, file: str | Path | None = None) -> Regex:
    """Parse a ``.regex`` specification; raise :class:`InputError` on any problem."""
    file_s = str(file) if file is not None else None
    try:
        tree = _lark().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, file_s) from None
    except UnexpectedEOF as exc:  # pragma: no cover - lalr reports UnexpectedToken instead
        raise _syntax_error(exc, text, file_s) from None
    alphabet = _alphabet(tree.children[0], text, file_s)
    algebra = Algebra(alphabet)
    try:
        term = _Build(algebra, text, file_s).transform(tree.children[1])
    except VisitError as exc:
        if isinstance(exc.orig_exc, InputError):
            raise exc.orig_exc from None
        raise
    return Regex(alphabet, algebra, term, text)


def load(path: str | Path) -> Regex:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{p}: not a UTF-8 text file") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None
    return parse(text, p)
