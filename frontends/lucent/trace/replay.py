"""Counterexamples replayed on the simulator (the reference semantics): every stream must
agree with the trace and the property must really fail; and, for a compositional analysis,
whether the trace's inputs violate the property with every node's implementation."""

from __future__ import annotations

from typing import Any

from kinduct.frontends.lucent.core.checked import Checked
from kinduct.frontends.lucent.core.types import recursive_type, scalar_paths
from kinduct.frontends.lucent.sim import collections_sim, quantified, symarrays_sim
from kinduct.frontends.lucent.sim.canonical import texts
from kinduct.frontends.lucent.sim.simulate import Instance, Simulator, leaves, refinement_holds
from kinduct.frontends.lucent.smt.translate import PropInfo
from kinduct.frontends.lucent.trace.lift import from_trace, trace_inputs, trace_oracle
from kinduct.kernel.system import Inconclusive, Property
from kinduct.kernel.verdict import Trace


class Runs:
    """The simulations of traces that a system's replay ran to the end, kept for the lift of
    the same traces (where each instance on a clock stepped): one simulation per trace."""

    #: The traces remembered (the oldest is forgotten first).
    KEEP = 16

    def __init__(self) -> None:
        self._runs: dict[int, tuple[Trace, dict[str, list[bool]]]] = {}

    def record(self, trace: Trace, sim: Simulator) -> None:
        if len(self._runs) >= self.KEEP:
            self._runs.pop(next(iter(self._runs)))
        self._runs[id(trace)] = (trace, {inst.prefix: inst.stepped for inst in sim.instances()
                                         if inst.prefix})

    def stepped(self, trace: Trace) -> dict[str, list[bool]] | None:
        """Where each instance on a clock stepped in the simulation of ``trace``, if one ran."""
        got = self._runs.get(id(trace))
        return got[1] if got is not None and got[0] is trace else None


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
                        prop: Property, abstract: set[str] | frozenset[str] = frozenset(),
                        runs: Runs | None = None) -> str | None:
    """Run the simulator on the trace's inputs (and its nondeterministic choices); every stream
    must agree with the trace and the property must really fail (or be reached) at the end.
    Where the trace holds an infinite set (no Lucent value: the simulator reads its finite
    part), a trace that does not replay is inconclusive. A simulation that ran every step of
    the trace is kept in ``runs`` for the lift of the same trace."""
    oracle = trace_oracle(trace)
    problem = _replay(checked, main, infos, trace, prop, abstract, oracle, runs)
    if problem is not None and not isinstance(problem, Inconclusive) and oracle.finitized:
        return Inconclusive(f"the counterexample holds an infinite set ({oracle.finitized[0]}), "
                            f"which is no Lucent value; with its finite part: {problem}")
    return problem


def _replay(checked: Checked, main: str, infos: dict[str, PropInfo], trace: Trace,
            prop: Property, abstract: set[str] | frozenset[str], oracle, runs: Runs | None) -> str | None:
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
    if runs is not None:
        runs.record(trace, sim)
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
                got = from_trace(step[leaf], lt) if lt.kind in ("machine", "set", "lift") \
                    or recursive_type(lt) else step[leaf]
                if got != v:
                    return (f"stream {leaf} is {v} on the simulator but {got} in the trace "
                            f"at step {k}")
    return None
