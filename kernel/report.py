"""Printing verdicts: Kind 2-compatible JSON, and rich tables for people."""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from pysmt.fnode import FNode
from rich.markup import escape

from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Trace, Value, Verdict


def json_value(value: Value) -> Any:
    """Kind 2 prints non-integral reals as ``{"num": n, "den": d}``."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return value.numerator
        return {"num": value.numerator, "den": value.denominator}
    return value


def type_name(var) -> str:
    """Kind 2's name of a symbol's (or a PySMT type's) type; ``abstr`` when it has none."""
    t = var.symbol_type() if isinstance(var, FNode) else var
    if t.is_bool_type():
        return "bool"
    if t.is_int_type():
        return "int"
    if t.is_real_type():
        return "real"
    return "abstr"


def default_lift(system: TransitionSystem, trace: Trace) -> list[dict[str, Any]]:
    """One node block naming every variable of the system: inputs as ``input``, state as
    ``local``.  Frontends with source-level names provide their own ``lift``."""
    streams = []
    inputs = set(system.input_vars)
    for var in system.input_vars + system.state_vars:
        name = var.symbol_name()
        if not trace.steps or name not in trace.steps[0]:
            continue
        streams.append({
            "name": name,
            "type": type_name(var),
            "class": "input" if var in inputs else "local",
            "instantValues": [[k, json_value(step[name])] for k, step in enumerate(trace.steps)],
        })
    return [{"blockType": "node", "name": system.name, "streams": streams}]


def lift(system: TransitionSystem, trace: Trace, prop: Property | None) -> list[dict[str, Any]]:
    if system.lift is not None:
        return system.lift(trace, prop)
    return default_lift(system, trace)


def property_object(system: TransitionSystem, prop: Property, verdict: Verdict) -> dict[str, Any]:
    loc = prop.location
    answer_value = verdict.answer.value if verdict.answer is not Answer.ERROR else "unknown"
    obj: dict[str, Any] = {
        "objectType": "property",
        "name": prop.name,
        "scope": prop.scope or system.name,
        "line": (loc.line if loc and loc.line else 0),
        "column": (loc.column if loc and loc.column else 0),
        "source": prop.source,
        "runtime": {"unit": "sec", "timeout": verdict.timeout, "value": round(verdict.runtime, 3)},
        "answer": {"source": verdict.engine or "kinduct", "value": answer_value},
    }
    if loc and loc.file:
        obj["file"] = loc.file
    if verdict.k is not None:
        obj["k"] = verdict.k
    if verdict.solver:
        obj["solver"] = verdict.solver
    if verdict.trace is not None:
        key = "witness" if verdict.answer is Answer.REACHABLE else "counterExample"
        obj[key] = lift(system, verdict.trace, prop)
    if verdict.invariant is not None:
        obj["invariant"] = verdict.invariant
    if verdict.answer is Answer.ERROR:
        obj["error"] = verdict.message or "error"
    elif verdict.message and verdict.answer is Answer.UNKNOWN:
        obj["reason"] = verdict.message
    obj.update(verdict.extra)
    return obj


def json_report(system: TransitionSystem, props: Sequence[Property],
                verdicts: Sequence[Verdict], extra_objects: Sequence[dict] = ()) -> str:
    return json.dumps(json_objects(system, props, verdicts, extra_objects), indent=2)


def json_objects(system: TransitionSystem, props: Sequence[Property],
                 verdicts: Sequence[Verdict], extra_objects: Sequence[dict] = ()) -> list[dict]:
    """The analysisStart, property and analysisStop objects of one analysis."""
    objects: list[dict[str, Any]] = [
        {"objectType": "analysisStart", "top": system.name, "concrete": [], "abstract": [],
         "assumptions": []}
    ]
    objects.extend(extra_objects)
    by_name = {p.name: p for p in props}
    for verdict in verdicts:
        objects.append(property_object(system, by_name[verdict.property], verdict))
    objects.append({"objectType": "analysisStop"})
    return objects


_STYLE = {
    Answer.VALID: "green", Answer.UNREACHABLE: "yellow", Answer.FALSIFIABLE: "red",
    Answer.REACHABLE: "green", Answer.UNKNOWN: "yellow", Answer.ERROR: "bold red",
}


def format_value(value: Any) -> str:
    if isinstance(value, dict) and "num" in value:
        return f"{value['num']}/{value['den']}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def human_report(console, system: TransitionSystem, props: Sequence[Property],
                 verdicts: Sequence[Verdict]) -> None:
    """A table of verdicts, then each counterexample as a table of streams over steps.

    Names come from users' models (``z[l3c34]``), so they are escaped, never read as markup."""
    from rich.table import Table

    table = Table(title=escape(system.name), title_justify="left")
    for col in ("property", "verdict", "engine", "k", "time (s)"):
        table.add_column(col)
    by_name = {p.name: p for p in props}
    for v in verdicts:
        table.add_row(escape(v.property), f"[{_STYLE[v.answer]}]{v.answer.value}[/]", v.engine or "-",
                      "-" if v.k is None else str(v.k), f"{v.runtime:.2f}")
    console.print(table)
    for v in verdicts:
        if v.answer is Answer.ERROR or (v.answer is Answer.UNKNOWN and v.message):
            console.print(f"[dim]{escape(v.property)}: {escape(v.message)}[/]")
        if v.trace is None:
            continue
        label = "witness" if v.answer is Answer.REACHABLE else "counterexample"
        label = f"{label} for {v.property}"
        for block in lift(system, v.trace, by_name[v.property]):
            _print_block(console, label, block)
        if "word" in v.extra:
            console.print(f"word: {' '.join(map(str, v.extra['word']))}")


def _print_block(console, title: str, block: dict[str, Any], depth: int = 0) -> None:
    from rich.table import Table

    streams = block.get("streams", [])
    if streams:
        steps = max((len(s["instantValues"]) for s in streams), default=0)
        table = Table(title=escape(f"{title}: {block['blockType']} {block['name']}"),
                      title_justify="left")
        table.add_column("stream")
        table.add_column("class")
        for k in range(steps):
            table.add_column(str(k), justify="right")
        for s in streams:
            vals = {step: format_value(val) for step, val in s["instantValues"]}
            table.add_row(escape(s["name"]), s["class"], *[escape(vals.get(k, "")) for k in range(steps)])
        console.print(table)
    for sub in block.get("subnodes", []) or []:
        _print_block(console, title, sub, depth + 1)
