"""What an engine is, and what the kernel hands it when it runs."""

from __future__ import annotations

import abc
import math
import time
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from kinduct.kernel.backend import Solver
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Verdict

if TYPE_CHECKING:
    from pysmt.fnode import FNode


@attrs.frozen
class NoOptions:
    """The settings of an engine that has none."""


def _convert(field: attrs.Attribute, value: object) -> object:
    """A setting given as text (``--engine-opt ic3.invgen=false``) in its field's type
    (``bool``, ``int``, ``float``, ``str``, or one of them or None)."""
    if not isinstance(value, str):
        return value
    kinds = typing.get_args(field.type) or (field.type,)
    text = value.strip().lower()
    if type(None) in kinds and text in ("none", "auto"):
        return None
    if bool in kinds:
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off"):
            return False
        raise ValueError(f"expected true or false, not '{value}'")
    if int in kinds:
        return int(text)
    if float in kinds:
        number = float(text)
        if not math.isfinite(number):
            raise ValueError(f"expected a finite number, not '{value}'")
        return number
    return value


def make_options(cls: type, settings: Mapping[str, object]) -> Any:
    """An instance of the attrs class ``cls`` (an engine's :attr:`Engine.Options`) from
    ``field name -> value``; a text value is converted to the field's type.  Raises
    ``KeyError``/``ValueError`` naming the setting that is not one of ``cls``'s fields or
    has no value of its type."""
    fields = {f.name: f for f in attrs.fields(attrs.resolve_types(cls))}
    values = {}
    for name, value in settings.items():
        if name not in fields:
            raise KeyError(f"no setting '{name}' (known: {', '.join(fields) or 'none'})")
        try:
            values[name] = _convert(fields[name], value)
        except ValueError as exc:
            raise ValueError(f"setting '{name}': {exc}") from None
    return cls(**values)


@attrs.define
class EngineContext:
    """Everything an engine may use besides the system itself.

    - ``make_solver()``: a fresh solver of the chosen backend bound to the system's environment.
    - ``max_k``: the bound to stop at (None: until killed).
    - ``deadline``: ``time.monotonic()`` value at which the engine's work ends: its process is
      killed then, and an engine run in the runner's own process (:attr:`Engine.quick_bound`)
      must stop starting new steps (``expired()``).
    - ``options``: the engine's own settings, an instance of its :attr:`Engine.Options`.
    - ``companions``: the names of the engines running beside this one in the same run.
    - ``publish_invariants`` / ``poll_invariants``: lemmas proved by one engine, shared with the
      others (SMT-LIB text so they cross process boundaries).
    - ``reached(names, k)``: the engine has shown that no execution violates the properties
      ``names`` at any step ``0..k`` (Kind 2's ``trueFor``); the runner keeps the largest ``k``
      per property for the ``unknown`` it may end as, and shows it as the engine's depth.
    - ``settle()``: the engine's head start (:meth:`Engine.head_start`) is over: its process
      drops to the priority of the engines beside it (nothing when it had none).
    """

    solver_name: str
    make_solver: Callable[[], Solver]
    max_k: int | None = None
    deadline: float | None = None
    options: Any = attrs.field(factory=NoOptions)
    companions: tuple[str, ...] = ()
    publish_invariants: Callable[[list[str]], None] = lambda lemmas: None
    poll_invariants: Callable[[], list[str]] = lambda: []
    reached: Callable[[Sequence[str], int], None] = lambda names, k: None
    settle: Callable[[], None] = lambda: None
    log: Callable[[str], None] = lambda msg: None

    def time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline


class Engine(abc.ABC):
    """An engine decides invariant properties of a transition system.

    :meth:`check` yields a :class:`Verdict` for a property as soon as it is decided and may
    yield ``unknown`` verdicts for what it gives up on.  It receives only invariant
    obligations; the runner maps reachability back.
    """

    name: str
    description: str = ""
    needs_transition_relation: bool = True
    #: A meta-engine expands to several engines run in parallel by the runner.
    members: Sequence[str] = ()
    #: The engine's settings: an attrs class whose fields all have defaults (set from the command
    #: line by ``--engine-opt NAME.FIELD=VALUE``); an instance reaches :meth:`check` as
    #: ``ctx.options``.
    Options: type = NoOptions
    #: ``nice`` increment of this engine's process when it runs beside others.
    niceness: int = 0
    #: True when :meth:`prepare` does work: the runner forks the other engines first, so
    #: that the preparation never delays them.
    prepares: bool = False
    #: When set, a run of several engines on a small system first runs this engine in the
    #: runner's own process (after its :meth:`prepare`, with no engine beside it), up to this
    #: bound and for at most :attr:`quick_slice` seconds (it must stop starting steps once
    #: ``ctx.expired()``; each solver query is bounded by the slice): what it decides there
    #: needs no process at all, and only the properties left open go to the engines' processes.
    quick_bound: int | None = None
    #: Seconds the quick phase gives this engine (None: ``quick.QUICK_SLICE``).
    quick_slice: float | None = None
    #: True when the engine publishes invariants (``ctx.publish_invariants``) as it runs: an
    #: engine beside it may wait for them.
    publishes_invariants: bool = False
    #: True when every counterexample the engine reports is a shortest one (it deepens one
    #: step at a time): :func:`kinduct.kernel.shortest.shortest` need not look below it.
    shortest_counterexamples: bool = False

    #: Engines that keep more of their share during this engine's head start
    #: (:meth:`head_start`; the runner lowers their priority half as much): a head start is a
    #: bet on this engine's proof, and a falsifier beside it hedges the bet.
    head_start_spares: tuple[str, ...] = ()

    def head_start(self, system: TransitionSystem, options: Any) -> float:
        """Wall-clock seconds at the start of a run of several engines during which this
        engine's process runs at a higher priority than the others (theirs lowered by the
        runner's ``HEAD_START_NICE``; the engine ends it sooner with ``ctx.settle()``); 0: none.
        ``options``: the engine's :attr:`Options` for the run."""
        return 0.0

    def prepare(self, system: TransitionSystem, make_solver: Callable[[], Solver]) -> None:
        """Work on ``system`` done once in the runner's process before this engine's process is
        forked, which inherits its results (engines that share an analysis of the system compute
        it once per run this way).  It must not depend on the properties selected.  The runner
        reads the other engines' verdicts before each query of a solver from ``make_solver``,
        and ends the preparation there (with an exception this method must not catch) when
        the run is over."""
        return None

    @abc.abstractmethod
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]: ...


def obligations(system: TransitionSystem, properties: Sequence[Property]) -> list[FNode]:
    return [p.obligation(system.env) for p in properties]
