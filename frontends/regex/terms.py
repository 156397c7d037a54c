"""Regular expressions as normalised terms, with Brzozowski derivatives.

Every term is built through an :class:`Algebra` over a fixed alphabet, whose smart constructors
keep terms in the normal form the cvc5 regex-membership paper relies on (up to *similarity*):

- unions and intersections are flattened, sorted and duplicate-free; ``∅`` is the unit of ``|``
  and absorbs ``&``; ``Σ*`` (written ``~∅``) absorbs ``|`` and is the unit of ``&``; letter
  classes inside one union (intersection) merge into one class;
- concatenations are flattened; ``∅`` absorbs them and ``ε`` is their unit;
- ``(r*)* = r*``, ``ε* = ∅* = ε``, ``~~r = r``, ``Σ* = ~∅``.

With these rules a term has finitely many derivatives, so exploring them yields a DFA
(:mod:`kinduct.frontends.regex.dfa`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

import attrs


@attrs.frozen(cache_hash=True)
class Empty:
    """∅, the empty language."""

    def __str__(self) -> str:
        return "[]"


@attrs.frozen(cache_hash=True)
class Eps:
    """ε, the empty word."""

    def __str__(self) -> str:
        return "()"


@attrs.frozen(cache_hash=True)
class Chars:
    """One letter from a non-empty set (a bare letter, a class or ``.``)."""

    letters: frozenset[str]

    def __str__(self) -> str:
        return _chars_text(self.letters)


@attrs.frozen(cache_hash=True)
class Cat:
    parts: tuple[Term, ...]

    def __str__(self) -> str:
        return "".join(_wrap(p, (Or, And)) for p in self.parts)


@attrs.frozen(cache_hash=True)
class Star:
    body: Term

    def __str__(self) -> str:
        return _wrap(self.body, (Or, And, Cat, Not)) + "*"


@attrs.frozen(cache_hash=True)
class Or:
    parts: tuple[Term, ...]

    def __str__(self) -> str:
        return "|".join(str(p) for p in self.parts)


@attrs.frozen(cache_hash=True)
class And:
    parts: tuple[Term, ...]

    def __str__(self) -> str:
        return "&".join(_wrap(p, (Or,)) for p in self.parts)


@attrs.frozen(cache_hash=True)
class Not:
    body: Term

    def __str__(self) -> str:
        return "~" + _wrap(self.body, (Or, And, Cat))


Term = Empty | Eps | Chars | Cat | Star | Or | And | Not

EMPTY = Empty()
EPS = Eps()
TOP = Not(EMPTY)  # Σ*


@functools.lru_cache(maxsize=4096)
def _chars_text(letters: frozenset[str]) -> str:
    """A letter set as printed (remembered: unions sort their parts by their printed form)."""
    quoted = [_quote(x) for x in sorted(letters)]
    return quoted[0] if len(quoted) == 1 else "[" + "".join(quoted) + "]"


def _quote(letter: str) -> str:
    return letter if letter.isalnum() else f"'{letter}'"


def _wrap(t: Term, loose: tuple[type, ...]) -> str:
    return f"({t})" if isinstance(t, loose) else str(t)


_ORDER = {Empty: 0, Eps: 1, Chars: 2, Cat: 3, Star: 4, Or: 5, And: 6, Not: 7}


def sort_key(t: Term) -> tuple:
    """A total order on terms (kind first, then printed form), used to sort ``|`` and ``&``."""
    return (_ORDER[type(t)], str(t))


class Algebra:
    """Smart constructors, nullability and derivatives over one alphabet (memoised)."""

    def __init__(self, alphabet: Sequence[str]) -> None:
        self.alphabet = tuple(alphabet)
        self.sigma = frozenset(self.alphabet)
        self._deriv: dict[tuple[Term, str], Term] = {}
        self._nullable: dict[Term, bool] = {}

    # --- constructors ---------------------------------------------------------------------

    def chars(self, letters: Iterable[str]) -> Term:
        s = frozenset(letters) & self.sigma
        return Chars(s) if s else EMPTY

    def any(self) -> Term:
        return self.chars(self.alphabet)

    def cat(self, *parts: Term) -> Term:
        flat: list[Term] = []
        for p in parts:
            if isinstance(p, Empty):
                return EMPTY
            if isinstance(p, Eps):
                continue
            flat.extend(p.parts if isinstance(p, Cat) else (p,))
        if not flat:
            return EPS
        return flat[0] if len(flat) == 1 else Cat(tuple(flat))

    def star(self, r: Term) -> Term:
        if isinstance(r, (Empty, Eps)):
            return EPS
        if isinstance(r, Star) or r == TOP:
            return r
        if isinstance(r, Chars) and r.letters == self.sigma:
            return TOP
        return Star(r)

    def neg(self, r: Term) -> Term:
        if isinstance(r, Not):
            return r.body
        if isinstance(r, Star) and isinstance(r.body, Chars) and r.body.letters == self.sigma:
            return EMPTY
        return Not(r)

    def alt(self, *parts: Term) -> Term:
        flat: set[Term] = set()
        letters: set[str] = set()
        for p in parts:
            for q in (p.parts if isinstance(p, Or) else (p,)):
                if q == TOP:
                    return TOP
                if isinstance(q, Chars):
                    letters |= q.letters
                elif not isinstance(q, Empty):
                    flat.add(q)
        if letters:
            flat.add(Chars(frozenset(letters)))
        if not flat:
            return EMPTY
        if len(flat) == 1:
            return next(iter(flat))
        return Or(tuple(sorted(flat, key=sort_key)))

    def inter(self, *parts: Term) -> Term:
        flat: set[Term] = set()
        letters: frozenset[str] | None = None
        for p in parts:
            for q in (p.parts if isinstance(p, And) else (p,)):
                if isinstance(q, Empty):
                    return EMPTY
                if isinstance(q, Chars):
                    letters = q.letters if letters is None else letters & q.letters
                    if not letters:
                        return EMPTY
                elif q != TOP:
                    flat.add(q)
        if letters is not None:
            flat.add(Chars(letters))
        if not flat:
            return TOP
        if len(flat) == 1:
            return next(iter(flat))
        return And(tuple(sorted(flat, key=sort_key)))

    def plus(self, r: Term) -> Term:
        return self.cat(r, self.star(r))

    def opt(self, r: Term) -> Term:
        return self.alt(EPS, r)

    # --- semantics ------------------------------------------------------------------------

    def nullable(self, r: Term) -> bool:
        got = self._nullable.get(r)
        if got is None:
            got = self._null(r)
            self._nullable[r] = got
        return got

    def _null(self, r: Term) -> bool:
        match r:
            case Empty() | Chars():
                return False
            case Eps() | Star():
                return True
            case Cat(parts) | And(parts):
                return all(self.nullable(p) for p in parts)
            case Or(parts):
                return any(self.nullable(p) for p in parts)
            case Not(body):
                return not self.nullable(body)
        raise TypeError(r)  # pragma: no cover

    def deriv(self, r: Term, a: str) -> Term:
        """The Brzozowski derivative: the words w with ``a w`` in ``L(r)``, normalised."""
        key = (r, a)
        got = self._deriv.get(key)
        if got is None:
            got = self._d(r, a)
            self._deriv[key] = got
        return got

    def _d(self, r: Term, a: str) -> Term:
        match r:
            case Empty() | Eps():
                return EMPTY
            case Chars(letters):
                return EPS if a in letters else EMPTY
            case Cat(parts):
                head, rest = parts[0], self.cat(*parts[1:])
                first = self.cat(self.deriv(head, a), rest)
                return self.alt(first, self.deriv(rest, a)) if self.nullable(head) else first
            case Star(body):
                return self.cat(self.deriv(body, a), r)
            case Or(parts):
                return self.alt(*(self.deriv(p, a) for p in parts))
            case And(parts):
                return self.inter(*(self.deriv(p, a) for p in parts))
            case Not(body):
                return self.neg(self.deriv(body, a))
        raise TypeError(r)  # pragma: no cover

    def matches(self, r: Term, word: Sequence[str]) -> bool:
        """Membership by derivatives: ``word`` is in ``L(r)`` iff ``d_word(r)`` is nullable."""
        for a in word:
            if a not in self.sigma:
                return False
            r = self.deriv(r, a)
            if isinstance(r, Empty):
                return False
        return self.nullable(r)
