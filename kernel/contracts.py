"""Contract systems: what a frontend hands to a realizability check (hook
``kinduct_contract_systems``), independent of the source language.

A contract system describes one component seen through its contract, one step at a time:

- ``registers``: the memory carried from one step to the next (previous values, the first-step
  flag, constants), with their initial condition ``init`` and their next values ``updates``
  (terms over the step's variables);
- ``inputs``: the step's values chosen by the component's environment (uncontrollable);
- ``outputs``: the step's values chosen by the component (controllable);
- every other variable of the formulas is *auxiliary* (ghost streams, the streams of called
  nodes, oracles for undefined values): ``definitions`` constrain them;
- ``assumptions`` and ``guarantees`` (and ``modes``) are named constraints over the step's
  variables.

The question (Kind 2's ``CONTRACTCK``): at every step reached while the assumptions held and
the guarantees were kept, for every input satisfying the assumptions, is there an output that
satisfies the guarantees now and from which the component can go on forever?  The
``context`` says whether the system is a component's contract (``contract``) or its
environment (``environment``: the assumptions become guarantees of the swapped roles).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from kinduct.kernel.errors import SourceLocation
from kinduct.kernel.verdict import Value

if TYPE_CHECKING:
    from pysmt.environment import Environment
    from pysmt.fnode import FNode

#: From the values of a trace (one mapping of variable names to values per step) to Kind 2's
#: node blocks (``blockType``, ``name``, ``streams``), as the frontend names its streams.
ContractLift = Callable[[Sequence[Mapping[str, Value]]], list[dict[str, Any]]]


@attrs.frozen
class ContractElement:
    """A named constraint of a contract, as Kind 2 names it in a conflicting set.

    ``category``: ``assumption``, ``guarantee``, ``require`` or ``ensure``."""

    name: str
    category: str
    formula: FNode
    location: SourceLocation | None = None


@attrs.frozen
class ContractMode:
    """A mode: while every requirement holds, every ensure must."""

    name: str
    requires: tuple[ContractElement, ...]
    ensures: tuple[ContractElement, ...]


@attrs.frozen
class ContractSystem:
    """One realizability question (see the module's docstring)."""

    env: Environment
    top: str
    context: str  # contract | environment
    registers: tuple[FNode, ...]
    init: FNode
    updates: Mapping[FNode, FNode]
    inputs: tuple[FNode, ...]
    outputs: tuple[FNode, ...]
    definitions: tuple[FNode, ...] = ()
    assumptions: tuple[ContractElement, ...] = ()
    guarantees: tuple[ContractElement, ...] = ()
    modes: tuple[ContractMode, ...] = ()
    #: Whether the component has a contract at all (a component without one is realizable).
    has_contract: bool = True
    #: Why this system cannot be decided (an unsupported construct): the answer is unknown.
    unsupported: str | None = None
    #: Why only a realizable answer can be trusted (the system is the harder of two readings
    #: of the component): any other answer is unknown, for this reason.
    realizable_only: str | None = None
    #: The component's streams in source terms, for deadlocking traces.
    lift: ContractLift | None = None

    @property
    def auxiliaries(self) -> tuple[FNode, ...]:
        """The step's variables that are neither registers, inputs nor outputs."""
        known = set(self.registers) | set(self.inputs) | set(self.outputs)
        seen: dict[FNode, None] = {}
        formulas = [*self.definitions, *(e.formula for e in self.assumptions),
                    *(e.formula for e in self.guarantees), *self.updates.values(),
                    *(e.formula for m in self.modes for e in m.requires + m.ensures)]
        for f in formulas:
            for v in f.get_free_variables():
                if v not in known:
                    seen[v] = None
        return tuple(seen)
