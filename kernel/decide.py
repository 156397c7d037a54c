"""Deciding a system's properties as a library: the one kernel function frontends and
commands call, with typed :class:`~kinduct.kernel.runner.RunOptions` (never an argparse
namespace).

:func:`decide` hands the external checkers their own settings
(:attr:`RunOptions.checker_options`), runs the runner (its engines, or an external checker),
and decides again on the system's refinement what an abstraction left unknown (a
compositional analysis: the same problem with the callees' bodies).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import attrs

from kinduct.kernel import registry
from kinduct.kernel.backend import ExternalChecker
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict


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
    ``time.monotonic()`` instant; None: now).  Properties an abstraction leaves unknown (not by
    timeout) are decided again on ``system.refine()``."""
    start = time.monotonic() if start is None else start
    if properties is not None:
        options = attrs.evolve(options, properties=tuple(properties))
    configure_checkers(options.checker_options)
    verdicts = run(system, options, start)
    open_props = [v.property for v in verdicts if v.answer is Answer.UNKNOWN and not v.timeout]
    if system.refine is not None and open_props:
        refined = system.refine()
        known = {p.name for p in refined.properties}
        open_props = [p for p in open_props if p in known]
        again = {v.property: v for v in run(refined, attrs.evolve(options, properties=tuple(open_props)),
                                             start)} if open_props else {}
        verdicts = [again.get(v.property, v) if v.property in open_props else v for v in verdicts]
    return verdicts
