"""The interface every SMT backend offers to engines, and the one external checkers offer to
the runner.

Engines ask the kernel for a solver by name (``EngineContext.make_solver``); they never import
a backend module.  One solver object is bound to one PySMT environment.  An
:class:`ExternalChecker` takes whole problems instead; the runner calls it in place of the
engines and accepts its verdicts exactly as it accepts theirs.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from kinduct.kernel.verdict import Value

if TYPE_CHECKING:
    from pysmt.environment import Environment
    from pysmt.fnode import FNode

    from kinduct.kernel.system import Property, TransitionSystem
    from kinduct.kernel.verdict import Verdict


class SolverUnknown(Exception):
    """The solver answered ``unknown`` (incompleteness, resource limit)."""


class Solver(abc.ABC):
    """An incremental SMT solver: assertions, push/pop, assumptions, cores and batch models."""

    name: str

    def __init__(self, env: Environment) -> None:
        self.env = env

    @abc.abstractmethod
    def add(self, formula: FNode) -> None: ...

    def add_all(self, formulas: Iterable[FNode]) -> None:
        for f in formulas:
            self.add(f)

    def add_renamed(self, formula: FNode, leaf: Callable[[FNode], FNode | None]) -> bool:
        """Assert ``formula`` with each leaf ``x`` replaced by ``leaf(x)`` where that is a term
        (kept where None), as :meth:`add` would assert the renamed formula, without making it:
        a backend may rename as it converts.  False (nothing asserted) where this backend does
        not (the default) or cannot (a quantifier): the caller then asserts the renamed
        formula itself."""
        return False

    @abc.abstractmethod
    def push(self) -> None: ...

    @abc.abstractmethod
    def pop(self) -> None: ...

    @abc.abstractmethod
    def check(self, assumptions: Sequence[FNode] = ()) -> bool:
        """Satisfiable under the Boolean ``assumptions``?  Raises :class:`SolverUnknown`."""

    def check_afresh(self, assumptions: Sequence[FNode] = (), after: float | None = None) -> bool:
        """:meth:`check`, decided by a new, non-incremental solver given this one's assertions
        and the ``assumptions`` as assertions, under the same time limit; with ``after``, only
        where the incremental check has not decided within ``after`` seconds.  This solver's
        assertions are left as they were; :meth:`values` reads the model of whichever check
        decided, and after an unsat answer afresh :meth:`unsat_core` is every assumption.

        A non-incremental solver preprocesses the whole query first (z3: solving equations,
        propagating values, eliminating unconstrained terms), which an incremental one does
        not: on the unrolling of a large model's definitions that is the difference between a
        fraction of a second and minutes; on a deep unrolling of a small one, the incremental
        solver's learnt clauses win.  A backend without such a solver checks incrementally."""
        return self.check(assumptions)

    @abc.abstractmethod
    def values(self, symbols: Sequence[FNode]) -> dict[FNode, Value]:
        """The last model's values of ``symbols`` (or of Boolean terms over them), read in one
        batch (model completion on)."""

    @abc.abstractmethod
    def unsat_core(self) -> list[FNode]:
        """After an unsat :meth:`check`: a subset of its assumptions that is already unsat."""

    @abc.abstractmethod
    def reset(self) -> None:
        """Forget every assertion (a fresh native solver)."""

    def limit_time(self, seconds: float | None) -> None:  # noqa: B027 - optional hook
        """Bound every later :meth:`check` to ``seconds`` of the solver's time (None: no
        bound); a check that reaches it raises :class:`SolverUnknown`.  A backend without
        such a limit ignores it (the runner's deadline still ends the engine's process)."""

    def expect_quantifiers(self) -> None:  # noqa: B027 - optional hook
        """The assertions hold quantifiers: where a check is undecided, the solver may spend
        part of its time limit on a second strategy (z3: model-based instantiation alone,
        which finds models that e-matching keeps it from)."""

    def interpolant(self, a: Sequence[FNode], b: Sequence[FNode],
                    seconds: float | None = None) -> FNode | None:
        """A Craig interpolant of the conjunctions ``a`` and ``b`` (jointly unsatisfiable): a
        formula ``I`` over their shared symbols with ``a => I`` and ``I and b`` unsatisfiable.
        None when this backend computes none (or not within ``seconds``).  It works on a solver
        of its own: this solver's assertions are untouched.  Callers use ``I`` as a proposal
        only (a predicate, a candidate lemma) and check what they derive from it."""
        return None

    def project(self, formula: FNode, keep: Sequence[FNode]) -> FNode | None:
        """After a satisfiable :meth:`check` whose model satisfies ``formula``: a conjunction
        of literals over ``keep`` that the model satisfies and that implies ``exists (the
        other symbols). formula`` (a model-based projection).  None when this backend has
        none, or its projection keeps another symbol."""
        return None

    def constants(self, symbols: Sequence[FNode]) -> dict[FNode, FNode]:
        """The model as PySMT constants, ready for substitution."""
        mgr = self.env.formula_manager
        out: dict[FNode, FNode] = {}
        for sym, val in self.values(symbols).items():
            out[sym] = constant(mgr, sym, val)
        return out

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release native resources."""


def constant(mgr, sym: FNode, value: Value) -> FNode:
    """A PySMT constant of ``sym``'s type holding the Python ``value``."""
    t = sym.symbol_type()
    if t.is_bool_type():
        return mgr.Bool(bool(value))
    if t.is_int_type():
        return mgr.Int(int(value))
    if t.is_real_type():
        return mgr.Real(value)
    if t.is_bv_type():
        return mgr.BV(int(value), t.width)
    if t.is_array_type():
        from kinduct.kernel.arrays import constant as array_constant
        return array_constant(mgr, t, value, lambda st, v: _scalar(mgr, st, v))
    if t.is_custom_type():
        from kinduct.kernel.datatypes import constant as datatype_constant
        return datatype_constant(mgr.env, t, value, lambda st, v: _scalar(mgr, st, v))
    raise TypeError(f"no constant of type {t}")


