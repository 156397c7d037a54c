"""Several different models of a path's constraints (§5.3): random soft constraints, the nearest
model by z3's ``Optimize``, block it, repeat.

This is the seam to the shared diverse-model routine: :func:`diverse_inputs` takes the hard
constraints, the input variables and, for each variable, the values to suggest, and returns up
to ``count`` pairwise different assignments.  For every model a value is drawn for each
variable and ``x_i = c_i`` added as a soft constraint; the solver returns the satisfying
assignment that keeps the most suggestions (distance = number of differences), which is then
blocked.  A suggestion that already satisfies the constraints is taken without a query.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import z3

#: Time limit of one ``Optimize`` query, in milliseconds.
QUERY_MS = 10_000


def diverse_inputs(hard: Sequence[z3.BoolRef], variables: Sequence[z3.ArithRef],
                   suggestions: Sequence[Sequence[int]], count: int,
                   rng: random.Random) -> list[tuple[int, ...]]:
    """Up to ``count`` distinct assignments to ``variables`` satisfying ``hard`` (fewer when
    fewer exist or the solver gives up); ``suggestions[i]`` are the values suggested for
    ``variables[i]`` (none: no soft constraint on it)."""
    found: list[tuple[int, ...]] = []
    formula = z3.And(list(hard)) if hard else z3.BoolVal(True)
    for _ in range(count):
        guess = [rng.choice(list(values)) if values else None for values in suggestions]
        if None not in guess and tuple(guess) not in found:
            pairs = [(v, z3.IntVal(g)) for v, g in zip(variables, guess, strict=True)]
            if z3.is_true(z3.simplify(z3.substitute(formula, *pairs) if pairs else formula)):
                found.append(tuple(guess))
                continue
        opt = z3.Optimize()
        opt.set(timeout=QUERY_MS)
        opt.add(formula)
        for previous in found:
            opt.add(z3.Or([v != p for v, p in zip(variables, previous, strict=True)]))
        for v, g in zip(variables, guess, strict=True):
            if g is not None:
                opt.add_soft(v == g)
        if opt.check() != z3.sat:
            break
        model = opt.model()
        found.append(tuple(model.eval(v, model_completion=True).as_long() for v in variables))
    return found
