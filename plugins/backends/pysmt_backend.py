"""The Z3 and cvc5 backends (through PySMT): their registration, cheap to import.

Whether a backend is available is asked of the package index of this Python (no import);
the solvers themselves (:mod:`kinduct.plugins.backends.pysmt_solvers`, which imports PySMT and
patches its converters) are imported when the first solver is made, and cvc5 only when a cvc5
solver is: ``kinduct --help`` and a run on z3 never load cvc5.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from kinduct.kernel.backend import Backend, Solver
from kinduct.kernel.hookspecs import hookimpl

if TYPE_CHECKING:
    from pysmt.environment import Environment
    from pysmt.fnode import FNode

    from kinduct.kernel.backend import HornAnswer
    from kinduct.kernel.system import TransitionSystem


class _PySMTBackend(Backend):
    #: The Python package of the solver.
    module: str

    def available(self) -> bool:
        return importlib.util.find_spec(self.module) is not None

    def unavailable_reason(self) -> str:
        return "" if self.available() else f"Python package '{self.module}' is not installed"

    def solver(self, env: Environment, logic: str | None = None) -> Solver:
        from kinduct.plugins.backends.pysmt_solvers import make_solver

        return make_solver(self.name, env, logic)


class Z3Backend(_PySMTBackend):
    name = "z3"
    description = "Z3 through PySMT"
    preference = 0
    module = "z3"

    def solve_horn(self, system: TransitionSystem, goal: FNode,
                   seconds: float | None = None) -> HornAnswer | None:
        from kinduct.plugins.backends.horn import z3_horn

        return z3_horn(system, goal, seconds)


class CVC5Backend(_PySMTBackend):
    name = "cvc5"
    description = "cvc5 through PySMT"
    preference = 1
    module = "cvc5"


@hookimpl
def kinduct_register_backends() -> list[Backend]:
    return [Z3Backend(), CVC5Backend()]
