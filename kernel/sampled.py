"""Invariants found on sampled paths, proved inductive and added as assumptions: a sound
strengthening of a transition system that loses no path.

The integer state variables and the Boolean ones (read as 0 or 1) of a few paths from the
initial states, on pseudo-random words (:func:`sample`), give rows of values.  Candidates:

- every affine equality ``c0 + sum c_i x_i = 0`` that all rows satisfy (a basis of the
  solutions, by Gaussian elimination over the rationals: :func:`nullspace`);
- for two variables with few sampled values, ``not (x = a and y = b)`` for each pair of their
  values never sampled together (:func:`_unseen_pairs`: a count of violations still 0 while
  another count is 0, a Boolean that mirrors a capped count).

A candidate that holds on every sampled step but the first is guarded by a first-step flag (a
Boolean state variable initially true and then false, such as a Lucent node's ``%first``):
``flag or candidate``, since at the first step a ``pre`` value is still undetermined (so is
every candidate, also without the guard, when the first steps satisfy it too); and an
equality that holds at the first sampled step is a candidate guarded by ``not flag`` (the
values a first step starts from).  The candidates are then filtered as in Houdini: those that
fail in an initial state are dropped, then, assuming all remaining ones and the assumptions in
one state, a step to a state that satisfies the assumptions but not some candidate drops it,
until none fails.  What remains is an inductive invariant of the paths (every step of a path
satisfies the assumptions), so assuming it at every step removes no path: the same verdicts
and counterexamples, and an inductive invariant of the strengthened system, conjoined with
what was assumed, is one of the original.

What it buys: a Lucent acceptor's running difference ``pre d`` (``pre h``) equals the C-RASP
side's ``#('a') - #('b')``, its ``pre bad`` the capped count of first violations, which is 0
only while the count of violations is: majority and dyck1 against their C-RASP programs are
then 1-inductive.  Sampling and the filter cost a few solver calls (0.04-0.1 s there):
:func:`find_invariants` runs only on systems with a state variable that has no constant
initial value (its value at the first step is undetermined: a ``pre``), which is where
merging and saturation (:mod:`kinduct.kernel.registers`, :mod:`kinduct.kernel.saturation`)
leave invariants to find; every C-RASP product has constant initial values throughout.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from math import lcm

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver
from kinduct.kernel.evaluate import computable, evaluate
from kinduct.kernel.quick import Bounded
from kinduct.kernel.registers import initial_values, register_updates
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.unroll import Unroller

#: Sampled paths, their length, and the integer values tried for an input.
WORDS = 4
LENGTH = 8
INPUT_VALUES = (0, 1, 2, 3)
#: Variables with at most this many sampled values are tried in pairs (:func:`_unseen_pairs`).
FEW_VALUES = 3
#: Houdini rounds before giving up (each drops at least one candidate).
MAX_ROUNDS = 40
#: Seconds for the whole pass (its sampled paths and the filter); past them (or undecided) nothing is assumed.
SECONDS = 2.0


@attrs.frozen
class Strengthened:
    """The strengthened ``system`` and the invariants it assumes (over current-step
    variables)."""

    system: TransitionSystem
    invariants: tuple[FNode, ...]


def nullspace(rows: Sequence[Sequence[int]]) -> list[list[int]]:
    """A basis of the integer vectors ``c`` with ``row . c = 0`` for every row (each scaled to
    integers)."""
    if not rows:
        return []
    width = len(rows[0])
    m = [[Fraction(x) for x in row] for row in rows]
    pivots: list[int] = []
    r = 0
    for col in range(width):
        pivot = next((i for i in range(r, len(m)) if m[i][col] != 0), None)
        if pivot is None:
            continue
        m[r], m[pivot] = m[pivot], m[r]
        lead = m[r][col]
        m[r] = [x / lead for x in m[r]]
        for i in range(len(m)):
            if i != r and m[i][col] != 0:
                factor = m[i][col]
                m[i] = [a - factor * b for a, b in zip(m[i], m[r], strict=True)]
        pivots.append(col)
        r += 1
        if r == len(m):
            break
    basis = []
    for free in (c for c in range(width) if c not in pivots):
        vec = [Fraction(0)] * width
        vec[free] = Fraction(1)
        for i, col in enumerate(pivots):
            vec[col] = -m[i][free]
        scale = lcm(*(x.denominator for x in vec))
        basis.append([int(x * scale) for x in vec])
    return basis


def sample(system: TransitionSystem, solver: Solver, unroller: Unroller,
           variables: Sequence[FNode]) -> list[list[list[int]]]:
    """The values of ``variables`` (Booleans as 0/1) at each step of up to :data:`WORDS`
    paths of :data:`LENGTH` steps whose integer inputs take pseudo-random values among those
    the assumptions allow at the first step; ``solver`` holds the unrolled system."""
    mgr = system.env.formula_manager
    ints = [i for i in system.input_vars if i.symbol_type().is_int_type()]

    def pin(i: FNode, t: int, value: int) -> FNode:
        return mgr.Equals(unroller.timed(i, t), mgr.Int(value))

    allowed = {i: [v for v in INPUT_VALUES if solver.check([pin(i, 0, v)])] for i in ints}
    rng = random.Random(len(variables))
    paths = []
    timed = [[unroller.timed(v, t) for v in variables] for t in range(LENGTH)]
    for _ in range(WORDS):
        pins = [pin(i, t, rng.choice(allowed[i])) for t in range(LENGTH) for i in ints
                if allowed[i]]
        if not solver.check(pins):
            continue
        values = solver.values([x for step in timed for x in step])
        paths.append([[int(values[x]) for x in step] for step in timed])  # type: ignore[arg-type]
    return paths


def _first_flags(system: TransitionSystem) -> list[FNode]:
    """Boolean state variables initially true and then false (``trans`` has a conjunct
    ``not next(v)`` or ``next(v) = false``)."""
    init = initial_values(system)
    update, parts = register_updates(system)
    prev = dict(zip(system.next_vars, system.state_vars, strict=True))
    falls = {v for v, f in update.items() if f.is_false()}
    falls |= {prev[c.arg(0)] for c in parts if c.is_not() and c.arg(0) in prev}
    return [v for v in system.state_vars
            if v in falls and v in init and init[v].is_true()]


def find_invariants(system: TransitionSystem, make_solver: Callable[[], Solver]) -> Strengthened:
    """``system`` with the inductive invariants of its sampled paths assumed (see the module
    docstring);
    the system itself when none is found, when every state variable has a constant initial
    value, or when it is a bounded problem or has guarded model elements."""
    if system.bounded is not None or system.elements:
        return Strengthened(system, ())
    init = initial_values(system)
    if all(v in init for v in system.state_vars):
        return Strengthened(system, ())
    variables = [v for v in system.state_vars
                 if v.symbol_type().is_int_type() or v.symbol_type().is_bool_type()]
    if sum(v.symbol_type().is_int_type() for v in variables) < 2:
        return Strengthened(system, ())
    unroller = Unroller(system)
    solver = Bounded(make_solver(), time.monotonic() + SECONDS)
    try:
        solver.add_all(unroller.at(a, 0) for a in system.assumptions)
        solver.push()
        solver.add(unroller.at(system.init, 0))
        solver.add_all(unroller.at(system.trans, t) for t in range(LENGTH - 1))
        solver.add_all(unroller.at(a, t) for a in system.assumptions for t in range(1, LENGTH))
        paths = sample(system, solver, unroller, variables)
        solver.pop()
        candidates = _candidates(system, variables, paths)
        kept = _houdini(system, solver, unroller, candidates) if candidates else []
    except Exception:  # noqa: BLE001 - undecided: nothing is assumed
        kept = []
    finally:
        solver.close()
    if not kept:
        return Strengthened(system, ())
    return Strengthened(system.evolve(assumptions=system.assumptions + tuple(kept)), tuple(kept))


def _candidates(system: TransitionSystem, variables: Sequence[FNode],
                paths: list[list[list[int]]]) -> list[FNode]:
    """The candidates of the sampled ``paths`` (see the module docstring)."""
    if not paths:
        return []
    mgr = system.env.formula_manager
    later = [[*row, 1] for path in paths for row in path[1:]]
    first = [[*path[0], 1] for path in paths]
    flags = _first_flags(system)
    terms = [v if v.symbol_type().is_int_type() else mgr.Ite(v, mgr.Int(1), mgr.Int(0))
             for v in variables]

    def equality(vec: list[int]) -> FNode:
        parts = [mgr.Times(mgr.Int(c), t) if c != 1 else t
                 for c, t in zip(vec, terms, strict=False) if c != 0]
        return mgr.Equals(mgr.Plus(parts), mgr.Int(-vec[-1]))

    out = []
    for vec in nullspace(later):
        if any(vec[:-1]):
            if all(sum(c * x for c, x in zip(vec, row, strict=True)) == 0 for row in first):
                out.append(equality(vec))
            out.extend(mgr.Or(flag, equality(vec)) for flag in flags)
    for flag in flags:  # what the first step starts from
        out.extend(mgr.Or(mgr.Not(flag), equality(vec)) for vec in nullspace(first)
                   if any(vec[:-1]))
    for clause, rows_ok in _unseen_pairs(variables, terms, later, first, mgr):
        if rows_ok:
            out.append(clause)
        out.extend(mgr.Or(flag, clause) for flag in flags)
    return out


def _unseen_pairs(variables: Sequence[FNode], terms: Sequence[FNode], later: list[list[int]],
                  first: list[list[int]], mgr) -> list[tuple[FNode, bool]]:
    """Clauses ``not (x = a and y = b)`` for two variables of at most :data:`FEW_VALUES`
    sampled values and a pair of their values never sampled together after the first step
    (with whether the first step's samples satisfy it too)."""
    few = [i for i in range(len(variables))
           if 1 < len({row[i] for row in later}) <= FEW_VALUES]
    out = []
    for n, i in enumerate(few):
        for j in few[n + 1:]:
            seen = {(row[i], row[j]) for row in later}
            for a in sorted({row[i] for row in later}):
                for b in sorted({row[j] for row in later}):
                    if (a, b) not in seen:
                        clause = mgr.Not(mgr.And(mgr.Equals(terms[i], mgr.Int(a)),
                                                 mgr.Equals(terms[j], mgr.Int(b))))
                        out.append((clause, all((r[i], r[j]) != (a, b) for r in first)))
    return out


def _houdini(system: TransitionSystem, solver: Solver, unroller: Unroller,
             candidates: list[FNode]) -> list[FNode]:
    """The candidates that hold in every initial state and, assumed together, after every
    step; ``solver`` holds the assumptions at step 0 (the initial states and the step from
    0 to 1 are added here: an initial state need not have a successor)."""
    mgr = system.env.formula_manager
    left = list(candidates)
    initial = [unroller.at(system.init, 0)]
    step_facts = [unroller.at(system.trans, 0), *(unroller.at(a, 1) for a in system.assumptions)]
    for step, premise in ((0, initial), (1, step_facts)):
        for _ in range(MAX_ROUNDS):
            if not left:
                return []
            solver.push()
            solver.add_all(premise)
            if step == 1:
                solver.add_all(unroller.at(c, 0) for c in left)
            timed = [unroller.at(c, step) for c in left]
            solver.add(mgr.Or([mgr.Not(c) for c in timed]))
            broken = solver.check()
            if broken:
                symbols = sorted({s for c in timed for s in system.env.fvo.get_free_variables(c)},
                                 key=str)
                model = solver.values(symbols)
            solver.pop()
            if not broken:
                break
            ready = computable(model)
            left = [c for c, t in zip(left, timed, strict=True) if evaluate(t, ready) is True]
        else:
            return []
    return left
