"""Input sequences for the satisfiable paths of a specification (§5.3).

For each path, up to ``per_path`` different input sequences satisfying its constraints.  The
value suggested for an input ``x_i`` is drawn from its value set (or the set's complement, on
the invalid side of ``else stop``/``else retry``) within ``-value_range..value_range`` (the
document's ``inputRange``, default 100); when that window holds no such value, the input gets
no suggestion and the solver picks it.
"""

from __future__ import annotations

import functools
import random

import attrs

from kinduct.frontends.iospec import ast as A
from kinduct.frontends.iospec.evaluate import contains
from kinduct.frontends.iospec.models import diverse_inputs
from kinduct.frontends.iospec.paths import Path

DEFAULT_PER_PATH = 5
DEFAULT_RANGE = 100


@attrs.frozen
class PathInputs:
    """The input sequences found for one path (fewer than asked when the path has fewer)."""

    path: Path
    sequences: tuple[tuple[int, ...], ...]


@functools.cache
def _window(values: A.ValueSet, valid: bool, value_range: int) -> tuple[int, ...]:
    return tuple(v for v in range(-value_range, value_range + 1)
                 if contains(values, v) == valid)


def inputs_for_path(path: Path, per_path: int, rng: random.Random,
                    value_range: int = DEFAULT_RANGE) -> PathInputs:
    """Up to ``per_path`` distinct input sequences that follow ``path``."""
    suggestions = [_window(i.values, i.valid, value_range) for i in path.inputs]
    found = diverse_inputs([c.formula for c in path.constraints], [i.symbol for i in path.inputs],
                           suggestions, per_path, rng)
    return PathInputs(path, tuple(found))
