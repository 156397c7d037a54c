"""The reference semantics: evaluating s-ops and selectors on one concrete input.

A selector is a matrix ``m[q][k]``: query position ``q`` selects key position ``k`` when
``key[k] op query[q]`` (``select(key, query, op)``).  ``aggregate`` averages the selected
values per query position, passes a single selected value through unchanged, and gives the
default when nothing is selected; averaging non-numbers is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from kinduct.frontends.rasp import ops
from kinduct.frontends.rasp.nodes import Node, walk
from kinduct.kernel.errors import InputError


class EvalError(Exception):
    """A runtime error of the program on this input, blamed on the node that raised it."""

    def __init__(self, message: str, node: Node) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


def convert_token(tok: str, conv: str) -> Any:
    """``tokens_int`` etc.: how an input token is read."""
    if conv == "str":
        return tok
    if conv == "int":
        try:
            return int(tok)
        except ValueError:
            raise ops.RaspRuntimeError(f"token {tok!r} is not an integer (tokens_int)") from None
    if conv == "float":
        try:
            return ops.norm(Fraction(tok))
        except ValueError:
            raise ops.RaspRuntimeError(f"token {tok!r} is not a number (tokens_float)") from None
    if conv == "bool":
        low = tok.lower()
        if low in ("t", "true", "1"):
            return True
        if low in ("f", "false", "0"):
            return False
        raise ops.RaspRuntimeError(f"token {tok!r} is not a boolean (tokens_bool)")
    # asis: numbers when they look like numbers
    try:
        return int(tok)
    except ValueError:
        try:
            return ops.norm(Fraction(tok))
        except ValueError:
            return tok


#: Longest input ``rasp eval``/``draw`` accept: every selector is an n-by-n matrix.
MAX_INPUT = 2000


def split_input(text: str) -> list[str]:
    """An input as the RASP REPL reads it: a string is a sequence of characters (spaces
    included: ``"hiya howdy"`` has ten positions); a token list is written as the REPL writes
    lists, ``[12, 3, 4]`` or ``['ca', 'bb']`` (quotes optional, commas between tokens)."""
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        inner = body[1:-1].strip()
        tokens = [_unquote(t.strip()) for t in inner.split(",")] if inner else []
        if any(t == "" for t in tokens):
            raise InputError(f"input {text!r}: an empty token in the list (write [a, b, c])")
    else:
        tokens = list(text)
    if len(tokens) > MAX_INPUT:
        raise InputError(f"the input has {len(tokens)} tokens; at most {MAX_INPUT} are evaluated "
                         "(every selector is a matrix of n x n positions)")
    return tokens


def _unquote(token: str) -> str:
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return token[1:-1]
    return token


class Evaluator:
    """Evaluates nodes on one input, memoising every node once."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens = list(tokens)
        self.n = len(self.tokens)
        self.memo: dict[int, Any] = {}

    def __call__(self, node: Node) -> Any:
        for sub in walk([node]):
            if sub.uid not in self.memo:
                self.memo[sub.uid] = self._compute(sub)
        return self.memo[node.uid]

    def _compute(self, node: Node) -> Any:
        n = self.n
        k = node.kind
        try:
            if k == "tokens":
                return [convert_token(t, node.value) for t in self.tokens]
            if k == "indices":
                return list(range(n))
            if k == "const":
                return [node.value] * n
            args = [self.memo[a.uid] for a in node.args]
            if k == "map":
                return [ops.apply(node.op, *vals) for vals in zip(*args, strict=True)]
            if k == "select":
                keys, queries = args
                cmp = ops.COMPARE[node.op]
                return [[bool(cmp(keys[j], queries[i])) for j in range(n)] for i in range(n)]
            if k == "sel_and":
                return [[x and y for x, y in zip(r1, r2, strict=True)] for r1, r2 in zip(*args, strict=True)]
            if k == "sel_or":
                return [[x or y for x, y in zip(r1, r2, strict=True)] for r1, r2 in zip(*args, strict=True)]
            if k == "sel_not":
                return [[not x for x in row] for row in args[0]]
            if k == "select_best":
                matrix, keys, queries = args
                return [best_row(matrix[i], [ops.apply("*", keys[j], queries[i]) for j in range(n)])
                        for i in range(n)]
            if k == "aggregate":
                matrix, values = args
                return [ops.aggregate_values([values[j] for j in range(n) if matrix[i][j]], node.value,
                                             f" at position {i}")
                        for i in range(n)]
        except ops.RaspRuntimeError as exc:
            raise EvalError(str(exc), node) from None
        raise AssertionError(f"unknown node kind {k}")  # pragma: no cover


def best_row(row: list[bool], scores: list[Any]) -> list[bool]:
    """``select_best`` on one query: the selected keys of the highest score (ties all kept)."""
    chosen = [s for s, keep in zip(scores, row, strict=True) if keep]
    if not chosen:
        return [False] * len(row)
    top = max(chosen)
    return [keep and s == top for s, keep in zip(scores, row, strict=True)]


def evaluate(node: Node, tokens: Sequence[str]) -> Any:
    return Evaluator(tokens)(node)
