"""What the engines read off a system's structure, computed once per system and run.

IC3 and invariant generation need the same facts about a system before they start: its
registers and their next-state terms, the first-step flag, the state invariants ``trans``
implies, the lemmas that tie ``pre`` copies together, the "so far" flags (latches) and the
cone of what the step and the properties read.  A frontend that knows its registers and its
first-step flag says so in :class:`~kinduct.kernel.system.Structure`; for other systems (VMT
files, hand-built ones) the same facts are found in ``trans`` once.

:func:`analyze` memoises the result per system: the runner asks for it (through
:meth:`~kinduct.kernel.engine.Engine.prepare`) before it forks the engines that need it, so
every engine process inherits one analysis instead of computing its own.  Every lemma here is
checked by SMT (initiation and consecution) before it is used: the structure a frontend
declares speeds the analysis up but is never trusted for soundness.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver, SolverUnknown
from kinduct.kernel.engine import Engine
from kinduct.kernel.system import TransitionSystem, conjuncts


def opaque(v: FNode) -> bool:
    """Is ``v`` datatype- or array-sorted?  The engines mine and sample only the other
    (scalar) state; such variables stay in every relation the solver is asked about."""
    t = v.symbol_type()
    return t.is_array_type() or t.is_custom_type()


def possible(solver: Solver, assumptions: Sequence[FNode] = ()) -> bool:
    """``solver.check(assumptions)``, with a query the solver cannot decide (quantified
    assumptions beside array or datatype state) counted as satisfiable: every lemma and fact
    here rests on an unsat answer, so an undecided query only loses one."""
    try:
        return solver.check(list(assumptions))
    except SolverUnknown:
        return True


def register_updates(system: TransitionSystem) -> dict[FNode, FNode]:
    """Register -> next-state term over current-step variables: the frontend's
    :attr:`Structure.updates`, else the conjuncts ``next(v) = term`` of ``trans``."""
    if system.structure.updates:
        return dict(system.structure.updates)
    fv = system.env.fvo.get_free_variables
    to_cur = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}
    found: dict[FNode, FNode] = {}
    for c in conjuncts(system.trans):
        if not (c.is_equals() or c.is_iff()):
            continue
        a, b = c.args()
        for nv, term in ((a, b), (b, a)):
            if nv in to_cur and not fv(term) & set(to_cur):
                found.setdefault(to_cur[nv], term)
                break
    return found


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
    if not possible(solver, [mgr.Not(mgr.And(candidates))]):
        solver.reset()
        return candidates
    kept = [c for c in candidates if not possible(solver, [mgr.Not(c)])]
    solver.reset()
    return kept


def first_flag(system: TransitionSystem, solver: Solver) -> FNode | None:
    """A Boolean state variable true exactly in the initial states (Lustre's ``%first``):
    the frontend's :attr:`Structure.first`, else one that ``Init`` implies and ``trans``
    falsifies.  ``solver`` is left empty."""
    if system.structure.first is not None:
        return system.structure.first
    to_cur = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}
    falsified = [to_cur[c.arg(0)] for c in conjuncts(system.trans) if c.is_not() and c.arg(0) in to_cur]
    if not falsified:
        return None
    mgr = system.env.formula_manager
    solver.reset()
    solver.add(system.init)
    solver.add_all(system.assumptions)
    flag = next((f for f in falsified if not possible(solver, [mgr.Not(f)])), None)
    solver.reset()
    return flag


def copy_invariants(system: TransitionSystem, solver: Solver, flag: FNode | None = None) -> list[FNode]:
    """Registers whose next-state terms are the same agree after the first step.

    For two registers ``a' = e`` and ``b' = e`` the lemma is ``a = b`` when ``Init`` implies it,
    else ``f or a = b`` with ``f`` the first-step flag.  The lemmas are checked (initiation and
    consecution) before they are returned; ``solver`` is left empty."""
    env = system.env
    mgr = env.formula_manager
    groups: dict[FNode, list[FNode]] = {}
    for register, term in register_updates(system).items():
        groups.setdefault(term, []).append(register)
    order = {v: i for i, v in enumerate(system.state_vars)}
    pairs = []
    for group in groups.values():
        group.sort(key=order.__getitem__)
        pairs.extend((group[0], other) for other in group[1:])
    if not pairs:
        return []
    if flag is None:
        flag = first_flag(system, solver)
    solver.reset()
    solver.add(system.init)
    solver.add_all(system.assumptions)
    lemmas = []
    for a, b in pairs:
        eq = mgr.EqualsOrIff(a, b)
        if not possible(solver, [mgr.Not(eq)]):
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
    ok = not possible(solver, [mgr.Not(env.substituter.substitute(inv, system.next_map()))])
    solver.reset()
    return lemmas if ok else []


def latches(system: TransitionSystem, solver: Solver, first: FNode | None = None) -> list[FNode]:
    """Boolean state variables that may start true and never rise: no step (assumptions
    holding on both sides, not leaving the first step ``first``) goes from false to true.
    On systems with more than :data:`FEW_CANDIDATES` Boolean state variables the search is
    bounded (:data:`MAX_ROUNDS` models per question) and may find none.

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
    if len(bools) <= FEW_CANDIDATES:  # two cheap queries each, on one incremental solver
        found = [c for c, n in bools if possible(solver, [c]) and not possible(solver, [mgr.Not(c), n])]
    else:
        nexts = dict(bools)
        can_hold, _ = _witnessed(solver, list(nexts), lambda c: c, lambda c, model: model[c])
        rises, settled = _witnessed(solver, can_hold, lambda c: mgr.And(mgr.Not(c), nexts[c]),
                                    lambda c, model: not model[c] and model[nexts[c]])
        found = [c for c in can_hold if c not in set(rises)] if settled else []
    # A latch false in every initial state is just false: not a flag to split on.
    solver.reset()
    solver.add(system.init)
    solver.add_all(system.assumptions)
    if len(found) <= FEW_CANDIDATES:
        found = [c for c in found if possible(solver, [c])]
    else:
        found, _ = _witnessed(solver, found, lambda c: c, lambda c, model: model[c])
    solver.reset()
    return found


#: Up to this many candidate flags, :func:`latches` asks two questions per flag; beyond, it
#: asks one question per model (:func:`_witnessed`), which a large system needs (2,204 flags
#: of test-issue-123.lus took minutes one by one).
FEW_CANDIDATES = 128
#: Models :func:`_witnessed` asks for before it gives up on the candidates still open.
MAX_ROUNDS = 32


def _witnessed(solver: Solver, candidates: list[FNode], goal: Callable[[FNode], FNode],
               shown: Callable[[FNode, dict], bool]) -> tuple[list[FNode], bool]:
    """The candidates ``c`` for which ``goal(c)`` is satisfiable beside ``solver``'s
    assertions (in their order), and whether every other candidate was shown not to be.

    One query per model, not per candidate: each model settles every candidate it ``shown`` to
    satisfy its goal.  After :data:`MAX_ROUNDS` models the candidates still open are counted
    as witnessed, and the answer says that they were not settled."""
    mgr = solver.env.formula_manager
    open_ = list(candidates)
    yes: set[FNode] = set()
    for _ in range(MAX_ROUNDS):
        if not open_:
            break
        goals = [goal(c) for c in open_]
        solver.push()
        solver.add(mgr.Or(goals))
        try:
            model = solver.values(_symbols_of(solver, goals)) if solver.check() else None
        except SolverUnknown:  # undecided: every candidate counts as witnessed, unsettled
            solver.pop()
            return list(candidates), False
        solver.pop()
        if model is None:
            return [c for c in candidates if c in yes], True
        settled = {c for c in open_ if shown(c, model)}
        if not settled:  # a model that shows none of its goals: ask one candidate at a time
            settled = set(open_)
            yes |= {c for c in open_ if _satisfiable(solver, goal(c))}
        else:
            yes |= settled
        open_ = [c for c in open_ if c not in settled]
    yes.update(open_)
    return [c for c in candidates if c in yes], not open_


def _satisfiable(solver: Solver, formula: FNode) -> bool:
    solver.push()
    solver.add(formula)
    try:
        return possible(solver)
    finally:
        solver.pop()


def _symbols_of(solver: Solver, formulas: list[FNode]) -> list[FNode]:
    fv = solver.env.fvo.get_free_variables
    out: set[FNode] = set()
    for f in formulas:
        out |= fv(f)
    return sorted(out, key=lambda v: v.symbol_name())


class Cone:
    """Which state variables a predecessor cube and a bad-state cube need to mention.

    Frontends such as nuXmv's VMT output or the Lustre translation keep many variables IC3 need
    not describe a state with.  *Registers* are the state variables ``trans`` constrains in the
    next state (the frontend's declared updates, and what the relational rest of ``trans``
    constrains); the others are *wires*, set within a step by the assumptions (the Lustre
    translation defines every stream that way and only copies ``pre`` registers in ``trans``).
    A wire in a cube cannot be blocked (nothing constrains it after a step), and many registers
    are never read by the next step (nuXmv's ``xite12`` keeps a value of the step that produced
    the state).  The cone of a set of *roots* closes it under the current-step constraints that
    mention one of its wires or one of its inputs, and keeps its registers: two reachable states
    that agree on them (with the same inputs) agree on the roots.  :meth:`step` roots at what
    ``trans`` reads, :meth:`prop` at a property.  Projected cubes are a heuristic for precision
    only: IC3 confirms every counterexample chain on a concrete unrolling.
    """

    def __init__(self, system: TransitionSystem, facts: Sequence[FNode], solver: Solver) -> None:
        env = system.env
        mgr = env.formula_manager
        fv = env.fvo.get_free_variables
        self.system = system
        self.states = set(system.state_vars)
        self.inputs = set(system.input_vars)
        to_cur = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}
        declared = system.structure.updates
        next_of = system.next_map()
        update_conjuncts = {mgr.EqualsOrIff(next_of[r], t) for r, t in declared.items()}
        self.registers: set[FNode] = set(declared)
        self.reads: set[FNode] = set()
        for term in declared.values():
            self.reads |= fv(term) & (self.states | self.inputs)
        local: list[tuple[FNode, frozenset]] = []
        for c in conjuncts(system.trans):
            if c in update_conjuncts:
                continue
            free = fv(c)
            nexts = {to_cur[v] for v in free if v in to_cur}
            if nexts:
                self.registers |= nexts
                self.reads |= free & (self.states | self.inputs)
            else:
                local.append((c, frozenset(free)))
        self.constraints: list[frozenset] = [frozenset(fv(c)) for a in system.assumptions
                                             for c in conjuncts(a)]
        self.constraints.extend(free for _, free in local if free & self.inputs)
        # A current-step conjunct of trans over state variables alone that the facts do not
        # imply restricts which states have successors: the step reads its variables too.
        state_only = [c for c, free in local if not free & self.inputs]
        if state_only:
            solver.reset()
            solver.add_all(facts)
            solver.add_all(system.assumptions)
            if possible(solver, [mgr.Not(mgr.And(state_only))]):
                for c in state_only:
                    if possible(solver, [mgr.Not(c)]):
                        self.reads |= fv(c) & self.states
            solver.reset()

    def cone(self, roots: set[FNode]) -> list[FNode]:
        """The registers of the closure of ``roots`` (in state-variable order)."""
        support = roots & self.states
        live = roots & self.inputs
        changed = True
        while changed:
            changed = False
            for free in self.constraints:
                if free & live or (free & support) - self.registers:
                    grow_s, grow_i = (free & self.states) - support, (free & self.inputs) - live
                    if grow_s or grow_i:
                        support |= grow_s
                        live |= grow_i
                        changed = True
        return [v for v in self.system.state_vars if v in support and v in self.registers]

    def step(self) -> list[FNode]:
        return self.cone(set(self.reads))

    def prop(self, formula: FNode) -> list[FNode]:
        return self.cone(set(self.system.env.fvo.get_free_variables(formula)))


