"""Several different models of a path's constraints (§5.3), through the kernel's shared
diverse-model routine (:mod:`kinduct.kernel.diverse`: random suggestions as soft constraints,
the nearest model by z3's ``Optimize``, blocked, repeated).

The path's constraints are z3 formulas (:mod:`symbolic`); they are turned into PySMT terms of
one environment private to this module (so that the names ``x_1``, ``n_1``, ... meet no other
frontend's symbols) and handed over as a :class:`~kinduct.kernel.diverse.Problem` whose
suggestions are each input's values.  The few terms PySMT does not read back (integer ``div``
and ``mod``, from ``/`` and ``%`` in a condition) are searched the same way on z3 directly
(:func:`_z3_models`).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

import z3

from kinduct.kernel.diverse import Problem, Suggestion, diverse_models

#: Time limit of one ``Optimize`` query, in milliseconds.
QUERY_MS = 10_000


@functools.cache
def _pysmt():
    from pysmt.environment import Environment
    from pysmt.solvers.z3 import Z3Converter

    env = Environment()
    return env, Z3Converter(env, z3.main_ctx())


def diverse_inputs(hard: Sequence[z3.BoolRef], variables: Sequence[z3.ArithRef],
                   suggestions: Sequence[Sequence[int]], count: int,
                   rng: random.Random) -> list[tuple[int, ...]]:
    """Up to ``count`` distinct assignments to ``variables`` satisfying ``hard`` (fewer when
    fewer exist or the solver gives up); ``suggestions[i]`` are the values suggested for
    ``variables[i]`` (none: no soft constraint on it)."""
    if not variables:  # a path without inputs: one test, the empty sequence
        solver = z3.Solver()
        solver.add(*hard)
        return [()] if count and solver.check() == z3.sat else []
    env, converter = _pysmt()
    from pysmt.typing import INT

    symbols = tuple(env.formula_manager.Symbol(str(v), INT) for v in variables)
    try:
        constraints = tuple(converter.back(c) for c in hard)
    except Exception:  # a term PySMT does not read back (integer div/mod)
        return _z3_models(hard, variables, suggestions, count, rng)
    wanted = tuple(Suggestion(s, tuple(values)) for s, values in zip(symbols, suggestions, strict=True)
                   if values)
    if not wanted:  # no input has a value to suggest: the routine suggests -100..100 to all
        wanted = ()
    found = diverse_models(Problem(constraints, symbols, wanted), count, rng, env, QUERY_MS)
    return [tuple(int(v) for v in model) for model in found.models]


def _z3_models(hard: Sequence[z3.BoolRef], variables: Sequence[z3.ArithRef],
               suggestions: Sequence[Sequence[int]], count: int,
               rng: random.Random) -> list[tuple[int, ...]]:
    """The same recipe on z3 directly, for constraints PySMT cannot express."""
    found: list[tuple[int, ...]] = []
    opt = z3.Optimize()
    opt.set(timeout=QUERY_MS)
    opt.add(z3.And(list(hard)) if hard else z3.BoolVal(True))
    while len(found) < count:
        opt.push()
        for v, values in zip(variables, suggestions, strict=True):
            if values:
                opt.add_soft(v == rng.choice(list(values)), weight=rng.randint(1, 10))
        answer = opt.check()
        model = opt.model() if answer == z3.sat else None
        opt.pop()
        if model is None:
            break
        values = tuple(model.eval(v, model_completion=True).as_long() for v in variables)
        found.append(values)
        opt.add(z3.Or([v != x for v, x in zip(variables, values, strict=True)]))
    return found
