"""The reference evaluator: C-RASP semantics read straight off the paper, one word at a time.

This is the meaning of a program (DESIGN §7), computed node by node over the whole word
(linear in its length); everything else (the numpy evaluator, the
translation to acceptors, the Lustre encoding) is tested against it.  Positions are 1..n;
``#(b)`` at j counts i <= j with b; ``#[rs,re](b)`` counts j-re <= i <= j-rs (positions before 1
count nothing); ``period(m,o)`` holds at j when j mod m = o.  A word is accepted when the
deciding rule is true at its last position; the empty word is never accepted.

Public API:

- :func:`evaluate` ``(program, word) -> {rule name: [value at position 1, ..., n]}``
  (bool for Boolean rules, int for counting rules);
- :func:`accepts` ``(program, word) -> bool``;
- :func:`split_word` turns a command-line WORD into letters.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

from kinduct.frontends.crasp import ast as A
from kinduct.kernel.errors import InputError

Value = bool | int


class _Eval:
    """Values of expressions at every position 1..n of one word, one list per node.

    Each node is computed once over the whole word (memoised by node identity): ``#(b)`` is a
    running count, ``#[rs,re](b)`` a difference of prefix counts, so a word of n letters costs
    O(n) per node.  Recursion follows the expression's depth, which the parser bounds."""

    def __init__(self, program: A.Program, word: Sequence[str]) -> None:
        self.word = list(word)
        self.n = len(self.word)
        self.rules = {r.name: r.expr for r in program.rules}
        self.memo: dict[int, list[Value]] = {}
        self.keep: list[A.Expr] = []  # keeps ids stable while memoised

    def column(self, e: A.Expr) -> list[Value]:
        """``e`` at positions 1..n (index j-1 holds position j)."""
        got = self.memo.get(id(e))
        if got is None:
            self.keep.append(e)
            got = self._column(e)
            self.memo[id(e)] = got
        return got

    def pairs(self, e: A.Expr):
        """The columns of a binary node's two operands, position by position."""
        return zip(self.column(e.left), self.column(e.right), strict=True)

    def value(self, e: A.Expr, j: int) -> Value:
        return self.column(e)[j - 1]

    def _column(self, e: A.Expr) -> list[Value]:
        n = self.n
        if isinstance(e, (A.BoolConst, A.IntConst)):
            return [e.value] * n
        if isinstance(e, A.Letter):
            return [w == e.letter for w in self.word]
        if isinstance(e, A.Ref):
            return self.column(self.rules[e.name])
        if isinstance(e, A.Not):
            return [not v for v in self.column(e.arg)]
        if isinstance(e, A.And):
            return [bool(a) and bool(b) for a, b in self.pairs(e)]
        if isinstance(e, A.Or):
            return [bool(a) or bool(b) for a, b in self.pairs(e)]
        if isinstance(e, A.Compare):
            op = _COMPARE[e.op]
            return [op(a, b) for a, b in self.pairs(e)]
        if isinstance(e, A.Period):
            return [j % e.modulus == e.offset for j in range(1, n + 1)]
        if isinstance(e, A.Count):  # positions i <= j where the argument holds
            return list(itertools.accumulate(int(bool(v)) for v in self.column(e.arg)))
        if isinstance(e, A.Window):  # positions j-end <= i <= j-start, none before 1
            prefix = [0, *itertools.accumulate(int(bool(v)) for v in self.column(e.arg))]
            return [prefix[j - e.start] - prefix[max(0, j - e.end - 1)] if j - e.start >= 1 else 0
                    for j in range(1, n + 1)]
        if isinstance(e, A.Add):
            return [int(a) + int(b) for a, b in self.pairs(e)]
        if isinstance(e, A.Sub):
            return [int(a) - int(b) for a, b in self.pairs(e)]
        if isinstance(e, A.Min):
            return [min(int(a), int(b)) for a, b in self.pairs(e)]
        if isinstance(e, A.Max):
            return [max(int(a), int(b)) for a, b in self.pairs(e)]
        if isinstance(e, A.Cond):
            return [t if c else o for c, t, o in
                    zip(self.column(e.cond), self.column(e.then), self.column(e.other), strict=True)]
        raise TypeError(f"not a C-RASP expression: {e!r}")


_COMPARE = {"=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


def _check_word(program: A.Program, word: Sequence[str]) -> None:
    for i, letter in enumerate(word):
        if letter not in program.alphabet:
            raise InputError(f"letter {letter!r} at position {i + 1} of the word is not in the "
                             f"alphabet ({', '.join(A.quote(a) for a in program.alphabet)})")


def evaluate(program: A.Program, word: Sequence[str]) -> dict[str, list[Value]]:
    """Every rule's value at every position 1..n of ``word`` (a sequence of letters)."""
    _check_word(program, word)
    ev = _Eval(program, word)
    return {r.name: list(ev.column(r.expr)) for r in program.rules}


def accepts(program: A.Program, word: Sequence[str]) -> bool:
    """Is ``word`` in the program's language (deciding rule true at the last position)?"""
    if not word:
        return False
    _check_word(program, word)
    return bool(_Eval(program, word).value(program.deciding.expr, len(word)))


def split_word(text: str, alphabet: Sequence[str]) -> list[str]:
    """A command-line word: letters separated by spaces, or one character per letter."""
    if any(ch.isspace() for ch in text):
        return text.split()
    if all(len(a) == 1 for a in alphabet):
        return list(text)
    if text in alphabet:
        return [text]
    raise InputError("the alphabet has letters longer than one character: separate the word's "
                     "letters by spaces")
