"""The Lucent pipeline: the one place where the stages are chained, in their order.

1. ``syntax/``: the text to a syntax tree (``parser.parse_file``, ``parser.parse_text``).
2. ``check/``: the syntax tree to the checked model (``checker.check_program``); its warnings
   are reported as located :class:`~kinduct.kernel.errors.SourceWarning` values.
3. The analyses: ``--main``, else the nodes marked ``--%MAIN``, else the top nodes
   (:func:`main_nodes`); ``--modular`` adds every node they reach.
4. ``smt/``: one kernel transition system per analysis (``translate.Translator``).
5. ``trace/``: the system's ``lift`` (a counterexample in source terms, ``trace.lift``) and
   ``replay`` (the counterexample run on the simulator, ``trace.replay``) hooks, which the kernel
   calls on a counterexample; one simulation of a trace serves both (``trace.replay.Runs``).
   On a large trace the replay runs beside, and the lift is made meanwhile (``_Ahead``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from kinduct.frontends.lucent.abstraction import (
    abstraction_of,
    as_written,
    contract_abstract,
    refinable,
)
from kinduct.frontends.lucent.check.checker import check_program
from kinduct.frontends.lucent.core.checked import Checked
from kinduct.frontends.lucent.core.limits import MAX_CALL_DEPTH
from kinduct.frontends.lucent.smt.elements import Elements
from kinduct.frontends.lucent.smt.translate import Translator
from kinduct.frontends.lucent.syntax.parser import parse_file, parse_text
from kinduct.frontends.lucent.trace.lift import lift_trace, user_name
from kinduct.frontends.lucent.trace.replay import Runs, concrete_violation, replay_on_simulator
from kinduct.kernel.beside import Beside, worth_a_fork
from kinduct.kernel.errors import InputError, SourceLocation, warn
from kinduct.kernel.frontend import LoadOptions, gc_paused
from kinduct.kernel.system import Origin, Property, TransitionSystem
from kinduct.kernel.verdict import Trace


def load_checked(path: str | Path | None = None, text: str | None = None) -> Checked:
    """Parse and check; the checker's warnings are reported as located
    :class:`~kinduct.kernel.errors.SourceWarning` values (the command line prints them)."""
    prog = parse_text(text, str(path or "<input>")) if text is not None else parse_file(path)
    checked = check_program(prog)
    for w in checked.warnings:
        warn(w.message, SourceLocation(w.file, w.line, w.col))
    return checked


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
    check_call_depth(checked, main, abstract)
    tr = Translator(checked, main, abstract, modular)
    if elements:
        tr.elements = Elements(tr.mgr, checked.file)
    builder = tr.build()
    if tr.elements is not None:
        builder.elements = tr.elements.elements()
    builder.origin = Origin(top=main)
    abstraction = abstraction_of(checked, main, abstract)
    runs = Runs()  # one simulation of a trace serves its replay and its lift
    ahead = _Ahead()  # a large trace's lift, made while its replay runs beside

    # Each runs under a paused collector: the loaded model is frozen out of its passes, but
    # passes over what a simulation makes (a 1 MB model: 10,000 instances a step) took half
    # the lift's time; the few cycles it leaves are collected once it is resumed.
    def lift(trace: Trace, prop: Property | None) -> list[dict[str, Any]]:
        made = ahead.take(trace)
        if made is not None:
            return made
        with gc_paused():
            return lift_trace(checked, main, trace, abstract, runs.stepped(trace))

    def replay(trace: Trace, prop: Property) -> str | None:
        with gc_paused():
            if not worth_a_fork(trace):
                return replay_on_simulator(checked, main, tr.prop_info, trace, prop, abstract,
                                           runs)
            beside = Beside(lambda: replay_on_simulator(checked, main, tr.prop_info, trace, prop,
                                                        abstract))
            try:
                ahead.keep(trace, lift_trace(checked, main, trace, abstract))
            except Exception:  # noqa: BLE001, S110 - the lift itself meets it again, and says so
                pass
            return beside.result()

    def on_implementations(trace: Trace, prop: Property) -> bool | None:
        with gc_paused():
            return concrete_violation(checked, main, tr.prop_info, trace, prop)

    def refine(proved: frozenset[str]) -> TransitionSystem | None:
        name = refinable(checked, main, abstract, proved)
        return None if name is None else build_system(checked, main, abstract - {name}, modular)

    bodies = any(not checked.nodes[n].imported for n in abstraction.abstract)
    system = builder.build(lift=lift, replay=replay, refine=refine if bodies else None,
                           abstraction=as_written(abstraction),
                           on_implementations=on_implementations if bodies else None)
    return system.with_properties(_scoped(system.properties, tr))


class _Ahead:
    """The lift of a large counterexample (:func:`~kinduct.kernel.beside.worth_a_fork`), made
    while its replay on the simulator runs beside (the kernel asks for the lift of an
    accepted counterexample next): the last one made, for that trace only."""

    def __init__(self) -> None:
        self._made: tuple[Trace, list[dict[str, Any]]] | None = None

    def keep(self, trace: Trace, blocks: list[dict[str, Any]]) -> None:
        self._made = (trace, blocks)

    def take(self, trace: Trace) -> list[dict[str, Any]] | None:
        """The blocks made ahead for ``trace`` (this very trace), once; else None."""
        made, self._made = self._made, None
        return made[1] if made is not None and made[0] is trace else None


def _scoped(properties: Sequence[Property], tr: Translator) -> list[Property]:
    """Each property with Kind 2's ``scope``: the node it is written in (a callee's guarantee,
    mode, assumption or check: the callee; the translation names the analysis's top node)."""
    out = []
    for p in properties:
        info = tr.prop_info.get(p.name)
        inst = tr.insts.get(info.prefix) if info is not None else None
        out.append(p if inst is None else attrs.evolve(p, scope=user_name(inst.node.name)))
    return out


