"""One-state invariant generation over a graph of Boolean terms (Kind 2's ``invgenos``).

The candidate *terms* are the system's Boolean state variables (wires included) and their
negations, and threshold atoms ``x <= c`` and ``c <= x`` over its numeric state variables: the
constants ``x`` is compared with in the system (also through a copy register ``r' = x``), ``0``
for an integer, and every value of ``x`` sampled when it takes few.  Reachable states (simulated
runs, then bounded model checking from ``Init`` at each depth up to a small bound until no
candidate fails there) partition the terms into classes of terms equal in every state seen, and
order the classes by implication.  The candidate invariants are read off that graph: a term of
the class true in every state, the negation of one false in every state, ``a <-> b`` inside a
class and ``a -> b`` along each edge of the implication order's Hasse diagram.  Houdini then
keeps the largest subset that is inductive with the assumptions at both steps (a wire is
defined by the assumptions, so a relation between wires is preserved only where they hold).

Such invariants are sound but not 1-inductive in the sense of
:func:`~kinduct.kernel.certify.check_invariant` (which assumes the assumptions at the first step
only): a property they make ``k``-inductive is reported with a ``k``-inductive
:class:`~kinduct.kernel.verdict.Proof`, checked by
:func:`~kinduct.kernel.certify.check_proof` before it is reported.  They are not published to
the other engines (IC3's certificates are 1-inductive ones).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver, SolverUnknown
from kinduct.kernel.certify import check_proof
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.lemmas import to_smtlib
from kinduct.kernel.machine import slowdown
from kinduct.kernel.system import Property, TransitionSystem, conjuncts
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Proof
from kinduct.plugins.engines.analysis import opaque, register_updates
from kinduct.plugins.engines.simulation import Simulator
from kinduct.plugins.engines.vocab import theory_atoms

#: A numeric variable whose samples take at most this many values gets a threshold at each.
MAX_SAMPLED_VALUES = 0
#: Simulation hints on state variables too (off: inputs only; 0.3-0.8 s of 1.7 s less on microwaves).
HINT_STATES = False
#: Thresholds per numeric variable (constants of the system first, then sampled values).
MAX_THRESHOLDS = 12
#: Terms in the graph (Boolean variables first, then thresholds in state-variable order).
MAX_TERMS = 1200
#: Bounded model checking refines the graph at the depths ``0..REFINE_DEPTH``.
REFINE_DEPTH = 1
#: Models the refinement asks for before it gives up (the graph is then left unproved).
MAX_REFINEMENTS = 400
#: Seconds Houdini's query about all candidates at once may take (then one at a time).
DISJUNCTION_SECONDS = 1.0
#: Seconds a Houdini query about one candidate may take before the candidate is dropped.
HOUDINI_QUERY_SECONDS = 2.0
#: Candidates per query of Houdini's pass after an undecided query about all of them.
HOUDINI_CHUNK = 8
#: Seconds each of :func:`prove`'s queries may take (undecided: no proof at that depth).
PROVE_QUERY_SECONDS = 5.0
#: Seconds :func:`prove`'s queries at ``k = 1`` may take (z3 often cannot decide them where
#: it decides ``k = 2`` in a second: microwave27).
FIRST_QUERY_SECONDS = 1.5
#: Seconds :func:`prove` spends choosing its lemmas by unsat cores before it takes them all.
CHOOSE_SECONDS = 5.0
#: Implication candidates read off the graph (its Hasse diagram can be quadratic).
MAX_IMPLICATIONS = 400


class Pace:
    """How much slower than the processor's time the wall clock runs for this process (the
    machine's other load), so that the solver's time limits, which are wall-clock ones, give
    a query the same processor time on a busy machine: wall / processor seconds since the
    pace was made (:func:`~kinduct.kernel.machine.slowdown`; 1 until a quarter second has
    passed)."""

    def __init__(self) -> None:
        self.wall = time.monotonic()
        self.cpu = time.process_time()

    def limit(self, seconds: float) -> float:
        wall = time.monotonic() - self.wall
        cpu = time.process_time() - self.cpu
        if wall < 0.25 or cpu <= 0:
            return seconds
        return seconds * slowdown(wall, cpu)


@attrs.frozen
class Term:
    """A Boolean term: ``var`` itself (``op`` "is"), its negation ("not"), ``var <= bound``
    ("le") or ``bound <= var`` ("ge")."""

    formula: FNode
    var: FNode
    op: str
    bound: int | Fraction | None = None

    def value(self, sample: dict[FNode, object]) -> bool:
        v = sample[self.var]
        if self.op == "is":
            return bool(v)
        if self.op == "not":
            return not v
        if self.op == "le":
            return v <= self.bound  # type: ignore[operator]
        return v >= self.bound  # type: ignore[operator]


def _constants(system: TransitionSystem) -> dict[FNode, set]:
    """State variable -> the constants the system compares it with (``x <= 4``, ``x = 4``),
    shared between a copy register ``r' = x`` and ``x``."""
    env = system.env
    to_cur = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}
    states = set(system.state_vars)
    found: dict[FNode, set] = {}
    sources = [system.init, system.trans, *system.assumptions,
               *(p.obligation(env) for p in system.properties)]
    for src in sources:
        for atom in theory_atoms(env, src):
            a, b = atom.args()
            for x, c in ((a, b), (b, a)):
                if x.is_symbol() and c.is_constant() and not c.is_bool_constant():
                    x = to_cur.get(x, x)
                    if x in states:
                        found.setdefault(x, set()).add(c.constant_value())
    # Variables that copy one another (a register ``r' = x``, a wire ``w = ite(c, e, r)``
    # whose branches end in variables) are compared with the same constants.
    links = [(reg, src) for reg, src in register_updates(system).items() if src in states]
    for fact in system.assumptions:
        for c in conjuncts(fact):
            if c.is_equals() and c.arg(0).is_symbol() and c.arg(0) in states:
                links.extend((c.arg(0), leaf) for leaf in _leaves(c.arg(1)) if leaf in states)
    parent: dict[FNode, FNode] = {}

    def root(v: FNode) -> FNode:
        while parent.get(v, v) != v:
            v = parent[v]
        return v

    for a, b in links:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb
    groups: dict[FNode, set] = {}
    for v in list(parent):
        groups.setdefault(root(v), set()).update(found.get(v, set()))
    for v in list(parent):
        if groups[root(v)]:
            found[v] = groups[root(v)]
    return found


