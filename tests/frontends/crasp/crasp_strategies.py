"""Hypothesis strategies for random well-typed C-RASP programs and words over their alphabet."""

from __future__ import annotations

from hypothesis import strategies as st

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.parser import check

ALPHABETS = [("a", "b"), ("a", "b", "c"), ("[", "]"), ("x",)]


def _expr(draw, kind: A.Kind, alphabet, earlier: list[A.Rule], depth: int) -> A.Expr:
    refs = [r.name for r in earlier if r.kind is kind]
    if kind is A.Kind.BOOL:
        leaves = ["letter", "const", "period"] + (["ref"] * 2 if refs else [])
        inner = ["not", "and", "or", "cmp", "cmp"]
    else:
        leaves = ["int", "count", "window"] + (["ref"] * 2 if refs else [])
        inner = ["add", "sub", "min", "max", "cond", "count", "window"]
    choice = draw(st.sampled_from(leaves if depth <= 0 else leaves + inner))
    sub = depth - 1
    B, C = A.Kind.BOOL, A.Kind.COUNT

    def e(k: A.Kind, d: int = sub) -> A.Expr:
        return _expr(draw, k, alphabet, earlier, d)

    if choice == "letter":
        return A.Letter(draw(st.sampled_from(alphabet)))
    if choice == "const":
        return A.BoolConst(draw(st.booleans()))
    if choice == "period":
        m = draw(st.integers(1, 4))
        return A.Period(m, draw(st.integers(0, m - 1)))
    if choice == "ref":
        return A.Ref(draw(st.sampled_from(refs)))
    if choice == "int":
        return A.IntConst(draw(st.integers(0, 3)))
    if choice == "count":
        return A.Count(e(B, min(sub, 1)))
    if choice == "window":
        s = draw(st.integers(0, 3))
        return A.Window(s, s + draw(st.integers(0, 3)), e(B, min(sub, 1)))
    if choice == "not":
        return A.Not(e(B))
    if choice == "and":
        return A.And(e(B), e(B))
    if choice == "or":
        return A.Or(e(B), e(B))
    if choice == "cmp":
        return A.Compare(draw(st.sampled_from(A.COMPARISONS)), e(C), e(C))
    if choice == "add":
        return A.Add(e(C), e(C))
    if choice == "sub":
        return A.Sub(e(C), e(C))
    if choice == "min":
        return A.Min(e(C), e(C))
    if choice == "max":
        return A.Max(e(C), e(C))
    if choice == "cond":
        return A.Cond(e(B), e(C), e(C))
    raise AssertionError(choice)


@st.composite
def programs(draw, max_rules: int = 5, depth: int = 2, alphabet=None) -> A.Program:
    alphabet = alphabet or draw(st.sampled_from(ALPHABETS))
    n = draw(st.integers(1, max_rules))
    rules: list[A.Rule] = []
    for i in range(n):
        kind = A.Kind.BOOL if i == n - 1 else draw(st.sampled_from([A.Kind.BOOL, A.Kind.COUNT]))
        rules.append(A.Rule(f"R{i}", _expr(draw, kind, alphabet, rules, depth), kind))
    return check(A.Program(tuple(alphabet), tuple(rules)))


def words(alphabet, min_size: int = 0, max_size: int = 12):
    return st.lists(st.sampled_from(alphabet), min_size=min_size, max_size=max_size)


@st.composite
def program_and_words(draw, n_words: int = 5, max_len: int = 12, **kw):
    p = draw(programs(**kw))
    ws = draw(st.lists(words(p.alphabet, 0, max_len), min_size=1, max_size=n_words))
    return p, ws
