"""From a Lucent file to kernel systems: parsing, checking, choosing the analyses, and the
``lift`` (counterexamples in source terms) and ``replay`` (on the simulator) hooks."""

from __future__ import annotations

import bisect
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from kinduct.frontends.lucent.abstraction import abstraction_of, contract_abstract, refinable
from kinduct.frontends.lucent.check import machine, quantified, recursive
from kinduct.frontends.lucent.check.checker import Checked, check_program
from kinduct.frontends.lucent.core.types import T, assemble, recursive_type, scalar_paths
from kinduct.frontends.lucent.sim import collections_sim, symarrays_sim
from kinduct.frontends.lucent.sim.simulate import Instance, Simulator, leaves, refinement_holds
from kinduct.frontends.lucent.smt.elements import Elements
from kinduct.frontends.lucent.smt.translate import PropInfo, Translator
from kinduct.frontends.lucent.syntax.parser import parse_file, parse_text
from kinduct.frontends.lucent.trace import ticks
from kinduct.kernel.errors import InputError, SourceLocation, warn
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.system import Inconclusive, Origin, Property, TransitionSystem
from kinduct.kernel.verdict import Trace


def load_checked(path: str | Path | None = None, text: str | None = None) -> Checked:
    """Parse and check; the checker's warnings are reported as located
    :class:`~kinduct.kernel.errors.SourceWarning` values (the command line prints them)."""
    prog = parse_text(text, str(path or "<input>")) if text is not None else parse_file(path)
    checked = check_program(prog)
    for w in checked.warnings:
        found = _WARNING.match(w)
        if found:
            warn(found["message"], SourceLocation(found["file"], int(found["line"]), int(found["col"])))
        else:
            warn(w)
    return checked


#: The checker's warnings read ``file:line:col: warning: message``.
_WARNING = re.compile(r"^(?P<file>.*):(?P<line>\d+):(?P<col>\d+): warning: (?P<message>.*)$", re.S)


def main_nodes(checked: Checked, options: LoadOptions) -> list[str]:
    """--main, else the nodes marked --%MAIN, else the top nodes (those nobody calls)."""
    if options.main:
        if options.main not in checked.nodes:
            raise InputError(f"{checked.file}: no node named '{options.main}'")
        return [options.main]
    marked = [n for n in checked.order if checked.nodes[n].main]
    if marked:
        return marked
    return checked.top_nodes()  # none (only imported nodes, or none at all): nothing to check


def build_system(checked: Checked, main: str, abstract: frozenset[str] = frozenset(),
                 modular: bool = False, elements: bool = False) -> TransitionSystem:
    """``main``'s analysis, reading the nodes in ``abstract`` by their contracts; ``modular``:
    the nodes it calls are analysed on their own, so their contracts and properties are not
    checked here (the call sites' obligations are); ``elements``: each model element guarded by
    an activation literal (``TransitionSystem.elements``, for IVC/MCS)."""
    tr = Translator(checked, main, abstract, modular)
    if elements:
        tr.elements = Elements(tr.mgr, checked.file)
    builder = tr.build()
    if tr.elements is not None:
        builder.elements = tr.elements.elements()
    builder.origin = Origin(top=main)
    abstraction = abstraction_of(checked, main, abstract)

    def lift(trace: Trace, prop: Property | None) -> list[dict[str, Any]]:
        leaves = sorted(trace.steps[0]) if trace.steps else []
        stepped = _stepped(checked, main, trace, abstract)
        return [_block(checked, checked.nodes[main], "", trace, trace_oracle(trace), leaves,
                       stepped)]

    def replay(trace: Trace, prop: Property) -> str | None:
        return replay_on_simulator(checked, main, tr.prop_info, trace, prop, abstract)

    def on_implementations(trace: Trace, prop: Property) -> bool | None:
        return concrete_violation(checked, main, tr.prop_info, trace, prop)

    def refine(proved: frozenset[str]) -> TransitionSystem | None:
        name = refinable(checked, main, abstract, proved)
        return None if name is None else build_system(checked, main, abstract - {name}, modular)

    bodies = any(not checked.nodes[n].imported for n in abstraction.abstract)
    return builder.build(lift=lift, replay=replay, refine=refine if bodies else None,
                         abstraction=abstraction,
                         on_implementations=on_implementations if bodies else None)


