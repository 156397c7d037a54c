"""Invariant discovery: mine candidates from simulated runs, prove them Houdini-style.

Houdini drops candidates that are not preserved by a step from states satisfying all the
others until the survivors are jointly inductive (``Init => C`` and ``C and A and T => C'``).
The ``invgen`` engine runs rounds of :func:`discover` and reports what the survivors prove;
``ic3`` seeds its frames with them.  Both read the system's structure from one
:func:`~kinduct.plugins.engines.analysis.analyze`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from pysmt.fnode import FNode

from kinduct.kernel.backend import SolverUnknown
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.system import TransitionSystem
from kinduct.plugins.engines.analysis import analyze, possible
from kinduct.plugins.engines.candidates import Candidates, halves
from kinduct.plugins.engines.simulation import Simulator

#: Latches kept true in the sticky simulation runs.
MAX_STICKY = 6


def houdini(system: TransitionSystem, ctx: EngineContext, facts: Sequence[FNode],
            candidates: Sequence[FNode], deadline: float | None = None) -> list[FNode] | None:
    """The largest subset of ``candidates`` that is inductive together with ``facts`` (proved
    invariants), or None when the deadline passed first."""
    mgr = system.env.formula_manager
    subst = system.env.substituter
    cands = list(candidates)
    # Initiation: drop what some initial state violates.
    s = ctx.make_solver()
    s.add(system.init)
    s.add_all(system.assumptions)
    while cands:
        if deadline is not None and time.monotonic() > deadline:
            return None
        try:
            if not s.check([mgr.Not(mgr.And(cands))]):
                break
        except SolverUnknown:  # no model to learn from: one candidate at a time
            cands = [c for c in cands if not possible(s, [mgr.Not(c)])]
            break
        vals = s.values(cands)
        cands = [c for c in cands if vals[c]]
    s.close()
    if not cands:
        return []
    # Consecution: drop what fails after one step from a state satisfying them all.
    nmap = system.next_map()
    s = ctx.make_solver()
    s.add_all(system.assumptions)
    s.add(system.trans)
    s.add_all(facts)
    acts = {c: mgr.FreshSymbol(template="__houdini_%d") for c in cands}
    primed = {c: subst.substitute(c, nmap) for c in cands}
    for c, a in acts.items():
        s.add(mgr.Implies(a, c))
    while cands:
        if deadline is not None and time.monotonic() > deadline:
            return None
        query = mgr.Or([mgr.Not(primed[c]) for c in cands])
        try:
            if not s.check([*(acts[c] for c in cands), query]):
                break
        except SolverUnknown:
            # No model: drop every candidate whose step the solver does not prove, one query
            # each, and start over from the smaller set (until every step is proved).
            hyps = [acts[c] for c in cands]
            failed = {c for c in cands if possible(s, [*hyps, mgr.Not(primed[c])])}
            if not failed:
                break
            cands = [c for c in cands if c not in failed]
            continue
        vals = s.values([primed[c] for c in cands])
        cands = [c for c in cands if vals[primed[c]]]
    s.close()
    return cands


def discover(system: TransitionSystem, ctx: EngineContext, budget: float = 10.0,
             seed: int = 0, on_proved: Callable[[list[FNode], list[FNode]], None] | None = None,
             variables: Sequence[FNode] | None = None,
             known: Sequence[FNode] = (), runs: int = 8,
             depth: int = 20) -> tuple[list[FNode], list[FNode]]:
    """(facts, invariants): trans-implied state invariants and Houdini survivors (candidates
    over ``variables`` only, when given, else over the analysis's registers), inductive relative
    to ``known`` invariants (an earlier round's: rounds with other seeds sample other states,
    and the affine hull of a few samples often carries a coincidence that hides a true
    equality; the union of the rounds' invariants is inductive too).

    ``runs`` simulated runs of ``depth`` steps sample the reachable states; ``budget`` (seconds)
    bounds only the simulation (half of it), since a cut-off Houdini proves nothing."""
    shape = analyze(system, ctx.make_solver)
    facts = list(shape.facts)
    flag, latched = shape.first, shape.latches
    if variables is None:
        variables = shape.registers
    facts += [k for k in known if k not in set(facts)]
    sim = Simulator(system, ctx, seed, variables)
    bools = [v for v in system.state_vars if v.symbol_type().is_bool_type()]
    near = Candidates(system, [], facts).near_property(bools)
    # Half the runs keep the latches true (wire and register alike, or the flag falls a step
    # later) and the flags a fact ties to the property.
    flags = [*latched[:MAX_STICKY], *(b for b in near[:2] if b not in latched)]
    until = time.monotonic() + budget / 2
    samples = sim.runs(count=runs, depth=depth, flags=flags,
                       deadline=until if ctx.deadline is None else min(until, ctx.deadline))
    sim.solver.close()
    given = set(facts)
    mgr = system.env.formula_manager
    later = [smp for smp in samples if flag is not None and not smp[flag]]

    def guard(c: FNode) -> FNode:
        return mgr.Or(flag, c) if len(later) >= 2 else c

    def guarded(cands: list[FNode]) -> list[FNode]:
        return [guard(c) for c in cands if len(later) < 2 or c not in (flag, mgr.Not(flag))]

    # Registers are arbitrary in the first step of a Lustre program (``pre`` is undefined):
    # relations between them hold from the second step on, so mine those states only and
    # guard the candidates with the first-step flag.
    miner = Candidates(system, later if len(later) >= 2 else samples, facts, variables, latched)
    raw = [c for c in miner.base() if c not in given]
    base = guarded(raw)
    # Houdini runs to the end (the runner's timeout bounds it): a cut-off run proves nothing.
    proved = houdini(system, ctx, facts, base) or []
    if on_proved is not None and proved:
        on_proved(facts, proved)
    kept = set(proved)
    dropped = [c for c in raw if guard(c) not in kept]
    # An equality Houdini dropped may still hold as an inequality (``a + b + c <= n`` where a
    # step the simulation never took loses a token): retry both halves, plain and conditional.
    loose = [h for c in dropped for h in halves(mgr, c) if guard(h) not in kept]
    conditional = guarded([c for c in [*loose, *miner.conditional([*dropped, *loose])]
                           if c not in given])
    # No deadline check here either: skipping this stage on a busy machine made verdicts
    # depend on the load (the invariants of protocols under ``env`` are all conditional).
    if conditional:
        more = houdini(system, ctx, facts, [*proved, *conditional])
        if more is not None:
            proved = more
    # Equalities between array- and datatype-sorted registers, which no sample holds: proved
    # on their own, relative to the scalar invariants (so an undecided query costs only them).
    # (guarded by the first-step flag however few samples the simulation left: registers
    # are arbitrary at the first step)
    opaque_cands = [c if flag is None else mgr.Or(flag, c)
                    for c in miner.opaque_equalities(flag) if c not in given]
    if opaque_cands:
        held = houdini(system, ctx, [*facts, *proved], opaque_cands)
        proved = [*proved, *(held or [])]
    return facts, proved


