"""The IC3/PDR core shared by the ``ic3`` and ``ic3ia`` engines (the shape of Pono's ``IC3Base``).

Frames ``F_1 .. F_k`` are kept in *delta* form on one incremental solver: a lemma learnt at level
``j`` is asserted as ``act_j -> lemma`` and ``F_i`` is queried by assuming ``act_j`` for every
``j >= i``; ``F_0`` is ``Init`` behind its own activation literal and the transition relation
sits behind ``act_T`` (the bad-state query must not require a successor to exist).

The template methods a variant overrides are :meth:`IC3Base.state_cube` (how a model becomes a
cube, see :mod:`~kinduct.plugins.engines.vocab`), :meth:`IC3Base.generalize_predecessor`
(shrinking a predecessor cube; here an unsat core on the functional part of ``T``),
:meth:`IC3Base.generalize` (inductive generalisation with counterexamples to generalisation) and
:meth:`IC3Base.confirm` (turning an obligation chain into a concrete trace).

Cubes are written over the *registers in a cone* (:class:`~kinduct.plugins.engines.analysis.Cone`):
predecessor cubes over what the next step reads, bad-state cubes over what the property tests,
never over wires that the assumptions set within a step (the Lustre translation) nor over
registers no step reads (nuXmv's VMT output keeps dozens).  On those translations this shrinks a
cube from hundreds of literals to a few dozen, and makes the Lustre encoding's cubes blockable at
all.  A projected chain that does not replay switches projection off.

Soundness does not rest on the frames alone: before ``valid`` is reported the inductive
invariant is re-checked on a fresh solver (:func:`kinduct.kernel.certify.check_invariant`) and
travels with the verdict as SMT-LIB text; a counterexample is re-solved on a concrete unrolling
and is replayed by the runner.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import constant
from kinduct.kernel.certify import check_invariant
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.errors import EngineRefusal
from kinduct.kernel.lemmas import to_smtlib
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Answer, Trace, Verdict
from kinduct.plugins.engines.analysis import Cone, analyze
from kinduct.plugins.engines.common import InvariantIntake, extract_trace
from kinduct.plugins.engines.vocab import Vocabulary

#: Rebuild the main solver after this many queries (proxy literals pile up in it).
RESET_EVERY = 4000
#: Counterexamples to generalisation tried per dropped literal.
CTG_MAX = 3
#: Queries spent loosening one numeric bound of a lemma.
WEAKEN_STEPS = 16


def quantified(system: TransitionSystem) -> bool:
    """Whether a formula of ``system`` (init, trans, an assumption, a property) quantifies."""
    qf = system.env.qfo.is_qf
    formulas = [system.init, system.trans, *system.assumptions,
                *(p.formula for p in system.properties)]
    return not all(qf(f) for f in formulas)


def unhandled(system: TransitionSystem, properties: Sequence[Property],
              engine: str) -> list[Verdict]:
    """What an IC3 variant named ``engine`` says before it starts: an
    :class:`~kinduct.kernel.errors.EngineRefusal` unless every state variable is Boolean, integer
    or real; one ``unknown`` per property when a formula quantifies (cubes, generalisation and
    projection are quantifier-free); nothing when it can work on ``system``."""
    def arithmetic(v: FNode) -> bool:
        t = v.symbol_type()
        return t.is_bool_type() or t.is_int_type() or t.is_real_type()

    unsupported = [v for v in system.state_vars if not arithmetic(v)]
    if unsupported:
        raise EngineRefusal(f"{engine} handles Bool/Int/Real state, not "
                            f"{unsupported[0].symbol_type()}")
    if not quantified(system):
        return []
    return [Verdict(p.name, Answer.UNKNOWN, message=f"{engine}: the system has quantified "
                    f"formulas, which {engine} does not handle (bmc and kind do)")
            for p in properties]


def _bound(lit: FNode) -> tuple[FNode, int, bool] | None:
    """``(term, c, True)`` for ``c <= term``, ``(term, c, False)`` for ``term <= c`` (c integer)."""
    if not lit.is_le():
        return None
    a, b = lit.args()
    if a.is_constant() and not b.is_constant() and a.is_int_constant():
        return b, a.constant_value(), True
    if b.is_constant() and not a.is_constant() and b.is_int_constant():
        return a, b.constant_value(), False
    return None


class OutOfTime(Exception):
    """The engine's own deadline passed (in-process use; the runner kills engines anyway)."""


