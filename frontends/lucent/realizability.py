"""Lucent components as contract systems (:mod:`kinduct.kernel.contracts`), for the
realizability check (Kind 2's ``--enable CONTRACTCK``).

As Kind 2 v3.0.0 does, every node and function of the file is checked (``--main``: that one
only), in Kind 2's order (:func:`kind2_order`): its *contract* (imported ones first) and its
*environment* (first for nodes with a body).  The contract of a node with a body is checked
as if the node were imported: the body is not read, its locals are outputs too.  The
environment swaps the roles: the node's outputs are chosen by the environment (with their base
types), its inputs are chosen to satisfy the assumptions (and the inputs' refinement types),
which become guarantees.

A contract that calls an imported node (or a node with asserts) is not decided: Kind 2 answers
unknown there too.  The first value of an unguarded ``pre`` is the environment's (as Kind 2's
oracles, which are constants and never controllable).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pysmt.fnode import FNode

from kinduct.frontends.lucent.core.checked import Checked, Node, Prop
from kinduct.frontends.lucent.core.names import numbering
from kinduct.frontends.lucent.core.types import leaves
from kinduct.frontends.lucent.pipeline import load_checked
from kinduct.frontends.lucent.smt import obligations
from kinduct.frontends.lucent.smt.translate import Inst, Translator
from kinduct.frontends.lucent.trace.lift import to_json, trace_oracle, type_name
from kinduct.kernel.contracts import ContractElement, ContractMode, ContractSystem
from kinduct.kernel.errors import InputError, SourceLocation
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.verdict import Trace, Value


def contract_systems(path: Path, options: LoadOptions) -> list[ContractSystem]:
    """The realizability questions of the file, in Kind 2's order."""
    checked = load_checked(path)
    if options.main:
        if options.main not in checked.nodes:
            raise InputError(f"{checked.file}: no node named '{options.main}'")
        return [build(checked, options.main, "environment"), build(checked, options.main, "contract")]
    return [build(checked, name, context) for name, context in kind2_order(checked)]


def kind2_order(checked: Checked) -> list[tuple[str, str]]:
    """The analyses in Kind 2's order: the declarations sorted callees first (in declaration
    order otherwise), each giving its analyses (an imported node its environment then its
    contract, a node with a body its contract then its environment); an imported node called
    by another imported node's contract is a subsystem of that analysis and comes right after
    it; the whole list is then reversed (Kind 2 lists the top systems first)."""
    nodes = checked.nodes
    declared = sorted(nodes, key=lambda n: nodes[n].decl.pos.start)
    order: list[str] = []
    seen: set[str] = set()

    def visit(n: str) -> None:
        if n in seen:
            return
        seen.add(n)
        for call in nodes[n].calls:
            if call.name in nodes:
                visit(call.name)
        order.append(n)
    for n in declared:
        visit(n)
    subsystems = {(n, "contract"): [(c.name, "contract") for c in nodes[n].calls
                                    if c.name in nodes and nodes[c.name].imported]
                  for n in order if nodes[n].imported}
    called = {a for subs in subsystems.values() for a in subs}
    listed = [a for n in order for a in ([(n, "environment"), (n, "contract")] if nodes[n].imported
                                         else [(n, "contract"), (n, "environment")])
              if a not in called]
    post: list[tuple[str, str]] = []
    done: set[tuple[str, str]] = set()

    def add(a: tuple[str, str]) -> None:
        if a in done:
            return
        done.add(a)
        for sub in subsystems.get(a, []):
            add(sub)
        post.append(a)
    for a in listed:
        add(a)
    return post[::-1]


def build(checked: Checked, name: str, context: str) -> ContractSystem:
    """The contract system of node ``name`` in ``context`` (``contract`` or ``environment``)."""
    with numbering(checked.names):
        return _build(checked, name, context)