def load_systems(path: Path, options: LoadOptions) -> list[TransitionSystem]:
    checked = load_checked(path)
    if options.modular:
        keep = set().union(*(_reachable_from(checked, m) for m in main_nodes(checked, options)))
        names = [n for n in checked.order if n in keep and not checked.nodes[n].imported]
    else:
        names = main_nodes(checked, options)
    abstract = contract_abstract(checked, options.compositional)
    return [build_system(checked, n, abstract, options.modular, options.elements) for n in names]


def _reachable_from(checked: Checked, main: str) -> set[str]:
    seen, todo = set(), [main]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        todo.extend(c.name for c in checked.nodes[n].calls)
    return seen


# ---- values between trace and simulator ----

def _from_trace(value: Any, t: T) -> Any:
    if recursive_type(t):  # a tree's text
        return recursive.from_trace(value, t, _from_trace)
    if t.kind in ("set", "lift"):  # an array's text
        return collections_sim.from_trace(value, t)
    if t.kind == "ilift":
        return symarrays_sim.leaf_from_trace(value, t)
    if t.kind == "machine":  # the solver reads a bit-vector as unsigned
        return machine.from_bits(value, t)
    if t.kind == "real":
        return Fraction(value)
    if t.kind == "bool":
        return bool(value)
    if t.kind in ("int", "enum", "abstract"):
        return int(value)
    return value


def trace_oracle(trace: Trace):
    """The simulator's oracle reading ``trace``; its ``finitized`` list notes the names of
    values read without an infinite set's default (:mod:`.collections_sim`)."""
    def oracle(name: str, t: T, k: int) -> Any:
        step = trace.steps[min(k, len(trace.steps) - 1)]

        def read(leaf: str, lt: T) -> Any:
            if leaf in step:
                v = _from_trace(step[leaf], lt)
                if lt.kind in ("set", "lift") and collections_sim.finitized(v):
                    oracle.finitized.append(leaf)
                return v
            from kinduct.frontends.lucent.sim.simulate import default_value
            return default_value(lt)
        value = assemble(name, t, read)
        if symarrays_sim.has_symarray(t):  # the elements up to the size the trace gives
            def lookup(n: str, free: bool) -> int:  # a size the system never reads: none
                leaf = f"%const.{n}" if free else n
                return int(step[leaf]) if leaf in step else 0
            value = symarrays_sim.materialize(value, t,
                                              lambda d: symarrays_sim.size_in(d, lookup))
        return value
    oracle.finitized = []
    return oracle


def trace_inputs(checked: Checked, main: str, trace: Trace, oracle=None) -> list[dict[str, Any]]:
    node = checked.nodes[main]
    oracle = oracle or trace_oracle(trace)
    return [{n: oracle(n, node.types[n], k) for n in node.inputs} for k in range(len(trace))]


def concrete_violation(checked: Checked, main: str, infos: dict[str, PropInfo], trace: Trace,
                       prop: Property) -> bool | None:
    """Whether the trace's inputs also violate (reach) ``prop`` with every node's
    implementation (None: the simulator cannot run them)."""
    info = infos[prop.name]
    sim = Simulator(checked, main, trace_oracle(trace))
    inst = sim.instance(info.prefix)
    if inst is None:
        return None
    inst.watches.append(("prop", _prop_watch(info)))
    try:
        for inp in trace_inputs(checked, main, trace):
            sim.step(inp)
    except Exception:  # noqa: BLE001 - a run the simulator cannot make says nothing
        return None
    return inst.watched.get("prop") is (info.kind == "reachable")


def replay_on_simulator(checked: Checked, main: str, infos: dict[str, PropInfo], trace: Trace,
                        prop: Property, abstract: set[str] | frozenset[str] = frozenset()) -> str | None:
    """Run the simulator on the trace's inputs (and its nondeterministic choices); every stream
    must agree with the trace and the property must really fail (or be reached) at the end.
    Where the trace holds an infinite set (no Lucent value: the simulator reads its finite
    part), a trace that does not replay is inconclusive."""
    oracle = trace_oracle(trace)
    problem = _replay(checked, main, infos, trace, prop, abstract, oracle)
    if problem is not None and not isinstance(problem, Inconclusive) and oracle.finitized:
        return Inconclusive(f"the counterexample holds an infinite set ({oracle.finitized[0]}), "
                            f"which is no Lucent value; with its finite part: {problem}")
    return problem