@attrs.frozen(eq=False)
class SystemAnalysis:
    """What :func:`analyze` found; the same for every engine and every round.

    - ``facts``: state invariants ``trans`` implies and the copy lemmas (all checked).
    - ``first``: the first-step flag, or None.
    - ``latches``: the "so far" flags (:func:`latches`).
    - ``cone``: the :class:`Cone` of the system, built over ``facts``.
    - ``registers``: the registers in the cone of the step and of the properties, or None when
      that is every state variable (invariant candidates are written over them).
    """

    facts: tuple[FNode, ...]
    first: FNode | None
    latches: tuple[FNode, ...]
    cone: Cone
    registers: tuple[FNode, ...] | None


_ANALYSES: weakref.WeakKeyDictionary[TransitionSystem, SystemAnalysis] = weakref.WeakKeyDictionary()


def compute(system: TransitionSystem, make_solver: Callable[[], Solver]) -> SystemAnalysis:
    solver = make_solver()
    try:
        first = first_flag(system, solver)
        facts = trans_state_invariants(system, solver)
        facts += [c for c in copy_invariants(system, solver, first) if c not in set(facts)]
        cone = Cone(system, facts, solver)
        regs = set(cone.step())
        for prop in system.properties:
            regs.update(cone.prop(prop.obligation(system.env)))
        registers = tuple(v for v in system.state_vars if v in regs) \
            if 0 < len(regs) < len(system.state_vars) else None
        return SystemAnalysis(tuple(facts), first, tuple(latches(system, solver, first)), cone, registers)
    finally:
        solver.close()


def analyze(system: TransitionSystem, make_solver: Callable[[], Solver]) -> SystemAnalysis:
    """The system's :class:`SystemAnalysis`, computed on the first call and then reused (the
    runner calls this before forking, so engine processes inherit it)."""
    found = _ANALYSES.get(system)
    if found is None:
        found = compute(system, make_solver)
        _ANALYSES[system] = found
    return found


class AnalysingEngine(Engine):
    """An engine that starts from the system's :class:`SystemAnalysis`: the runner computes it
    in :meth:`prepare`, before forking the engine, so that engines share one analysis."""

    prepares = True

    def prepare(self, system: TransitionSystem, make_solver: Callable[[], Solver]) -> None:
        if any(opaque(v) for v in (*system.state_vars, *system.input_vars)):
            # ic3 declines array and datatype state, and the analysis of such a system (whose
            # queries may be quantified) is left to invgen's own process, not the runner's.
            return
        analyze(system, make_solver)
