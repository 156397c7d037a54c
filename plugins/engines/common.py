"""Pieces every SAT-based engine shares: trace extraction and known-invariant intake."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence

from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver, SolverUnknown
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.lemmas import parse_lemmas
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Answer, Trace, Verdict

CheckMethod = Callable[[Engine, TransitionSystem, Sequence[Property], EngineContext],
                       Iterator[Verdict]]


def unknown_on_solver_failure(check: CheckMethod) -> CheckMethod:
    """Wrap an engine's ``check``: when the solver cannot decide a query (it answers unknown,
    or refuses a term outside its logic), every property the engine has not decided yet is
    answered ``unknown`` with the solver's reason, instead of the engine crashing."""

    @functools.wraps(check)
    def wrapper(self: Engine, system: TransitionSystem, properties: Sequence[Property],
                ctx: EngineContext) -> Iterator[Verdict]:
        decided: set[str] = set()
        try:
            for verdict in check(self, system, properties, ctx):
                if verdict.answer.definitive:
                    decided.add(verdict.property)
                yield verdict
        except SolverUnknown as exc:
            reason = f"the solver could not decide a query: {exc}"
            for prop in properties:
                if prop.name not in decided:
                    yield Verdict(prop.name, Answer.UNKNOWN, engine=self.name, message=reason)

    return wrapper


def extract_trace(solver: Solver, unroller: Unroller, last: int, first: int = 0) -> Trace:
    """Read steps ``first..last`` of the current model in one batch."""
    system = unroller.system
    timed = [(k, v, unroller.timed(v, k)) for k in range(first, last + 1)
             for v in system.current_vars]
    values = solver.values([t for _, _, t in timed])
    steps: list[dict] = [{} for _ in range(first, last + 1)]
    for k, var, t in timed:
        steps[k - first][var.symbol_name()] = values[t]
    return Trace.of(steps)


def state_vector(unroller: Unroller, k: int) -> list[FNode]:
    return [unroller.timed(v, k) for v in unroller.system.state_vars]


class InvariantIntake:
    """Lemmas published by other engines, parsed once, ready to assert at any step."""

    def __init__(self, system: TransitionSystem, ctx: EngineContext) -> None:
        self.system = system
        self.ctx = ctx
        self.lemmas: list[FNode] = []

    def poll(self) -> list[FNode]:
        """Newly arrived lemmas (over current-step variables)."""
        texts = self.ctx.poll_invariants()
        if not texts:
            return []
        fresh = parse_lemmas(self.system, texts)
        self.lemmas.extend(fresh)
        return fresh


def conjuncts(formula: FNode) -> list[FNode]:
    """The top-level conjuncts of ``formula`` (nested ``and`` flattened)."""
    out: list[FNode] = []
    stack = [formula]
    while stack:
        f = stack.pop()
        if f.is_and():
            stack.extend(reversed(f.args()))
        elif not f.is_true():
            out.append(f)
    return out


def trans_state_invariants(system: TransitionSystem, solver: Solver) -> list[FNode]:
    """Conjuncts of ``trans`` over next-state variables only, renamed to current, that ``Init``
    (with the assumptions) implies: they hold at step 0 by ``Init`` and at every later step by
    ``trans``, hence in every reachable state.  (VMT files from nuXmv state every combinational
    definition this way.)  ``solver`` is used for the check and left empty."""
    env = system.env
    mgr = env.formula_manager
    nexts = set(system.next_vars)
    to_cur = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}
    candidates = []
    for c in conjuncts(system.trans):
        free = env.fvo.get_free_variables(c)
        if free and free <= nexts:
            candidates.append(env.substituter.substitute(c, to_cur))
    if not candidates:
        return []
    solver.reset()
    solver.add(system.init)
    solver.add_all(system.assumptions)
    if not solver.check([mgr.Not(mgr.And(candidates))]):
        solver.reset()
        return candidates
    kept = [c for c in candidates if not solver.check([mgr.Not(c)])]
    solver.reset()
    return kept


