"""Concrete evaluation of terms and value sets over an environment of read values.

An environment maps each variable to the tuple of every value read into it, oldest first (the
document's variables keep their whole history: ``x_A`` is the tuple, ``x_C`` its last element).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from kinduct.frontends.iospec import ast as A

Env = Mapping[str, tuple[int, ...]]
Value = int | bool | tuple[int, ...]


class EvalError(Exception):
    """A term has no value here (``x_C`` before any read, ``max`` of an empty list, division by
    zero); ``loc`` is the term's place in the specification."""

    def __init__(self, message: str, loc: A.Loc) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc


def contains(values: A.ValueSet, v: int) -> bool:
    """Whether ``v`` belongs to the value set."""
    if isinstance(values, A.Everything):
        return True
    if isinstance(values, A.Compare):
        return _compare(values.op, v, values.bound)
    if isinstance(values, A.Range):
        return values.lo <= v <= values.hi
    if isinstance(values, A.Finite):
        return v in values.values
    if isinstance(values, A.Complement):
        return not contains(values.inner, v)
    left, right = contains(values.left, v), contains(values.right, v)
    return (left or right) if values.op == "|" else (left and right)


def show_set(values: A.ValueSet) -> str:
    """The value set in the specification's syntax."""
    if isinstance(values, A.Everything):
        return "int"
    if isinstance(values, A.Compare):
        named = {(">=", 0): "nat", (">", 0): "pos", ("<", 0): "neg"}
        return named.get((values.op, values.bound), f"{values.op} {values.bound}")
    if isinstance(values, A.Range):
        return f"{values.lo}..{values.hi}"
    if isinstance(values, A.Finite):
        return "{" + ", ".join(map(str, values.values)) + "}"
    if isinstance(values, A.Complement):
        return f"!({show_set(values.inner)})"
    return f"({show_set(values.left)} {values.op} {show_set(values.right)})"


def _compare(op: str, a: int, b: int) -> bool:
    return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def evaluate(term: A.Term, env: Env) -> Value:
    """The value of ``term`` under ``env``; raises :class:`EvalError` where it has none."""
    if isinstance(term, A.Const):
        return term.value
    if isinstance(term, A.Current):
        values = env.get(term.var, ())
        if len(values) <= term.back:
            what = f"{term.var}_C" + (f"^-{term.back}" if term.back else "")
            raise EvalError(f"{what} has no value: {term.var} has been read {len(values)} "
                            "time(s)", term.loc)
        return values[-1 - term.back]
    if isinstance(term, A.All):
        return tuple(env.get(term.var, ()))
    op = term.op
    if op == "and":
        return bool(evaluate(term.args[0], env)) and bool(evaluate(term.args[1], env))
    if op == "or":
        return bool(evaluate(term.args[0], env)) or bool(evaluate(term.args[1], env))
    args = [evaluate(a, env) for a in term.args]
    return _apply(op, args, term.loc)


def _apply(op: str, args: list, loc: A.Loc) -> Value:
    if op == "not":
        return not args[0]
    if op == "neg":
        return -args[0]
    if op in A.COMPARISONS:
        return _compare(op, args[0], args[1])
    if op in ("/", "%"):
        if args[1] == 0:
            raise EvalError(f"division by zero in '{op}'", loc)
        return args[0] // args[1] if op == "/" else args[0] % args[1]
    if op == "+":
        return args[0] + args[1]
    if op == "-":
        return args[0] - args[1]
    if op == "*":
        return args[0] * args[1]
    if op == "sum":
        return sum(args[0])
    if op == "product":
        return math.prod(args[0])
    if op == "len":
        return len(args[0])
    if op in ("max", "min"):
        if not args[0]:
            raise EvalError(f"{op} of an empty list", loc)
        return max(args[0]) if op == "max" else min(args[0])
    if op == "abs":
        return abs(args[0])
    if op == "elem":
        return args[0] in args[1]
    if op == "count":
        return args[1].count(args[0])
    if op == "reverse":
        return tuple(reversed(args[0]))
    raise EvalError(f"unknown operator {op!r}", loc)  # pragma: no cover


def integer_subterms(term: A.Term) -> list[A.Term]:
    """Every integer-valued subterm of ``term`` except literals (what a fixed-width integer type
    must hold, §5.3.1)."""
    from kinduct.frontends.iospec.parser import type_of

    out: list[A.Term] = []
    stack = [term]
    while stack:
        t = stack.pop()
        if isinstance(t, A.Apply):
            stack.extend(t.args)
            if type_of(t) == "int":
                out.append(t)
        elif isinstance(t, A.Current):
            out.append(t)
    return out
