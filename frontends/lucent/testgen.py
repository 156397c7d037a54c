"""``kinduct testgen FILE [--main N] [--depth K] [--per-path M] [--seed S] [--out DIR]``:
tests from a node's contract, one directory per reachable mode path.

The main node is translated as for ``check`` (:class:`~.smt.translate.Translator`); the
modes' requirements are read from its non-vacuity properties, the contract's assumptions are
the system's invariant constraints.  With ``--compositional`` the nodes it calls that have a
contract are read by their contracts (Kind 2's maximal abstraction: its path counts); the
traces are still checked with the bodies, so a path only the abstraction reaches gets its
traces rejected.  A node without a body (imported) has free outputs: its
guarantees, ensures and the refinements of its outputs become constraints of every step, so
the traces are runs of the contract itself.  :func:`kinduct.kernel.modepaths.explore`
enumerates the mode paths of steps ``0..K`` (Kind 2's ``--testgen_len K``), and
:func:`~kinduct.kernel.modepaths.diverse_traces` draws ``M`` different traces of each.

The values a run leaves unspecified (an unguarded ``pre`` at the first step, a free constant)
are the simulator's defaults where the path allows; where it does not, the trace carries them
in both files under the translation's names (``kinduct simulate`` and ``monitor`` read them,
Kind 2 rejects such a file).

Every trace is checked on the simulator before it is written (:func:`.monitor.monitor`): the
node's body computes the outputs (an imported node's are the trace's), and the modes the
simulator finds active at each step must be the path's; an imported node's trace must also
keep every guarantee and ensure.  A trace that fails is not written and is counted as rejected.

Written to ``DIR/<node>/``: ``path_<i>/trace_<j>.json`` (Kind 2's interpreter input: a list of
steps, the inputs), ``path_<i>/trace_<j>.io.json`` (inputs and outputs: Kind 2's contract
monitor input), ``path_<i>/modes.txt`` (the active modes per step),
``summary.json`` and ``modes.dot`` (the graph of mode paths, Kind 2's shape).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from kinduct.frontends.lucent.abstraction import contract_abstract
from kinduct.frontends.lucent.core.checked import Checked, Node
from kinduct.frontends.lucent.core.types import T
from kinduct.frontends.lucent.monitor import contracted, monitor
from kinduct.frontends.lucent.sim.simulate import default_value
from kinduct.frontends.lucent.smt.translate import Translator
from kinduct.frontends.lucent.trace.lift import trace_oracle
from kinduct.kernel.backend import constant
from kinduct.kernel.errors import InputError, UsageError
from kinduct.kernel.modepaths import Exploration, Mode, ModePath, ModeProblem
from kinduct.kernel.system import PropertyKind
from kinduct.kernel.verdict import Trace

#: Input and output types a trace can hold (scalars).
SCALAR = ("bool", "int", "real", "enum", "machine")


@attrs.frozen
class Setup:
    """The exploration problem of one node, and what the traces show."""

    node: Node
    problem: ModeProblem
    imported: bool


def setup(checked: Checked, main: str, depth: int, compositional: bool = False) -> Setup:
    """The mode-path problem of node ``main`` explored to step ``depth``; ``compositional``:
    the nodes it calls that have a contract are read by their contracts (Kind 2's maximal
    abstraction, the one its ``--testgen`` explores), else by their bodies."""
    node = checked.nodes[main]
    if not node.modes:
        what = "no contract" if not node.has_contract else "no modes"
        raise InputError(f"{checked.file}: node '{main}' has {what}: nothing to generate tests from")
    for n in node.inputs + node.outputs:
        t = node.types[n]
        if t.kind not in SCALAR:
            pos = node.var_pos[n]
            raise InputError.at(f"testgen supports streams of scalar types; '{n}' is of type {t}",
                                checked.file, checked.text, pos.line or None, pos.col or None)
    abstract = contract_abstract(checked, True) - {main} if compositional else frozenset()
    tr = Translator(checked, main, abstract)
    system = tr.build().build()
    # a mode's requirement is its non-vacuity property's target; named as Kind 2 names it (the
    # import site too where two modes share a name), in the contract's order
    names = [m.name for m in node.modes]
    modes = []
    for m in node.modes:
        prop = system.property(f"{m.site}{m.name}[L{m.pos.line}C{m.pos.col}]")
        modes.append(Mode(m.name if names.count(m.name) == 1 else f"{m.site}{m.name}", prop.formula))
    imported = node.imported
    constraints: tuple = ()
    if imported:  # the contract is the component: what it guarantees holds at every step
        constraints = tuple(p.formula for p in system.properties
                            if p.kind is PropertyKind.INVARIANT and tr.prop_info[p.name].prefix == "")
    by_name = {v.symbol_name(): v for v in system.current_vars}
    shown = node.inputs + (node.outputs if imported else [])
    read = tuple(by_name[n] for n in shown)
    # the arbitrary values (an unguarded pre's first value, ...) the simulator must be told
    oracles = tuple(v for v in system.input_vars if v not in read)
    # where the path allows, they are the simulator's defaults: a trace then needs no more
    # than its inputs (and Kind 2's tools read it)
    mgr = system.env.formula_manager
    preferred = tuple(mgr.EqualsOrIff(v, constant(mgr, v, False if v.symbol_type().is_bool_type() else 0))
                      for v in oracles if v.symbol_type().is_bool_type() or v.symbol_type().is_int_type()
                      or v.symbol_type().is_real_type() or v.symbol_type().is_bv_type())
    problem = ModeProblem(system, tuple(modes), depth, constraints, read, oracles, preferred)
    return Setup(node, problem, imported)


@attrs.frozen
class PathTests:
    """The traces written for one mode path, and those the simulator rejected (why)."""

    path: ModePath
    directory: str
    traces: tuple[tuple[dict[str, Any], ...], ...]
    rejected: tuple[str, ...]


def _json(v: Any, t: T) -> Any:
    """A value in Kind 2's interpreter input (enumerations by name, reals as text)."""
    if t.kind == "bool":
        return bool(v)
    if t.kind == "enum":  # the monitor shows it by name already
        return v if isinstance(v, str) else t.items[v]
    if t.kind == "real":
        return _raw(Fraction(v))
    return v


