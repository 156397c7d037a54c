"""``kinduct.check`` and ``kinduct.load``: the command line's ``check`` as Python calls.

A :class:`Report` holds one :class:`PropertyResult` per property, with Kind 2's answer words
(``"valid"``, ``"falsifiable"``, ``"unknown"``, ``"reachable"``, ``"unreachable"``, ``"error"``)
and counterexamples as streams by name and step, in the frontend's names.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs
from pysmt.fnode import FNode

from kinduct.kernel import registry
from kinduct.kernel.decide import decide
from kinduct.kernel.errors import UsageError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.loading import load_systems
from kinduct.kernel.refinement import ModularRun
from kinduct.kernel.report import json_objects, lift
from kinduct.kernel.runner import RunOptions
from kinduct.kernel.schedule import decide_in_turn
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Value, Verdict, exit_code


@attrs.frozen
class PropertyResult:
    """The outcome for one property.

    ``k``: for falsifiable, the step of the violation; for valid, the induction depth; for
    unknown, the largest bound with no counterexample (Kind 2's ``trueFor``), when known.
    ``counterexample``: ``{stream name: [value at step 0, value at step 1, ...]}`` (a witness
    for reachable properties), or None.  ``invariant``: SMT-LIB text certifying a valid answer.
    """

    name: str
    answer: str
    engine: str | None
    k: int | None
    counterexample: Mapping[str, list[Value]] | None
    invariant: str | None
    runtime: float
    message: str | None
    verdict: Verdict = attrs.field(repr=False)


@attrs.frozen
class Report:
    """Every property's result, in the model's order; ``report["name"]`` finds one by name."""

    properties: tuple[PropertyResult, ...]
    analyses: tuple[tuple[TransitionSystem, tuple[Verdict, ...]], ...] = attrs.field(repr=False)

    def __getitem__(self, name: str) -> PropertyResult:
        for result in self.properties:
            if result.name == name:
                return result
        raise KeyError(name)

    @property
    def exit_code(self) -> int:
        """The command line's (Kind 2's) exit code for these verdicts: 0, 30, 40 or 1 (over
        every analysis: a property a refinement proved was falsified on the abstraction)."""
        return exit_code([v for _, verdicts in self.analyses for v in verdicts])

    def to_json(self) -> list[dict[str, Any]]:
        """The Kind 2 JSON objects that ``kinduct check --json`` prints."""
        objects: list[dict[str, Any]] = []
        for system, verdicts in self.analyses:
            objects.extend(json_objects(system, list(system.properties), list(verdicts)))
        return objects


def load(path: str | os.PathLike[str], *, main: str | None = None, frontend: str | None = None,
         **frontend_options: Any) -> TransitionSystem:
    """The transition system of a model file (the first analysis when there are several)."""
    return _load_all(Path(path), main, frontend, frontend_options)[0]


def check(path_or_system: str | os.PathLike[str] | TransitionSystem, *,
          engine: str | Sequence[str] = "portfolio", solver: str | None = None,
          timeout: float | None = None, main: str | None = None, bound: int | None = None,
          properties: Iterable[str] = (), frontend: str | None = None,
          **frontend_options: Any) -> Report:
    """Decide the properties of a model file or of a :class:`TransitionSystem`.

    ``engine``: a name, a comma-separated list or a sequence of names (``"bmc,kind"``);
    ``solver``: a backend's name (None: the preferred available SMT backend);
    ``timeout``: seconds for the whole call, loading included (None: no limit);
    ``frontend_options``: what the frontend understands (Lucent: ``compositional``, ``modular``).
    Raises :class:`~kinduct.kernel.errors.InputError` (or its subclasses) on bad input."""
    start = time.monotonic()
    engines = tuple(x.strip() for x in (engine.split(",") if isinstance(engine, str) else engine)
                    if x.strip())
    if isinstance(path_or_system, TransitionSystem):
        systems = [adopt(path_or_system)]
    else:
        systems = _load_all(Path(path_or_system), main, frontend, frontend_options)
    wanted = tuple(properties)
    selected = [system.with_properties(props) for system in systems
                if (props := [p for p in system.properties if not wanted or p.name in wanted])]
    chosen_solver = solver or registry.default_solver()

    modular = ModularRun() if frontend_options.get("modular") and \
        frontend_options.get("compositional") else None

    def decide_one(i: int, until: float | None, names: Sequence[str] | None) -> list[Verdict]:
        system = selected[i]
        opts = RunOptions(engines=engines, solver=chosen_solver, timeout=until, max_k=bound,
                          properties=tuple(names or (p.name for p in system.properties)),
                          diversify=solver is None)
        verdicts = decide(system, opts, start)
        if modular is None:  # as Kind 2: refined only in a modular compositional analysis
            return verdicts
        return modular.after(i, system, verdicts, lambda s: decide(
            s, attrs.evolve(opts, properties=tuple(p.name for p in s.properties)), start))

    verdict_lists = decide_in_turn(len(selected), timeout, start, decide_one)
    pairs = list(zip(selected, verdict_lists, strict=True)) if modular is None else \
        modular.analyses(selected, verdict_lists)
    analyses = [(system, tuple(verdicts)) for system, verdicts in pairs]
    # one result per property: a refined one's final answer (the analyses show each step)
    results = tuple(_result(system, system.property(v.property), v)
                    for system, verdicts in zip(selected, verdict_lists, strict=True)
                    for v in verdicts)
    return Report(results, tuple(analyses))


def transition_system(*, state: Sequence[tuple[FNode, FNode]], init: FNode, trans: FNode,
                      properties: Mapping[str, FNode], inputs: Sequence[FNode] = (),
                      assumptions: Sequence[FNode] = (), name: str = "main") -> TransitionSystem:
    """A system from PySMT formulas made with ``pysmt.shortcuts`` (the global environment):
    ``state`` pairs each current-step symbol with its next-step copy."""
    from pysmt.shortcuts import get_env

    return TransitionSystem(
        env=get_env(), state_vars=tuple(s for s, _ in state), next_vars=tuple(n for _, n in state),
        input_vars=tuple(inputs), init=init, trans=trans, assumptions=tuple(assumptions),
        properties=tuple(Property(n, f) for n, f in properties.items()), name=name)


def adopt(system: TransitionSystem) -> TransitionSystem:
    """``system`` with every formula in ``system.env``: formulas made in another environment
    (``pysmt.shortcuts`` use the global one) are rebuilt there, so engines can use them."""
    mgr = system.env.formula_manager
    formulas = [system.init, system.trans, *system.state_vars, *system.next_vars,
                *system.input_vars, *system.assumptions, *(p.formula for p in system.properties)]
    if all(_owned(mgr, f) for f in formulas):
        return system
    move = mgr.normalize
    return system.evolve(
        init=move(system.init), trans=move(system.trans),
        state_vars=tuple(map(move, system.state_vars)), next_vars=tuple(map(move, system.next_vars)),
        input_vars=tuple(map(move, system.input_vars)), assumptions=tuple(map(move, system.assumptions)),
        properties=tuple(attrs.evolve(p, formula=move(p.formula)) for p in system.properties))


def _owned(mgr, formula: FNode) -> bool:
    """Whether ``formula`` was made by this formula manager (hash-consed there)."""
    return mgr.formulae.get(formula._content) is formula


def _load_all(path: Path, main: str | None, frontend: str | None,
              options: Mapping[str, Any]) -> list[TransitionSystem]:
    known = {a.name for a in attrs.fields(LoadOptions)} - {"main"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise UsageError(f"no frontend option {', '.join(map(repr, unknown))} "
                         f"(known: {', '.join(sorted(known))})")
    return load_systems(path, frontend, LoadOptions(main=main, **options))


def _result(system: TransitionSystem, prop: Property, verdict: Verdict) -> PropertyResult:
    streams = None
    if verdict.trace is not None:
        streams = {}
        for block in lift(system, verdict.trace, prop):
            _collect(block, "", streams, len(verdict.trace))
    return PropertyResult(
        name=verdict.property, answer=verdict.answer.value, engine=verdict.engine, k=verdict.k,
        counterexample=streams, invariant=verdict.invariant, runtime=verdict.runtime,
        message=verdict.message, verdict=verdict)


def _collect(block: Mapping[str, Any], prefix: str, out: dict[str, list[Value]],
             steps: int) -> None:
    """Streams of a Kind 2 node block (and its subnodes, as ``Sub.name``) by name and step; a
    stream on a clock, which has no value at some of the ``steps``, has None there."""
    for stream in block.get("streams", []) or []:
        got = {k: _python(v) for k, v in stream["instantValues"]}
        gaps = sorted(got) != list(range(len(got)))
        out[prefix + stream["name"]] = [got.get(k) for k in range(steps if gaps else len(got))]
    for sub in block.get("subnodes", []) or []:
        _collect(sub, f"{prefix}{sub['name']}.", out, steps)


def _python(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"num", "den"}:
        return Fraction(value["num"], value["den"])
    if isinstance(value, list):
        return [_python(v) for v in value]
    return value


__all__ = ["Answer", "PropertyResult", "Report", "adopt", "check", "load", "transition_system"]
