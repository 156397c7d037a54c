"""The external Kind 2 backend plugin (``--solver kind2``).

Registers the backend and adds ``--kind2-path`` and ``--kind2-solver`` to ``kinduct check``
through the ``kinduct_add_check_options`` hook; they reach the backend as
``RunOptions.checker_options`` (``ExternalChecker.configure``, called by ``kernel.decide``).
"""

from __future__ import annotations

import argparse

from kinduct.kernel.backend import Backend
from kinduct.kernel.hookspecs import hookimpl
from kinduct.plugins.backends.kind2.backend import RUN_TIME_SOLVERS, Kind2Backend, enable_flags

__all__ = ["Kind2Backend", "enable_flags"]


@hookimpl
def kinduct_register_backends() -> list[Backend]:
    return [Kind2Backend()]


@hookimpl
def kinduct_add_check_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Kind 2 (--solver kind2)")
    group.add_argument("--kind2-path", metavar="PATH",
                       help="the Kind 2 binary (default: kind2 on PATH, else .kind2/bin/kind2)")
    group.add_argument("--kind2-solver", choices=tuple(RUN_TIME_SOLVERS),
                       help="Kind 2's SMT solver at run time (default: Kind 2's, z3)")