def _leaves(term: FNode) -> list[FNode]:
    """The variables ``term``'s ``ite`` branches end in."""
    if term.is_ite():
        return [*_leaves(term.arg(1)), *_leaves(term.arg(2))]
    return [term] if term.is_symbol() else []


def candidate_terms(system: TransitionSystem, samples: Sequence[dict[FNode, object]],
                    negations: bool = True) -> list[Term]:
    """The graph's terms: Boolean state variables (and, for implications, their negations),
    then thresholds of the numeric ones (at most :data:`MAX_TERMS`)."""
    mgr = system.env.formula_manager
    terms: list[Term] = []
    scalars = [v for v in system.state_vars if not opaque(v)]
    for v in scalars:
        if v.symbol_type().is_bool_type():
            terms.append(Term(v, v, "is"))
            if negations:
                terms.append(Term(mgr.Not(v), v, "not"))
    consts = _constants(system)
    for v in scalars:
        t = v.symbol_type()
        if not (t.is_int_type() or t.is_real_type()):
            continue
        seen = sorted({s[v] for s in samples if v in s})
        bounds = sorted(consts.get(v, set()))
        if t.is_int_type():
            bounds = [0, *bounds]
        if len(seen) <= MAX_SAMPLED_VALUES:
            bounds += seen
        chosen = list(dict.fromkeys(bounds))[:MAX_THRESHOLDS]
        for c in chosen:
            const = mgr.Int(int(c)) if t.is_int_type() else mgr.Real(Fraction(c))
            terms.append(Term(mgr.LE(v, const), v, "le", c))
            terms.append(Term(mgr.LE(const, v), v, "ge", c))
        if len(terms) >= MAX_TERMS:
            break
    return terms[:MAX_TERMS]


