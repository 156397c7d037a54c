"""Deciding a system's properties as a library: the one kernel function frontends and
commands call, with typed :class:`~kinduct.kernel.runner.RunOptions` (never an argparse
namespace).

:func:`decide` hands the external checkers their own settings
(:attr:`RunOptions.checker_options`), runs the runner (its engines, or an external checker),
and returns their verdicts (those of the abstraction, on an analysis that reads components by
their contracts: :mod:`kinduct.kernel.refinement` refines a modular one, as Kind 2).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import attrs

from kinduct.kernel import registry
from kinduct.kernel.backend import ExternalChecker
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Verdict


def configure_checkers(options: Mapping[str, object]) -> None:
    """Hand ``options`` (the settings plugins added to ``check``, by name) to every external
    checker; each reads its own."""
    for backend in registry.backends().values():
        if isinstance(backend, ExternalChecker):
            backend.configure(options)


def decide(system: TransitionSystem, options: RunOptions, start: float | None = None,
           properties: Sequence[str] | None = None) -> list[Verdict]:
    """The verdicts of ``system``'s properties (``properties``: these names; None:
    ``options.properties``), with ``options.timeout`` counted from ``start`` (a
    ``time.monotonic()`` instant; None: now).  On an analysis that reads components by their
    contracts the answers are the abstraction's, as Kind 2's (a modular analysis refines them:
    :mod:`kinduct.kernel.refinement`)."""
    start = time.monotonic() if start is None else start
    if properties is not None:
        options = attrs.evolve(options, properties=tuple(properties))
    configure_checkers(options.checker_options)
    return run(system, options, start)
