"""The fast path of the ``.regex`` parser: terms of a valid specification, built without lark.

:func:`read` reads the tokens of ``regex.lark`` with one regular expression per line (a run of
bare letters is one match) and the expression with explicit stacks, so no nesting of
parentheses recurses.  Chains ``a|b|c``, ``a&b&c`` and ``abc`` are built with one call to the
algebra's constructor, which flattens them anyway (so a union of many words costs its length,
not its square); prefix ``~`` and postfix ``* + ?`` are applied as they come.

It never judges the text wrong: at the first token it cannot read it raises :class:`Decline`
with that place, and the caller has lark word the error.  Letters outside the alphabet are
collected and reported after the whole text reads, as lark's parse-then-transform did.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from kinduct.frontends.regex.terms import EMPTY, EPS, Algebra, And, Cat, Not, Or, Star, Term

#: Tokens of one line: whitespace, then a comment, a run of bare letters, a quoted letter, an
#: operator, or else a character that starts no token.
_TOKEN = re.compile(r"""([ \t\f\r]*)(?:(--.*|[^\s'"|&~*+?()\[\].,\-∅ε∪∩·]+|'[^'\n]{2,}'|"[^"\n]*"|'[^\n]'"""
                    r"""|[|&~*+?()\[\].,\-∅ε∪∩·])|([^ \t\f\r]))""")
_BARE = re.compile(r"""[^\s'"|&~*+?()\[\].,\-∅ε∪∩·]""")


class Decline(Exception):
    """The reader stops at ``(line, column)``: lark is asked there.  Line 0 is the end of the
    text, where an ``expression`` (or else the rest of the alphabet) was expected."""

    def __init__(self, line: int, column: int, expression: bool = True) -> None:
        super().__init__(line, column)
        self.line = line
        self.column = column
        self.expression = expression


class Letter(NamedTuple):
    """A letter as written, with its place (for the alphabet and error messages)."""

    letter: str
    line: int
    column: int


class _Group:
    """An open parenthesis (or the whole expression): its union so far, the current
    intersection and concatenation, and the negations waiting for the group's value."""

    __slots__ = ("union", "inter", "cat", "negs", "place")

    def __init__(self, negs: list[tuple[int, int]], place: tuple[int, int]) -> None:
        self.union: list[Term] = []
        self.inter: list[Term] = []
        self.cat: list[Term] = []
        self.negs = negs
        self.place = place


class Tokens:
    """The tokens of a text as ``(text, line, column)``, read one at a time (a line of any
    length is matched lazily): :attr:`current` is the next one (None at the end), ``take``
    moves on.  A run of bare letters is one token."""

    def __init__(self, text: str) -> None:
        self._tokens = self._read(text)
        self.current: tuple[str, int, int] | None = next(self._tokens, None)

    @staticmethod
    def _read(text: str) -> Iterator[tuple[str, int, int]]:
        for index, line in enumerate(text.split("\n")):
            col = 1
            for m in _TOKEN.finditer(line):
                ws, tok, other = m.groups()
                col += len(ws)
                if other:  # no token starts here ("\n" is no token)
                    yield ("\n", index + 1, col)
                    break
                if tok.startswith("--"):
                    break
                yield (tok, index + 1, col)
                col += len(tok)

    def take(self) -> None:
        self.current = next(self._tokens, None)


def read_alphabet(tokens: Tokens) -> list[Letter]:
    """``alphabet 'a', 'b'``: the letters as written (quotes removed)."""
    tok = tokens.current
    if tok is None:
        raise Decline(0, 0, expression=False)
    text, line, col = tok
    if not text.startswith("alphabet"):
        raise Decline(line, col)
    if text == "alphabet":
        tokens.take()
    else:  # `alphabet` glued to a bare letter after it: lark reads `alphabet` first
        tokens.current = (text[8:], line, col + 8)
    letters = []
    while True:
        tok = tokens.current
        if tok is None:
            raise Decline(0, 0, expression=False)
        if tok[0][0] != "'" or len(tok[0]) != 3:
            raise Decline(tok[1], tok[2])
        tokens.take()
        letters.append(Letter(tok[0][1], tok[1], tok[2]))
        nxt = tokens.current
        if nxt is None or nxt[0] != ",":
            return letters
        tokens.take()


class Reader:
    """Reads the expression after the alphabet into a term of ``algebra``.

    :attr:`unknown` is the first letter not in the alphabet; :attr:`too_big` the place of the
    first operator whose term nests deeper than ``max_depth`` (the printer and derivatives
    recurse on terms) or expands to more than ``max_size`` nodes (``r+`` is ``r r*``, so nested
    ``+`` double the printed term that unions sort by), and which limit; no more terms are
    built after it.  Both are reported after the whole text reads."""

    def __init__(self, algebra: Algebra, max_depth: int, max_size: int) -> None:
        self.R = algebra
        self.max_depth = max_depth
        self.max_size = max_size
        self.unknown: Letter | None = None
        #: the first range whose first letter comes after its last (``[c-a]``), as written
        self.bad_range: tuple[str, str, int, int] | None = None
        self.too_big: tuple[str, tuple[int, int]] | None = None
        self._letters: dict[str, Term] = {}
        # id -> (term, depth, size counting shared subterms as often as they are printed);
        # the term is kept so that its id stays its own
        self._shape: dict[int, tuple[Term, int, int]] = {}

    def _letter(self, ch: str, line: int, col: int) -> Term:
        term = self._letters.get(ch)
        if term is None:
            if ch not in self.R.sigma and self.unknown is None:
                self.unknown = Letter(ch, line, col)
            term = self._letters[ch] = self.R.chars([ch])
        return term

    def _measure(self, term: Term) -> tuple[int, int]:
        """Depth and size of ``term`` (its new subterms are the algebra's, a few levels)."""
        shape = self._shape
        got = shape.get(id(term))
        if got is not None:
            return got[1], got[2]
        if isinstance(term, (Cat, Or, And)):
            kids: tuple[Term, ...] = term.parts
        elif isinstance(term, (Star, Not)):
            kids = (term.body,)
        else:
            kids = ()
        depth, size = 0, 1
        for kid in kids:
            known = shape.get(id(kid))
            d, n = self._measure(kid) if known is None else known[1:]
            if d > depth:
                depth = d
            size += n
        shape[id(term)] = (term, depth + 1, size)
        return depth + 1, size

    def _make(self, build, place: tuple[int, int], *parts: Term) -> Term:
        """``build(*parts)``, unless a term is already too big (then a placeholder)."""
        if self.too_big is not None:
            return EPS
        term = build(*parts)
        depth, size = self._measure(term)
        if depth > self.max_depth:
            self.too_big = ("depth", place)
        elif size > self.max_size:
            self.too_big = ("size", place)
        return term

    def read(self, tokens: Tokens) -> Term:
        R = self.R
        first = tokens.current
        if first is None:
            raise Decline(0, 0)
        groups = [_Group([], first[1:])]
        negs: list[tuple[int, int]] = []  # `~` before the operand being read
        while True:
            # -- an operand ----------------------------------------------------------------
            tok = tokens.current
            if tok is None:
                raise Decline(0, 0)
            text, line, col = tok
            c = text[0]
            if c == "~":
                tokens.take()
                negs.append((line, col))
                continue
            if c == "(":
                tokens.take()
                nxt = tokens.current
                if nxt is not None and nxt[0] == ")":
                    tokens.take()
                    term = EPS
                else:
                    groups.append(_Group(negs, (line, col)))
                    negs = []
                    continue
            elif c == "'" and len(text) == 3:
                tokens.take()
                term = self._letter(text[1], line, col)
            elif c == "'" or c == '"':  # a quoted word: one atom
                tokens.take()
                term = self._make(R.cat, (line, col), *(self._letter(ch, line, col + 1 + k)
                                                        for k, ch in enumerate(text[1:-1])))
            elif c == ".":
                tokens.take()
                term = R.any()
            elif c == "ε" or c == "∅":
                tokens.take()
                term = EPS if c == "ε" else EMPTY
            elif c == "[":
                tokens.take()
                term = self._klass(tokens)
            elif _BARE.match(c):
                tokens.take()
                if len(text) > 1:  # a run: the first letter takes the `~`, the last `* + ?`
                    first = self._letter(c, line, col)
                    for place in reversed(negs):
                        first = self._make(R.neg, place, first)
                    negs = []
                    cat = groups[-1].cat
                    cat.append(first)
                    cat.extend(self._letter(text[k], line, col + k) for k in range(1, len(text) - 1))
                    term = self._letter(text[-1], line, col + len(text) - 1)
                else:
                    term = self._letter(c, line, col)
            else:
                raise Decline(line, col)
            # -- postfix operators, the negations before the operand, then what follows --
            while True:
                term = self._postfix(tokens, term)
                for place in reversed(negs):
                    term = self._make(R.neg, place, term)
                negs = []
                group = groups[-1]
                group.cat.append(term)
                tok = tokens.current
                if tok is None or tok[0] == ")":
                    value = self._close(group)
                    if tok is None:
                        if len(groups) > 1:  # lark has reduced to `( expr` and wants `)`
                            raise Decline(0, 0, expression=False)
                        return value
                    if len(groups) == 1:
                        raise Decline(tok[1], tok[2])
                    tokens.take()
                    groups.pop()
                    term, negs = value, group.negs
                    continue
                text = tok[0]
                if text == "|" or text == "∪":
                    tokens.take()
                    group.union.append(self._inter(group, tok[1:]))
                elif text == "&" or text == "∩":
                    tokens.take()
                    group.inter.append(self._cat(group, tok[1:]))
                elif text == "·":  # explicit concatenation: an operand must follow
                    tokens.take()
                # anything else starts the next operand of the concatenation (or is an error)
                break

    def _postfix(self, tokens: Tokens, term: Term) -> Term:
        R = self.R
        while True:
            tok = tokens.current
            if tok is None:
                return term
            op = tok[0]
            if op == "*":
                build = R.star
            elif op == "+":
                build = R.plus
            elif op == "?":
                build = R.opt
            else:
                return term
            tokens.take()
            term = self._make(build, tok[1:], term)

    def _klass(self, tokens: Tokens) -> Term:
        """``[ ... ]`` after the ``[``: bare and quoted letters and ranges ``a-c``."""
        letters: list[str] = []
        last: tuple[str, int, int] | None = None  # a letter a `-` may follow
        while True:
            tok = tokens.current
            if tok is None:
                raise Decline(0, 0)
            text, line, col = tok
            if text == "]":
                tokens.take()
                for ch, at_line, at_col in letters:
                    self._letter(ch, at_line, at_col)
                return self.R.chars(ch for ch, _, _ in letters)
            if text == "-" and last is not None:
                tokens.take()
                end = tokens.current
                if end is None:
                    raise Decline(0, 0)
                if end[0][0] == "'" and len(end[0]) == 3:
                    hi, rest = end[0][1], ""
                elif _BARE.match(end[0][0]):
                    hi, rest = end[0][0], end[0][1:]
                else:
                    raise Decline(end[1], end[2])
                letters.pop()
                lo = last[0]
                if lo > hi and self.bad_range is None:
                    self.bad_range = (lo, hi, last[1], last[2])
                letters.extend((x, line, col) for x in self.R.alphabet if lo <= x <= hi)
                last = None
                if rest:  # a bare run after the range: its other letters are items
                    tokens.current = (rest, end[1], end[2] + 1)
                    continue
            elif text[0] == "'" and len(text) == 3:
                last = (text[1], line, col)
                letters.append(last)
            elif _BARE.match(text[0]):
                letters.extend((ch, line, col + k) for k, ch in enumerate(text))
                last = letters[-1]
            else:
                raise Decline(line, col)
            tokens.take()

    def _cat(self, group: _Group, place: tuple[int, int]) -> Term:
        parts, group.cat = group.cat, []
        return parts[0] if len(parts) == 1 else self._make(self.R.cat, place, *parts)

    def _inter(self, group: _Group, place: tuple[int, int]) -> Term:
        parts, group.inter = [*group.inter, self._cat(group, place)], []
        return parts[0] if len(parts) == 1 else self._make(self.R.inter, place, *parts)

    def _close(self, group: _Group) -> Term:
        """The value of a group whose last operand has been read."""
        parts, group.union = [*group.union, self._inter(group, group.place)], []
        return parts[0] if len(parts) == 1 else self._make(self.R.alt, group.place, *parts)
