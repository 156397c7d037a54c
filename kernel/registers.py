"""Equal registers merged: a sound simplification of a transition system.

A *register* here is a state variable with a constant initial value (``init`` has a conjunct
``v = c``) and a functional update (``trans`` has exactly one conjunct ``next(v) = f`` with
``f`` over current-step variables).  Two registers are *equal* when every reachable state
gives them the same value.  :func:`merge_registers` finds the coarsest partition of the
registers such that the registers of a class have the same type and initial value, and the
same update once every register is replaced by its class's representative: the same term, or,
given an oracle (:func:`solver_equal`), terms a solver proves equal in every state that
satisfies the assumptions (partition refinement, as in sequential equivalence checking of
circuits: start with one class per type and initial value, split a class whenever two of its
updates differ under the current partition, until nothing splits).

Why it is sound: at step 0 the registers of a class hold the same constant; if at step t
every class holds one value, each register's update evaluates to the same value as its
representative's (the updates are equal under that substitution, in every state that
satisfies the assumptions, as every state of a path does), so the class holds one value at
step t+1.  Hence every path of the system keeps each register equal to its
representative, and substituting the representative for the register everywhere (init,
trans, assumptions, properties) and dropping it gives a system with the same paths (the
dropped register's value is its representative's), so the same verdict on every property,
the same counterexamples (on the variables kept), and every inductive invariant of the
reduced system, conjoined with the equalities, is one of the original system.

Used on the product of two acceptors (:func:`kinduct.kernel.acceptor.language_query`), where
the two sides often count the same thing under different names (``#('b')`` and ``#(Bad)``
with ``Bad := 'b'``): once merged, an equivalence is often 1- or 2-inductive.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

import attrs
from pysmt.environment import Environment
from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver
from kinduct.kernel.system import Structure, TransitionSystem, conjuncts


@attrs.frozen
class Merged:
    """The reduced ``system`` and, for each register dropped, the register that replaced it
    (both current-step variables of the original system)."""

    system: TransitionSystem
    replaced: Mapping[FNode, FNode]


def initial_values(system: TransitionSystem) -> dict[FNode, FNode]:
    """Each state variable that ``init`` fixes to one constant by a conjunct of its own."""
    states = set(system.state_vars)
    found: dict[FNode, list[FNode]] = {}
    mgr = system.env.formula_manager
    for c in conjuncts(system.init):
        if c.is_symbol() and c in states:
            found.setdefault(c, []).append(mgr.TRUE())
        elif c.is_not() and c.arg(0).is_symbol() and c.arg(0) in states:
            found.setdefault(c.arg(0), []).append(mgr.FALSE())
        elif c.is_equals() or c.is_iff():
            for v, k in ((c.arg(0), c.arg(1)), (c.arg(1), c.arg(0))):
                if v.is_symbol() and v in states and k.is_constant():
                    found.setdefault(v, []).append(k)
                    break
    return {v: ks[0] for v, ks in found.items() if len(set(ks)) == 1}


def register_updates(system: TransitionSystem) -> tuple[dict[FNode, FNode], list[FNode]]:
    """Each state variable whose next value one conjunct of ``trans`` defines as a term over
    current-step variables, and the conjuncts of ``trans``."""
    prev = dict(zip(system.next_vars, system.state_vars, strict=True))
    nexts = set(prev)
    fv = system.env.fvo.get_free_variables
    parts = conjuncts(system.trans)
    found: dict[FNode, list[FNode]] = {}
    mentioned: dict[FNode, int] = {}
    for c in parts:
        for v in fv(c) & nexts:
            mentioned[v] = mentioned.get(v, 0) + 1
        if c.is_equals() or c.is_iff():
            for n, t in ((c.arg(0), c.arg(1)), (c.arg(1), c.arg(0))):
                if n.is_symbol() and n in nexts and not (fv(t) & nexts):
                    found.setdefault(n, []).append(t)
                    break
    # a next-step variable read by any other conjunct is not a plain register
    return ({prev[n]: ts[0] for n, ts in found.items() if len(ts) == 1 and mentioned[n] == 1},
            parts)


#: An oracle: whether two terms are equal in every state that satisfies the given facts.
Equal = Callable[[FNode, FNode, Sequence[FNode]], bool]


def _partition(system: TransitionSystem, init: Mapping[FNode, FNode],
               update: Mapping[FNode, FNode], equal: Equal | None) -> dict[FNode, FNode]:
    """The coarsest partition of the registers closed under their updates, as a map from
    each register to its class's representative (the first in ``state_vars`` order).

    Two updates are equal under a partition when they are the same term once every register
    is replaced by its representative, or (with ``equal``) when ``equal`` proves them equal
    in every state that satisfies the assumptions, so replaced."""
    regs = [v for v in system.state_vars if v in init and v in update]
    classes: dict[tuple, list[FNode]] = {}
    for v in regs:
        classes.setdefault((v.symbol_type(), init[v]), []).append(v)
    blocks = list(classes.values())
    sub = system.env.substituter.substitute
    simplify = system.env.simplifier.simplify
    while True:
        rep = {v: b[0] for b in blocks for v in b}
        mapping = {v: r for v, r in rep.items() if v is not r}
        facts = [sub(a, mapping) for a in system.assumptions]
        split: list[list[FNode]] = []
        for b in blocks:
            if len(b) == 1:
                split.append(b)
                continue
            groups: list[tuple[FNode, list[FNode]]] = []
            for v in b:
                term = simplify(sub(update[v], mapping))
                for lead, members in groups:
                    if term is lead or (equal is not None and equal(term, lead, facts)):
                        members.append(v)
                        break
                else:
                    groups.append((term, [v]))
            split.extend(members for _, members in groups)
        if len(split) == len(blocks):
            return rep
        blocks = split


def solver_equal(env: Environment, make_solver: Callable[[], Solver],
                 seconds: float = 1.0) -> Equal:
    """An :data:`Equal` oracle on terms of ``env``, on one solver from ``make_solver`` (made
    at the first question, its facts asserted once per set of facts; each check bounded to
    ``seconds``; undecided is not equal).  The solver stays open with the oracle (a few per
    query system).  Terms that :func:`differ_on_samples` are not equal without a solver call
    (most candidate pairs: counts of different letters)."""
    held: list = [None, None]  # the solver, and the facts it holds

    def equal(a: FNode, b: FNode, facts: Sequence[FNode]) -> bool:
        if differ_on_samples(env, a, b, facts):
            return False
        try:
            if held[0] is None:
                held[0] = make_solver()
                held[0].limit_time(seconds)
            solver = held[0]
            if held[1] != list(facts):
                solver.reset()
                solver.limit_time(seconds)
                solver.add_all(facts)
                held[1] = list(facts)
            mgr = solver.env.formula_manager
            solver.push()
            try:
                solver.add(mgr.Not(mgr.EqualsOrIff(a, b)))
                return not solver.check()
            finally:
                solver.pop()
        except Exception:  # noqa: BLE001 - undecided, or a term it refuses: not equal
            return False

    return equal


#: Values tried for an integer variable by :func:`differ_on_samples`.
SAMPLE_INTS = (0, 1, 2, 3, -1, 4)
SAMPLES = 8


def differ_on_samples(env: Environment, a: FNode, b: FNode, facts: Sequence[FNode]) -> bool:
    """Whether ``a`` and ``b`` take different values under one of a few fixed pseudo-random
    assignments of their (Boolean and integer) variables that satisfies every fact over
    those variables alone: a cheap refutation (False proves nothing)."""
    fv = env.fvo.get_free_variables
    names = fv(a) | fv(b)
    if not all(v.symbol_type().is_bool_type() or v.symbol_type().is_int_type() for v in names):
        return False
    relevant = [f for f in facts if fv(f) <= names]
    mgr = env.formula_manager
    sub, simplify = env.substituter.substitute, env.simplifier.simplify
    rng = random.Random(len(names))
    order = sorted(names, key=lambda v: v.symbol_name())
    for _ in range(SAMPLES):
        values = {v: (mgr.Bool(rng.random() < 0.5) if v.symbol_type().is_bool_type()
                      else mgr.Int(rng.choice(SAMPLE_INTS))) for v in order}
        if not all(simplify(sub(f, values)).is_true() for f in relevant):
            continue
        x, y = simplify(sub(a, values)), simplify(sub(b, values))
        if x.is_constant() and y.is_constant() and x is not y:
            return True
    return False


def merge_registers(system: TransitionSystem, equal: Equal | None = None) -> Merged:
    """``system`` with every register replaced by its class's representative (see the module
    docstring); the system itself when no two registers are equal, or when it is a bounded
    problem or has guarded model elements (whose literals the pass does not track)."""
    if system.bounded is not None or system.elements:
        return Merged(system, {})
    init = initial_values(system)
    update, trans_parts = register_updates(system)
    rep = _partition(system, init, update, equal)
    replaced = {v: r for v, r in rep.items() if v is not r}
    if not replaced:
        return Merged(system, {})
    nxt = system.next_map()
    mapping: dict[FNode, FNode] = {}
    for v, r in replaced.items():
        mapping[v] = r
        mapping[nxt[v]] = nxt[r]
    sub = system.env.substituter.substitute
    mgr = system.env.formula_manager

    def unique(fs: list[FNode]) -> FNode:
        seen: dict[FNode, None] = {}
        for f in fs:
            g = sub(f, mapping)
            if not g.is_true():
                seen.setdefault(g, None)
        return mgr.And(list(seen))

    keep = [i for i, v in enumerate(system.state_vars) if v not in replaced]
    structure = system.structure
    first = structure.first
    updates = {r: sub(t, mapping) for r, t in structure.updates.items() if r not in replaced}
    reduced = system.evolve(
        state_vars=tuple(system.state_vars[i] for i in keep),
        next_vars=tuple(system.next_vars[i] for i in keep),
        init=unique(conjuncts(system.init)),
        trans=unique(trans_parts),
        assumptions=tuple(dict.fromkeys(sub(a, mapping) for a in system.assumptions)),
        properties=tuple(attrs.evolve(p, formula=sub(p.formula, mapping))
                         for p in system.properties),
        structure=Structure(updates, replaced.get(first, first) if first is not None else None),
        source_terms={k: t for k, t in system.source_terms.items() if k not in replaced},
    )
    return Merged(reduced, replaced)
