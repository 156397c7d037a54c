"""``kinduct simulate FILE [--input trace.csv|trace.json] [--steps N] [--main NODE] [--json]``
(the input formats: :mod:`kinduct.frontends.lucent.sim.inputs`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kinduct.frontends.lucent.core.checked import Node
from kinduct.frontends.lucent.core.types import T
from kinduct.frontends.lucent.pipeline import load_checked
from kinduct.frontends.lucent.sim import recursive
from kinduct.frontends.lucent.sim.inputs import Inputs, parse_value, read_inputs
from kinduct.frontends.lucent.sim.simulate import Instance, Simulator, default_value
from kinduct.frontends.lucent.trace import ticks
from kinduct.frontends.lucent.trace.lift import to_json, type_name
from kinduct.kernel.cli_blocks import console, existing_file
from kinduct.kernel.errors import InputError, UsageError
from kinduct.kernel.frontend import read_source

__all__ = ["parse_value", "run_simulate"]  # parse_value: monitor reads traces with it
from kinduct.kernel.report import format_value, print_stream_table


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


def _inputs(path: Path | None, node: Node, steps: int | None) -> Inputs:
    """The steps to simulate: read from ``path``, else ``steps`` steps of an input-less node."""
    if path is not None:
        return read_inputs(path, read_source(path), node.name, node.inputs, node.types, steps)
    if node.inputs:
        raise UsageError(f"node '{node.name}' has inputs ({', '.join(node.inputs)}): give them "
                         "with --input FILE")
    if steps is None:
        raise UsageError(f"node '{node.name}' has no inputs: give the number of steps with "
                         "--steps N (or --input FILE)")
    return Inputs(tuple({} for _ in range(steps)), tuple({} for _ in range(steps)))


def run_simulate(args: argparse.Namespace) -> int:
    from kinduct.frontends.lucent.pipeline import main_nodes
    from kinduct.kernel.frontend import LoadOptions
    path = existing_file(args.file)
    inputs_path = existing_file(args.input) if args.input is not None else None
    checked = load_checked(path)
    mains = main_nodes(checked, LoadOptions(main=args.main))
    if not mains:
        raise InputError(f"{checked.file}: the model has no node to simulate")
    main = mains[0]
    node = checked.nodes[main]
    read = _inputs(inputs_path, node, args.steps)
    inputs = list(read.steps)
    chosen: list[str] = []
    given = list(read.others) if any(read.others) else None

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
