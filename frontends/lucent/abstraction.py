"""Which components an analysis reads by their contracts, as Kind 2 v3.0.0 decides it.

- An ``opaque`` node with a contract is read by its contract in every analysis.
- With ``--compositional``, so is every node with a contract except ``transparent`` ones.
- A node with nothing to abstract with (no guarantee, no mode, no output of a refinement
  type: a contract of assumptions or ghosts only) is read by its body.
- Imported nodes have no body: they are always read by their contracts.
- A refinement (``--modular --compositional``, a property left unproved on the abstraction)
  reads one more abstract component by its implementation: the first, breadth first, whose
  own analysis proved it, never an opaque one; what it calls is then read by its contract.

The lists are Kind 2's ``analysisStart`` lists: the components the analysis reads, by contract
(``abstract``) or by implementation (``concrete``); what an abstract component's body calls is
in neither, what its contract calls is read.
"""

from __future__ import annotations

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Checked
from kinduct.frontends.lucent.core.walk import subterms
from kinduct.kernel.system import Abstraction


def contract_abstract(checked: Checked, compositional: bool) -> frozenset[str]:
    """The nodes with a body that analyses read by their contracts (the main node never is)."""
    return frozenset(
        name for name, node in checked.nodes.items()
        if (node.guarantees or node.modes or _refined_outputs(node)) and not node.imported
        and node.decl.modifier != "transparent"
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
            todo.extend(_contract_callees(node))  # its contract is read: what it calls too
        else:
            by_body.append(name)
            todo.extend(_callees(checked, name))
    return Abstraction(tuple(sorted(by_contract)), tuple(sorted(by_body)))


def as_written(abstraction: Abstraction) -> Abstraction:
    """The lists with the components named as written, as Kind 2's ``analysisStart`` names
    them: an instance of a node with constant parameters (``N<<max=3>>``) is ``N``."""
    def written(names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({n.split("<<", 1)[0] for n in names}))
    return Abstraction(written(abstraction.abstract), written(abstraction.concrete))


def refinable(checked: Checked, main: str, abstract: frozenset[str],
              proved: frozenset[str]) -> str | None:
    """The abstract component a refinement reads by its implementation: the first, breadth
    first from ``main`` (through the components read by their bodies), that is proved, has a
    body and is not opaque (Kind 2's ``get_refinement_abstraction``)."""
    todo, seen = _callees(checked, main), {main}
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        node = checked.nodes[name]
        if node.imported:
            continue
        if name not in abstract:
            todo.extend(_callees(checked, name))
        elif name in proved and node.decl.modifier != "opaque":
            return name
    return None


def _callees(checked: Checked, name: str) -> list[str]:
    node = checked.nodes[name]
    return [c.name for c in node.calls if c.name in checked.nodes] + \
        sorted(n for n in node.inlined if n in checked.nodes)


def _refined_outputs(node) -> bool:
    """Whether an output has a refinement (subrange, subtype) type: a guarantee too."""
    return any(n in node.refinements for n in node.outputs)


def _contract_callees(node) -> list[str]:
    """The nodes a node's contract calls (assumptions, guarantees, modes, ghost equations)."""
    exprs = [p.expr for p in node.assumes + node.guarantees]
    exprs += [e for m in node.modes for e in m.requires] + [e for m in node.modes for _, e, _ in m.ensures]
    exprs += [e for names, e in node.eqs if all(n in node.ghosts for n in names)]
    return [t.name for e in exprs for t in subterms(e) if isinstance(t, A.Call)]