def check_call_depth(checked: Checked, main: str, abstract: frozenset[str] = frozenset()) -> None:
    """Refuse, at the call that goes too deep, a chain of calls below ``main`` (through nodes
    not read by their contracts) longer than :data:`~.core.limits.MAX_CALL_DEPTH`."""
    below: dict[str, int] = {}  # the longest chain of inlined calls below each node
    todo = [(main, False)]
    while todo:  # post-order, without recursion (the call graph has no cycle: checked)
        name, done = todo.pop()
        if name in below:
            continue
        callees = [c.name for c in checked.nodes[name].calls
                   if c.name in checked.nodes and c.name not in abstract]
        if done:
            below[name] = max((below[c] + 1 for c in callees), default=0)
        else:
            todo.append((name, True))
            todo.extend((c, False) for c in callees if c not in below)
    if below[main] <= MAX_CALL_DEPTH:
        return
    name, depth = main, 0
    while True:  # follow the deepest chain to its first call past the limit
        call = max((c for c in checked.nodes[name].calls
                    if c.name in checked.nodes and c.name not in abstract),
                   key=lambda c: below[c.name])
        depth += 1
        if depth > MAX_CALL_DEPTH:
            raise InputError.at(f"node calls nest more than {MAX_CALL_DEPTH} levels deep below "
                                f"'{main}' (kinduct's limit)", checked.file, checked.text,
                                call.pos.line, call.pos.col)
        name = call.name


def load_systems(path: Path, options: LoadOptions) -> list[TransitionSystem]:
    """One system per analysis; an empty model is an input error, as in Kind 2 ("No node
    defined in input model"); declarations or comments without anything to analyse give no
    system (Kind 2: "No analyzable nodes found", exit 0; its suite's typecheck-pass folder
    accepts files of constants, types and contracts alone, and a file of comments)."""
    checked = load_checked(path)
    if not checked.nodes and not checked.text.strip():
        raise InputError(f"{path}: no node defined in the model: no component to analyse")
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