def _build(checked: Checked, name: str, context: str) -> ContractSystem:
    node = checked.nodes[name]
    tr = Translator(checked, name)
    mgr = tr.mgr
    environment = context == "environment"
    env: dict[str, Any] = {}
    # the component's own streams; in the environment the outputs are chosen by the caller
    controlled = node.inputs if environment else node.outputs + node.locals
    chosen = node.outputs if environment else node.inputs
    for n in chosen:
        env[n] = tr.interface_input(n, node.types[n], n in node.const_inputs)
    for n in controlled:
        env[n] = tr.state(n, node.types[n], enum_range=True)
        if n in node.const_inputs:  # chosen at the first step, then kept
            memory = tr.state(f"%const_choice.{n}", node.types[n])
            for leaf, kept in zip(leaves(env[n]), leaves(memory), strict=True):
                tr.b.update(kept, leaf)
                tr.assume(mgr.Implies(mgr.Not(tr.first), mgr.EqualsOrIff(leaf, kept)))
    inst = Inst(tr, node, "", env, top=True)
    for n in node.ghosts:
        inst.env[n] = tr.state(n, node.types[n], enum_range=True)
    for names, e in node.eqs:
        if all(n in node.ghosts for n in names):
            inst.define(names, e)
    file = checked.file
    assumptions: list[ContractElement] = []
    guarantees: list[ContractElement] = []
    refined = [n for n in node.refinements if n in node.inputs + node.outputs + node.locals]
    entries = [(n, Prop(n, None, node.var_pos[n], ref=node.refinements[n])) for n in refined]  # type: ignore[arg-type]
    for n, p in obligations.named(entries):
        f = mgr.And(inst.refine_term(inst.env[n], p.ref))
        if n in node.inputs:
            target = guarantees if environment else assumptions
            target.append(ContractElement(p.name, "guarantee" if environment else "assumption",
                                          f, _loc(file, p.pos)))
        elif not environment:
            guarantees.append(ContractElement(p.name, "guarantee", f, _loc(file, p.pos)))
    for a in node.assumes:
        f = inst.expr(a.expr)
        if environment:
            named = "guarantee" + a.name[len("assume"):] if a.name.startswith("assume[") else a.name
            guarantees.append(ContractElement(named, "guarantee", f, _loc(file, a.pos)))
        else:
            assumptions.append(ContractElement(a.name, "assumption", f, _loc(file, a.pos)))
    modes: list[ContractMode] = []
    if not environment:
        for g in node.guarantees:
            guarantees.append(ContractElement(g.name, "guarantee", inst.expr(g.expr), _loc(file, g.pos)))
        for m in node.modes:
            requires = tuple(ContractElement(_require_name(checked.text, r.pos), "require",
                                             inst.expr(r), _loc(file, _keyword(checked.text, r.pos)))
                             for r in m.requires)
            ensures = tuple(ContractElement(en_name.rsplit(".", 1)[-1], "ensure", inst.expr(e),
                                            _loc(file, pos)) for en_name, e, pos in m.ensures)
            modes.append(ContractMode(m.name, requires, ensures))
    system = tr.b.build()
    first = system.structure.first
    updates: dict[FNode, FNode] = dict(system.structure.updates)
    if first is not None:
        updates[first] = mgr.FALSE()
    registers = tuple(v for v in system.state_vars if v in updates)
    inputs = tuple(x for n in chosen if n not in node.const_inputs for x in leaves(env[n]))
    # the first value of an unguarded ``pre`` (and an out-of-range array read) is arbitrary:
    # the environment's choice (Kind 2: an oracle, a constant outside the controllable ones)
    inputs += tuple(x for x in system.input_vars if x not in inputs)
    outputs = tuple(x for n in controlled for x in leaves(env[n]))
    has = bool(guarantees) if environment else node.has_contract or bool(refined)
    return ContractSystem(
        env=tr.b.env, top=name, context=context, registers=registers, init=system.init,
        updates=updates, inputs=inputs, outputs=outputs, definitions=tuple(tr.assumptions),
        assumptions=tuple(assumptions), guarantees=tuple(guarantees), modes=tuple(modes),
        has_contract=has,
        unsupported=_unsupported(tr) or _nondeterministic(node),
        realizable_only=_CONST_ENVIRONMENT if environment and has and node.const_inputs else None,
        lift=_lifter(checked, node, environment))


