"""Realizability results as Kind 2 prints them: its JSON objects (``analysisStart`` with
``top`` and ``context``, ``realizabilityCheck`` with ``result``, ``deadlockingTrace`` and
``conflictingSet``, ``satisfiabilityCheck``, ``analysisStop``) and tables for people."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
from rich.markup import escape

from kinduct.kernel.contracts import ContractElement, ContractSystem
from kinduct.kernel.report import format_value, print_stream_table
from kinduct.plugins.realizability.game import Deadlock, Outcome, element_keys


@attrs.frozen
class Analysis:
    """One checked system: its realizability and, when unrealizable, its satisfiability."""

    system: ContractSystem
    outcome: Outcome
    satisfiability: Outcome | None = None
    timeout: bool = False


def _element_json(e: ContractElement) -> dict[str, Any]:
    out: dict[str, Any] = {"category": e.category, "name": e.name}
    if e.location is not None:
        out["line"] = e.location.line or 0
        out["column"] = e.location.column or 0
        if e.location.file:
            out["file"] = e.location.file
    return out


def _values(name: str, row: Sequence[bool]) -> dict[str, Any]:
    return {"name": name, "type": "bool", "instantValues": [[k, v] for k, v in enumerate(row)]}


def trace_blocks(system: ContractSystem, deadlock: Deadlock) -> list[dict[str, Any]]:
    """The deadlocking trace as Kind 2's node blocks: the first block carries the values of the
    assumptions, guarantees and modes (``assumptionsTrace``, ``guaranteesTrace``,
    ``modesTrace``) before its ``streams``."""
    blocks = system.lift(deadlock.steps) if system.lift is not None else [
        {"blockType": "node", "name": system.top, "streams": []}]
    keys = element_keys(system)
    first = blocks[0]
    head: dict[str, Any] = {"blockType": first["blockType"], "name": first["name"]}
    assumes = [_values(e.name, deadlock.values[k]) for k, e in keys.items() if k.startswith("a")]
    guarantees = [_values(e.name, deadlock.values[k]) for k, e in keys.items() if k.startswith("g")]
    if assumes:
        head["assumptionsTrace"] = assumes
    if guarantees:
        head["guaranteesTrace"] = guarantees
    if system.modes:
        modes = []
        for m_i, m in sorted(enumerate(system.modes), key=lambda im: im[1].name):
            steps = len(deadlock.steps)
            req = [all(deadlock.values[f"m{m_i}r{i}"][k] for i in range(len(m.requires)))
                   for k in range(steps)]
            ens = [all(deadlock.values[f"m{m_i}e{i}"][k] for i in range(len(m.ensures)))
                   for k in range(steps)]
            modes += [_values(f"{m.name}.requires", req), _values(f"{m.name}.ensures", ens)]
        head["modesTrace"] = modes
    head.update({k: v for k, v in first.items() if k not in head})
    return [head, *blocks[1:]]


def conflict_json(system: ContractSystem, conflict: Sequence[ContractElement]) -> dict[str, Any]:
    return {"objectType": "modelElementSet", "class": "conflicting constraints",
            "size": len(conflict),
            "nodes": [{"name": system.top, "elements": [_element_json(e) for e in conflict]}]}


def _runtime(value: float, timeout: bool = False) -> dict[str, Any]:
    return {"unit": "sec", "timeout": timeout, "value": round(value, 3)}


def json_objects(analysis: Analysis) -> list[dict[str, Any]]:
    """The objects Kind 2 prints for one realizability analysis."""
    system, outcome = analysis.system, analysis.outcome
    check: dict[str, Any] = {"objectType": "realizabilityCheck",
                             "runtime": _runtime(outcome.runtime, analysis.timeout),
                             "result": outcome.result}
    if outcome.deadlock is not None:
        check["deadlockingTrace"] = trace_blocks(system, outcome.deadlock)
        check["conflictingSet"] = conflict_json(system, outcome.deadlock.conflict)
    if outcome.reason:
        check["reason"] = outcome.reason  # kinduct's addition: why the answer is unknown
    objects = [{"objectType": "analysisStart", "top": system.top, "context": system.context}, check]
    if analysis.satisfiability is not None:
        sat = analysis.satisfiability
        objects.append({"objectType": "log", "level": "note", "source": "parse",
                        "value": "Checking satisfiability of contract..."})
        obj: dict[str, Any] = {"objectType": "satisfiabilityCheck", "runtime": _runtime(sat.runtime),
                               "result": sat.result}
        if sat.reason:
            obj["reason"] = sat.reason
        objects.append(obj)
    objects.append({"objectType": "analysisStop"})
    return objects


_STYLE = {"realizable": "green", "unrealizable": "red", "unknown": "yellow",
          "satisfiable": "green", "unsatisfiable": "red"}


def _what(system: ContractSystem) -> str:
    return "environment" if system.context == "environment" else "contract"


def human_report(console, analyses: Sequence[Analysis]) -> None:
    """A table of results, then each deadlocking trace and conflicting set."""
    from rich.table import Table

    table = Table(title="realizability", title_justify="left")
    for col in ("component", "checked", "result", "time (s)"):
        table.add_column(col, overflow="fold")
    for a in analyses:
        result = a.outcome.result
        cell = f"[{_STYLE.get(result, 'yellow')}]{result}[/]"
        if a.satisfiability is not None:
            sat = a.satisfiability.result
            cell += f" ([{_STYLE.get(sat, 'yellow')}]{sat}[/])"
        table.add_row(escape(a.system.top), _what(a.system), cell, f"{a.outcome.runtime:.2f}")
    console.print(table)
    for a in analyses:
        if a.outcome.reason:
            console.print(f"[dim]{escape(a.system.top)} ({_what(a.system)}): "
                          f"{escape(a.outcome.reason)}[/]")
        if a.outcome.deadlock is None:
            continue
        label = f"deadlocking trace of the {_what(a.system)} of {a.system.top}"
        blocks = trace_blocks(a.system, a.outcome.deadlock)
        for block in blocks:
            rows = []
            steps = len(a.outcome.deadlock.steps)
            for key, cls in (("assumptionsTrace", "assumption"), ("guaranteesTrace", "guarantee"),
                             ("modesTrace", "mode"), ("streams", None)):
                for s in block.get(key, []):
                    vals = {k: format_value(v, s.get("type")) for k, v in s["instantValues"]}
                    rows.append((s["name"], cls or s["class"], [vals.get(k, "") for k in range(steps)]))
            print_stream_table(console, f"{label}: {block['blockType']} {block['name']}",
                               ("stream", "class"), rows, steps)
        conflict = a.outcome.deadlock.conflict
        console.print(f"conflicting constraints ({len(conflict)}) at the last step:")
        for e in conflict:
            where = f" at line {e.location.line}, column {e.location.column}" if e.location else ""
            console.print(f"  {escape(e.category)} {escape(e.name)}{escape(where)}")
