"""Which components an analysis reads by their contracts, as Kind 2 v3.0.0 decides it.

- An ``opaque`` node with a contract is read by its contract in every analysis.
- With ``--compositional``, so is every node with a contract except ``transparent`` ones.
- Imported nodes have no body: they are always read by their contracts.
- A refinement (``--modular --compositional``, a property falsified on the abstraction) reads
  the abstract components whose own analysis proved them by their implementations, never an
  opaque one; what they call is then read by its contract, one level at a time.

The lists are Kind 2's ``analysisStart`` lists: the components the analysis reads, by contract
(``abstract``) or by implementation (``concrete``); what an abstract component calls is in
neither.
"""

from __future__ import annotations

from kinduct.frontends.lucent.checked import Checked
from kinduct.kernel.system import Abstraction


def contract_abstract(checked: Checked, compositional: bool) -> frozenset[str]:
    """The nodes with a body that analyses read by their contracts (the main node never is)."""
    return frozenset(
        name for name, node in checked.nodes.items()
        if node.has_contract and not node.imported and node.decl.modifier != "transparent"
        and (compositional or node.decl.modifier == "opaque"))


def abstraction_of(checked: Checked, main: str, abstract: frozenset[str]) -> Abstraction:
    """The components ``main``'s analysis reads, by contract and by implementation."""
    by_contract: list[str] = []
    by_body: list[str] = []
    todo = _callees(checked, main)
    seen = {main}
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        node = checked.nodes[name]
        if node.imported or name in abstract:
            by_contract.append(name)
        else:
            by_body.append(name)
            todo.extend(_callees(checked, name))
    return Abstraction(tuple(sorted(by_contract)), tuple(sorted(by_body)))


def refinable(checked: Checked, abstraction: Abstraction, proved: frozenset[str]) -> frozenset[str]:
    """The abstract components a refinement reads by their implementations: proved, with a
    body, not opaque."""
    return frozenset(n for n in abstraction.abstract
                     if n in proved and not checked.nodes[n].imported
                     and checked.nodes[n].decl.modifier != "opaque")


def _callees(checked: Checked, name: str) -> list[str]:
    node = checked.nodes[name]
    return [c.name for c in node.calls if c.name in checked.nodes] + \
        sorted(n for n in node.inlined if n in checked.nodes)
