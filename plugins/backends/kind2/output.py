"""Reading Kind 2's ``-json`` output (schemas/kind2-output.json of the Kind 2 repository).

Kind 2 prints one JSON array and appends objects to it as results arrive, so a run that was
killed (timeout, signal) leaves an unterminated array: :func:`parse_objects` keeps every
complete object.  Strings may hold raw newlines (Kind 2 does not escape them), so the decoder is
not strict.  A failure before any analysis shows as ``log`` objects at level ``error``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from kinduct.kernel.errors import InputError
from kinduct.kernel.system import Property, PropertyKind
from kinduct.kernel.verdict import Answer

_ANSWERS = {
    "valid": Answer.VALID,
    "falsifiable": Answer.FALSIFIABLE,
    "reachable": Answer.REACHABLE,
    "unreachable": Answer.UNREACHABLE,
    "unknown": Answer.UNKNOWN,
}


_TRAILING_COMMA = re.compile(r",(\s*[\]}])")


def parse_objects(text: str) -> list[dict[str, Any]]:
    """Every complete top-level object of Kind 2's output, even from a truncated array."""
    stripped = text.strip()
    if not stripped:
        return []
    try:
        root = json.loads(stripped, strict=False)
    except json.JSONDecodeError:
        try:  # Kind 2 v3.0.0 can print a trailing comma (a counterexample's empty node block)
            root = json.loads(_TRAILING_COMMA.sub(r"\1", stripped), strict=False)
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
    decoder = json.JSONDecoder(strict=False)
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