@attrs.define(eq=False)
class Obligation:
    """Show that ``cube`` is unreachable within ``level`` steps; ``parent`` is its successor."""

    cube: tuple[FNode, ...]
    level: int
    parent: Obligation | None = None
    depth: int = 0


class IC3Base:
    """One IC3 run over a system; frames are shared by the properties decided in turn."""

    def __init__(self, system: TransitionSystem, ctx: EngineContext,
                 seeds: Sequence[FNode] | None = None) -> None:
        self.system = system
        self.ctx = ctx
        self.env = system.env
        self.mgr = system.env.formula_manager
        self.vocab = Vocabulary(system)
        self.prime_map = system.next_map()
        self._primed: dict[FNode, FNode] = {}
        self.act_init = self.mgr.FreshSymbol(template="__ic3_init_%d")
        self.act_trans = self.mgr.FreshSymbol(template="__ic3_trans_%d")
        self.acts: list[FNode] = [self.act_init]  # acts[j] guards level-j lemmas; 0 unused
        self.levels: list[list[tuple[FNode, ...]]] = [[]]
        self.forever: list[FNode] = []  # invariants known from elsewhere or proved here
        self.intake = InvariantIntake(system, ctx)
        self.assumptions = self.mgr.And(system.assumptions)
        self.queries = 0
        self.generalize_predecessors = True
        self.solver = ctx.make_solver()
        self._load_main()
        self.init_solver = ctx.make_solver()
        self.init_solver.add(system.init)
        self.init_solver.add(self.assumptions)
        self.gen_solver = ctx.make_solver()
        #: Predecessor and bad-state cubes mention only the registers in the cone of what the
        #: step reads or the property tests (see ``Cone``); switched off if a projected
        #: obligation chain ever proves spurious.
        if seeds is None:
            analysis = analyze(system, ctx.make_solver)
            seeds, self.cone = analysis.facts, analysis.cone
        else:
            self.cone = Cone(system, seeds, self.gen_solver)
        for lemma in seeds:
            self.add_forever(lemma)
        step = self.cone.step()
        self.pvocab = Vocabulary(system, support=step) \
            if step and len(step) < len(system.state_vars) else self.vocab
        self.project = self.pvocab is not self.vocab
        self._bad_vocab: dict[FNode, Vocabulary] = {}
        self.gen_solver.add(self.mgr.Implies(self.act_trans, system.trans))
        # Every state satisfies the assumptions: wires defined by them follow the registers.
        self.gen_solver.add(self.assumptions)
        self._counter = itertools.count()
        self.stats = {"lemmas": 0, "obligations": 0, "ctg": 0}
        self.seeded = 0  # invariant-generation rounds done (see ``IC3.check``)
        self.deadline: float | None = ctx.deadline
        #: Called before each new frame (the engine hooks invariant seeding in here).
        self.on_level: Callable[[], None] = lambda: None

    # -- frames -------------------------------------------------------------------------------
    def _load_main(self) -> None:
        s = self.solver
        mgr = self.mgr
        s.add(self.assumptions)
        s.add(mgr.Implies(self.act_init, self.system.init))
        s.add(mgr.Implies(self.act_trans, self.system.trans))
        for lemma in self.forever:
            s.add(lemma)
        for j in range(1, len(self.levels)):
            for cube in self.levels[j]:
                s.add(mgr.Implies(self.acts[j], self.clause(cube)))

    def _maybe_reset(self) -> None:
        self.queries += 1
        if self.deadline is not None and self.queries % 16 == 0 and time.monotonic() > self.deadline:
            raise OutOfTime
        if self.queries % 64 == 0:
            self.poll_invariants()
            self.on_level()
        if self.queries % RESET_EVERY == 0:
            self.solver.reset()
            self._load_main()

    def new_level(self) -> None:
        self.acts.append(self.mgr.FreshSymbol(template="__ic3_F%d"))
        self.levels.append([])

    @property
    def top(self) -> int:
        return len(self.levels) - 1

    def frame(self, i: int) -> list[FNode]:
        """Assumptions selecting ``F_i``."""
        acts = self.acts[max(i, 1):]
        return [self.act_init, *acts] if i == 0 else list(acts)

    def clause(self, cube: Sequence[FNode]) -> FNode:
        return self.mgr.Not(self.mgr.And(cube))

    def prime(self, lit: FNode) -> FNode:
        p = self._primed.get(lit)
        if p is None:
            p = self.env.substituter.substitute(lit, self.prime_map)
            self._primed[lit] = p
        return p

    def add_lemma(self, cube: tuple[FNode, ...], level: int) -> int:
        """Assert ``not cube`` at the highest level (up to ``top``) it is inductive relative to."""
        while level < self.top:
            ok, _ = self.relative_induction(cube, level, want_core=False)
            if not ok:
                break
            level += 1
        self.levels[level].append(cube)
        self.solver.add(self.mgr.Implies(self.acts[level], self.clause(cube)))
        self.stats["lemmas"] += 1
        return level

    def add_forever(self, lemma: FNode) -> None:
        self.forever.append(lemma)
        self.solver.add(lemma)

    # -- queries ------------------------------------------------------------------------------
    def intersects_init(self, cube: Sequence[FNode]) -> bool:
        return self.init_solver.check(list(cube))

    def repair_init(self, small: Sequence[FNode], full: Sequence[FNode]) -> tuple[FNode, ...]:
        """Grow ``small`` with literals of ``full`` (disjoint from Init) until it is disjoint too."""
        if not self.intersects_init(small):
            return tuple(small)
        keep = set(small)
        rest = [lit for lit in full if lit not in keep]
        if self.init_solver.check([*small, *rest]):  # cannot happen: full is disjoint from Init
            return tuple(full)
        keep.update(self.init_solver.unsat_core())
        return tuple(lit for lit in full if lit in keep)

    def relative_induction(self, cube: Sequence[FNode], level: int,
                           want_core: bool = True) -> tuple[bool, tuple[FNode, ...] | None]:
        """Is ``F_level and not cube and T => not cube'``?  (True, core) or (False, None)."""
        self._maybe_reset()
        primed = [self.prime(lit) for lit in cube]
        assumptions = [*self.frame(level), self.act_trans, *primed]
        if level > 0:
            assumptions.append(self.clause(cube))
        if self.solver.check(assumptions):
            return False, None
        if not want_core:
            return True, None
        core = set(self.solver.unsat_core())
        return True, tuple(lit for lit, p in zip(cube, primed, strict=True) if p in core)

    def bad_vocab(self, goal: FNode) -> Vocabulary:
        """The vocabulary of bad-state cubes for ``goal``: the registers of its cone."""
        vocab = self._bad_vocab.get(goal)
        if vocab is None:
            regs = self.cone.prop(goal)
            vocab = Vocabulary(self.system, support=regs) \
                if regs and len(regs) < len(self.system.state_vars) else self.vocab
            self._bad_vocab[goal] = vocab
        return vocab

    def state_cube(self, projected: bool = False, vocab: Vocabulary | None = None
                   ) -> tuple[tuple[FNode, ...], dict[FNode, FNode]]:
        """The cube of the current model's state and the model's input constants (over the
        step cone only when ``projected``, over ``vocab`` when given)."""
        if vocab is None or not self.project:
            vocab = self.pvocab if projected and self.project else self.vocab
        vals = self.solver.values([*vocab.terms, *self.system.input_vars])
        cube = tuple(vocab.cube(vals))
        inputs = {v: constant(self.mgr, v, vals[v]) for v in self.system.input_vars}
        return cube, inputs

    def generalize_predecessor(self, cube: tuple[FNode, ...], inputs: dict[FNode, FNode],
                               target: FNode, with_trans: bool) -> tuple[FNode, ...]:
        """A subset of ``cube`` whose every state, with these inputs, lands in ``target``.

        Sound when ``T`` is total on the states kept; :meth:`confirm` checks the chain anyway
        and switches this off if it ever was not.
        """
        if not self.generalize_predecessors:
            return cube
        mgr = self.mgr
        fixed = [mgr.EqualsOrIff(v, c) for v, c in inputs.items()]
        acts = [self.act_trans] if with_trans else []
        if self.gen_solver.check([*acts, *fixed, mgr.Not(target), *cube]):
            return cube
        core = set(self.gen_solver.unsat_core())
        kept = tuple(lit for lit in cube if lit in core)
        return kept or cube[:1]

    def get_bad(self, goal: FNode, level: int) -> Obligation | None:
        self._maybe_reset()
        bad = self.mgr.Not(goal)
        if not self.solver.check([*self.frame(level), bad]):
            return None
        cube, inputs = self.state_cube(vocab=self.bad_vocab(goal))
        cube = self.generalize_predecessor(cube, inputs, bad, False)
        return Obligation(cube, level)

    def predecessor(self, ob: Obligation) -> Obligation:
        cube, inputs = self.state_cube(projected=True)
        target = self.mgr.And([self.prime(lit) for lit in ob.cube])
        cube = self.generalize_predecessor(cube, inputs, target, True)
        return Obligation(cube, ob.level - 1, ob, ob.depth + 1)

    # -- generalisation -----------------------------------------------------------------------
    def generalize(self, cube: tuple[FNode, ...], level: int) -> tuple[FNode, ...]:
        """Drop literals while ``not cube`` stays inductive relative to ``F_{level-1}``."""
        lits = list(cube)
        for lit in list(cube):
            if lit not in lits or len(lits) == 1:
                continue
            cand = [x for x in lits if x is not lit]
            if self.intersects_init(cand):
                continue
            for _ in range(CTG_MAX + 1):
                ok, core = self.relative_induction(cand, level - 1)
                if ok:
                    lits = list(self.repair_init(core or cand, cand))
                    break
                if not self._block_ctg(level - 1):
                    break
        return self.weaken(tuple(lits), level)

    def weaken(self, cube: tuple[FNode, ...], level: int) -> tuple[FNode, ...]:
        """Loosen numeric bounds of ``cube`` (``y >= 7579`` towards ``y >= 3``) while it stays
        disjoint from Init and ``not cube`` inductive relative to ``F_{level-1}``: without it a
        counter is blocked one value at a time."""
        lits = list(cube)
        for idx in range(len(lits)):
            bound = _bound(lits[idx])
            if bound is None:
                continue
            term, value, lower = bound
            mgr = self.mgr

            def make(c: FNode, t: FNode = term, low: bool = lower) -> FNode:
                return self.mgr.LE(c, t) if low else self.mgr.LE(t, c)

            typed = mgr.Int if term.get_type().is_int_type() else mgr.Real
            step, good, bad = 1, value, None
            # Jump to 0 first when it lies on the loosening side (counters start there).
            first = 0 if (value > 1 if lower else value < -1) else None
            for _ in range(WEAKEN_STEPS):
                if bad is None:
                    if first is not None:
                        trial, first = first, None
                    else:
                        trial = good - step if lower else good + step
                        step *= 2
                else:
                    trial = (good + bad) // 2
                    if trial in (good, bad):
                        break
                new = make(typed(trial))
                if new in lits:
                    break
                cand = [*lits[:idx], new, *lits[idx + 1:]]
                ok = not self.intersects_init(cand) and self.relative_induction(
                    cand, level - 1, want_core=False)[0]
                if ok:
                    good = trial
                    lits = cand
                else:
                    bad = trial
        return tuple(lits)

    def _block_ctg(self, level: int) -> bool:
        """The last query's predecessor is a counterexample to generalisation: block it at
        ``level`` if it is unreachable in one step from ``F_{level-1}`` (no recursion)."""
        if level < 1:
            return False
        ctg, _ = self.state_cube(projected=True)
        if self.intersects_init(ctg):
            return False
        ok, core = self.relative_induction(ctg, level - 1)
        if not ok:
            return False
        self.stats["ctg"] += 1
        self.add_lemma(self.repair_init(core or ctg, ctg), level)
        return True

    # -- main loop ----------------------------------------------------------------------------
    def block(self, first: Obligation) -> list[Obligation] | None:
        """Block ``first`` and everything it leads to; a chain from Init if it cannot be."""
        heap: list[tuple[int, int, int, Obligation]] = []
        heapq.heappush(heap, (first.level, 0, next(self._counter), first))
        while heap:
            _, _, _, ob = heapq.heappop(heap)
            self.stats["obligations"] += 1
            if ob.level == 0 or self.intersects_init(ob.cube):
                return self._chain(ob)
            ok, core = self.relative_induction(ob.cube, ob.level - 1)
            if ok:
                small = self.repair_init(core or ob.cube, ob.cube)
                lemma = self.generalize(small, ob.level)
                level = self.add_lemma(lemma, ob.level)
                if level < self.top:
                    heapq.heappush(heap, (level + 1, ob.depth, next(self._counter),
                                          attrs.evolve(ob, level=level + 1)))
            else:
                pred = self.predecessor(ob)
                heapq.heappush(heap, (pred.level, pred.depth, next(self._counter), pred))
                heapq.heappush(heap, (ob.level, ob.depth, next(self._counter), ob))
        return None

    @staticmethod
    def _chain(ob: Obligation) -> list[Obligation]:
        chain = []
        node: Obligation | None = ob
        while node is not None:
            chain.append(node)
            node = node.parent
        return chain

    def propagate(self) -> int | None:
        """Push lemmas forward; the level ``i`` with ``F_i = F_{i+1}`` if there is one."""
        for i in range(1, self.top):
            for cube in list(self.levels[i]):
                ok, _ = self.relative_induction(cube, i, want_core=False)
                if ok:
                    self.levels[i].remove(cube)
                    self.levels[i + 1].append(cube)
                    self.solver.add(self.mgr.Implies(self.acts[i + 1], self.clause(cube)))
            if not self.levels[i]:
                return i
        return None

    def invariant_at(self, i: int) -> FNode:
        """``F_{i+1}`` together with the lemmas known forever, as one formula."""
        parts = [*self.forever]
        for j in range(i + 1, len(self.levels)):
            parts.extend(self.clause(c) for c in self.levels[j])
        return self.env.simplifier.simplify(self.mgr.And(parts)) if parts else self.mgr.TRUE()

    def confirm(self, chain: list[Obligation], goal: FNode) -> Trace | None:
        """A concrete execution through the chain's cubes, or None when the chain is spurious."""
        mgr = self.mgr
        n = len(chain) - 1
        ub = Unroller(self.system)
        s = self.ctx.make_solver()
        try:
            s.add(ub.at(self.system.init, 0))
            for j, ob in enumerate(chain):
                s.add(ub.at(self.assumptions, j))
                s.add(ub.at(mgr.And(ob.cube), j))
                if j < n:
                    s.add(ub.at(self.system.trans, j))
            s.add(ub.at(mgr.Not(goal), n))
            if not s.check():
                return None
            return extract_trace(s, ub, n)
        finally:
            s.close()

    def spurious(self, chain: list[Obligation], goal: FNode) -> None:
        """React to an obligation chain from Init to ``not goal`` that :meth:`confirm` found
        spurious: make cubes more exact (no projection, then no predecessor generalisation).
        A variant that abstracts refines its abstraction here."""
        del chain, goal
        if self.project:
            self.project = False
        elif self.generalize_predecessors:
            self.generalize_predecessors = False
        else:
            raise RuntimeError("ic3: an exact obligation chain did not replay")

    def poll_invariants(self) -> None:
        for lemma in self.intake.poll():
            if self.env.fvo.get_free_variables(lemma) <= set(self.system.state_vars):
                self.add_forever(lemma)

    def decide(self, prop: Property) -> Verdict:
        goal = prop.obligation(self.env)
        max_k = self.ctx.max_k
        level = 0
        while True:
            self.poll_invariants()
            self.on_level()
            while True:
                bad = self.get_bad(goal, level)
                if bad is None:
                    break
                chain = self.block(bad)
                if chain is None:
                    continue
                trace = self.confirm(chain, goal)
                if trace is not None:
                    return Verdict(prop.name, Answer.FALSIFIABLE, k=len(trace) - 1, trace=trace)
                self.spurious(chain, goal)
            # F_level (a superset of the states reachable in 0..level steps) excludes not goal
            self.ctx.reached([prop.name], level)
            if level >= self.top:
                self.new_level()
            fixed = self.propagate()
            if fixed is not None and fixed <= level:
                inv = self.invariant_at(fixed)
                checker = self.ctx.make_solver()
                problem = check_invariant(self.system, prop, inv, checker)
                checker.close()
                if problem is None:
                    for lemma in self._conjuncts(inv):
                        if lemma not in self.forever:
                            self.add_forever(lemma)
                    return Verdict(prop.name, Answer.VALID, k=fixed, invariant=to_smtlib(inv))
                return Verdict(prop.name, Answer.UNKNOWN, k=fixed,
                               message=f"ic3: invariant candidate rejected ({problem})")
            level += 1
            if max_k is not None and level > max_k:
                return Verdict(prop.name, Answer.UNKNOWN, k=max_k,
                               message=f"no inductive invariant within {max_k} frames")

    def _conjuncts(self, f: FNode) -> list[FNode]:
        return list(f.args()) if f.is_and() else [f]
