"""Diverse models of a set of constraints: random suggestions, nearest model, block, repeat.

For anyone who has hard constraints over integer and Boolean terms and wants several
*different* satisfying assignments rather than the one a solver returns every time (test
inputs for a specification path, words of a language, ...).  The recipe is the I/O-testing
paper's (§5.3; SMT sampling by MaxSAT): draw a random value for every suggested term, add
``term = value`` as a *soft* constraint with a random weight, ask z3's ``Optimize`` for the
satisfying assignment that keeps the heaviest suggestions (the nearest one), block that
assignment on the chosen variables, and repeat with fresh suggestions.

Guarantees: every model satisfies every hard constraint (the solver's model, checked by
z3); the models are pairwise distinct on :attr:`Problem.variables` and differ from
:attr:`Problem.exclude`; the suggestions come from the caller's ``random.Random``, so another
seed gives other models.

Typed API: :class:`Suggestion`, :class:`Problem`, :class:`Found` (with :class:`Stop`, why the
search ended), :class:`DiverseModels` (one z3 context and converter reused across calls) and
:func:`diverse_models` (one call).  Formulas are PySMT terms of one environment; z3 is
imported when the first search runs, not when this module is imported.
"""

from __future__ import annotations

import enum
import random
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
from pysmt.environment import Environment, get_env
from pysmt.fnode import FNode

if TYPE_CHECKING:
    import z3

#: A value of an integer or Boolean term.
Value = int | bool
#: One model: the values of :attr:`Problem.variables`, in their order.
Assignment = tuple[Value, ...]

#: The values suggested for an integer variable that has no :class:`Suggestion` of its own.
DEFAULT_INTS = range(-100, 101)


@attrs.frozen
class Suggestion:
    """A soft goal ``term = v``: ``v`` drawn uniformly from ``values`` and weighted uniformly in
    ``1..max_weight`` for every model searched.  ``term`` is an integer or Boolean term (a
    variable, or e.g. a count ``Plus(Ite(x = 0, 1, 0), ...)``)."""

    term: FNode
    values: Sequence[Value]
    max_weight: int = 10

    def __attrs_post_init__(self) -> None:
        if len(self.values) == 0:
            raise ValueError("a suggestion needs at least one value")
        if self.max_weight < 1:
            raise ValueError("a suggestion's max_weight must be at least 1")


@attrs.frozen
class Problem:
    """Hard ``constraints``; the ``variables`` a model is read on and blocked on (integer or
    Boolean terms); the ``suggestions`` (when empty: every variable, Booleans over both values,
    integers over :data:`DEFAULT_INTS`); assignments to ``exclude`` from the start."""

    constraints: tuple[FNode, ...]
    variables: tuple[FNode, ...]
    suggestions: tuple[Suggestion, ...] = ()
    exclude: tuple[Assignment, ...] = ()


class Stop(enum.Enum):
    """Why a search ended."""

    COUNT = "count"  # as many models as asked for
    EXHAUSTED = "exhausted"  # no further model exists (unsatisfiable once blocked)
    UNKNOWN = "unknown"  # the solver gave up (its time limit, or an undecidable query)
    DEADLINE = "deadline"  # the caller's deadline passed


@attrs.frozen
class Found:
    """The models found, in the order found, and why the search stopped."""

    models: tuple[Assignment, ...]
    stop: Stop


class DiverseModels:
    """Searches diverse models of :class:`Problem` s over one PySMT environment; one z3 context
    and converter serve every call (conversions of shared subterms are memoised)."""

    def __init__(self, env: Environment | None = None) -> None:
        import z3
        from pysmt.solvers.z3 import Z3Converter

        self.env = env or get_env()
        self._z3 = z3
        self._ctx = z3.Context()
        self._conv = Z3Converter(self.env, self._ctx)

    def _to_z3(self, f: FNode) -> Any:
        return self._conv.convert(f)

    def _suggestions(self, problem: Problem) -> tuple[Suggestion, ...]:
        if problem.suggestions:
            return problem.suggestions
        stc = self.env.stc
        return tuple(Suggestion(v, (False, True) if stc.get_type(v).is_bool_type() else DEFAULT_INTS)
                     for v in problem.variables)

    def _value(self, z3_value: Any) -> Value:
        if self._z3.is_bool(z3_value):
            return bool(self._z3.is_true(z3_value))
        return z3_value.as_long()

    def _block(self, variables: Sequence[Any], values: Assignment) -> z3.BoolRef:
        z3 = self._z3
        return z3.Or([x != self._constant(x, v) for x, v in zip(variables, values, strict=True)])

    def _constant(self, like: Any, v: Value) -> Any:
        z3 = self._z3
        if z3.is_bool(like):
            return z3.BoolVal(bool(v), ctx=self._ctx)
        return z3.IntVal(int(v), ctx=self._ctx)

    def models(self, problem: Problem, count: int, rng: random.Random, timeout_ms: int = 5000,
               deadline: float | None = None) -> Found:
        """Up to ``count`` diverse models of ``problem``.  Each solver query is bounded by
        ``timeout_ms`` and by ``deadline`` (a ``time.monotonic()`` instant), if given."""
        z3 = self._z3
        opt = z3.Optimize(ctx=self._ctx)
        for c in problem.constraints:
            opt.add(self._to_z3(c))
        xs = [self._to_z3(v) for v in problem.variables]
        for values in problem.exclude:
            if len(values) != len(xs):
                raise ValueError(f"an excluded assignment has {len(values)} values for "
                                 f"{len(xs)} variables")
            opt.add(self._block(xs, values))
        soft = [(self._to_z3(s.term), s) for s in self._suggestions(problem)]
        found: list[Assignment] = []
        while len(found) < count:
            budget = timeout_ms
            if deadline is not None:
                left = int(1000 * (deadline - time.monotonic()))
                if left <= 0:
                    return Found(tuple(found), Stop.DEADLINE)
                budget = min(budget, left)
            opt.set("timeout", max(1, budget))
            opt.push()
            for term, s in soft:
                opt.add_soft(term == self._constant(term, rng.choice(s.values)),
                             weight=rng.randint(1, s.max_weight))
            answer = opt.check()
            model = opt.model() if answer == z3.sat else None
            opt.pop()
            if model is None:
                return Found(tuple(found), Stop.EXHAUSTED if answer == z3.unsat else Stop.UNKNOWN)
            values = tuple(self._value(model.eval(x, model_completion=True)) for x in xs)
            found.append(values)
            opt.add(self._block(xs, values))
        return Found(tuple(found), Stop.COUNT)


def diverse_models(problem: Problem, count: int, seed: int | random.Random = 0,
                   env: Environment | None = None, timeout_ms: int = 5000,
                   deadline: float | None = None) -> Found:
    """Up to ``count`` diverse models of ``problem`` (see :meth:`DiverseModels.models`);
    ``seed`` is an integer or a ``random.Random`` to draw the suggestions from."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return DiverseModels(env).models(problem, count, rng, timeout_ms, deadline)
