"""``kinduct simulate FILE --input trace.csv|trace.json [--main NODE] [--json]``."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from kinduct.frontends.lucent.core import machine
from kinduct.frontends.lucent.core.types import T
from kinduct.frontends.lucent.pipeline import load_checked
from kinduct.frontends.lucent.sim import recursive
from kinduct.frontends.lucent.sim.simulate import Instance, Simulator, default_value
from kinduct.frontends.lucent.trace import ticks
from kinduct.frontends.lucent.trace.lift import to_json, type_name
from kinduct.kernel.cli_blocks import console, existing_file
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import read_source
from kinduct.kernel.report import format_value, print_stream_table


def parse_value(text: Any, t: T, where: str) -> Any:
    """A CSV/JSON cell as a value of type ``t`` (enumerations by constant name)."""
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
            if isinstance(text, bool):
                raise ValueError
            return int(str(text).strip())
        if t.kind == "real":
            return Fraction(str(text).strip())
        if t.kind == "machine":  # a number in the type's range
            if isinstance(text, bool):
                raise ValueError
            v = int(str(text).strip())
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
            its = [t.items[0]] * t.size if t.kind == "array" else list(t.items)
            return [parse_value(x, it, where) for x, it in zip(v, its, strict=True)]
        return int(str(text).strip())
    except (ValueError, TypeError, KeyError, json.JSONDecodeError):
        raise InputError(f"{where}: expected a value of type {t}, got '{text}'") from None


def read_inputs(path: Path, node) -> list[dict[str, Any]]:
    text = read_source(path)
    names = node.inputs
    rows: list[dict[str, Any]]
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{exc.lineno}:{exc.colno}: error: invalid JSON: {exc.msg}") from None
        if isinstance(data, dict):
            n = max((len(v) for v in data.values()), default=0)
            rows = [{k: v[i] for k, v in data.items() if i < len(v)} for i in range(n)]
        elif isinstance(data, list):
            rows = data
        else:
            raise InputError(f"{path}: expected a list of steps or an object of columns")
    else:
        reader = csv.reader([line for line in text.splitlines() if line.strip()])
        table = list(reader)
        if not table:
            return []
        header = [h.strip() for h in table[0]]
        rows = [dict(zip(header, r, strict=False)) for r in table[1:]]
    out = []
    for k, row in enumerate(rows):
        step = {}
        for n in names:
            if n not in row:
                raise InputError(f"{path}: step {k}: no value for input '{n}'")
            step[n] = parse_value(row[n], node.types[n], f"{path}: step {k}, input '{n}'")
        out.append(step)
    return out


def _unspecified(path: Path, node) -> list[dict[str, Any]] | None:
    """A JSON list of steps's values for names that are no stream of ``node`` (None: none)."""
    if path.suffix.lower() != ".json":
        return None
    data = json.loads(read_source(path))
    if not isinstance(data, list) or not data or not all(isinstance(d, dict) for d in data):
        return None
    extras = [{k: v for k, v in d.items() if k not in node.types} for d in data]
    return extras if any(extras) else None


def _fmt(v: Any) -> str:
    """A value in Lustre's syntax (reals as ``1.5``, ``2.0`` or ``1/3``)."""
    return format_value(v)


def _block(inst: Instance, held: bool = False) -> dict[str, Any]:
    """The JSON block of ``inst``: an instance on a clock shows the steps where it steps, a
    condact-like one (``held``) also its last tick's values between ticks (:mod:`.ticks`)."""
    node = inst.node
    streams = []
    steps = ticks.shown(inst.stepped, held, len(inst.history))
    for n in node.inputs + node.outputs + node.locals:
        t = node.types[n]
        streams.append({"name": n, "type": type_name(t, node, n), "class": node.var_class(n),
                        "instantValues": [[k, to_json(inst.history[at][n], t)] for k, at in steps
                                          if n in inst.history[at]]})
    block: dict[str, Any] = {"blockType": "node", "name": node.name, "streams": streams}
    subs = [_block(inst.children[c.uid], ticks.held_below(c, held)) for c in node.calls]
    if subs:
        block["subnodes"] = subs
    return block


def run_simulate(args: argparse.Namespace) -> int:
    from kinduct.frontends.lucent.pipeline import main_nodes
    from kinduct.kernel.frontend import LoadOptions
    path = existing_file(args.file)
    inputs_path = existing_file(args.input)
    checked = load_checked(path)
    mains = main_nodes(checked, LoadOptions(main=args.main))
    if not mains:
        raise InputError(f"{checked.file}: the model has no node to simulate")
    main = mains[0]
    node = checked.nodes[main]
    inputs = read_inputs(inputs_path, node)
    chosen: list[str] = []
    given = _unspecified(inputs_path, node)

    def oracle(name: str, t: T, k: int):
        # unguarded pre at step 0, free constants, imported outputs, any, x/0: Kind 2 leaves
        # them unspecified; the simulation reads them from the input file (a step's value
        # under the translation's name, as kinduct testgen writes it), else picks the
        # type's default and says so
        if given is not None and name in given[min(k, len(given) - 1)]:
            return given_oracle(name, t, k)
        chosen.append(name)
        return default_value(t)
    if given is not None:
        from kinduct.frontends.lucent.trace.lift import trace_oracle
        from kinduct.kernel.verdict import Trace
        given_oracle = trace_oracle(Trace.of(given))

    sim = Simulator(checked, main, oracle)
    circular = [(inst, n) for inst in sim.instances()
                for n in sorted(inst.node.cut | inst.node.untangled)]
    if circular:
        inst, n = circular[0]
        pos = inst.node.var_pos[n]
        raise InputError.at(f"cannot simulate: '{inst.prefix}{n}' is defined circularly (after the first "
                            "step, or through a node call), so its value is not computed by its "
                            "equation but constrained by it",
                            str(path), checked.text, pos.line or None, pos.col or None)
    sim.run(inputs)
    if chosen:
        names = sorted(set(chosen))
        sys.stderr.write("note: unspecified values (unguarded pre at step 0, current before its "
                         "clock's first tick, free constants, imported outputs, any) were set to "
                         f"defaults: {', '.join(names[:8])}"
                         f"{' ...' if len(names) > 8 else ''}\n")
    if args.json:
        print(json.dumps([_block(sim.root)], indent=2))
        return 0
    rows = [(n, node.var_class(n), [recursive.text(h[n], node.types[n], lambda v, _: _fmt(v))
                                     if node.types[n].kind == "adt" else _fmt(h[n])
                                     for h in sim.root.history])
            for n in node.inputs + node.outputs + node.locals]
    print_stream_table(console(), f"simulation of {main} ({len(inputs)} steps)", ("stream", "class"),
                       rows, len(inputs))
    return 0
