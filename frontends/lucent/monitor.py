"""``kinduct monitor FILE --trace T [--main N] [--json]``: a recorded run against a contract.

Kind 2's contract monitor (``--enable contract_monitor --monitor_trace_file T``): the trace
gives the main node's inputs *and outputs* at every step; the node is run on the simulator
(the reference semantics, not the SMT translation) as if it were imported, so its outputs are
the trace's and only the contract is computed (ghosts, calls in the contract).  Every
assumption, guarantee and mode (the conjunction of its requires, of its ensures) is
evaluated at every step.  When the trace has no outputs at all and the node has a body, the
body computes them.

The verdict: the first step where a guarantee is false, or a mode's requires hold and its
ensures do not, while every assumption has held up to and including that step (exit 40, as
Kind 2's unsafe result); none (exit 0).  A false assumption is reported too: from there on the
contract owes nothing.

Traces read: ``kinduct simulate``'s formats (:mod:`kinduct.frontends.lucent.sim.inputs`: a
JSON list of steps, Kind 2's interpreter input and ``kinduct testgen``'s; an object of
columns; node blocks; the JSON output of ``kinduct check --json`` or ``kind2 -json``, the first
counterexample; CSV with one column per stream), with the outputs beside the inputs.  A
malformed or empty trace is an input error located in the file (exit 3).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Checked, Node
from kinduct.frontends.lucent.sim.inputs import locate, read_inputs
from kinduct.frontends.lucent.sim.simulate import Instance, Oracle, Simulator, default_value
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import read_source

#: The exit codes: every element held (Kind 2 v3.0.0's code of a safe result, 0), some was
#: violated (its unsafe result's, 40).  Kind 2's own monitor exits 0 either way, as
#: ``--exit-code-mode only_errors`` does.
HELD, VIOLATED = 0, 40


@attrs.frozen
class Element:
    """One contract element's truth at every step: ``kind`` is ``assumption``,
    ``guarantee``, ``require`` or ``ensure`` (a mode's requires / ensures, conjoined)."""

    kind: str
    name: str
    values: tuple[bool, ...]


@attrs.frozen
class Violation:
    """The first step where the contract is broken, the element, and the streams' values."""

    kind: str
    name: str
    step: int
    values: Mapping[str, Any]


@attrs.frozen
class Monitored:
    """The outcome of monitoring one trace."""

    node: str
    steps: int
    elements: tuple[Element, ...]
    streams: tuple[tuple[str, str, tuple[Any, ...]], ...]  # name, class, values
    violation: Violation | None
    assumption_failure: Violation | None


#: The import site an imported contract's elements are prefixed with (``Spec[L9C3].``).
_SITE = re.compile(r"^(?:[^.\[\]]+\[L\d+C\d+\]\.)+")


def _elements(node: Node) -> list[tuple[str, str, A.Expr | list[A.Expr]]]:
    """The contract's elements, named as Kind 2's monitor names them (without import sites);
    each mode's ``ensure`` right after its ``require``."""
    out: list[tuple[str, str, A.Expr | list[A.Expr]]] = []
    out += [("assumption", _SITE.sub("", a.name), a.expr) for a in node.assumes]
    out += [("guarantee", _SITE.sub("", g.name), g.expr) for g in node.guarantees]
    for m in node.modes:
        out.append(("require", f"{m.name}.requires", list(m.requires)))
        out.append(("ensure", f"{m.name}.ensures", [e for _, e, _ in m.ensures]))
    return out


def _truth(inst: Instance, e: A.Expr | list[A.Expr]) -> bool:
    if isinstance(e, list):
        return all(bool(inst.eval(x)) for x in e)
    return bool(inst.eval(e))


def monitor(checked: Checked, main: str, steps: Sequence[Mapping[str, Any]],
            with_outputs: bool, given: Oracle | None = None) -> Monitored:
    """Evaluate ``main``'s contract on ``steps`` (values by stream name, already typed).
    ``with_outputs``: the steps give the outputs (else the body computes them); ``given``:
    the values left unspecified (an unguarded ``pre`` at the first step, a free constant, ...;
    None: the types' defaults)."""
    node = checked.nodes[main]

    def oracle(name: str, t, k: int) -> Any:
        if with_outputs and name in node.outputs and k < len(steps):
            return steps[k][name]
        return given(name, t, k) if given is not None else default_value(t)

    sim = Simulator(checked, main, oracle, abstract={main} if with_outputs else frozenset(),
                    abstract_main=with_outputs)
    elements = _elements(node)
    for i, (_, _, e) in enumerate(elements):
        sim.root.watches.append((f"e{i}", lambda inst, e=e: _truth(inst, e)))
    values: list[list[bool]] = [[] for _ in elements]
    for step in steps:
        sim.step({n: step[n] for n in node.inputs})
        for i in range(len(elements)):
            values[i].append(bool(sim.root.watched[f"e{i}"]))
    shown = [(n, "input") for n in node.inputs] + [(n, "output") for n in node.outputs]
    streams = tuple((n, cls, tuple(_shown(h.get(n), node.types[n]) for h in sim.root.history))
                    for n, cls in shown)
    out = tuple(Element(kind, name, tuple(v)) for (kind, name, _), v in zip(elements, values, strict=True))
    violation, failure = _verdict(out, streams, len(steps))
    return Monitored(main, len(steps), out, streams, violation, failure)


def _shown(v: Any, t) -> Any:
    """A stream's value as shown: an enumeration's by its constant's name."""
    if t.kind == "enum" and isinstance(v, int) and 0 <= v < len(t.items):
        return t.items[v]
    return v


def _verdict(elements: Sequence[Element], streams, n: int) -> tuple[Violation | None, Violation | None]:
    def at(kind: str, name: str, k: int) -> Violation:
        return Violation(kind, name, k, {s: vals[k] for s, _, vals in streams})
    for k in range(n):
        for e in elements:
            if e.kind == "assumption" and not e.values[k]:
                return None, at(e.kind, e.name, k)
        for i, e in enumerate(elements):
            if e.kind == "guarantee" and not e.values[k]:
                return at(e.kind, e.name, k), None
            if e.kind == "ensure" and not e.values[k] and elements[i - 1].values[k]:
                return at(e.kind, e.name, k), None
    return None, None


def contracted(checked: Checked) -> list[str]:
    """Where no node is a main one (a file of imported nodes): the last declared node with a
    contract."""
    nodes = [n for n in checked.order if checked.nodes[n].has_contract]
    return nodes[-1:]


# ---- reading traces ----

def read_trace(path: Path, node: Node) -> tuple[list[dict[str, Any]], bool, list[dict[str, Any]]]:
    """The steps of the trace at ``path`` (typed values by stream name), whether they give
    the node's outputs, and the other values of each step (by the translation's names: what
    a run left unspecified, as ``kinduct testgen`` and counterexamples give them).  Read by
    :func:`~kinduct.frontends.lucent.sim.inputs.read_inputs` (``simulate``'s formats); every
    malformed trace is an :class:`InputError` located in the file, an empty one too."""
    text = read_source(path)
    read = read_inputs(path, text, node.name, node.inputs, node.types, outputs=node.outputs)
    if not read.steps:
        raise InputError.at("the trace has no step to monitor", str(path), text, *locate(text, ()))
    with_outputs = read.with_outputs or not node.outputs
    if not with_outputs and node.imported:
        raise InputError(f"{path}: the trace gives no value for the outputs of imported node "
                         f"'{node.name}' ({', '.join(node.outputs)})")
    return [dict(s) for s in read.steps], with_outputs, [dict(o) for o in read.others]


# ---- the command ----

def as_json(m: Monitored) -> dict[str, Any]:
    def violation(v: Violation | None) -> dict[str, Any] | None:
        if v is None:
            return None
        return {"category": v.kind, "name": v.name, "step": v.step,
                "values": {k: _plain(x) for k, x in v.values.items()}}
    return {"objectType": "contractMonitor", "node": m.node, "steps": m.steps,
            "result": "violated" if m.violation else "held",
            "violation": violation(m.violation), "assumptionFailure": violation(m.assumption_failure),
            "elements": [{"category": e.kind, "name": e.name,
                          "instantValues": [[k, v] for k, v in enumerate(e.values)]}
                         for e in m.elements],
            "streams": [{"name": n, "class": c, "instantValues": [[k, _plain(v)] for k, v in enumerate(vs)]}
                        for n, c, vs in m.streams]}


def _plain(v: Any) -> Any:
    from kinduct.kernel.report import json_value
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return json_value(v)


def run_monitor(args: argparse.Namespace) -> int:
    from kinduct.frontends.lucent.pipeline import load_checked, main_nodes
    from kinduct.frontends.lucent.trace.lift import trace_oracle
    from kinduct.kernel.cli_blocks import console, existing_file
    from kinduct.kernel.frontend import LoadOptions
    from kinduct.kernel.report import format_value, print_stream_table
    from kinduct.kernel.verdict import Trace

    path = existing_file(args.file)
    trace_path = existing_file(args.trace)
    checked = load_checked(path)
    mains = main_nodes(checked, LoadOptions(main=args.main)) or contracted(checked)
    if not mains:
        raise InputError(f"{checked.file}: no node to monitor (use --main)")
    node = checked.nodes[mains[0]]
    if not node.has_contract:
        raise InputError(f"{checked.file}: node '{node.name}' has no contract to monitor")
    steps, with_outputs, extras = read_trace(trace_path, node)
    given = trace_oracle(Trace.of(extras)) if any(extras) else None
    m = monitor(checked, node.name, steps, with_outputs, given)
    code = VIOLATED if m.violation and args.exit_code_mode != "only_errors" else HELD
    if args.json:
        print(json.dumps([as_json(m)], indent=2))
        return code
    out = console()
    rows = [(e.name, e.kind, ["tt" if v else "ff" for v in e.values]) for e in m.elements]
    rows += [(n, c, [format_value(v) for v in vs]) for n, c, vs in m.streams]
    print_stream_table(out, f"contract monitor of {m.node} ({m.steps} steps)", ("element", "category"),
                       rows, m.steps)
    if m.assumption_failure:
        f = m.assumption_failure
        out.print(f"assumption {f.name} is false at step {f.step}: the contract owes nothing from there")
    if m.violation:
        v = m.violation
        shown = ", ".join(f"{k} = {format_value(x)}" for k, x in v.values.items())
        out.print(f"violated: {v.kind} {v.name} at step {v.step} ({shown})")
    else:
        out.print("every guarantee and mode held")
    return code
