"""The vectorised evaluator: one numpy array per rule over a batch of words.

A :class:`Batch` packs words of different lengths into a ``(B, L)`` matrix of letter indices
(padding ``-1`` after each word's end).  Every expression evaluates to a ``(B, L)`` array
(bool for Boolean, int32 for counting expressions); column ``j-1`` is position ``j``.  Because
C-RASP is causal, values at padded positions are harmless garbage and never read: only
positions ``< length`` are meaningful.

- ``#(b)``: ``cumsum`` of ``b`` along positions;
- ``#[rs,re](b)``: ``S[j-rs] - S[j-re-1]`` with ``S`` the cumulative sum padded by zeros on
  the left (positions before 1 count nothing);
- ``period(m,o)``: ``positions % m == o`` broadcast over the batch (cached per batch).

Public API (synthesis, issue 6, builds on it):

- :meth:`Batch.from_words` ``(words, alphabet)``; ``batch.lengths``, ``batch.letters``.
- :func:`evaluate_rules` ``(program, batch) -> {name: (B, L) array}`` for every rule.
- :func:`evaluate_expr` ``(expr, batch, values) -> array`` evaluates one expression given the
  arrays of the rules it reads (``values``); use it to score a mutated rule without touching
  the others.
- :func:`update_rules` ``(program, batch, values, changed) -> dict`` re-evaluates rule
  ``changed`` and only the rules that depend on it, returning a new dict (``values`` is not
  modified, so the old candidate's arrays stay valid for a rejected move).
- :func:`accepted` ``(program, batch, values=None) -> (B,) bool array``: the deciding rule at each
  word's last position (False for empty words).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from kinduct.frontends.crasp import ast as A

COUNT_DTYPE = np.int32  # counts over batches of words longer than 1,000 letters
SMALL_DTYPE = np.int16  # counts over shorter words


class Batch:
    """Words of different lengths as a padded matrix of letter indices, plus caches."""

    __slots__ = ("alphabet", "letters", "lengths", "positions", "dtype", "_onehot", "_period", "_rows",
                 "_last")

    def __init__(self, letters: np.ndarray, lengths: np.ndarray, alphabet: Sequence[str]) -> None:
        self.alphabet = tuple(alphabet)
        self.letters = letters
        self.lengths = lengths
        width = letters.shape[1]
        # A count is at most the width; int16 then holds sums of up to 32 counts (synthesis
        # shapes stay far below) and halves the memory traffic.  Larger constants promote.
        self.dtype = SMALL_DTYPE if width <= 1000 else COUNT_DTYPE
        self.positions = np.arange(1, width + 1, dtype=self.dtype)[None, :]
        self._onehot: dict[str, np.ndarray] = {}
        self._period: dict[tuple[int, int], np.ndarray] = {}
        self._rows = np.arange(letters.shape[0])
        self._last = np.maximum(lengths - 1, 0)

    @classmethod
    def from_words(cls, words: Sequence[Sequence[str]], alphabet: Sequence[str]) -> Batch:
        """Encode ``words`` (each a sequence of letters of ``alphabet``)."""
        index = {a: i for i, a in enumerate(alphabet)}
        width = max((len(w) for w in words), default=0)
        letters = np.full((len(words), max(width, 1)), -1, dtype=np.int16)
        lengths = np.zeros(len(words), dtype=np.int64)
        for row, word in enumerate(words):
            try:
                letters[row, : len(word)] = [index[a] for a in word]
            except KeyError as exc:
                raise ValueError(f"letter {exc.args[0]!r} is not in the alphabet") from None
            lengths[row] = len(word)
        return cls(letters, lengths, alphabet)

    def __len__(self) -> int:
        return self.letters.shape[0]

    @property
    def shape(self) -> tuple[int, int]:
        return self.letters.shape  # type: ignore[return-value]

    def letter(self, letter: str) -> np.ndarray:
        """Boolean matrix: where the word holds ``letter``."""
        got = self._onehot.get(letter)
        if got is None:
            idx = self.alphabet.index(letter) if letter in self.alphabet else -2
            got = self.letters == idx
            self._onehot[letter] = got
        return got

    def period(self, modulus: int, offset: int) -> np.ndarray:
        key = (modulus, offset)
        got = self._period.get(key)
        if got is None:
            got = np.broadcast_to(self.positions % modulus == offset, self.shape)
            self._period[key] = got
        return got

    def last(self, values: np.ndarray) -> np.ndarray:
        return values[self._rows, self._last]


def _window(b: np.ndarray, start: int, end: int, dtype) -> np.ndarray:
    """Window counts by slices of one cumulative sum ``cs`` (``cs[c]`` counts positions 1..c+1):
    column c holds ``cs[c-start] - cs[c-end-1]``, a term being 0 where its index is negative."""
    rows, width = b.shape
    cs = np.cumsum(b, axis=1, dtype=dtype)
    out = np.zeros((rows, width), dtype=dtype)
    if start < width:
        out[:, start:] = cs[:, : width - start]
    if end + 1 < width:
        out[:, end + 1:] -= cs[:, : width - end - 1]
    return out


_CMP = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
        ">=": np.greater_equal}


def evaluate_expr(e: A.Expr, batch: Batch, values: Mapping[str, np.ndarray]) -> np.ndarray:
    """``e`` over the whole batch; ``values`` maps every rule ``e`` reads to its array."""
    if isinstance(e, A.Ref):
        return values[e.name]
    if isinstance(e, A.Letter):
        return batch.letter(e.letter)
    if isinstance(e, A.BoolConst):
        return np.full(batch.shape, e.value, dtype=bool)
    if isinstance(e, A.IntConst):
        return np.full(batch.shape, e.value, dtype=batch.dtype if abs(e.value) <= 1000 else np.int64)
    if isinstance(e, A.Not):
        return ~evaluate_expr(e.arg, batch, values)
    if isinstance(e, A.And):
        return evaluate_expr(e.left, batch, values) & evaluate_expr(e.right, batch, values)
    if isinstance(e, A.Or):
        return evaluate_expr(e.left, batch, values) | evaluate_expr(e.right, batch, values)
    if isinstance(e, A.Compare):
        return _whole(_CMP[e.op](_operand(e.left, batch, values), _operand(e.right, batch, values)), batch)
    if isinstance(e, A.Period):
        return batch.period(e.modulus, e.offset)
    if isinstance(e, A.Count):
        return np.cumsum(evaluate_expr(e.arg, batch, values), axis=1, dtype=batch.dtype)
    if isinstance(e, A.Window):
        return _window(evaluate_expr(e.arg, batch, values), e.start, e.end, batch.dtype)
    if isinstance(e, A.Add):
        return _whole(_operand(e.left, batch, values) + _operand(e.right, batch, values), batch)
    if isinstance(e, A.Sub):
        return _whole(_operand(e.left, batch, values) - _operand(e.right, batch, values), batch)
    if isinstance(e, A.Min):
        return _whole(np.minimum(_operand(e.left, batch, values), _operand(e.right, batch, values)), batch)
    if isinstance(e, A.Max):
        return _whole(np.maximum(_operand(e.left, batch, values), _operand(e.right, batch, values)), batch)
    if isinstance(e, A.Cond):
        return np.where(evaluate_expr(e.cond, batch, values), _operand(e.then, batch, values),
                        _operand(e.other, batch, values)).astype(batch.dtype, copy=False)
    raise TypeError(f"not a C-RASP expression: {e!r}")


def _whole(a, batch: Batch) -> np.ndarray:
    """Operations on two constants give a scalar; every expression value is a full matrix."""
    return a if np.ndim(a) else np.full(batch.shape, a)


def _operand(e: A.Expr, batch: Batch, values: Mapping[str, np.ndarray]):
    """Integer constants stay numpy scalars (broadcast) instead of full matrices."""
    if isinstance(e, A.IntConst):
        small = abs(e.value) <= 1000
        return (batch.dtype if small else np.int64)(e.value)
    return evaluate_expr(e, batch, values)


def evaluate_rules(program: A.Program, batch: Batch) -> dict[str, np.ndarray]:
    """Every rule's ``(B, L)`` array, in program order."""
    values: dict[str, np.ndarray] = {}
    for r in program.rules:
        values[r.name] = _full(evaluate_expr(r.expr, batch, values), batch)
    return values


def _full(a, batch: Batch) -> np.ndarray:
    return a if isinstance(a, np.ndarray) and a.shape == batch.shape else np.broadcast_to(a, batch.shape)


def update_rules(program: A.Program, batch: Batch, values: Mapping[str, np.ndarray],
                 changed: str) -> dict[str, np.ndarray]:
    """New values after rule ``changed`` got a new expression in ``program``: that rule and its
    dependents are re-evaluated, the others are shared with ``values``."""
    out = dict(values)
    for name in program.dependents(changed):
        out[name] = _full(evaluate_expr(program.rule(name).expr, batch, out), batch)
    return out


def accepted(program: A.Program, batch: Batch,
             values: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
    """Per word: is it accepted (deciding rule true at its last position, never when empty)?"""
    if values is None:
        values = evaluate_rules(program, batch)
    return batch.last(np.asarray(values[program.deciding.name], dtype=bool)) & (batch.lengths > 0)
