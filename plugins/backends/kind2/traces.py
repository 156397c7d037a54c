"""Turning Kind 2's counterexample streams into a kinduct :class:`Trace`.

When kinduct printed the Lustre, every system variable is an input of the node, so Kind 2's
counterexample names them all and the mapping (``variables``, from the printer) is exact.  When
a Lucent file was passed through, Kind 2 names the top node's source streams: the values of its
inputs and outputs are pinned wherever a stream (a record field ``r.f`` or an array element
``a[i]`` of one) is a system variable of the same name, and an SMT solver fills in the rest
along ``init``, ``trans`` and the assumptions, ending in a violation of the property.  When
Kind 2's output values do not fit (Kind 2 abstracts non-linear terms, so its outputs can be
values no execution has), the trace follows its input values alone and says so.  If no
execution agrees with Kind 2's inputs, the counterexample is rejected with that reason, never
replaced by another one.  The runner then replays the trace like any engine's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from pysmt.fnode import FNode

from kinduct.kernel import registry
from kinduct.kernel.backend import SolverUnknown, constant
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Trace, Value
from kinduct.plugins.backends.kind2.output import StreamTable

#: Stream classes of a passed-through file whose values are pinned.
PINNED = ("input", "output")


def _convert(var: FNode, value: Any) -> Value | None:
    t = var.symbol_type()
    try:
        if t.is_bool_type():
            return bool(value) if isinstance(value, bool) else None
        if t.is_int_type():
            f = Fraction(value)
            return int(f) if f.denominator == 1 else None
        if t.is_real_type():
            return Fraction(value)
        if t.is_bv_type() and not isinstance(value, bool):  # a machine integer, maybe signed
            return int(value) % (1 << t.width)
    except (TypeError, ValueError):
        return None
    return None


def _leaves(name: str, value: Any) -> Iterator[tuple[str, Any]]:
    """A stream's scalar parts: record fields as ``name.field``, array cells as ``name[i]``."""
    if isinstance(value, dict):
        for key, part in value.items():
            yield from _leaves(f"{name}.{key}", part)
    elif isinstance(value, list):
        for i, part in enumerate(value):
            yield from _leaves(f"{name}[{i}]", part)
    else:
        yield name, value


def known_values(system: TransitionSystem, table: StreamTable, variables: Mapping[str, str] | None,
                 pinned: tuple[str, ...] = PINNED) -> list[dict[str, Value]]:
    """Per step, the system variables whose values Kind 2's streams give (for a passed-through
    file, only streams of the ``pinned`` classes)."""
    by_name = {v.symbol_name(): v for v in system.current_vars}
    known: list[dict[str, Value]] = [{} for _ in range(table.steps)]
    for stream, values in table.values.items():
        if variables is None and table.classes.get(stream) not in pinned:
            continue
        for k, raw in values.items():
            if not 0 <= k < table.steps:
                continue
            for leaf, part in _leaves(stream, raw):
                name = variables.get(leaf, "") if variables is not None else leaf
                if name in by_name:
                    value = _convert(by_name[name], part)
                    if value is not None:
                        known[k][name] = value
    return known


def trace_of(system: TransitionSystem, prop: Property, table: StreamTable,
             variables: Mapping[str, str] | None) -> tuple[Trace | None, str | None]:
    """The trace Kind 2's counterexample stands for and a note about it, or (None, why there
    is none)."""
    if table.steps == 0:
        return None, "it has no steps"
    known = known_values(system, table, variables)
    if not any(known):
        return None, "none of its streams is a variable of the system"
    trace, problem = complete_trace(system, known, prop)
    if trace is not None or variables is not None:
        return trace, None if trace is not None else problem
    inputs = known_values(system, table, None, ("input",))
    if inputs == known:
        return None, problem
    trace, problem = complete_trace(system, inputs, prop)
    if trace is None:
        return None, problem
    return trace, "Kind 2's output values fit no execution; the trace follows its input values"


def _smt_solver(system: TransitionSystem):
    for backend in registry.backends().values():
        if backend.smt and backend.available():
            return backend.solver(system.env)
    return None


def complete_trace(system: TransitionSystem, known: list[dict[str, Value]],
                   prop: Property) -> tuple[Trace | None, str | None]:
    """A full trace agreeing with ``known`` that ends in a violation of ``prop``'s obligation,
    or (None, why not)."""
    names = [v.symbol_name() for v in system.current_vars]
    if all(all(n in step for n in names) for step in known):
        return Trace.of(known), None
    solver = _smt_solver(system)
    if solver is None:
        return None, "no SMT backend is available to complete a partial counterexample"
    n = len(known)
    unroll = Unroller(system)
    mgr = system.env.formula_manager
    try:
        solver.add(unroll.at(system.init, 0))
        for k in range(n):
            for a in system.assumptions:
                solver.add(unroll.at(a, k))
            if k + 1 < n:
                solver.add(unroll.at(system.trans, k))
            for var in system.current_vars:
                name = var.symbol_name()
                if name in known[k]:
                    solver.add(mgr.EqualsOrIff(unroll.timed(var, k), constant(mgr, var, known[k][name])))
        solver.add(mgr.Not(unroll.at(prop.obligation(system.env), n - 1)))
        if not solver.check():
            return None, (f"no execution of the system has Kind 2's values "
                          f"({sum(map(len, known))} values over {n} steps) and violates it")
        steps = []
        for k in range(n):
            timed = unroll.step_vars(k)
            values = solver.values(timed)
            steps.append({v.symbol_name(): values[t] for v, t in zip(system.current_vars, timed,
                                                                     strict=True)})
        return Trace.of(steps), None
    except SolverUnknown as exc:
        return None, f"the solver could not complete it ({exc})"
    finally:
        solver.close()
