"""Counterexamples in source terms: a trace's values (named by the SMT translation) read back
as Lucent values (:func:`trace_oracle`), and shown as Kind 2's JSON node blocks
(:func:`lift_trace`)."""

from __future__ import annotations

import bisect
from fractions import Fraction
from typing import Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import machine
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import Checked
from kinduct.frontends.lucent.core.types import T, assemble, recursive_type
from kinduct.frontends.lucent.sim import collections_sim, recursive, symarrays_sim
from kinduct.frontends.lucent.sim.simulate import Simulator, default_value
from kinduct.frontends.lucent.trace import ticks
from kinduct.kernel.beside import Beside, worth_a_fork
from kinduct.kernel.verdict import Trace


def from_trace(value: Any, t: T) -> Any:
    if recursive_type(t):  # a tree's text
        return recursive.from_trace(value, t, from_trace)
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
                v = from_trace(step[leaf], lt)
                if lt.kind in ("set", "lift") and collections_sim.finitized(v):
                    oracle.finitized.append(leaf)
                return v
            return default_value(lt)
        value = assemble(name, t, read)
        if symarrays_sim.has_symarray(t):  # the elements up to the size the trace gives
            def lookup(n: str, free: bool) -> int:  # a size the system never reads: none
                leaf = naming.constant(n) if free else n
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


def type_name(t: T, node, n: str) -> str:
    ref = node.refinements.get(n)
    if t.kind == "int" and ref is not None and (ref.lo is not None or ref.hi is not None):
        return "subrange"
    if t.kind == "machine":
        return str(t)  # Kind 2's JSON: uint<8>, sint<16> (its XML: uint8, int16)
    return {"bool": "bool", "int": "int", "real": "real", "enum": "enum", "array": "array",
            "symarray": "array", "tuple": "array"}.get(t.kind, "abstr")


def user_name(node: str) -> str:
    """A node's name as written: an instance of a node with constant parameters is named
    ``N<<max=3>>`` inside kinduct, ``N`` in Kind 2's output."""
    return node.split("<<", 1)[0]


def type_info(t: T, node, n: str) -> dict[str, Any] | None:
    """Kind 2's ``typeInfo`` of a stream: an enumeration's name and values, a subrange's
    bounds, an array's base type and sizes (None for other types)."""
    if t.kind == "enum":
        return {"name": t.name, "values": list(t.items)}
    if t.kind in ("array", "symarray"):  # the base type, and each dimension's size
        sizes: list[int | None] = []
        base = t
        while base.kind in ("array", "symarray"):
            sizes.append(base.size if base.kind == "array" and isinstance(base.size, int) else None)
            base = base.items[0]
        info: dict[str, Any] = {"baseType": type_name(base, node, "")}
        base_info = type_info(base, node, "")
        if base_info is not None:
            info["baseTypeInfo"] = base_info
        info["sizes"] = sizes
        return info
    ref = node.refinements.get(n)
    if t.kind == "int" and ref is not None and (ref.lo is not None or ref.hi is not None):
        return {k: int(v) for k, v in (("min", ref.lo), ("max", ref.hi)) if v is not None}
    return None


def adt_text(v: Any, t: T) -> str:
    """A datatype value in Lucent's syntax: ``Circle(1.5)``, ``Rectangle(0.1005859375, -5)``,
    ``None``; a field's value as the tables show it (a real as a decimal, or ``n/d`` when it
    has no finite one)."""
    from kinduct.kernel.report import format_value

    tag = v["%tag"]
    if not (isinstance(tag, int) and 0 <= tag < len(t.items)):
        return str(tag)
    ctor, fields = t.items[tag]
    if not fields:
        return ctor
    args = [_text(to_json(v[f"{ctor}.{f}"], ft), ft, format_value) for f, ft in fields]
    return f"{ctor}({', '.join(args)})"


def _text(value: Any, t: T, format_value) -> str:
    """A field's (JSON) value in Lucent's syntax: a record as ``Point { x = 1; y = 2 }``, an
    array as ``[1, 2]``, a real as the tables show it."""
    if isinstance(value, str):
        return value
    if t.kind == "record" and isinstance(value, dict):
        fields = "; ".join(f"{f} = {_text(value[f], ft, format_value)}" for f, ft in t.items)
        return f"{t.name} {{ {fields} }}" if t.name else f"{{ {fields} }}"
    if t.kind in ("array", "symarray") and isinstance(value, list):
        return "[" + ", ".join(_text(x, t.items[0], format_value) for x in value) + "]"
    return format_value(value, "real" if t.kind == "real" else None)


def to_json(v: Any, t: T) -> Any:
    from kinduct.kernel.report import json_value
    if t.kind == "enum":
        return t.items[v] if isinstance(v, int) and 0 <= v < len(t.items) else v
    if t.kind == "record":
        return {f: to_json(v[f], ft) for f, ft in t.items}
    if t.kind == "adt" and recursive_type(t):
        return recursive.text(v, t, to_json)
    if t.kind == "adt":
        return adt_text(v, t)
    if t.kind in ("set", "map"):
        return collections_sim.text(v, t, to_json)
    if t.kind in ("array", "symarray"):
        return [to_json(x, t.items[0]) for x in v]
    if t.kind == "tuple":
        return [to_json(x, it) for x, it in zip(v, t.items, strict=True)]
    return json_value(v)