#: Kind 2 v3.0.0 finds ``assume n > pre y`` realizable for a ``const`` input ``n`` and an
#: unconstrained output ``y``, though ``n`` is chosen once and ``y`` can outgrow it: it lets
#: the environment choose ``n`` anew at each step.  kinduct's reading (chosen at the first step,
#: then kept) is the harder one for the environment: where it is realizable, so is Kind 2's;
#: where it is not, kinduct answers neither.
_CONST_ENVIRONMENT = ("an environment that chooses const inputs and is not realizable when it "
                      "chooses them once is not decided (Kind 2 reads them differently from "
                      "their semantics)")


def _nondeterministic(node: Node) -> str | None:
    """``any``/``choose`` in a contract: whether the component or its environment picks the
    value is not settled (Kind 2 makes each an imported node, and answers unknown)."""
    from kinduct.frontends.lucent.core import ast as A
    from kinduct.frontends.lucent.core.walk import children

    stack: list[A.Expr] = [e for names, e in node.eqs if all(n in node.ghosts for n in names)]
    stack += [p.expr for p in node.assumes + node.guarantees]
    stack += [e for m in node.modes for e in m.requires + [x for _, x, _ in m.ensures]]
    while stack:
        e = stack.pop()
        if isinstance(e, A.AnyE):
            return "'any' and 'choose' in a contract are not supported (as in Kind 2)"
        stack.extend(children(e))
    return None


def _unsupported(tr: Translator) -> str | None:
    """Kind 2's limits: calls to imported nodes and to nodes with asserts in the contract."""
    for prefix, callee in tr.instances.items():
        if not prefix:
            continue
        if callee.imported:
            return "calls to imported nodes are not supported (as in Kind 2)"
        if callee.asserts:
            return "calls to nodes with asserts are not supported (as in Kind 2)"
    return None


def _loc(file: str, pos) -> SourceLocation:
    return SourceLocation(file, pos.line or None, pos.col or None)


_REQUIRE = re.compile(r"\brequire\b")


def _keyword(text: str, pos):
    """The position of the ``require`` keyword before the expression at ``pos``."""
    from kinduct.frontends.lucent.core import ast as A

    found = None
    for m in _REQUIRE.finditer(text, 0, pos.start):
        found = m.start()
    if found is None:
        return pos
    line = text.count("\n", 0, found) + 1
    col = found - (text.rfind("\n", 0, found) + 1) + 1
    return A.Pos(line, col, found, found + 7)


def _require_name(text: str, pos) -> str:
    k = _keyword(text, pos)
    return f"require[L{k.line}C{k.col}]"


def _lifter(checked: Checked, node: Node, environment: bool):
    """Deadlocking traces as Kind 2 node blocks: the environment's inputs (the node's outputs in
    the environment), the component's outputs (locals first), then the contract's ghosts."""
    if environment:
        order = [(n, "input") for n in node.outputs] + [(n, "output") for n in node.inputs]
    else:
        order = [(n, "input") for n in node.inputs] + [(n, "output") for n in node.locals + node.outputs]
    order += [(n, "ghost") for n in node.ghosts if not n.startswith("%")]

    def lift(steps: Sequence[Mapping[str, Value]]) -> list[dict[str, Any]]:
        trace = Trace.of(steps)
        oracle = trace_oracle(trace)
        streams = []
        for n, cls in order:
            t = node.types[n]
            kind = type_name(t, node, n) if not (environment and n in node.outputs) else \
                type_name(t, _Bare(), n)
            stream: dict[str, Any] = {"name": n, "type": kind}
            ref = node.refinements.get(n)
            if kind == "subrange" and ref is not None:
                info = {}
                if ref.lo is not None:
                    info["min"] = ref.lo
                if ref.hi is not None:
                    info["max"] = ref.hi
                stream["typeInfo"] = info
            stream["class"] = cls
            stream["instantValues"] = [[k, to_json(oracle(n, t, k), t)] for k in range(len(trace))]
            streams.append(stream)
        return [{"blockType": "function" if node.kind == "function" else "node", "name": node.name,
                 "streams": streams}]
    return lift


class _Bare:
    """A node with no refinements: the environment sees the outputs' base types."""

    refinements: dict = {}
