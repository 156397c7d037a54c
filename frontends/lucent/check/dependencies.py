"""What depends on what in a Lucent program being checked: the order in which nodes are
elaborated (callees first, call cycles rejected), the streams read at the current step through
definitions and node calls, and circular definitions (rejected when they exist at the first
step, cut with a warning when they exist only after it)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from kinduct.frontends.lucent.check import elemdeps
from kinduct.frontends.lucent.check.calldeps import Graphs, OutputReads, stream_reads_phases, untangle
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import CheckWarning, Node
from kinduct.frontends.lucent.core.walk import Instant, calls_in_decl, current_vars, find_cycle
from kinduct.kernel.errors import InputError

#: Makes the error to raise for a message at a source position (the checker's ``err``).
ErrorAt = Callable[[str, A.Pos], InputError]


def call_order(decls: Mapping[str, A.NodeDecl], contracts: Mapping[str, A.NodeDecl],
               err: ErrorAt) -> list[str]:
    """The names of the nodes ``decls``, each after the nodes it calls (also through the
    contracts it imports); a call cycle is an error at the call that closes it."""
    graph: dict[str, list[tuple[str, A.Pos]]] = {}
    for name, d in decls.items():
        graph[name] = [(c.name, c.pos) for c in calls_in_decl(d)]
        for item in d.contract:
            if item.kind == "import" and item.name in contracts:
                contract = contracts[item.name]
                graph[name].extend((c.name, c.pos) for c in calls_in_decl(contract))
    order: list[str] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m, pos in graph.get(n, []):
            if m not in decls:
                continue  # reported as unknown node by the checker
            if state.get(m) == 1:
                cyc = stack[stack.index(m):] + [m]
                raise err("node call cycle: " + " -> ".join(cyc), pos)
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2
        order.append(n)

    for n in decls:
        if n not in state:
            visit(n)
    return order


def reads_now(names: Iterable[str], defs: Mapping[str, A.Expr], instant: Instant) -> set[str]:
    """``names`` and every stream they read at the current step through the definitions
    ``defs`` (calls read as :func:`~kinduct.frontends.lucent.core.walk.current_vars` with
    ``instant`` reads them)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in defs:
            todo.extend(current_vars(defs[n], instant=instant))
    return seen


def instant_inputs(node: Node, instant: Instant) -> tuple[int, set[int]]:
    """The number of inputs of the elaborated ``node`` and the positions of those its outputs
    read at the current step (every input of an imported node or a contract, whose body is not
    known); ``instant`` holds the same for the nodes it calls."""
    if node.imported or node.decl.kind == "contract":
        return len(node.inputs), set(range(len(node.inputs)))
    defs = {n: e for names, e in node.eqs for n in names}
    read = reads_now(node.outputs, defs, instant)
    return len(node.inputs), {i for i, n in enumerate(node.inputs) if n in read}


def cut_circular(node: Node, file: str | None, err: ErrorAt,
                 reads: OutputReads | None = None, graphs: Graphs | None = None) -> list[str]:
    """Reject circular definitions, except those that exist only after the first step; the
    warnings added to ``node.warnings``.

    The primer rejects every circular definition, and so do we when the cycle exists at
    step 0 (no initial value can be computed).  A cycle through the right operand of ``->``
    alone (JKind's ``drivetrain`` model: ``g = e0 -> f(g)``) is read as JKind reads it: the
    equation is a constraint that the stream's value must satisfy.  Such streams are
    recorded in ``node.cut``; the simulator takes their values from the trace and checks the
    equations, and a warning names the cycle.  ``reads``: which inputs each output of the
    nodes ``node`` calls reads at the current step (:mod:`.calldeps`; without it, a call reads
    every argument); ``graphs``: what :func:`~.calldeps.stream_reads_all` gives for ``reads``,
    when already computed."""
    where: dict[str, A.Pos] = {}
    at0, at1 = graphs[:2] if graphs is not None else stream_reads_phases(node, reads or {})
    first = elemdeps.refine(node, at0, 0)
    later = elemdeps.refine(node, at1, 1)
    for names, e in node.eqs:
        for n in names:
            where[n] = e.pos
    cycle0 = find_cycle(first)
    if cycle0 is not None:
        raise err("circular definition: " + " -> ".join(cycle0), where[cycle0[0]])
    warnings: list[CheckWarning] = []
    cycle = find_cycle(later)
    while cycle is not None:
        node.cut.add(cycle[0])
        pos = where[cycle[0]]
        warnings.append(CheckWarning(
            file, pos.line, pos.col, "circular definition after the first step: "
            + " -> ".join(cycle) + f"; '{cycle[0]}' is read as any value satisfying its equation"))
        node.warnings.append(warnings[-1])
        later[cycle[0]] = set()
        cycle = find_cycle(later)
    untangle(node)
    return warnings
