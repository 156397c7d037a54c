"""What ``smt/``'s feature modules see of the translation's hubs.

The hubs are :class:`.translate.Translator` (the system being built) and
:class:`.translate.Inst` (one node instance). ``translate`` imports the feature modules, so a
feature module must not import it back: it annotates with the protocols below, which list
exactly what the feature modules read and call. The hubs satisfy them structurally.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pysmt.fnode import FNode
    from pysmt.formula import FormulaManager

    from kinduct.frontends.lucent.core import ast as A
    from kinduct.frontends.lucent.core.checked import Checked, Node, Prop
    from kinduct.frontends.lucent.core.types import T
    from kinduct.kernel.system import SystemBuilder

#: A term of a Lucent value: an ``FNode``, or a list (tuple/array) / dict (record) of STerms.
STerm = Any


class Translator(Protocol):
    """The system being built (:class:`.translate.Translator`)."""

    checked: Checked
    b: SystemBuilder
    mgr: FormulaManager
    file: str
    first: FNode
    guard: FNode | None
    next_of: dict[FNode, FNode]
    assumptions: list[FNode]
    divisions: dict[tuple[FNode, int], tuple[FNode, FNode]]
    outside_reads: dict[tuple[FNode, ...], list[tuple[FNode, list[FNode]]]]
    insts: dict[str, Inst]
    typed_calls: dict[str, list]

    def element(self, node: str, category: str, name: str, pos: A.Pos,
                none: bool = False) -> AbstractContextManager: ...

    def assume(self, formula: FNode) -> None: ...

    def congruence(self, fn: str, args: list[FNode], outs: list[FNode]) -> None: ...

    def function(self, fn: str, args: list[FNode], t) -> FNode: ...

    def state(self, name: str, t: T, enum_range: bool = False) -> STerm: ...

    def input(self, name: str, t: T) -> STerm: ...

    def add_property(self, name: str, formula: FNode, prop: Prop, prefix: str,
                     source: str | None = None, kind: str | None = None) -> None: ...


class Inst(Protocol):
    """One node instance's translation (:class:`.translate.Inst`)."""

    tr: Translator
    mgr: FormulaManager
    node: Node
    prefix: str
    env: dict[str, STerm]
    top: bool
    memo: dict[str, STerm]
    #: Its clock terms, a ``clocks.ClockTerms`` (which annotates with this module, hence Any).
    clocks: Any

    def owes(self) -> bool: ...

    def expr(self, e: A.Expr) -> STerm: ...

    def call(self, e: A.Call) -> STerm: ...

    def pre(self, e: A.Unop) -> STerm: ...

    def fresh(self, name: str, t: T) -> STerm: ...

    def ite(self, c: FNode, a: STerm, b: STerm) -> STerm: ...

    def equal(self, a: STerm, b: STerm) -> FNode: ...

    def same(self, a: STerm, b: STerm) -> FNode: ...

    def refine_term(self, term: STerm, ref) -> list[FNode]: ...
