"""The inputs of ``kinduct simulate``: the formats read, and the typed steps they give.

Formats (chosen by content for JSON, by the ``.csv`` extension for CSV):

1. Kind 2's interpreter input (``kind2 --enable interpreter --interpreter_input_file F``): a
   JSON list with one object per step, each input by name: ``[{"x": 1, "r": "1.0/2.0"}, ...]``.
   Integers and reals may be strings (``"42"``, ``"0.5"``, ``"1/3"``, ``"1.0/2.0"``), a record
   is an object by field, an array a list, a tuple a list or an object by index
   (``{"0": 36, "1": false}``), an enumeration value its constant's name.
2. An object of columns: ``{"x": [1, 2, 3], "b": [true, false, true]}``.
3. Node blocks as ``kinduct simulate --json`` writes them (the main node's block).
4. The JSON output of ``kinduct check --json`` or ``kind2 -json``: the first counterexample's
   main node block, so a counterexample can be fed back (of Kind 2's interpreter output, the
   ``execution`` object's trace).
5. CSV: a header row of input names, one row per step.

Values of other names in a list of steps (what a run left unspecified, by the translation's
names, as ``kinduct testgen`` writes them) are returned beside.  Every malformed input is an
:class:`~kinduct.kernel.errors.InputError` located at the offending JSON value or CSV cell.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from kinduct.frontends.lucent.core import machine
from kinduct.frontends.lucent.core.types import T
from kinduct.frontends.lucent.sim import recursive
from kinduct.kernel.errors import InputError

#: A JSON value's place: the keys and indices leading to it from the document's root.
JsonPath = tuple[int | str, ...]


def _real(text: Any) -> Fraction:
    """A real from JSON or CSV: a number, ``"0.5"``, ``"1/3"``, ``"1.0/2.0"`` (Kind 2's)."""
    if isinstance(text, dict) and set(text) == {"num", "den"}:  # Kind 2's JSON output
        return Fraction(int(text["num"]), int(text["den"]))
    if isinstance(text, bool) or not isinstance(text, (int, float, str)):
        raise ValueError
    s = str(text).strip()
    num, slash, den = s.partition("/")
    if slash:
        return Fraction(num.strip()) / Fraction(den.strip())
    return Fraction(s)


def _integer(text: Any) -> int:
    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise ValueError
    return int(str(text).strip())


def parse_value(text: Any, t: T, where: str) -> Any:
    """A CSV cell or JSON value as a value of type ``t`` (enumerations by constant name);
    :class:`InputError` (``where``: what the message names) when it is none."""
    try:
        if t.kind == "bool":
            if isinstance(text, bool):
                return text
            s = str(text).strip().lower()
            if s in ("true", "1", "t"):
                return True
            if s in ("false", "0", "f"):
                return False
            raise ValueError
        if t.kind == "int":
            return _integer(text)
        if t.kind == "real":
            return _real(text)
        if t.kind == "machine":  # a number in the type's range
            v = _integer(text)
            if machine.wrap(v, t) != v:
                raise ValueError
            return v
        if t.kind == "enum":
            s = str(text).strip()
            if s in t.items:
                return t.items.index(s)
            return int(s)
        if t.kind == "adt":  # Lucent's syntax: Cons(1, Nil)
            return recursive.parse(str(text), t, lambda x, ft: parse_value(x, ft, where))
        if t.kind in ("array", "tuple", "record"):
            v = json.loads(text) if isinstance(text, str) else text
            if t.kind == "record":
                return {f: parse_value(v[f], ft, where) for f, ft in t.items}
            if t.kind == "tuple" and isinstance(v, dict):  # Kind 2: elements by index
                v = [v[str(i)] for i in range(len(t.items))]
            if not isinstance(v, list):
                raise ValueError
            its = [t.items[0]] * t.size if t.kind == "array" else list(t.items)
            return [parse_value(x, it, where) for x, it in zip(v, its, strict=True)]
        return _integer(text)
    except InputError:
        raise
    except (ValueError, TypeError, KeyError, ZeroDivisionError, json.JSONDecodeError):
        raise InputError(f"{where}: expected a value of type {t}, got '{_shown(text)}'") from None


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@attrs.frozen
class Cell:
    """A value read for one name at one step, and where it is in the file (1-based)."""

    value: Any
    line: int | None = None
    column: int | None = None


@attrs.frozen
class Row:
    """The values of one step by name, and where the step starts in the file."""

    cells: dict[str, Cell] = attrs.field(factory=dict)
    line: int | None = None
    column: int | None = None


@attrs.frozen
class Inputs:
    """What an input file gives: typed inputs per step, and the other values per step;
    ``with_outputs``: the file gives the outputs asked for too, and ``steps`` holds them."""

    steps: tuple[Mapping[str, Any], ...]
    others: tuple[Mapping[str, Any], ...]
    with_outputs: bool = False


class _Source:
    """The input file's text, for located errors."""

    def __init__(self, path: Path, text: str) -> None:
        self.path, self.text = path, text

    def error(self, message: str, line: int | None = None, column: int | None = None) -> InputError:
        return InputError.at(message, str(self.path), self.text, line, column)


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def locate(text: str, where: JsonPath) -> tuple[int, int]:
    """The line and column (1-based) where the JSON value at ``where`` starts in ``text``
    (a well-formed document); as far as the path leads."""
    decoder = json.JSONDecoder()
    pos = 0

    def blank(p: int) -> int:
        while p < len(text) and text[p] in " \t\r\n":
            p += 1
        return p

    pos = blank(pos)
    for key in where:
        opening = text[pos] if pos < len(text) else ""
        if opening not in "[{":
            break
        pos = blank(pos + 1)
        index = 0
        while pos < len(text) and text[pos] not in "]}":
            if opening == "{":
                name, pos = decoder.raw_decode(text, pos)
                pos = blank(blank(pos) + 1)  # past ':'
                found = name == key
            else:
                found = index == key
            if found:
                break
            _, pos = decoder.raw_decode(text, pos)
            pos = blank(pos)
            if pos < len(text) and text[pos] == ",":
                pos = blank(pos + 1)
            index += 1
        else:
            break
    return _position(text, pos)


def _from_json(src: _Source, data: Any, node_name: str) -> list[Row]:
    """The rows of a JSON document (formats 1-4 of the module's list)."""
    def cell(value: Any, *where: int | str) -> Cell:
        return Cell(value, *locate(src.text, where))

    def bad(message: str, *where: int | str) -> InputError:
        return src.error(message, *locate(src.text, where))

    expected = ('expected a list of steps ([{"x": 1}, ...]), an object of columns '
                '({"x": [1, 2]}), node blocks or the JSON output of check')
    if isinstance(data, dict):
        if "streams" in data:
            return _block_rows(src, data, ())
        rows: list[Row] = []
        for name, column in data.items():
            if not isinstance(column, list):
                raise bad(f"{expected}: the column '{name}' is no list", name)
            for k, v in enumerate(column):
                while len(rows) <= k:
                    rows.append(Row({}, *locate(src.text, (name, k))))
                rows[k].cells[name] = cell(v, name, k)
        return rows
    if not isinstance(data, list):
        raise bad(expected)
    blocks = [i for i, d in enumerate(data) if isinstance(d, dict) and "streams" in d]
    if blocks:
        return _block_rows_at(src, data, blocks, node_name, ())
    for i, d in enumerate(data):  # kinduct check --json, kind2 -json: the first counterexample
        # (or the trace of Kind 2's interpreter output, an ``execution`` object)
        key = next((k for k in ("counterExample", "trace")
                    if isinstance(d, dict) and isinstance(d.get(k), list)), None)
        if key is not None:
            blocks = d[key]
            found = [j for j, b in enumerate(blocks) if isinstance(b, dict) and "streams" in b]
            if not found:
                raise bad(f"the {key} has no node block", i, key)
            return _block_rows_at(src, blocks, found, node_name, (i, key))
    if any(isinstance(d, dict) and "objectType" in d for d in data):
        raise bad("the JSON output of check holds no counterexample to simulate")
    rows = []
    for k, step in enumerate(data):
        if not isinstance(step, dict):
            raise bad(f"step {k}: expected an object of input values ({{\"x\": 1, ...}}), "
                      f"got {_shown(step)}", k)
        rows.append(Row({name: cell(v, k, name) for name, v in step.items()},
                        *locate(src.text, (k,))))
    return rows


def _main_block(data: Sequence[Any], blocks: Sequence[int], node_name: str) -> int:
    named = [i for i in blocks if str(data[i].get("name", "")).split(" ")[0] == node_name]
    return (named or list(blocks))[0]


def _block_rows_at(src: _Source, data: Sequence[Any], blocks: Sequence[int], node_name: str,
                   prefix: JsonPath) -> list[Row]:
    i = _main_block(data, blocks, node_name)
    return _block_rows(src, data[i], (*prefix, i))


def _block_rows(src: _Source, block: Mapping[str, Any], where: JsonPath) -> list[Row]:
    """The rows of one node block: its streams' ``instantValues`` by step (each located at
    the block)."""
    rows: dict[int, dict[str, Cell]] = {}
    streams = block.get("streams")
    if not isinstance(streams, list):
        raise src.error("a node block's 'streams' is no list", *locate(src.text, (*where, "streams")))
    for j, stream in enumerate(streams):
        at = (*where, "streams", j)
        values = stream.get("instantValues") if isinstance(stream, dict) else None
        if not isinstance(values, list) or not isinstance(stream.get("name"), str):
            raise src.error("expected a stream with a 'name' and 'instantValues'",
                            *locate(src.text, at))
        for m, pair in enumerate(values):
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int)
                    and not isinstance(pair[0], bool) and pair[0] >= 0):
                raise src.error("expected an instant value [step, value]",
                                *locate(src.text, (*at, "instantValues", m)))
            rows.setdefault(pair[0], {})[stream["name"]] = Cell(
                pair[1], *locate(src.text, (*at, "instantValues", m, 1)))
    line, column = locate(src.text, where)
    return [Row(rows.get(k, {}), line, column) for k in range(max(rows, default=-1) + 1)]