def copy_invariants(system: TransitionSystem, solver: Solver) -> list[FNode]:
    """Registers that ``trans`` sets to the same current-step term agree after the first step.

    The Lustre translation keeps one register per ``pre`` occurrence (each is arbitrary at step
    0), so ``pre x`` read in five places is five registers that only a relation ties together,
    and IC3 would learn it one cube at a time.  For two registers ``a' = e`` and ``b' = e`` the
    lemma is ``a = b`` when ``Init`` implies it, else ``f or a = b`` with ``f`` a first-step flag
    (``Init`` implies ``f``, ``trans`` falsifies it).  The lemmas are checked (initiation and
    consecution) before they are returned; ``solver`` is left empty."""
    env = system.env
    mgr = env.formula_manager
    fv = env.fvo.get_free_variables
    to_cur = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}
    groups: dict[FNode, list[FNode]] = {}
    for c in conjuncts(system.trans):
        if not (c.is_equals() or c.is_iff()):
            continue
        a, b = c.args()
        for nv, e in ((a, b), (b, a)):
            if nv in to_cur and not fv(e) & set(to_cur):
                groups.setdefault(e, []).append(to_cur[nv])
                break
    pairs = [(g[0], other) for g in groups.values() if len(g) > 1 for other in g[1:]]
    if not pairs:
        return []
    flag = first_flag(system, solver)
    solver.reset()
    solver.add(system.init)
    solver.add_all(system.assumptions)
    lemmas = []
    for a, b in pairs:
        eq = mgr.EqualsOrIff(a, b)
        if not solver.check([mgr.Not(eq)]):
            lemmas.append(eq)
        elif flag is not None:
            lemmas.append(mgr.Or(flag, eq))
    solver.reset()
    if not lemmas:
        return []
    inv = mgr.And(lemmas)
    solver.add(inv)
    solver.add_all(system.assumptions)
    solver.add(system.trans)
    ok = not solver.check([mgr.Not(env.substituter.substitute(inv, system.next_map()))])
    solver.reset()
    return lemmas if ok else []


def first_flag(system: TransitionSystem, solver: Solver) -> FNode | None:
    """A Boolean state variable true exactly in the initial states (Lustre's ``%first``):
    ``Init`` implies it and ``trans`` falsifies it.  ``solver`` is left empty."""
    to_cur = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}
    falsified = [to_cur[c.arg(0)] for c in conjuncts(system.trans) if c.is_not() and c.arg(0) in to_cur]
    if not falsified:
        return None
    mgr = system.env.formula_manager
    solver.reset()
    solver.add(system.init)
    solver.add_all(system.assumptions)
    flag = next((f for f in falsified if not solver.check([mgr.Not(f)])), None)
    solver.reset()
    return flag


def latches(system: TransitionSystem, solver: Solver, first: FNode | None = None) -> list[FNode]:
    """Boolean state variables that may start true and never rise: no step (assumptions
    holding on both sides, not leaving the first step ``first``) goes from false to true.

    These are the "so far" flags of synchronous programs (Lustre's ``Sofar(env)``, nuXmv's
    ``historically``): properties read ``env => ...``, and what holds while the flag does is
    where the invariants are.  ``first`` (the first-step flag, which also never rises) is
    left out (registers are arbitrary in the first step, so ``pre sofar`` may rise from it);
    ``solver`` is left empty."""
    env = system.env
    mgr = env.formula_manager
    bools = [(c, n) for c, n in zip(system.state_vars, system.next_vars, strict=True)
             if c.symbol_type().is_bool_type() and c is not first]
    if not bools:
        return []
    ahead_inputs = {i: mgr.FreshSymbol(i.symbol_type(), template="__latch_in_%d")
                    for i in system.input_vars}
    shift = {**system.next_map(), **ahead_inputs}
    solver.reset()
    solver.add(system.trans)
    solver.add_all(system.assumptions)
    solver.add_all(env.substituter.substitute(a, shift) for a in system.assumptions)
    if first is not None:
        solver.add(mgr.Not(first))
    found = [c for c, n in bools if solver.check([c]) and not solver.check([mgr.Not(c), n])]
    # A latch false in every initial state is just false: not a flag to split on.
    solver.reset()
    solver.add(system.init)
    solver.add_all(system.assumptions)
    found = [c for c in found if solver.check([c])]
    solver.reset()
    return found