def _replay(checked: Checked, main: str, infos: dict[str, PropInfo], trace: Trace,
            prop: Property, abstract: set[str] | frozenset[str], oracle) -> str | None:
    info = infos.get(prop.name)
    if info is None:
        return f"unknown property {prop.name}"
    sim = Simulator(checked, main, oracle, abstract)
    inst = sim.instance(info.prefix)
    if inst is None:
        return f"no instance {info.prefix!r} in the simulator"
    inst.watches.append(("prop", _prop_watch(info)))
    for a_i, a in enumerate(sim.main.asserts + [x.expr for x in sim.main.assumes]):
        sim.root.watches.append((f"assert{a_i}", lambda ins, a=a: ins.eval(a)))
    try:
        for k, inp in enumerate(trace_inputs(checked, main, trace, oracle)):
            sim.step(inp)
            for key, val in sim.root.watched.items():
                if key.startswith("assert") and val is not True:
                    return f"an assertion of {main} is false at step {k} on the simulator"
            bad = _compare(sim, trace, k) or _unsatisfied(sim, k)
            if bad:
                return bad
    except collections_sim.Undecided as exc:  # an undecided quantifier
        return Inconclusive(str(exc))
    except quantified.Undecided as exc:
        return Inconclusive(f"the simulator cannot confirm the counterexample: {exc}")
    except Exception as exc:  # the simulator is the reference: any failure is a mismatch
        return f"simulator failed: {type(exc).__name__}: {exc}"
    clash = _incongruent(sim) or sim.unspecified_clash or sim.choice_clash
    if clash is not None:
        return Inconclusive(clash)
    value = inst.watched.get("prop")
    want = info.kind == "reachable"
    if value is not want:
        return (f"property {prop.name} is {value} at step {len(trace) - 1} on the simulator "
                f"(expected {want})")
    return None


def _incongruent(sim: Simulator) -> str | None:
    """Where the trace reads an abstracted function as no function: equal arguments with
    different results (the encoding ties calls of the same and of adjacent steps only)."""
    from kinduct.frontends.lucent.sim.canonical import texts
    seen: dict[tuple[str, str], tuple[str, int, str]] = {}
    for inst in sim.instances():
        node = inst.node
        if node.kind != "function" or not inst.abstract:
            continue
        for k, values in enumerate(inst.history):
            if not values:  # a step where the call's lazy branch is not selected
                continue
            args = texts([values[n] for n in node.inputs], [node.types[n] for n in node.inputs])
            outs = texts([values[n] for n in node.outputs], [node.types[n] for n in node.outputs])
            other = seen.setdefault((node.name, args), (outs, k, inst.prefix))
            if other[0] != outs:
                return (f"the counterexample reads function {node.name} on {args} as {other[0]} "
                        f"(step {other[1]}) and as {outs} (step {k}); the function is not "
                        "modelled across more than one step")
    return None


def _prop_watch(info: PropInfo):
    prop = info.prop
    bounds = prop.bounds

    def watch(inst: Instance) -> Any:
        if prop.clock is not None and not inst.active(prop.clock):
            return True  # owed only where its lazy branch is selected
        if prop.ref is not None:
            v = refinement_holds(inst, inst.eval(prop.expr), prop.ref)
        else:
            v = inst.eval(prop.expr)
        if prop.sofar is not None and not inst.value(prop.sofar):
            return True
        if info.kind == "reachable" and bounds:
            k = inst.step_no
            v = v and k >= bounds.get("from", 0) and k <= bounds.get("within", k) and \
                k == bounds.get("at", k)
        return v
    return watch


def _unsatisfied(sim: Simulator, k: int) -> str | None:
    for inst in sim.instances():
        if inst.unsatisfied:
            return (f"the circular equation of {inst.prefix}{inst.unsatisfied[0]} does not hold at step {k} "
                    "on the simulator")
    return None


def _compare(sim: Simulator, trace: Trace, k: int) -> str | None:
    step = trace.steps[k]
    for inst in sim.instances():
        for n in inst.node.streams:
            if n not in inst.cur:
                continue
            t = inst.node.types[n]
            if symarrays_sim.has_symarray(t):  # the elements the size gives
                got = trace_oracle(trace)(inst.prefix + n, t, k)
                if got != inst.cur[n]:
                    return (f"stream {inst.prefix + n} is {inst.cur[n]} on the simulator but "
                            f"{got} in the trace at step {k}")
                continue
            values = leaves(inst.prefix + n, t, inst.cur[n]).items()
            for (_, lt), (leaf, v) in zip(scalar_paths(t), values, strict=True):
                if leaf not in step:
                    continue
                got = _from_trace(step[leaf], lt) if lt.kind in ("machine", "set", "lift") \
                    or recursive_type(lt) else step[leaf]
                if got != v:
                    return (f"stream {leaf} is {v} on the simulator but {got} in the trace "
                            f"at step {k}")
    return None