class TermGraph:
    """The terms' values on the states seen (one bit per state), and the candidate invariants
    they induce: constants, equivalences inside a class and (with ``implications``) the
    implications along the Hasse diagram of the classes' order, at most
    :data:`MAX_IMPLICATIONS` of them.  A candidate is a tuple of term indices (see
    :meth:`render`), so that it is built at any step from the terms' timed copies."""

    def __init__(self, terms: Sequence[Term], implications: bool = True) -> None:
        self.terms = list(terms)
        self.masks = [0] * len(self.terms)
        self.count = 0
        self.implications = implications

    def add(self, sample: dict[FNode, object]) -> None:
        bit = 1 << self.count
        self.count += 1
        for i, t in enumerate(self.terms):
            if t.value(sample):
                self.masks[i] |= bit

    def candidates(self) -> list[tuple[str, int, int]]:
        full = (1 << self.count) - 1
        classes: dict[int, list[int]] = {}
        for i, m in enumerate(self.masks):
            classes.setdefault(m, []).append(i)
        out: list[tuple[str, int, int]] = []
        for m, members in classes.items():
            if m == full:
                out.extend(("true", i, i) for i in members)
            elif m == 0:
                out.extend(("false", i, i) for i in members)
            else:
                out.extend(("iff", members[0], i) for i in members[1:])
        if self.count == 0 or not self.implications:
            return out
        inner = sorted((m for m in classes if m not in (0, full)), key=lambda m: m.bit_count())
        edges = 0
        for i, a in enumerate(inner):
            kept: list[int] = []
            for b in inner[i + 1:]:
                if a & b == a and not any(c & b == c for c in kept):
                    kept.append(b)
                    out.append(("implies", classes[a][0], classes[b][0]))
                    edges += 1
                    if edges >= MAX_IMPLICATIONS:
                        return out
        return out

    @staticmethod
    def render(mgr, cand: tuple[str, int, int], formulas: Sequence[FNode]) -> FNode:
        kind, i, j = cand
        if kind == "true":
            return formulas[i]
        if kind == "false":
            return mgr.Not(formulas[i])
        if kind == "iff":
            return mgr.Iff(formulas[i], formulas[j])
        return mgr.Implies(formulas[i], formulas[j])


def _read(solver: Solver, ub: Unroller, scalars: Sequence[FNode], step: int) -> dict[FNode, object]:
    timed = [ub.timed(v, step) for v in scalars]
    vals = solver.values(timed)
    return {v: vals[t] for v, t in zip(scalars, timed, strict=True)}


class _Timed:
    """The terms' copies at each step, built once."""

    def __init__(self, system: TransitionSystem, terms: Sequence[Term]) -> None:
        self.ub = Unroller(system)
        self.terms = terms
        self.steps: dict[int, list[FNode]] = {}

    def at(self, step: int) -> list[FNode]:
        if step not in self.steps:
            self.steps[step] = [_timed_term(self.ub, t, step) for t in self.terms]
        return self.steps[step]


def _timed_term(ub: Unroller, term: Term, step: int) -> FNode:
    """``term``'s copy at ``step``, built from its parts (a substitution per term walks the
    unroller's whole map: 2 s per step on microwave27's 460 terms)."""
    mgr = ub.mgr
    v = ub.timed(term.var, step)
    if term.op == "is":
        return v
    if term.op == "not":
        return mgr.Not(v)
    const = term.formula.arg(1) if term.op == "le" else term.formula.arg(0)
    return mgr.LE(v, const) if term.op == "le" else mgr.LE(const, v)


def refine(system: TransitionSystem, ctx: EngineContext, graph: TermGraph, depth: int,
           deadline: float) -> bool:
    """Split the graph's classes with reachable states until no candidate fails at any step
    ``0..depth`` from ``Init``; False when the deadline or :data:`MAX_REFINEMENTS` came first.
    Each model's states at every step up to ``j`` are added (one query, several states)."""
    mgr = system.env.formula_manager
    timed = _Timed(system, graph.terms)
    ub = timed.ub
    scalars = [v for v in system.state_vars if not opaque(v)]
    solver = ctx.make_solver()
    solver.add(ub.at(system.init, 0))
    models = 0
    try:
        for j in range(depth + 1):
            solver.add_all(ub.at(a, j) for a in system.assumptions)
            if j:
                solver.add(ub.at(system.trans, j - 1))
            forms = timed.at(j)
            while True:
                if time.monotonic() > deadline or models >= MAX_REFINEMENTS:
                    return False
                cands = graph.candidates()
                query = mgr.Or([mgr.Not(TermGraph.render(mgr, c, forms)) for c in cands])
                if not cands or not solver.check([query]):
                    break
                models += 1
                for i in range(j + 1):
                    graph.add(_read(solver, ub, scalars, i))
        return True
    finally:
        solver.close()


