"""Evaluating a PySMT formula under an assignment of Python values, without building terms.

Replaying a counterexample asks, step by step, whether ``init``, ``trans``, the assumptions and
the property hold under the trace's values.  Substituting constants into a large ``trans`` and
simplifying it builds a new term per node and step; this module walks the formula's DAG once
per question and computes Booleans, integers and exact rationals directly.

It answers only what it can compute exactly: Booleans, linear and non-linear integer/real
arithmetic with exact rationals, ``ite``, equality, and the constructors, testers and selectors
of datatypes (:mod:`kinduct.kernel.datatypes`, on trees; a selector of another constructor's
field has no value here).  Anything else (bit-vectors, arrays,
uninterpreted functions, a division by zero, a variable without a value) makes
:func:`evaluate` return :data:`UNDECIDED`; :func:`holds` then falls back to substitution, and
a closed quantified formula left by it is decided by a solver call (:class:`Undecided` where
the solver cannot tell).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Final

import pysmt.operators as op
from pysmt.environment import Environment
from pysmt.fnode import FNode

from kinduct.kernel import datatypes
from kinduct.kernel.backend import constant
from kinduct.kernel.datatypes import Tree
from kinduct.kernel.verdict import Value

Number = int | Fraction
Computed = bool | int | Fraction | Tree


class _Undecided:
    """The value of a term this module cannot compute exactly."""

    def __repr__(self) -> str:
        return "UNDECIDED"


UNDECIDED: Final = _Undecided()


def _div(a: Number, b: Number) -> Computed | _Undecided:
    # SMT-LIB leaves x / 0 unspecified: no value to compute.
    return UNDECIDED if b == 0 else Fraction(a) / Fraction(b)


def _minus(a: Number, b: Number) -> Number:
    return a - b


def _times(args: Sequence[Number]) -> Number:
    out: Number = 1
    for a in args:
        out *= a
    return out


def _equals(args: Sequence[Computed]) -> bool:
    return args[0] == args[1]


_STRICT: dict[int, Callable[[Sequence], Computed | _Undecided]] = {
    op.NOT: lambda a: not a[0],
    op.IMPLIES: lambda a: (not a[0]) or a[1],
    op.IFF: _equals,
    op.EQUALS: _equals,
    op.LE: lambda a: a[0] <= a[1],
    op.LT: lambda a: a[0] < a[1],
    op.PLUS: sum,
    op.MINUS: lambda a: _minus(a[0], a[1]),
    op.TIMES: _times,
    op.DIV: lambda a: _div(a[0], a[1]),
    op.TOREAL: lambda a: Fraction(a[0]),
}


def _constant(node: FNode) -> Computed | _Undecided:
    kind = node.node_type()
    if kind == op.BOOL_CONSTANT:
        return bool(node.constant_value())
    if kind == op.INT_CONSTANT:
        return int(node.constant_value())
    if kind == op.REAL_CONSTANT:
        value = node.constant_value()
        return Fraction(int(value.numerator), int(value.denominator))
    return UNDECIDED


def _combine(node: FNode, args: list[Computed | _Undecided], reg: datatypes.Registry | None
             ) -> Computed | _Undecided:
    kind = node.node_type()
    if kind == op.FUNCTION:
        adt = datatypes.op_of(reg, node)
        if adt is None or any(a is UNDECIDED for a in args):
            return UNDECIDED
        value = datatypes.evaluate(adt, args)
        return UNDECIDED if value is None else value
    if kind == op.AND:
        if any(a is False for a in args):
            return False
        return UNDECIDED if any(a is UNDECIDED for a in args) else True
    if kind == op.OR:
        if any(a is True for a in args):
            return True
        return UNDECIDED if any(a is UNDECIDED for a in args) else False
    if kind == op.ITE:
        cond, then, other = args
        if cond is UNDECIDED:
            return then if then is not UNDECIDED and then == other else UNDECIDED
        return then if cond else other
    if any(a is UNDECIDED for a in args):
        return UNDECIDED
    strict = _STRICT.get(kind)
    return UNDECIDED if strict is None else strict(args)


def _leaf(node: FNode, values: Mapping[FNode, Computed], reg: datatypes.Registry | None
          ) -> Computed | _Undecided:
    if node.is_symbol():
        adt = datatypes.op_of(reg, node)
        if adt is not None:  # a nullary constructor
            return datatypes.evaluate(adt, [])
        value = values.get(node, UNDECIDED)
        return value if isinstance(value, (bool, int, Fraction, Tree)) else UNDECIDED
    return _constant(node)


def evaluate(formula: FNode, values: Mapping[FNode, Computed], env: Environment | None = None
             ) -> Computed | _Undecided:
    """The value of ``formula`` when each symbol ``s`` has ``values[s]``; :data:`UNDECIDED`
    when it cannot be computed exactly here (see the module's docstring).  ``env``: the
    environment whose datatypes the formula may apply."""
    return Evaluation(values, env)(formula)


class Evaluation:
    """:func:`evaluate` of many formulas under one assignment that may only grow (a value
    added for a symbol without one), with one memo of the subterms computed so far.

    A computed value stays right as values are added (:func:`evaluate` gives one only where
    every completion of the values gives it), so the memo keeps it; an undecided subterm is
    computed again when asked again.  Terms are memoised by ``id``: the caller keeps them
    alive (PySMT's ``FNode.__hash__`` is a Python method)."""

    def __init__(self, values: Mapping[FNode, Computed], env: Environment | None = None
                 ) -> None:
        #: The assignment, which the caller may extend between calls.
        self.values = values
        self._reg = datatypes.find(env)
        self._memo: dict[int, Computed] = {}

    def __call__(self, formula: FNode) -> Computed | _Undecided:
        """The value of ``formula`` under :attr:`values` (as :func:`evaluate`'s)."""
        memo, values, reg = self._memo, self.values, self._reg
        got = memo.get(id(formula), UNDECIDED)
        if got is not UNDECIDED:
            return got
        done: dict[int, Computed | _Undecided] = {}
        stack: list[tuple[FNode, bool]] = [(formula, False)]
        while stack:
            node, children_done = stack.pop()
            key = id(node)
            if children_done:
                value = _combine(node, [done[id(a)] for a in node.args()], reg)
            elif key in done:
                continue
            elif key in memo:
                done[key] = memo[key]
                continue
            else:
                args = node.args()
                if args:
                    stack.append((node, True))
                    stack.extend((a, False) for a in args)
                    continue
                value = _leaf(node, values, reg)
            done[key] = value
            if value is not UNDECIDED:
                memo[key] = value
        return done[id(formula)]


def _typed(var: FNode, value: Value) -> Computed | None:
    """``value`` as the Python value of ``var``'s sort (None: a sort left to substitution)."""
    sort = var.symbol_type()
    try:
        if sort.is_bool_type():
            return bool(value)
        if sort.is_int_type():
            return int(value)
        if sort.is_real_type():
            return Fraction(value)
        if sort.is_custom_type():
            return datatypes.from_text(value)
    except (TypeError, ValueError):
        pass
    return None


def computable(values: Mapping[FNode, Value]) -> dict[FNode, Computed]:
    """The values :func:`evaluate` can use, by symbol (compute once, ask many times)."""
    typed = ((var, _typed(var, value)) for var, value in values.items())
    return {var: v for var, v in typed if v is not None}


def substituted(env: Environment, formula: FNode, values: Mapping[FNode, Value]) -> FNode:
    """``formula`` with each symbol that has a value in ``values`` replaced by its constant."""
    mgr = env.formula_manager
    return env.substituter.substitute(formula, {var: constant(mgr, var, v) for var, v in values.items()})


def holds(env: Environment, formula: FNode, values: Mapping[FNode, Value],
          ready: Mapping[FNode, Computed] | None = None) -> bool | None:
    """Whether ``formula`` holds when each symbol has its value in ``values`` (``ready``: the
    same values already passed through :func:`computable`); None when a symbol it needs has no
    value.  Computed directly where :func:`evaluate` can, else by substituting constants and
    simplifying."""
    value = evaluate(formula, computable(values) if ready is None else ready, env)
    if value is not UNDECIDED:
        return bool(value)
    value = substituted(env, formula, values)
    if _has_array_value(value) and not value.get_free_variables():
        # PySMT simplifies an equality of two array values to the equality of their defaults
        # (``[1 := True] = [3 := True]`` to True): a solver decides
        return satisfiable(env, value)
    value = env.simplifier.simplify(value)
    if value.is_bool_constant():
        return value.constant_value()
    reg = datatypes.find(env)
    if all(reg is not None and v in reg.ops for v in value.get_free_variables()):
        # closed (but for datatype operations): quantified, or over array constants
        return satisfiable(env, value)
    return None


def _has_array_value(formula: FNode) -> bool:
    seen: set[FNode] = set()
    stack = [formula]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.is_array_value():
            return True
        stack.extend(node.args())
    return False


#: Seconds a solver may take to decide one closed quantified formula on replay.
DECIDE_SECONDS = 20


class Undecided(Exception):
    """A closed quantified formula on replay that the solver could not decide."""


def satisfiable(env: Environment, formula: FNode) -> bool:
    """Whether ``formula`` is satisfiable (for a closed one: whether it holds), by a solver
    call; :class:`Undecided` when the solver answers unknown or refuses it."""
    try:
        solver = env.factory.Solver(name="z3")
        solver.z3.set("timeout", int(DECIDE_SECONDS * 1000))
    except Exception as exc:  # noqa: BLE001 - no z3 here
        raise Undecided(f"no solver to decide a quantified formula: {exc}") from None
    try:
        solver.add_assertion(formula)
        return bool(solver.solve())
    except Exception as exc:  # noqa: BLE001 - unknown, or a term the solver refuses
        raise Undecided(f"z3 could not decide a formula on the trace's values "
                        f"({type(exc).__name__})") from None
    finally:
        solver.exit()
