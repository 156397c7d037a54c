"""The control-location graph of a transition system whose Boolean state variables encode a
program's locations (software models: CTIGAR's ``.s.0 ... .s.k`` bits), for the Horn encoding
of :mod:`kinduct.plugins.backends.horn`.

A *location* is one valuation of the Boolean state variables.  The graph holds the locations
reachable from the initial ones along the transition relation's edges, found by enumerating,
location by location, the successors' valuations that the relation (and the assumptions)
allow.  The data (the other state variables) is ignored, so the graph over-approximates the
reachable locations; each edge keeps the full relation restricted to its two locations, so
nothing is lost.  When the enumeration passes ``max_edges`` or its deadline, there is no graph
and the caller uses one relation for the whole state space.
"""

from __future__ import annotations

import time

import attrs
import z3

Location = tuple[bool, ...]


@attrs.frozen
class ControlGraph:
    """Initial locations, edges ``(source, target)``, and every location reached."""

    initial: tuple[Location, ...]
    edges: tuple[tuple[Location, Location], ...]
    locations: tuple[Location, ...]


def _valuations(solver: z3.Solver, bits: list[z3.BoolRef], limit: int,
                deadline: float) -> list[Location] | None:
    """Every valuation of ``bits`` consistent with ``solver``'s assertions (None past
    ``limit`` valuations or ``deadline``).  Pushes and pops its blocking clauses."""
    ctx = solver.ctx
    found: list[Location] = []
    solver.push()
    try:
        while solver.check() == z3.sat:
            model = solver.model()
            value = tuple(z3.is_true(model.eval(b, model_completion=True)) for b in bits)
            found.append(value)
            if len(found) > limit or time.monotonic() > deadline:
                return None
            solver.add(z3.Or([b != z3.BoolVal(v, ctx) for b, v in zip(bits, value, strict=True)]))
    finally:
        solver.pop()
    return found


def control_graph(init: z3.BoolRef, step: z3.BoolRef, current: list[z3.BoolRef],
                  following: list[z3.BoolRef], max_edges: int = 3000,
                  seconds: float = 3.0) -> ControlGraph | None:
    """The graph of the locations over the Boolean state variables ``current`` (``following``:
    their next-state copies) reachable from ``init`` by ``step`` (the transition relation and
    the assumptions); None when there are no such variables, or the graph is larger than
    ``max_edges`` or takes longer than ``seconds`` to enumerate."""
    if not current:
        return None
    ctx = init.ctx
    deadline = time.monotonic() + seconds
    starts = z3.Solver(ctx=ctx)
    starts.add(init)
    initial = _valuations(starts, current, max_edges, deadline)
    if initial is None:
        return None
    successors = z3.Solver(ctx=ctx)
    successors.add(step)
    seen = set(initial)
    frontier = list(initial)
    edges: list[tuple[Location, Location]] = []
    while frontier:
        source = frontier.pop()
        successors.push()
        successors.add([b == z3.BoolVal(v, ctx) for b, v in zip(current, source, strict=True)])
        targets = _valuations(successors, following, max_edges - len(edges), deadline)
        successors.pop()
        if targets is None:
            return None
        for target in targets:
            edges.append((source, target))
            if target not in seen:
                seen.add(target)
                frontier.append(target)
    return ControlGraph(tuple(initial), tuple(edges), tuple(sorted(seen)))
