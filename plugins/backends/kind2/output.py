"""Reading Kind 2's ``-json`` output (schemas/kind2-output.json of the Kind 2 repository).

Kind 2 prints one JSON array and appends objects to it as results arrive, so a run that was
killed (timeout, signal) leaves an unterminated array: :func:`parse_objects` keeps every
complete object.  When Kind 2 fails before any analysis the root is a single ``log`` object.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from kinduct.kernel.verdict import Answer

_ANSWERS = {
    "valid": Answer.VALID,
    "falsifiable": Answer.FALSIFIABLE,
    "reachable": Answer.REACHABLE,
    "unreachable": Answer.UNREACHABLE,
    "unknown": Answer.UNKNOWN,
}


def parse_objects(text: str) -> list[dict[str, Any]]:
    """Every complete top-level object of Kind 2's output, even from a truncated array."""
    stripped = text.strip()
    if not stripped:
        return []
    try:
        root = json.loads(stripped)
    except json.JSONDecodeError:
        root = None
    if isinstance(root, list):
        return [o for o in root if isinstance(o, dict)]
    if isinstance(root, dict):
        return [root]
    # salvage: decode objects one after another after the opening bracket
    start = stripped.find("[")
    if start < 0:
        return []
    decoder = json.JSONDecoder()
    pos = start + 1
    out: list[dict[str, Any]] = []
    while pos < len(stripped):
        while pos < len(stripped) and stripped[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(stripped) or stripped[pos] == "]":
            break
        try:
            obj, pos = decoder.raw_decode(stripped, pos)
        except json.JSONDecodeError:
            break
        if isinstance(obj, dict):
            out.append(obj)
    return out


def answer_of(obj: dict[str, Any]) -> Answer:
    value = (obj.get("answer") or {}).get("value")
    return _ANSWERS.get(str(value), Answer.UNKNOWN)


def json_to_value(value: Any, type_name: str | None = None) -> bool | int | Fraction | str:
    """Kind 2 prints integers as numbers, reals as numbers or ``{"num", "den"}``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, dict) and "num" in value and "den" in value:
        return Fraction(int(value["num"]), int(value["den"]))
    if isinstance(value, int):
        return Fraction(value) if type_name == "real" else value
    if isinstance(value, float):
        return Fraction(value).limit_denominator(10**12)
    return str(value)


def errors_of(objects: list[dict[str, Any]]) -> list[str]:
    """Messages of ``log`` objects at level error or fatal, with their position if any."""
    out = []
    for o in objects:
        if o.get("objectType") == "log" and o.get("level") in ("error", "fatal"):
            where = f"line {o['line']}: " if o.get("line") else ""
            out.append(f"{where}{o.get('value', '').strip()}")
    return out


def property_objects(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o.get("objectType") == "property"]


def stream_table(blocks: list[dict[str, Any]] | None) -> tuple[int, dict[str, dict[int, Any]], str | None]:
    """The top block's streams of a counterexample: (number of steps, name -> step -> value,
    block name).  Subnode blocks are left out: their streams are copies of the caller's
    arguments and locals under node-local names."""
    if not blocks:
        return 0, {}, None
    top = blocks[0]
    streams: dict[str, dict[int, Any]] = {}
    steps = 0
    for s in top.get("streams", []) or []:
        values = {int(k): json_to_value(v, s.get("type")) for k, v in s.get("instantValues", [])}
        streams[s["name"]] = values
        if values:
            steps = max(steps, max(values) + 1)
    return steps, streams, top.get("name")