def _has_prefix(sorted_names: list[str], prefix: str) -> bool:
    i = bisect.bisect_left(sorted_names, prefix)
    return i < len(sorted_names) and sorted_names[i].startswith(prefix)


def stepped(checked: Checked, main: str, trace: Trace,
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


#: Kind 2's contract sections of a trace block, in its order.
SECTIONS = ("assumptionsTrace", "guaranteesTrace", "modesTrace")

#: Per instance (by prefix), per section, each element's values at each step of a trace.
ContractValues = dict[str, dict[str, dict[str, list[bool | None]]]]


def contract_at(checked: Checked, main: str, trace: Trace, abstract: set[str]) -> ContractValues:
    """Per instance (by prefix) whose node has a contract, Kind 2's contract sections: each
    assumption's and guarantee's value (by name), each mode's ``NAME.requires`` and
    ``NAME.ensures``, at each step of ``trace``, from a simulation of the trace (None where
    the instance does not step or a value cannot be computed; empty when no node has a
    contract or the simulation fails)."""
    def elements(node) -> list[tuple[str, str, list[A.Expr]]]:
        out = [("assumptionsTrace", a.name, [a.expr]) for a in node.assumes]
        out += [("guaranteesTrace", g.name, [g.expr]) for g in node.guarantees]
        for m in node.modes:
            out += [("modesTrace", f"{m.name}.requires", list(m.requires)),
                    ("modesTrace", f"{m.name}.ensures", [e for _, e, _ in m.ensures])]
        return out

    if not any(elements(n) for n in checked.nodes.values()):
        return {}
    sim = Simulator(checked, main, trace_oracle(trace), abstract)
    watched: list[tuple[Any, list[tuple[str, str]]]] = []
    for inst in sim.instances():
        keys = []
        for section, name, exprs in elements(inst.node):
            inst.watches.append((f"{section}:{name}", _all_of(exprs)))
            keys.append((section, name))
        if keys:
            watched.append((inst, keys))
    out: ContractValues = {inst.prefix: {} for inst, _ in watched}
    try:
        for inp in trace_inputs(checked, main, trace):
            sim.step(inp)
            for inst, keys in watched:
                for section, name in keys:
                    value = inst.watched.get(f"{section}:{name}")
                    out[inst.prefix].setdefault(section, {}).setdefault(name, []).append(value)
    except Exception:  # noqa: BLE001 - the trace did not replay: no contract values shown
        return {}
    return out


def _all_of(exprs: list[A.Expr]):
    """A simulator watch: whether every one of ``exprs`` holds (None: it cannot be told)."""
    def watch(inst) -> bool | None:
        try:
            return all(inst.eval(e) is True for e in exprs)
        except Exception:  # noqa: BLE001 - a value the simulator cannot compute
            return None
    return watch


#: Stream types whose trace values are read directly (as :func:`from_trace` and
#: :func:`to_json` read them): a 1 MB model's counterexample shows 37,000 such streams.
_PLAIN = {"bool": bool, "int": int, "real": Fraction}


def _block(checked: Checked, node, prefix: str, trace: Trace, oracle,
           leaf_names: list[str], stepped: dict[str, list[bool]],
           held: bool = False, site: A.Call | None = None,
           contract: ContractValues | None = None,
           deferred: dict[str, tuple[dict[str, Any], list[tuple[int, int]]]] | None = None,
           headers: dict[tuple[int, str], list[tuple[Any, dict[str, Any]]]] | None = None,
           ) -> dict[str, Any]:
    """The JSON block of ``node``'s instance at ``prefix`` (its streams the trace holds, and its
    callees' blocks); ``leaf_names``: the trace's variable names, sorted; ``stepped``: where
    instances on clocks step (:func:`stepped`); ``held``: a condact-like instance's values are
    shown between its ticks (:mod:`.ticks`); ``site``: the call that made the instance (None
    for the analysis's top node); ``deferred`` (instead of ``contract``): each block and the
    steps it shows, by prefix, for its contract sections to be added later
    (:func:`_add_sections`); ``headers``: the streams' headers made so far
    (:func:`_headers`), shared by the instances of a node."""
    from kinduct.kernel.report import json_value

    if headers is None:
        headers = {}
    streams = []
    steps = ticks.shown(stepped.get(prefix), held, len(trace))
    for n in node.inputs + node.outputs + node.ghosts + node.locals:  # Kind 2's order
        if not _has_prefix(leaf_names, prefix + n):
            continue
        t = node.types[n]
        plain = _PLAIN.get(t.kind)
        if plain is not None:  # a scalar: read as the oracle reads it, without its calls
            name, default, last = prefix + n, default_value(t), len(trace.steps) - 1
            values = [(k, json_value(plain(step[name]) if name in step else default))
                      for k, at in steps for step in (trace.steps[min(at, last)],)]
        else:
            values = [(k, to_json(oracle(prefix + n, t, at), t)) for k, at in steps]
        made = headers.get((id(node), n))
        if made is None:
            made = headers[(id(node), n)] = _headers(node, n, t)
        for at_path, header in made:  # a record: one stream per field, as Kind 2
            stream = dict(header)
            stream["instantValues"] = [[k, at_path(v)] for k, v in values]
            streams.append(stream)
    block: dict[str, Any] = {"blockType": "function" if node.kind == "function" else "node",
                             "name": user_name(node.name)}
    if site is not None:  # a called instance: where it is called (Kind 2's call position)
        block.update({"file": checked.file, "line": site.pos.line, "column": site.pos.col})
    if deferred is not None:
        deferred[prefix] = (block, steps)
    else:
        block.update(_sections((contract or {}).get(prefix, {}), steps))
    block["streams"] = streams
    subs = [_block(checked, checked.nodes[c.name], f"{prefix}{c.site}.", trace, oracle, leaf_names,
                   stepped, ticks.held_below(c, held), c, contract, deferred, headers)
            for c in node.calls]
    if subs:
        block["subnodes"] = subs
    return block


def _headers(node, n: str, t: T) -> list[tuple[Any, dict[str, Any]]]:
    """The streams the stream ``n`` (of type ``t``) of ``node`` is shown as, each as how to
    read its value out of the stream's (:func:`_fields`) and its block's fields but the values
    (name, type, type information, class), which every instance of ``node`` shows alike (a
    1 MB model's counterexample: 10,276 instances of 2,057 nodes)."""
    out = []
    for path, ft, at_path in _fields(n, t):
        var = n if path == n else ""
        header: dict[str, Any] = {"name": path, "type": type_name(ft, node, var)}
        info = type_info(ft, node, var)
        if info is not None:
            header["typeInfo"] = info
        header["class"] = "ghost" if n in node.ghosts else node.var_class(n)
        out.append((at_path, header))
    return out


def _sections(mine: dict[str, dict[str, list[bool | None]]],
              steps: list[tuple[int, int]]) -> dict[str, Any]:
    """Kind 2's contract sections of one instance's block, step by step, from its contract
    values (:func:`contract_at`) at the ``steps`` shown."""
    return {section: [{"name": key, "type": "bool",
                       "instantValues": [[k, values[at]] for k, at in steps
                                         if at < len(values) and values[at] is not None]}
                      for key, values in mine[section].items()]
            for section in SECTIONS if mine.get(section)}


def _add_sections(block: dict[str, Any], sections: dict[str, Any]) -> None:
    """``sections`` put into ``block`` where :func:`_block` puts them: before its streams."""
    if sections:
        rest = {key: block.pop(key) for key in ("streams", "subnodes") if key in block}
        block.update(sections)
        block.update(rest)


def _fields(name: str, t: T) -> list[tuple[str, T, Any]]:
    """The streams a stream of type ``t`` is shown as: itself, or for a record one per field
    (``p.x``, nested records ``p.q.y``), each with its type and how to read its value out of
    the record's (JSON) value."""
    if t.kind != "record":
        return [(name, t, lambda v: v)]
    out: list[tuple[str, T, Any]] = []
    for f, ft in t.items:
        for path, leaf_t, read in _fields(f"{name}.{f}", ft):
            out.append((path, leaf_t, lambda v, f=f, read=read: read(v[f]) if isinstance(v, dict) else v))
    return out


def lift_trace(checked: Checked, main: str, trace: Trace, abstract: set[str],
               stepped_at: dict[str, list[bool]] | None = None) -> list[dict[str, Any]]:
    """The counterexample ``trace`` of the analysis of ``main`` as Kind 2's JSON node blocks;
    ``stepped_at``: where instances on clocks step, when a simulation of the trace already
    found it (else :func:`stepped` simulates the trace)."""
    names = sorted(trace.steps[0]) if trace.steps else []
    if stepped_at is None or not ticks.clocked(c for n in checked.nodes.values() for c in n.calls):
        stepped_at = stepped(checked, main, trace, abstract)
    if not worth_a_fork(trace):
        contract = contract_at(checked, main, trace, abstract)
        return [_block(checked, checked.nodes[main], "", trace, trace_oracle(trace), names,
                       stepped_at, contract=contract)]
    # a large trace: its contract values are simulated beside the blocks' making
    pending = Beside(lambda: contract_at(checked, main, trace, abstract))
    deferred: dict[str, tuple[dict[str, Any], list[tuple[int, int]]]] = {}
    try:
        top = _block(checked, checked.nodes[main], "", trace, trace_oracle(trace), names,
                     stepped_at, deferred=deferred)
    finally:
        contract = pending.result()
    for prefix, (block, steps) in deferred.items():
        _add_sections(block, _sections(contract.get(prefix, {}), steps))
    return [top]