def implied_bounds(terms: Sequence[Term], candidates: Sequence[tuple[str, int, int]]
                   ) -> tuple[list[tuple[str, int, int]], list[list[tuple[str, int, int]]]]:
    """``candidates`` split into those kept and the bounds they imply: of the constant
    candidates that bound one variable from one side (``x >= c``, ``not (x <= c)``; ``x <= c``,
    ``not (c <= x)``) only the strongest is kept; the others come back as groups, each led by
    the kept candidate that implies them (:func:`houdini_pruned` drops them: they follow from
    what it keeps)."""
    groups: dict[tuple[FNode, bool], list[tuple[tuple, tuple[str, int, int]]]] = {}
    kept: list[tuple[str, int, int]] = []
    for cand in candidates:
        kind, i, _ = cand
        t = terms[i]
        if kind not in ("true", "false") or t.op not in ("le", "ge"):
            kept.append(cand)
            continue
        # lower: x >= c (weak) or x > c (strict); upper: x <= c or x < c
        lower = (kind == "true") == (t.op == "ge")
        strict = kind == "false"
        key = (t.bound, strict) if lower else (-t.bound, strict)  # type: ignore[operator]
        groups.setdefault((t.var, lower), []).append((key, cand))
    spare: list[list[tuple[str, int, int]]] = []
    for members in groups.values():
        members.sort(key=lambda m: m[0], reverse=True)
        kept.append(members[0][1])
        if len(members) > 1:
            spare.append([c for _, c in members])
    return kept, spare


def houdini_pruned(system: TransitionSystem, ctx: EngineContext, graph: TermGraph,
                   deadline: float, pace: Pace | None = None) -> list[FNode] | None:
    """:func:`houdini_two_sided` over the graph's candidates, without the invariants that
    bound a variable more weakly than another one does (:func:`implied_bounds`): they add
    nothing to a proof but its size."""
    mgr = system.env.formula_manager
    passed = _houdini(system, ctx, graph, graph.candidates(), deadline, pace or Pace())
    if passed is None:
        return None
    kept, _ = implied_bounds(graph.terms, passed)
    forms = [t.formula for t in graph.terms]
    return [TermGraph.render(mgr, c, forms) for c in kept]


def houdini_two_sided(system: TransitionSystem, ctx: EngineContext, graph: TermGraph,
                      candidates: Sequence[tuple[str, int, int]],
                      deadline: float, pace: Pace | None = None) -> list[FNode] | None:
    """The largest subset of ``candidates`` (all true in the initial states) preserved by a
    step whose both states satisfy the assumptions; None when the deadline passed first."""
    passed = _houdini(system, ctx, graph, candidates, deadline, pace or Pace())
    if passed is None:
        return None
    forms = [t.formula for t in graph.terms]
    mgr = system.env.formula_manager
    return [TermGraph.render(mgr, c, forms) for c in passed]


def _houdini(system: TransitionSystem, ctx: EngineContext, graph: TermGraph,
             candidates: Sequence[tuple[str, int, int]],
             deadline: float, pace: Pace) -> list[tuple[str, int, int]] | None:
    """:func:`houdini_two_sided`'s candidates (not rendered)."""
    mgr = system.env.formula_manager
    timed = _Timed(system, graph.terms)
    ub = timed.ub
    solver = ctx.make_solver()
    solver.add_all(ub.at(a, 0) for a in system.assumptions)
    solver.add_all(ub.at(a, 1) for a in system.assumptions)
    solver.add(ub.at(system.trans, 0))
    cands = list(candidates)
    acts = {c: mgr.FreshSymbol(template="__graph_%d") for c in cands}
    now, then = timed.at(0), timed.at(1)
    after = {c: TermGraph.render(mgr, c, then) for c in cands}
    for c, a in acts.items():
        solver.add(mgr.Implies(a, TermGraph.render(mgr, c, now)))
    try:
        # First their disjunction, under a short limit: a model drops every candidate it
        # falsifies, unsat ends it.  Where that is undecided (the unsat proof of a few hundred
        # candidates took z3 up to 117 s on microwave22), passes over a few candidates per
        # query (:func:`_one_by_one`): a model drops what it falsifies, an undecided query its
        # own candidate, and a pass that dropped any is followed by another over the
        # survivors, which assume less.  Once undecided, the disjunction is not asked again.
        whole = True
        while cands:
            if time.monotonic() > deadline:
                return None
            if whole:
                solver.limit_time(pace.limit(DISJUNCTION_SECONDS))
                try:
                    if not solver.check([*(acts[c] for c in cands),
                                         mgr.Or([mgr.Not(after[c]) for c in cands])]):
                        break
                    vals = solver.values([after[c] for c in cands])
                    cands = [c for c in cands if vals[after[c]]]
                    continue
                except SolverUnknown:
                    whole = False
            solver.limit_time(pace.limit(HOUDINI_QUERY_SECONDS))
            passed = _one_by_one(solver, cands, acts, after, deadline)
            if passed is None:
                return None
            if passed == cands:
                break
            cands = passed
        return cands
    finally:
        solver.close()