def _raw(v: Any) -> Any:
    """A solver value in JSON (a real as a number where a float holds it exactly, else as the
    text ``n/d``)."""
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return int(v)
        return float(v) if Fraction(float(v)) == v else f"{v.numerator}/{v.denominator}"
    return v


def check_trace(checked: Checked, s: Setup, path: ModePath,
                values: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """The full trace (inputs and outputs) of ``values`` on the simulator, and why it does not
    follow ``path`` (None: it does)."""
    node = s.node
    names = node.inputs + (node.outputs if s.imported else [])
    read = trace_oracle(Trace.of(values))
    steps = [{n: read(n, node.types[n], k) for n in names} for k in range(len(values))]
    consulted: dict[int, dict[str, Any]] = {}

    def oracle(name: str, t: T, k: int) -> Any:
        value = read(name, t, k)
        if name in values[min(k, len(values) - 1)] and value != default_value(t):
            # the solver's raw value, as it gave it (written only where it is no default)
            consulted.setdefault(k, {})[name] = _raw(values[min(k, len(values) - 1)][name])
        return value
    try:
        m = monitor(checked, node.name, steps, with_outputs=s.imported, given=oracle)
    except Exception as exc:  # the simulator is the reference: a failure rejects the trace
        return [], f"simulator failed: {type(exc).__name__}: {exc}"
    outputs = {n: vs for n, _, vs in m.streams}
    full = [{**{n: outputs[n][k] for n in node.inputs + node.outputs}, **consulted.get(k, {})}
            for k in range(len(steps))]
    requires = [e for e in m.elements if e.kind == "require"]  # in the contract's order
    for k, active in enumerate(path):
        got = tuple(mode.name for mode, e in zip(s.problem.modes, requires, strict=True) if e.values[k])
        if set(got) != set(active):
            return full, (f"at step {k} the simulator activates {', '.join(got) or 'no mode'}, "
                          f"the path {', '.join(active)}")
    if s.imported and m.violation is not None:
        v = m.violation
        return full, f"{v.kind} {v.name} is false at step {v.step} on the simulator"
    if m.assumption_failure is not None:
        f = m.assumption_failure
        return full, f"assumption {f.name} is false at step {f.step} on the simulator"
    return full, None


def dot(exploration: Exploration) -> str:
    """The graph of mode paths: a node per (combination, step), an edge per step taken."""
    lines = ["strict digraph mode_graph {", "  node [shape=box] ;"]
    edges: dict[str, None] = {}
    for path in exploration.paths + exploration.deadlocks:
        labels = ["\\n".join(c) + f"\\n@{k}" for k, c in enumerate(path)]
        for a, b in zip(labels, labels[1:], strict=False):
            edges[f'  "{a}" -> "{b}" ;'] = None
        if len(labels) == 1:
            edges[f'  "{labels[0]}" ;'] = None
    return "\n".join([*lines, *edges, "}"]) + "\n"


def generate(checked: Checked, main: str, depth: int, per_path: int, seed: int, out: Path | None,
             timeout: float | None = None, solver_name: str | None = None,
             compositional: bool = False) -> dict[str, Any]:
    """Explore, draw and check the traces, write them under ``out`` (None: nothing written);
    the summary (also written as ``summary.json``)."""
    from kinduct.kernel import registry
    from kinduct.kernel.diverse import DiverseModels
    from kinduct.kernel.modepaths import diverse_traces, explore

    start = time.monotonic()
    deadline = None if timeout is None else start + timeout
    s = setup(checked, main, depth, compositional)
    env = s.problem.system.env
    solver = registry.backend(solver_name or registry.default_solver()).solver(env)
    exploration = explore(s.problem, solver, deadline)
    rng = random.Random(seed)
    models = DiverseModels(env)
    node = s.node
    tests: list[PathTests] = []
    target = out / main if out is not None else None
    if target is not None:
        target.mkdir(parents=True, exist_ok=True)
    for i, path in enumerate(exploration.paths):
        steps = diverse_traces(s.problem, path, per_path, rng, models, solver,
                               deadline=deadline).steps if per_path > 0 else ()
        written, rejected = [], []
        for values in steps:
            full, problem = check_trace(checked, s, path, values)
            if problem is None:
                written.append(tuple({n: _json(v, node.types[n]) if n in node.types else v
                                      for n, v in step.items()} for step in full))
            else:
                rejected.append(problem)
        directory = f"path_{i + 1}"
        tests.append(PathTests(path, directory, tuple(written), tuple(rejected)))
        if target is not None and per_path > 0:
            d = target / directory
            d.mkdir(exist_ok=True)
            (d / "modes.txt").write_text("".join(f"at step {k}, activates {' and '.join(c)}\n"
                                                 for k, c in enumerate(path)))
            for j, trace in enumerate(written):
                inputs = [{n: v for n, v in step.items() if n not in node.outputs} for step in trace]
                (d / f"trace_{j + 1}.json").write_text(json.dumps(inputs, indent=1) + "\n")
                (d / f"trace_{j + 1}.io.json").write_text(json.dumps(list(trace), indent=1) + "\n")
    summary = {
        "node": main, "depth": depth, "steps": depth + 1, "perPath": per_path, "seed": seed,
        "modes": [m.name for m in s.problem.modes], "imported": s.imported,
        "compositional": compositional,
        "explored": exploration.explored, "reachable": exploration.reachable,
        "unreachable": exploration.unreachable, "undecided": exploration.undecided,
        "paths": len(exploration.paths), "deadlocks": len(exploration.deadlocks),
        "timedOut": exploration.timed_out,
        "traces": sum(len(t.traces) for t in tests), "rejected": sum(len(t.rejected) for t in tests),
        "tests": [{"directory": t.directory, "modes": [list(c) for c in t.path],
                   "traces": len(t.traces), "rejected": list(t.rejected)} for t in tests],
        "deadlockPaths": [[list(c) for c in p] for p in exploration.deadlocks],
        "time": round(time.monotonic() - start, 3),
    }
    if target is not None:
        (target / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
        (target / "modes.dot").write_text(dot(exploration))
    return summary


def run_testgen(args: argparse.Namespace) -> int:
    from kinduct.frontends.lucent.pipeline import load_checked, main_nodes
    from kinduct.kernel.cli_blocks import console, existing_file
    from kinduct.kernel.frontend import LoadOptions

    if args.depth < 0 or args.per_path < 0:
        raise UsageError("--depth and --per-path must be at least 0")
    path = existing_file(args.file)
    checked = load_checked(path)
    mains = main_nodes(checked, LoadOptions(main=args.main)) or contracted(checked)
    if not mains:
        raise InputError(f"{checked.file}: no node to generate tests for (use --main)")
    per_path = 0 if args.graph_only else args.per_path
    summary = generate(checked, mains[0], args.depth, per_path, args.seed, Path(args.out),
                       args.timeout, args.solver, args.compositional)
    if summary["rejected"]:
        sys.stderr.write(f"warning: {summary['rejected']} trace(s) did not follow their mode path "
                         "on the simulator and were not written (see summary.json)\n")
    if args.json:
        print(json.dumps([{"objectType": "testgen", **summary}], indent=2))
        return 0
    out = console()
    out.print(f"testgen {summary['node']}: mode paths of {summary['steps']} steps, modes "
              f"{', '.join(summary['modes'])}")
    out.print(f"  (prefix, combination) pairs explored {summary['explored']}: reachable "
              f"{summary['reachable']}, unreachable {summary['unreachable']}, undecided "
              f"{summary['undecided']}")
    out.print(f"  reachable paths {summary['paths']}, deadlocked prefixes {summary['deadlocks']}, "
              f"traces written {summary['traces']}, rejected {summary['rejected']}")
    if summary["timedOut"]:
        out.print(f"  timed out: {summary['undecided']} combinations undecided, traces only for the "
                  "paths reached before the time limit")
    out.print(f"  written to {Path(args.out) / summary['node']}")
    return 0