def _from_csv(src: _Source) -> list[Row]:
    lines = [(n, line) for n, line in enumerate(src.text.splitlines(), 1) if line.strip()]
    if not lines:
        return []
    header = [h.strip() for h in next(csv.reader([lines[0][1]]))]
    rows = []
    for n, line in lines[1:]:
        cells = next(csv.reader([line]))
        if len(cells) > len(header):
            raise src.error(f"{len(cells)} values for {len(header)} columns", n, 1)
        row, column = {}, 1
        for name, value in zip(header, cells, strict=False):
            row[name] = Cell(value, n, column)
            column += len(value) + 1
        rows.append(Row(row, n, 1))
    return rows


def read_inputs(path: Path, text: str, node_name: str, inputs: Sequence[str],
                types: Mapping[str, T], steps: int | None = None,
                outputs: Sequence[str] = ()) -> Inputs:
    """The typed inputs (``inputs``, of ``types``) of node ``node_name`` at every step of the
    file ``path`` (its ``text``), the first ``steps`` of them when given; an input-less node
    runs ``steps`` steps beyond the file's too.  ``outputs``: names the file may give too
    (a recorded run's outputs); when some step gives one of them, every step must give them
    all, and they are typed beside the inputs."""
    if text.startswith("\ufeff"):  # a byte-order mark: whitespace to JSON, columns kept
        text = " " + text[1:]
    src = _Source(path, text)
    if path.suffix.lower() == ".csv":
        rows = _from_csv(src)
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise src.error(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
        except RecursionError:
            raise src.error("the JSON is nested too deeply to read", 1, 1) from None
        rows = _from_json(src, data, node_name)
    if steps is not None:
        if steps > len(rows) and inputs:
            raise src.error(f"the file gives {len(rows)} step(s) of inputs; --steps asks for "
                            f"{steps}", *locate(text, ()))
        rows = rows[:steps] + [Row() for _ in range(steps - len(rows))]
    with_outputs = any(_cell(row, n, types[n]) is not None for row in rows for n in outputs)
    names = [(n, "input") for n in inputs] + [(n, "output") for n in outputs if with_outputs]
    typed: list[dict[str, Any]] = []
    for k, row in enumerate(rows):
        step = {}
        for name, what in names:
            cell = _cell(row, name, types[name])
            if cell is None:
                raise src.error(f"step {k}: no value for {what} '{name}'", row.line, row.column)
            step[name] = _typed(src, cell, types[name], f"step {k}, {what} '{name}'")
        typed.append(step)
    others = tuple({n: c.value for n, c in row.cells.items() if n not in types} for row in rows)
    return Inputs(tuple(typed), others, with_outputs)


def _cell(row: Row, name: str, t: T) -> Cell | None:
    return row.cells.get(name) or _flattened(row.cells, name, t)


def _flattened(cells: Mapping[str, Cell], name: str, t: T) -> Cell | None:
    """A record given field by field (``p.x``, ``p.y``: Kind 2's JSON output flattens
    records), as one cell holding the record's object; None when a field is missing."""
    if t.kind != "record":
        return None
    fields: dict[str, Any] = {}
    first: Cell | None = None
    for field, ft in t.items:
        cell = cells.get(f"{name}.{field}") or _flattened(cells, f"{name}.{field}", ft)
        if cell is None:
            return None
        fields[field] = cell.value
        first = first or cell
    return Cell(fields, first.line if first else None, first.column if first else None)


def _typed(src: _Source, cell: Cell, t: T, what: str) -> Any:
    try:
        return parse_value(cell.value, t, what)
    except InputError as exc:
        raise src.error(exc.message, cell.line, cell.column) from None