def _one_by_one(solver: Solver, cands: list, acts: dict, after: dict,
                deadline: float) -> list | None:
    """One pass of Houdini queries over :data:`HOUDINI_CHUNK` candidates at a time (one query
    per candidate where a chunk's is undecided): the candidates no model falsified and no
    undecided query dropped (None when the deadline passed)."""
    mgr = solver.env.formula_manager
    alive = set(cands)

    def falsify(chunk: list) -> bool | None:
        """Is some candidate of ``chunk`` falsified (those it falsifies, of all that are
        alive, are dropped)?  None when the query is undecided."""
        if time.monotonic() > deadline:
            raise TimeoutError
        hyps = [acts[d] for d in cands if d in alive]
        try:
            failed = solver.check([*hyps, mgr.Or([mgr.Not(after[c]) for c in chunk])])
        except SolverUnknown:
            return None
        if failed:
            live = [d for d in cands if d in alive]
            vals = solver.values([after[d] for d in live])
            alive.difference_update(d for d in live if not vals[after[d]])
        return failed

    try:
        for start in range(0, len(cands), HOUDINI_CHUNK):
            while True:
                chunk = [c for c in cands[start:start + HOUDINI_CHUNK] if c in alive]
                if not chunk:
                    break
                failed = falsify(chunk)
                if failed is False:
                    break
                if failed is None:
                    for c in chunk:
                        if c in alive and falsify([c]) is None:
                            alive.discard(c)
                    break
    except TimeoutError:
        return None
    return [c for c in cands if c in alive]


def prove(system: TransitionSystem, prop: Property, lemmas: Sequence[FNode], ctx: EngineContext,
          max_k: int = 3, pace: Pace | None = None) -> Proof | None:
    """A ``k``-inductive proof (``k <= max_k``) of ``prop`` with the few of ``lemmas``
    (invariants inductive with the assumptions at both steps: :func:`houdini_two_sided`'s) it
    needs, checked by :func:`~kinduct.kernel.certify.check_proof` on a fresh solver; None when
    there is none.

    The lemmas are assumed at steps ``0..k-1`` under one literal each, and the unsat cores
    choose them: first those that make the property hold at step ``k``, then those that make
    the chosen ones hold there too, until the chosen set needs no other.  The proof's invariant
    is the property and the chosen lemmas (on microwave27 a handful of some 200), which keeps
    its check as cheap as the search (a proof with every lemma re-proves them all at once)."""
    pace = pace or Pace()
    mgr = system.env.formula_manager
    goal = prop.obligation(system.env)
    ub = Unroller(system)
    lits = [mgr.FreshSymbol(template="__lemma_%d") for _ in lemmas]
    of_lit = dict(zip(lits, range(len(lemmas)), strict=True))
    solver = ctx.make_solver()
    try:
        for j in range(max_k + 1):
            solver.add_all(ub.at(a, j) for a in system.assumptions)
            if j == 0:
                continue
            solver.add_all(mgr.Implies(lit, ub.at(lemma, j - 1))
                           for lit, lemma in zip(lits, lemmas, strict=True))
            solver.add(ub.at(system.trans, j - 1))
            solver.add(ub.at(goal, j - 1))
            solver.limit_time(pace.limit(FIRST_QUERY_SECONDS if j == 1 else PROVE_QUERY_SECONDS))
            chosen = _choose(solver, mgr, ub, goal, lemmas, lits, of_lit, j,
                             time.monotonic() + pace.limit(CHOOSE_SECONDS))
            if chosen is None:
                continue
            phi = mgr.And([goal, *(lemmas[i] for i in chosen)])
            proof = Proof(j, to_smtlib(phi))
            checker = ctx.make_solver()
            try:
                problem = check_proof(system, prop, proof, phi, checker)
            finally:
                checker.close()
            return proof if problem is None else None
        return None
    except SolverUnknown:
        return None
    finally:
        solver.close()