def json_to_value(value: Any, type_name: str | None = None) -> Any:
    """Kind 2 prints integers as numbers, reals as numbers or ``{"num", "den"}``, records as
    objects and arrays as lists (kept as dicts and lists of converted values)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, dict) and "num" in value and "den" in value:
        return Fraction(int(value["num"]), int(value["den"]))
    if isinstance(value, dict):
        return {str(k): json_to_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_to_value(v) for v in value]
    if isinstance(value, int):
        return Fraction(value) if type_name == "real" else value
    if isinstance(value, float):
        return Fraction(value).limit_denominator(10**12)
    return str(value)


def _errors(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o.get("objectType") == "log" and o.get("level") in ("error", "fatal")]


def problems_of(objects: list[dict[str, Any]]) -> list[str]:
    """Messages of ``log`` objects at level error or fatal, with their position if any."""
    out = []
    for o in _errors(objects):
        where = f"line {o['line']}: " if o.get("line") else ""
        out.append(f"{where}{str(o.get('value', '')).strip()}")
    return out


def input_error(objects: list[dict[str, Any]]) -> InputError | None:
    """Kind 2's first located error ``log`` object (a parse or type error in the file) as
    kinduct's input error with the line quoted under a caret, or None.  Errors without a
    position (``Wallclock timeout.``) are not about the input."""
    errors = [o for o in _errors(objects) if o.get("file") and o.get("line")]
    if not errors:
        return None
    first = errors[0]
    file, line, column = first.get("file"), first.get("line"), first.get("column")
    text = None
    if file and line:
        try:
            text = Path(file).read_text(errors="replace")
        except OSError:
            text = None
    message = " ".join(str(first.get("value", "")).split()) or "Kind 2 rejected the file"
    return InputError.at(f"{message} (Kind 2)", file, text,
                         int(line) if line else None, int(column) if column else None)


def property_objects(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o.get("objectType") == "property"]


def _folded(name: str) -> str:
    return re.sub(r"\s+", "", name).lower()


def _bare(text: str) -> str:
    """An expression without blanks and parentheses (Kind 2 prints ``((y > 0) => (l > y))``
    for the source ``y > 0 => l > y``)."""
    return re.sub(r"[\s()]+", "", text).lower()


def match_properties(objects: list[dict[str, Any]], props: Sequence[Property],
                     printed: Mapping[str, str] | None) -> dict[str, dict[str, Any]]:
    """kinduct property name -> the Kind 2 property object that answers it.

    For Lustre kinduct printed, ``printed`` maps the output streams that hold the properties
    back exactly (Kind 2 reports such a property by that name or with it as its expression).
    For a file passed through, a Kind 2 property answers a kinduct property with the same name (up to case and
    blanks: Kind 2 writes ``[L3C5]`` where kinduct writes ``[l3c5]``), else the one on the same
    line whose expression is the kinduct property's name (``--%PROPERTY OK;`` is ``OK`` to
    kinduct and ``InvProp[L127C4]`` with expression ``OK`` to Kind 2), else the one at the same
    source position, else the same generated check of the same node (``OneModeActive``); a
    position or a check shared by several properties on either side matches nothing.  When a
    property is reported more than once (Kind 2 may analyse a node twice), its first definitive
    answer wins.  Kind 2's non-vacuity checks answer only reachability properties (the guard of
    ``check P provided G`` is ``Guard of P`` to Kind 2, ``P (provided)`` to kinduct).
    """
    candidates = property_objects(objects)
    chosen: dict[str, dict[str, Any]] = {}

    def offer(prop: Property, obj: dict[str, Any]) -> None:
        if obj.get("source") == "NonVacuityCheck" and prop.kind is not PropertyKind.REACHABLE:
            return
        old = chosen.get(prop.name)
        if old is None or (not answer_of(old).definitive and answer_of(obj).definitive):
            chosen[prop.name] = obj

    if printed is not None:
        by_name = {p.name: p for p in props}
        for obj in candidates:  # Kind 2 v3 names ``--%PROPERTY P0;`` InvProp[L9C3], expr P0
            printed_name = str(obj.get("name", ""))
            if printed_name not in printed:
                printed_name = str(obj.get("expr", ""))
            prop = by_name.get(printed.get(printed_name, ""))
            if prop is not None:
                offer(prop, obj)
        return chosen
    def line(p: Property) -> int | None:
        return p.location.line if p.location else None

    keys = (
        lambda p: _folded(p.name),
        lambda p: (line(p), _bare(p.name)) if line(p) else None,
        lambda p: (line(p), p.location.column) if p.location and line(p) else None,
        lambda p: ("OneModeActive", p.scope) if p.source == "OneModeActive" else None,
    )
    obj_keys = (
        lambda o: _folded(str(o.get("name", ""))),
        lambda o: (o.get("line"), _bare(str(o.get("expr", "")))) if o.get("line") and o.get("expr") else None,
        lambda o: (o.get("line"), o.get("column")) if o.get("line") else None,
        lambda o: ("OneModeActive", o.get("scope")) if o.get("source") == "OneModeActive" else None,
    )
    left = list(props)
    for key, obj_key in zip(keys, obj_keys, strict=True):
        names: dict[Any, set[str]] = {}
        for obj in candidates:
            k = obj_key(obj)
            if k is not None:
                names.setdefault(k, set()).add(_folded(str(obj.get("name", ""))))
        ours: dict[Any, list[Property]] = {}
        for prop in props:
            k = key(prop)
            if k is not None:
                ours.setdefault(k, []).append(prop)
        for prop in left:
            k = key(prop)
            if k is None or len(ours.get(k, ())) != 1 or len(names.get(k, ())) != 1:
                continue
            for obj in candidates:
                if obj_key(obj) == k:
                    offer(prop, obj)
        left = [p for p in left if p.name not in chosen]
    return chosen


@attrs.frozen
class StreamTable:
    """The top block of a counterexample: its node, number of steps, and per stream its class
    (``input``, ``output``, ``local``) and values by step."""

    block: str | None
    steps: int
    classes: dict[str, str]
    values: dict[str, dict[int, Any]]


def stream_table(blocks: list[dict[str, Any]] | None) -> StreamTable:
    """The top block's streams of a counterexample.  Subnode blocks are left out: their
    streams are copies of the caller's arguments and locals under node-local names."""
    if not blocks:
        return StreamTable(None, 0, {}, {})
    top = blocks[0]
    values: dict[str, dict[int, Any]] = {}
    classes: dict[str, str] = {}
    steps = 0
    for s in top.get("streams", []) or []:
        got = {int(k): json_to_value(v, s.get("type")) for k, v in s.get("instantValues", [])}
        values[s["name"]] = got
        classes[s["name"]] = str(s.get("class", ""))
        if got:
            steps = max(steps, max(got) + 1)
    return StreamTable(top.get("name"), steps, classes, values)
