"""The reference evaluator: C-RASP semantics read straight off the paper, one word at a time.

This is the meaning of a program (DESIGN §7); everything else (the numpy evaluator, the
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

from collections.abc import Sequence

from kinduct.frontends.crasp import ast as A
from kinduct.kernel.errors import InputError

Value = bool | int


class _Eval:
    """Value of expressions at positions of one word, memoised per (node, position)."""

    def __init__(self, program: A.Program, word: Sequence[str]) -> None:
        self.program = program
        self.word = list(word)
        self.rules = {r.name: r.expr for r in program.rules}
        self.memo: dict[tuple[int, int], Value] = {}
        self.keep: list[A.Expr] = []  # keeps ids stable while memoised

    def value(self, e: A.Expr, j: int) -> Value:
        key = (id(e), j)
        if key in self.memo:
            return self.memo[key]
        self.keep.append(e)
        v = self._value(e, j)
        self.memo[key] = v
        return v

    def _value(self, e: A.Expr, j: int) -> Value:
        if isinstance(e, A.BoolConst):
            return e.value
        if isinstance(e, A.IntConst):
            return e.value
        if isinstance(e, A.Letter):
            return self.word[j - 1] == e.letter
        if isinstance(e, A.Ref):
            return self.value(self.rules[e.name], j)
        if isinstance(e, A.Not):
            return not self.value(e.arg, j)
        if isinstance(e, A.And):
            return bool(self.value(e.left, j)) and bool(self.value(e.right, j))
        if isinstance(e, A.Or):
            return bool(self.value(e.left, j)) or bool(self.value(e.right, j))
        if isinstance(e, A.Compare):
            a, b = self.value(e.left, j), self.value(e.right, j)
            return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                    ">=": a >= b}[e.op]
        if isinstance(e, A.Period):
            return j % e.modulus == e.offset
        if isinstance(e, A.Count):
            return sum(1 for i in range(1, j + 1) if self.value(e.arg, i))
        if isinstance(e, A.Window):
            lo, hi = max(1, j - e.end), j - e.start
            return sum(1 for i in range(lo, hi + 1) if self.value(e.arg, i))
        if isinstance(e, A.Add):
            return int(self.value(e.left, j)) + int(self.value(e.right, j))
        if isinstance(e, A.Sub):
            return int(self.value(e.left, j)) - int(self.value(e.right, j))
        if isinstance(e, A.Min):
            return min(int(self.value(e.left, j)), int(self.value(e.right, j)))
        if isinstance(e, A.Max):
            return max(int(self.value(e.left, j)), int(self.value(e.right, j)))
        if isinstance(e, A.Cond):
            return self.value(e.then, j) if self.value(e.cond, j) else self.value(e.other, j)
        raise TypeError(f"not a C-RASP expression: {e!r}")


def _check_word(program: A.Program, word: Sequence[str]) -> None:
    for i, letter in enumerate(word):
        if letter not in program.alphabet:
            raise InputError(f"letter {letter!r} at position {i + 1} of the word is not in the "
                             f"alphabet ({', '.join(A.quote(a) for a in program.alphabet)})")


def evaluate(program: A.Program, word: Sequence[str]) -> dict[str, list[Value]]:
    """Every rule's value at every position 1..n of ``word`` (a sequence of letters)."""
    _check_word(program, word)
    ev = _Eval(program, word)
    return {r.name: [ev.value(r.expr, j) for j in range(1, len(word) + 1)] for r in program.rules}


def accepts(program: A.Program, word: Sequence[str]) -> bool:
    """Is ``word`` in the program's language (deciding rule true at the last position)?"""
    if not word:
        return False
    _check_word(program, word)
    ev = _Eval(program, word)
    return bool(ev.value(program.deciding.expr, len(word)))


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