# ---- lift ----

def _type_name(t: T, node, n: str) -> str:
    ref = node.refinements.get(n)
    if t.kind == "int" and ref is not None and (ref.lo is not None or ref.hi is not None):
        return "subrange"
    if t.kind == "machine":
        return str(t)  # Kind 2's uint<8>, sint<16>
    return {"bool": "bool", "int": "int", "real": "real", "enum": "enum", "array": "array",
            "symarray": "array", "tuple": "array"}.get(t.kind, "abstr")


def adt_text(v: Any, t: T) -> str:
    """A datatype value in Lucent's syntax: ``Circle(1.5)``, ``None``."""
    tag = v["%tag"]
    if not (isinstance(tag, int) and 0 <= tag < len(t.items)):
        return str(tag)
    ctor, fields = t.items[tag]
    if not fields:
        return ctor
    args = [_json(v[f"{ctor}.{f}"], ft) for f, ft in fields]
    return f"{ctor}({', '.join(json.dumps(a) if not isinstance(a, str) else a for a in args)})"


def _json(v: Any, t: T) -> Any:
    from kinduct.kernel.report import json_value
    if t.kind == "enum":
        return t.items[v] if isinstance(v, int) and 0 <= v < len(t.items) else v
    if t.kind == "record":
        return {f: _json(v[f], ft) for f, ft in t.items}
    if t.kind == "adt" and recursive_type(t):
        return recursive.text(v, t, _json)
    if t.kind == "adt":
        return adt_text(v, t)
    if t.kind in ("set", "map"):
        return collections_sim.text(v, t, _json)
    if t.kind in ("array", "symarray"):
        return [_json(x, t.items[0]) for x in v]
    if t.kind == "tuple":
        return [_json(x, it) for x, it in zip(v, t.items, strict=True)]
    return json_value(v)


def _has_prefix(sorted_names: list[str], prefix: str) -> bool:
    i = bisect.bisect_left(sorted_names, prefix)
    return i < len(sorted_names) and sorted_names[i].startswith(prefix)


def _stepped(checked: Checked, main: str, trace: Trace,
             abstract: set[str]) -> dict[str, list[bool]]:
    """Per instance on a clock (by prefix), whether it steps at each step of ``trace``, from a
    simulation of the trace (empty when no call is on a clock, or the simulation fails: every
    step is shown then)."""
    if not ticks.clocked(c for n in checked.nodes.values() for c in n.calls):
        return {}
    sim = Simulator(checked, main, trace_oracle(trace), abstract)
    try:
        for inp in trace_inputs(checked, main, trace):
            sim.step(inp)
    except Exception:  # the trace did not replay: show what it holds
        return {}
    return {inst.prefix: inst.stepped for inst in sim.instances() if inst.prefix}


def _block(checked: Checked, node, prefix: str, trace: Trace, oracle,
           leaf_names: list[str], stepped: dict[str, list[bool]],
           held: bool = False) -> dict[str, Any]:
    """The JSON block of ``node``'s instance at ``prefix`` (its streams the trace holds, and its
    callees' blocks); ``leaf_names``: the trace's variable names, sorted; ``stepped``: where
    instances on clocks step (``_stepped``); ``held``: a condact-like instance's values are
    shown between its ticks (:mod:`.ticks`)."""
    streams = []
    steps = ticks.shown(stepped.get(prefix), held, len(trace))
    for n in node.inputs + node.outputs + node.locals:
        if not _has_prefix(leaf_names, prefix + n):
            continue
        t = node.types[n]
        streams.append({
            "name": n, "type": _type_name(t, node, n), "class": node.var_class(n),
            "instantValues": [[k, _json(oracle(prefix + n, t, at), t)] for k, at in steps],
        })
    block: dict[str, Any] = {"blockType": "function" if node.kind == "function" else "node",
                             "name": node.name, "streams": streams}
    subs = [_block(checked, checked.nodes[c.name], f"{prefix}{c.site}.", trace, oracle, leaf_names,
                   stepped, ticks.held_below(c, held))
            for c in node.calls]
    if subs:
        block["subnodes"] = subs
    return block
