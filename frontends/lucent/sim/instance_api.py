"""What ``sim/``'s feature modules see of a node instance on the simulator.

:class:`.simulate.Instance` is the hub: ``simulate`` imports the feature modules, so a feature
module must not import it back; it annotates with the protocol :class:`Instance` below, which
lists what the feature modules read and call. The hub satisfies it structurally.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kinduct.frontends.lucent.core import ast as A


class Simulator(Protocol):
    """The run (:class:`.simulate.Simulator`): its oracle and its constants' values."""

    consts: dict[str, Any]

    def oracle(self, name: str, t: Any, step: int) -> Any: ...


class Instance(Protocol):
    """One node instance at the current step (:class:`.simulate.Instance`)."""

    sim: Simulator
    prefix: str
    step_no: int
    #: The values of its streams at the current step, by name.
    cur: dict[str, Any]
    #: The values of its stateful expressions at the current step, by id.
    memo: dict[str, Any]

    def eval(self, e: A.Expr) -> Any: ...

    def holds(self, value: Any, ref: Any) -> bool: ...