def _choose(solver: Solver, mgr, ub: Unroller, goal: FNode, lemmas: Sequence[FNode],
            lits: Sequence[FNode], of_lit: dict[FNode, int], k: int,
            until: float) -> list[int] | None:
    """The lemmas (indices) whose conjunction with ``goal`` holds at step ``k`` wherever it
    and they hold at steps ``0..k-1``, read off unsat cores: the core of the goal's query,
    then of each chosen lemma's own query (cheap, where one query about a hundred chosen
    lemmas at once took z3 as long as a proof with all of them), until no core adds one.
    None when the goal does not follow from all the lemmas or its query is undecided; every
    lemma where a lemma's query is undecided or ``until`` passes first (they are inductive
    together)."""

    def core_of(formula: FNode) -> set[int] | None:
        try:
            if solver.check([*lits, mgr.Not(formula)]):
                return None
        except SolverUnknown:
            return None
        return {of_lit[a] for a in solver.unsat_core() if a in of_lit}

    first = core_of(ub.at(goal, k))
    if first is None:
        return None
    chosen = set(first)
    todo = sorted(first)
    while todo:
        if time.monotonic() > until:
            return list(range(len(lemmas)))
        core = core_of(ub.at(lemmas[todo.pop()], k))
        if core is None:
            return list(range(len(lemmas)))
        fresh = core - chosen
        chosen |= fresh
        todo.extend(sorted(fresh))
    return sorted(chosen)


def refined_graph(system: TransitionSystem, ctx: EngineContext, deadline: float,
                  seed: int = 0, runs: int = 6, depth: int = 12,
                  implications: bool = False) -> TermGraph | None:
    """The term graph of simulated runs, refined by bounded model checking (:func:`refine`)
    until no candidate fails at steps ``0..REFINE_DEPTH`` from ``Init``; None when
    ``deadline`` passes first."""
    samples: list[dict[FNode, object]] = []
    if runs:
        sim = Simulator(system, ctx, seed, state_hints=HINT_STATES)
        try:
            left = max(0.0, deadline - time.monotonic())
            samples = sim.runs(count=runs, depth=depth,
                               deadline=min(deadline, time.monotonic() + left / 4))
        finally:
            sim.solver.close()
    graph = TermGraph(candidate_terms(system, samples, implications), implications)
    for s in samples:
        graph.add(s)
    if not refine(system, ctx, graph, REFINE_DEPTH, deadline):
        return None
    return graph


def rendered(system: TransitionSystem, graph: TermGraph) -> list[FNode]:
    """The graph's candidate invariants as formulas over the current state."""
    forms = [t.formula for t in graph.terms]
    return [TermGraph.render(system.env.formula_manager, c, forms) for c in graph.candidates()]


def generate(system: TransitionSystem, ctx: EngineContext, budget: float, seed: int = 0,
             runs: int = 6, depth: int = 12, implications: bool = False,
             pace: Pace | None = None, graph: TermGraph | None = None) -> list[FNode]:
    """Invariants from the term graph (inductive with the assumptions at both steps), within
    about ``budget`` seconds; none when the budget runs out first.  ``graph``: one
    :func:`refined_graph` already made."""
    pace = pace or Pace()
    deadline = time.monotonic() + budget
    if ctx.deadline is not None:
        deadline = min(deadline, ctx.deadline)
    if graph is None:
        graph = refined_graph(system, ctx, deadline, seed, runs, depth, implications)
    if graph is None:
        return []
    return houdini_pruned(system, ctx, graph, deadline, pace) or []
