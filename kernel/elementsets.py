"""Printing inductive validity cores and minimal cut sets: Kind 2's ``modelElementSet`` and
``noModelElementSet`` JSON objects, and a readable table (element, category, place, and the
properties whose sets hold it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kinduct.kernel.cores import ElementSet, NoSet
from kinduct.kernel.elements import ModelElement
from kinduct.kernel.system import TransitionSystem


def _runtime(seconds: float) -> dict[str, Any]:
    return {"unit": "sec", "value": round(seconds, 3), "timeout": False}


def _nodes(elements: Sequence[ModelElement]) -> list[dict[str, Any]]:
    """Elements grouped by node, nodes in order of first appearance (Kind 2's ``nodes``)."""
    nodes: dict[str, list[dict[str, Any]]] = {}
    for e in sorted(elements, key=lambda e: (e.location.line or 0, e.location.column or 0)):
        nodes.setdefault(e.node, []).append({
            "category": e.category, "name": e.name, "line": e.location.line,
            "column": e.location.column, "file": e.location.file})
    return [{"name": name, "elements": items} for name, items in nodes.items()]


def set_object(system: TransitionSystem, found: ElementSet | NoSet,
               complement: bool = False) -> dict[str, Any]:
    """Kind 2's object for ``found``; ``complement``: the elements not in it (``--print_ivc_complement``)."""
    if isinstance(found, NoSet):
        return {"objectType": "noModelElementSet", "class": found.kind, "property": found.prop,
                "answer": "noSolution", "runtime": _runtime(found.runtime)}
    elements = found.elements
    if complement:
        elements = tuple(e for e in system.elements if e not in elements)
    out: dict[str, Any] = {"objectType": "modelElementSet",
                           "class": found.kind + (" complement" if complement else ""),
                           "size": len(elements)}
    if found.kind == "mcs":
        prop = system.property(found.properties[0])
        loc = prop.location
        out.update({"property": prop.name, "line": loc.line if loc else None,
                    "col": loc.column if loc else None, "file": loc.file if loc else None})
    out["runtime"] = _runtime(found.runtime)
    out["approximate"] = found.approximate
    out["nodes"] = _nodes(elements)
    return out


def print_table(console, system: TransitionSystem, sets: Sequence[ElementSet | NoSet],
                complement: bool = False) -> None:
    """One table per set: its elements (or, with ``complement``, the others) and where they are."""
    from rich.table import Table

    for found in sets:
        if isinstance(found, NoSet):
            bound = "" if found.complete else " within the bounds"
            console.print(f"{found.kind.upper()} of {found.prop}: no set of elements whose "
                          f"removal gives a counterexample{bound} ({found.runtime:.2f}s)")
            continue
        props = ", ".join(found.properties)
        elements = found.elements if not complement else tuple(
            e for e in system.elements if e not in found.elements)
        what = {"ivc": "inductive validity core", "mcs": "minimal cut set"}[found.kind]
        title = (f"{'complement of the ' if complement else ''}{what} of {props}: "
                 f"{len(elements)} of {len(system.elements)} elements, {found.runtime:.2f}s, "
                 f"{found.queries} proofs" + (" (approximate: a query ended unknown)"
                                              if found.approximate else ""))
        table = Table(title=title, title_justify="left")
        for head in ("node", "element", "category", "line", "column"):
            table.add_column(head)
        for e in sorted(elements, key=lambda e: (e.location.line or 0, e.location.column or 0)):
            table.add_row(e.node, e.name, e.category, str(e.location.line or ""),
                          str(e.location.column or ""))
        console.print(table)
