"""Symbolic evaluation of terms and value sets into z3 formulas over input variables (§8.4).

The environment maps each variable to the tuple of symbolic input values read into it, so
``x_A`` is a tuple of z3 integers and ``len(x_A)`` a constant: ``sum(x_A) > 0`` under
``[x ↦ [x_1, x_2, x_3]]`` is ``x_1 + x_2 + x_3 > 0``.  Definedness side conditions (a divisor
is not zero) and, on request, the fixed-width bounds of every integer subterm (§5.3.1) are
collected in :attr:`Symbolic.side`.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping

import z3

from kinduct.frontends.iospec import ast as A
from kinduct.frontends.iospec.evaluate import EvalError

SymValue = z3.ArithRef | z3.BoolRef | tuple
SymEnv = Mapping[str, tuple[z3.ArithRef, ...]]


def member(values: A.ValueSet, v: z3.ArithRef) -> z3.BoolRef:
    """``v ∈ values`` as a formula."""
    if isinstance(values, A.Everything):
        return z3.BoolVal(True)
    if isinstance(values, A.Compare):
        return _compare(values.op, v, z3.IntVal(values.bound))
    if isinstance(values, A.Range):
        return z3.And(v >= values.lo, v <= values.hi)
    if isinstance(values, A.Finite):
        return z3.Or([v == k for k in values.values]) if values.values else z3.BoolVal(False)
    if isinstance(values, A.Complement):
        return z3.Not(member(values.inner, v))
    parts = [member(values.left, v), member(values.right, v)]
    return z3.Or(parts) if values.op == "|" else z3.And(parts)


#: The specification's comparison operators, on z3 terms (``operator.eq`` builds ``a == b``).
_COMPARISONS = {"=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
                ">": operator.gt, ">=": operator.ge}


def _compare(op: str, a, b) -> z3.BoolRef:
    return _COMPARISONS[op](a, b)


def _floor_div(a, b):
    # z3's div rounds down for positive divisors and up for negative ones; the specification's
    # '/' always rounds down: a / b = (-a) div (-b) when b < 0.
    return z3.If(b > 0, a / b, (-a) / (-b))


class Symbolic:
    """Translate terms under one symbolic environment; ``bounds`` (lo, hi) adds the
    fixed-width constraints of every integer subterm to :attr:`side`."""

    def __init__(self, env: SymEnv, bounds: tuple[int, int] | None = None) -> None:
        self.env = env
        self.bounds = bounds
        self.side: list[z3.BoolRef] = []

    def _bound(self, value):
        if self.bounds is not None and not z3.is_int_value(value):
            lo, hi = self.bounds
            self.side.append(z3.And(value >= lo, value <= hi))
        return value

    def term(self, term: A.Term) -> SymValue:
        if isinstance(term, A.Const):
            return z3.BoolVal(term.value) if isinstance(term.value, bool) else z3.IntVal(term.value)
        if isinstance(term, A.Current):
            values = self.env.get(term.var, ())
            if len(values) <= term.back:
                what = f"{term.var}_C" + (f"^-{term.back}" if term.back else "")
                raise EvalError(f"{what} has no value on this path: {term.var} has been read "
                                f"{len(values)} time(s)", term.loc)
            return values[-1 - term.back]
        if isinstance(term, A.All):
            return tuple(self.env.get(term.var, ()))
        args = [self.term(a) for a in term.args]
        return self._apply(term.op, args, term.loc)

    def _apply(self, op: str, args: list, loc: A.Loc) -> SymValue:
        if op == "and":
            return z3.And(args[0], args[1])
        if op == "or":
            return z3.Or(args[0], args[1])
        if op == "not":
            return z3.Not(args[0])
        if op in A.COMPARISONS:
            return _compare(op, args[0], args[1])
        if op == "neg":
            return self._bound(-args[0])
        if op in ("+", "-", "*"):
            a, b = args
            return self._bound(a + b if op == "+" else a - b if op == "-" else a * b)
        if op in ("/", "%"):
            a, b = args
            self.side.append(b != 0)
            q = _floor_div(a, b)
            return self._bound(q if op == "/" else a - b * q)
        if op in ("sum", "product"):
            xs = args[0]
            if not xs:
                return z3.IntVal(0 if op == "sum" else 1)
            total = xs[0]
            for x in xs[1:]:  # every partial sum or product must fit, not only the last
                total = self._bound(total + x if op == "sum" else total * x)
            return total
        if op == "len":
            return z3.IntVal(len(args[0]))
        if op in ("max", "min"):
            xs = args[0]
            if not xs:
                raise EvalError(f"{op} of an empty list (on this path)", loc)
            best = xs[0]
            for x in xs[1:]:
                best = z3.If(x > best, x, best) if op == "max" else z3.If(x < best, x, best)
            return best
        if op == "abs":
            return z3.If(args[0] < 0, -args[0], args[0])
        if op == "elem":
            return z3.Or([args[0] == x for x in args[1]]) if args[1] else z3.BoolVal(False)
        if op == "count":
            return z3.Sum([z3.If(args[0] == x, 1, 0) for x in args[1]]) if args[1] else z3.IntVal(0)
        if op == "reverse":
            return tuple(reversed(args[0]))
        raise EvalError(f"unknown operator {op!r}", loc)  # pragma: no cover
