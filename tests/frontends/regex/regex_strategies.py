"""Random regular expressions for the differential tests: each as ``.regex`` source, as a
Python ``re`` pattern when it has no ``~``/``&``, and an independent reference matcher."""

from __future__ import annotations

import functools

from hypothesis import strategies as st

ALPHABET = ("a", "b")

_leaves = st.sampled_from([("chr", "a"), ("chr", "b"), ("any",), ("eps",), ("cls", "a"),
                           ("cls", "ab"), ("cls", "")])


def _extend(children):
    return st.one_of(
        st.tuples(st.sampled_from(["cat", "alt", "and"]), children, children),
        st.tuples(st.sampled_from(["star", "plus", "opt", "not"]), children))


trees = st.recursive(_leaves, _extend, max_leaves=7)
plain_trees = trees.filter(lambda t: not _has(t, ("and", "not")))


def _has(t, ops) -> bool:
    return t[0] in ops or any(isinstance(c, tuple) and _has(c, ops) for c in t[1:])


def source(t) -> str:
    """Fully parenthesised ``.regex`` text (without the alphabet line)."""
    op = t[0]
    if op == "chr":
        return t[1]
    if op == "any":
        return "."
    if op == "eps":
        return "()"
    if op == "cls":
        return "[" + t[1] + "]"
    if op in ("cat", "alt", "and"):
        sep = {"cat": " ", "alt": " | ", "and": " & "}[op]
        return f"({source(t[1])}{sep}{source(t[2])})"
    if op == "not":
        return f"~({source(t[1])})"
    return f"({source(t[1])}){ {'star': '*', 'plus': '+', 'opt': '?'}[op] }".replace(" ", "")


def python_pattern(t) -> str:
    op = t[0]
    if op == "chr":
        return t[1]
    if op == "any":
        return "[ab]"
    if op == "eps":
        return "(?:)"
    if op == "cls":
        return f"[{t[1]}]" if t[1] else "(?!)"
    if op == "cat":
        return f"(?:{python_pattern(t[1])})(?:{python_pattern(t[2])})"
    if op == "alt":
        return f"(?:{python_pattern(t[1])}|{python_pattern(t[2])})"
    suffix = {"star": "*", "plus": "+", "opt": "?"}[op]
    return f"(?:{python_pattern(t[1])}){suffix}"


def reference(t, word: str) -> bool:
    """Set semantics by splitting the word (exponential, fine for short words)."""

    @functools.cache
    def m(node, i: int, j: int) -> bool:
        op = node[0]
        if op == "chr":
            return j == i + 1 and word[i] == node[1]
        if op == "any":
            return j == i + 1
        if op == "cls":
            return j == i + 1 and word[i] in node[1]
        if op == "eps":
            return i == j
        if op == "cat":
            return any(m(node[1], i, k) and m(node[2], k, j) for k in range(i, j + 1))
        if op == "alt":
            return m(node[1], i, j) or m(node[2], i, j)
        if op == "and":
            return m(node[1], i, j) and m(node[2], i, j)
        if op == "not":
            return not m(node[1], i, j)
        if op == "opt":
            return i == j or m(node[1], i, j)
        if op == "plus":
            return m(node[1], i, j) or any(m(node[1], i, k) and m(node, k, j) for k in range(i + 1, j))
        # star
        return i == j or any(m(node[1], i, k) and m(node, k, j) for k in range(i + 1, j + 1))

    return m(t, 0, len(word))
