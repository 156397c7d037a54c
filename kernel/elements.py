"""Model elements: the parts of a model an inductive validity core or a minimal cut set is
made of (Kind 2's ``--ivc`` and ``--enable MCS``).

A frontend that knows its elements (Lucent: equations, assertions, contract assumptions,
guarantees and mode ensures read as assumptions, node calls) translates each one guarded by an
*activation literal*: a Boolean constant symbol ``act`` of the system's environment, its
constraint ``act => constraint``.  One translated system then serves every query:
:func:`switched` fixes every literal to true (the element is on) or false (off) and
simplifies, so the engines never see a literal.  A system that holds literals and was not
switched must not be decided: its literals would be free.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import attrs

from kinduct.kernel.errors import SourceLocation

if TYPE_CHECKING:
    from pysmt.fnode import FNode

    from kinduct.kernel.system import TransitionSystem

#: Kind 2's categories (``--ivc_category`` / ``--mcs_category`` values) and the element
#: categories (JSON ``category``) each one selects.  kinduct has no element in ``annotations``.
CATEGORIES: dict[str, frozenset[str]] = {
    "node_calls": frozenset({"nodeCall"}),
    "contracts": frozenset({"assumption", "guarantee", "require", "ensure"}),
    "equations": frozenset({"equation"}),
    "assertions": frozenset({"assertion"}),
    "annotations": frozenset(),
}


@attrs.frozen
class ModelElement:
    """One element: the node it belongs to, Kind 2's category (``equation``, ``assertion``,
    ``assumption``, ``guarantee``, ``ensure``, ``nodeCall``) and name (the defined stream, the
    called node, ``assertion[L14C3]``, ``guarantee[L4C3]``...), where it is, and its literal.
    An element shared by several instances of a node has one literal for all of them."""

    node: str
    category: str
    name: str
    location: SourceLocation
    act: FNode = attrs.field(eq=False, repr=False)


def selected(elements: Iterable[ModelElement], categories: Iterable[str]) -> list[ModelElement]:
    """The elements in the named Kind 2 categories (none named: all of them)."""
    names = list(categories)
    if not names:
        return list(elements)
    wanted = frozenset().union(*(CATEGORIES[c] for c in names))
    return [e for e in elements if e.category in wanted]


def switched(system: TransitionSystem, on: Iterable[ModelElement]) -> TransitionSystem:
    """``system`` with exactly the elements ``on`` switched on (every other literal false), its
    formulas simplified.  The frontend's own replay and lift read the whole model, so the
    result has none: its counterexamples are replayed on its own formulas only."""
    mgr = system.env.formula_manager
    keep = {e.act for e in on}
    values = {e.act: (mgr.TRUE() if e.act in keep else mgr.FALSE()) for e in system.elements}
    sub = system.env.substituter.substitute
    simp = system.env.simplifier.simplify

    def fix(f: FNode) -> FNode:
        return simp(sub(f, values))

    return attrs.evolve(system, init=fix(system.init), trans=fix(system.trans),
                        assumptions=tuple(fix(a) for a in system.assumptions),
                        replay=None, lift=None, refine=None, on_implementations=None)