def _scalar(mgr, t, value: Value) -> FNode:
    if t.is_bool_type():
        return mgr.Bool(bool(value))
    if t.is_int_type():
        return mgr.Int(int(value))
    if t.is_real_type():
        return mgr.Real(value)
    if t.is_bv_type():
        return mgr.BV(int(value), t.width)
    raise TypeError(f"no constant of type {t}")


@attrs.frozen
class HornAnswer:
    """A backend's answer to a whole safety question (:meth:`Backend.solve_horn`): ``holds``
    True with an inductive ``invariant`` over the state variables (to be certified), False
    when a bad state is reachable (no trace: the caller finds one), None when undecided;
    ``reason`` says which."""

    holds: bool | None
    invariant: FNode | None
    reason: str


class Backend(abc.ABC):
    """A backend plugin: a name, whether it can run here, and a solver factory."""

    name: str
    description: str = ""
    smt: bool = True  # False for an ExternalChecker, which takes whole problems
    #: Among SMT backends, lower is chosen first: the default solver, and the other solver
    #: that ``--certify`` re-checks certificates with.
    preference: int = 100

    @abc.abstractmethod
    def available(self) -> bool: ...

    def unavailable_reason(self) -> str:
        return "" if self.available() else "not installed"

    @abc.abstractmethod
    def solver(self, env: Environment, logic: str | None = None) -> Solver: ...

    def solve_horn(self, system: TransitionSystem, goal: FNode,
                   seconds: float | None = None) -> HornAnswer | None:
        """Decide whether ``goal`` (over current-step variables) holds in every reachable state
        of ``system`` as one constrained-Horn-clause problem, within ``seconds``; None when
        this backend has no such solver (or not for this system)."""
        return None


class ExternalChecker(Backend):
    """A backend that decides whole problems itself (an external model checker) instead of
    offering SMT solvers to engines.

    :func:`kinduct.kernel.runner.run` calls :meth:`check_system` in place of the engines and
    passes each verdict through the same acceptance path as an engine's: a falsifiable verdict
    must carry a trace over the system's variables, which is replayed on the system and on the
    frontend's interpreter; reachability properties are mapped from their obligations; valid
    verdicts may be certified; properties without a verdict become unknown.  So a checker
    reports answers about each property's *obligation* (``Property.obligation``), like an
    engine: ``FALSIFIABLE`` with a trace, ``VALID``, ``UNKNOWN`` (``k`` = steps known safe) or
    ``ERROR`` with a message; it never maps, replays or fills in verdicts itself.
    """

    smt = False

    def solver(self, env: Environment, logic: str | None = None) -> Solver:
        from kinduct.kernel.errors import InputError

        raise InputError(f"{self.name} checks whole systems and offers no SMT solver to engines")

    def configure(self, options: Mapping[str, object]) -> None:  # noqa: B027 - optional hook
        """Take this checker's own settings from ``options`` (by name: what the plugin added to
        ``check`` through ``kinduct_add_check_options``, :attr:`RunOptions.checker_options`;
        ``bench`` passes its own options); names it does not know are ignored."""

    def validate_engines(self, engines: Sequence[str]) -> None:  # noqa: B027 - optional hook
        """Raise :class:`~kinduct.kernel.errors.InputError` for engine names it cannot map."""

    @abc.abstractmethod
    def check_system(self, system: TransitionSystem, properties: Sequence[Property],
                     request: ExternalRequest) -> list[Verdict]:
        """Raw verdicts (about obligations) for some or all of ``properties``."""


@attrs.frozen
class ExternalRequest:
    """What the runner asks of an external checker: the engines the user chose (the checker
    maps them to its own modules), the step bound and the absolute ``time.monotonic()``
    deadline (None: no limit)."""

    engines: tuple[str, ...] = ("portfolio",)
    max_k: int | None = None
    deadline: float | None = None
