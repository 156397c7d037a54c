"""Which streams each stream of a node reads at the current step, following node calls output
by output: a call's output reads only the arguments that output of the callee reads at the
current step (``y = pre x`` reads none), so ``a = N(b); b = N(a);`` is no circular definition
when ``N``'s output is a ``pre`` of its input (Kind 2 accepts it).  An equation defining
several streams by a call or a tuple (``(z1, z2) = N(y, x)``, ``x1, y1 = (e1, e2)``) gives each
its own reads.

The simulator evaluates a call with all its arguments, so a cycle through a call that is no
cycle of values must still be broken for it: one stream of such a cycle is *untangled*
(``Node.untangled``), its value read from the trace and its equation checked, as a circular
definition cut after the first step is (:func:`~.dependencies.cut_circular`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Node
from kinduct.frontends.lucent.core.walk import (
    current_vars,
    current_vars_all,
    current_vars_phases,
    find_cycle,
)

#: Per node: its number of inputs and, per output, the positions of the inputs it reads at the
#: current step.
OutputReads = dict[str, tuple[int, list[set[int]]]]


class _Instant(Mapping[str, tuple[int, set[int]]]):
    """Every output together: the inputs some output reads (what ``current_vars`` follows),
    per node of ``reads``, computed when a call of that node is met (building the whole
    mapping for each node made checking quadratic in the number of nodes)."""

    def __init__(self, reads: OutputReads) -> None:
        self.reads = reads
        self._every: dict[str, tuple[int, set[int]]] = {}

    def __getitem__(self, name: str) -> tuple[int, set[int]]:
        got = self._every.get(name)
        if got is None:
            n, outs = self.reads[name]
            got = self._every[name] = (n, set().union(*outs) if outs else set())
        return got

    def __contains__(self, name: object) -> bool:
        return name in self.reads

    def __iter__(self) -> Iterator[str]:
        return iter(self.reads)

    def __len__(self) -> int:
        return len(self.reads)


def _call_outputs(e: A.Expr, reads: OutputReads) -> tuple[A.Call, list[set[int]]] | None:
    if isinstance(e, A.Call) and e.name in reads and len(e.args) == reads[e.name][0]:
        return e, reads[e.name][1]
    return None


#: What an expression reads at the current step, per phase asked (:func:`_parts`).
_Read = Callable[[A.Expr], tuple[set[str], ...]]


def _parts(names: list[str], e: A.Expr, read: _Read, width: int, reads: OutputReads
           ) -> list[dict[str, set[str]]]:
    """What each of ``names`` (defined together by ``e``) reads at the current step, per phase
    (``read`` gives an expression's reads for ``width`` phases)."""
    def union(parts: list[A.Expr]) -> tuple[set[str], ...]:
        got = [read(x) for x in parts]
        return tuple(set().union(*(g[i] for g in got)) for i in range(width))

    def each(per_name: dict[str, tuple[set[str], ...]]) -> list[dict[str, set[str]]]:
        return [{n: sets[i] for n, sets in per_name.items()} for i in range(width)]

    call = _call_outputs(e, reads)
    if call is not None and len(call[1]) == len(names):
        c, outs = call
        return each({n: union([c.args[j] for j in sorted(outs[i])]) for i, n in enumerate(names)})
    if isinstance(e, A.TupleE) and len(e.items) == len(names) and len(names) > 1:
        return each({n: read(x) for n, x in zip(names, e.items, strict=True)})
    if len(names) == 1 and isinstance(e, A.Index) and isinstance(e.index, A.Lit) and \
            e.arg.ty is not None and e.arg.ty.kind == "tuple":
        # one component of a call's outputs, or of a tuple (an equation split apart)
        call = _call_outputs(e.arg, reads)
        k = e.index.value
        if call is not None and 0 <= k < len(call[1]):
            c, outs = call
            return each({names[0]: union([c.args[j] for j in sorted(outs[k])])})
        if isinstance(e.arg, A.TupleE) and 0 <= k < len(e.arg.items):
            return each({names[0]: read(e.arg.items[k])})
    every = read(e)
    return each({n: every for n in names})


def stream_reads(node: Node, phase: int | None, reads: OutputReads) -> dict[str, set[str]]:
    """Per stream defined by an equation of ``node``, the streams it reads at the current step
    (``phase`` 0: at the first step, 1: after it, None: at some step)."""
    instant = _Instant(reads)
    graph: dict[str, set[str]] = {}
    for names, e in node.eqs:
        graph.update(_parts(names, e, lambda x: (current_vars(x, phase, instant),), 1, reads)[0])
    return graph


def stream_reads_phases(node: Node, reads: OutputReads
                        ) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``(stream_reads(node, 0, reads), stream_reads(node, 1, reads))``, with one walk of each
    expression (:func:`~kinduct.frontends.lucent.core.walk.current_vars_phases`)."""
    instant = _Instant(reads)
    first: dict[str, set[str]] = {}
    later: dict[str, set[str]] = {}
    for names, e in node.eqs:
        at0, at1 = _parts(names, e, lambda x: current_vars_phases(x, instant), 2, reads)
        first.update(at0)
        later.update(at1)
    return first, later


#: Per stream defined by an equation, the streams it reads at the current step: at the first
#: step, after it, and at some step (:func:`stream_reads_all`).
Graphs = tuple[dict[str, set[str]], dict[str, set[str]], dict[str, set[str]]]


def stream_reads_all(node: Node, reads: OutputReads) -> Graphs:
    """``(stream_reads(node, 0, reads), stream_reads(node, 1, reads), stream_reads(node, None,
    reads))`` with one walk of each expression
    (:func:`~kinduct.frontends.lucent.core.walk.current_vars_all`): what the circularity
    check and :func:`output_reads` each walked for."""
    instant = _Instant(reads)
    first: dict[str, set[str]] = {}
    later: dict[str, set[str]] = {}
    every: dict[str, set[str]] = {}
    for names, e in node.eqs:
        at0, at1, now = _parts(names, e, lambda x: current_vars_all(x, instant), 3, reads)
        first.update(at0)
        later.update(at1)
        every.update(now)
    return first, later, every


def output_reads(node: Node, reads: OutputReads, graph: dict[str, set[str]] | None = None
                 ) -> tuple[int, list[set[int]]]:
    """The entry of the elaborated ``node`` in :data:`OutputReads` (every input for every
    output of an imported node or a contract, whose body is not known); ``reads`` holds the
    entries of the nodes it calls; ``graph``: ``stream_reads(node, None, reads)`` when already
    computed (:func:`stream_reads_all`)."""
    n = len(node.inputs)
    if node.imported or node.decl.kind == "contract":
        return n, [set(range(n)) for _ in node.outputs]
    if graph is None:
        graph = stream_reads(node, None, reads)
    result = []
    for o in node.outputs:
        seen: set[str] = set()
        todo = [o]
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(graph.get(x, ()))
        result.append({i for i, name in enumerate(node.inputs) if name in seen})
    return n, result


def untangle(node: Node) -> None:
    """Add to ``node.untangled`` streams enough to break every cycle the simulator would meet
    evaluating each call with all its arguments (at the first step, and after it except
    through the streams cut there)."""
    graph: dict[str, set[str]] = {}
    for names, e in node.eqs:
        first, later = current_vars_phases(e)
        for n in names:
            graph[n] = first | (set() if n in node.cut else later)
    cycle = find_cycle(graph)
    while cycle is not None:
        node.untangled.add(cycle[0])
        graph[cycle[0]] = set()
        cycle = find_cycle(graph)
