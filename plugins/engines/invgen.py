"""Invariant generation: candidates mined from the system and from simulated runs, proved by
Houdini-style mutual induction.

Candidates are over state variables only (so they can be certified and shared as lemmas):
Boolean constants and equalities, integer/real constants, bounds, equalities and orderings
between variables, the truth values of the system's own atoms, and the *affine hull* of the
sampled states (linear equalities such as ``Depth = Cl - Cr`` that no template lists).  Simulated
reachable states discard most false candidates before any solver call.  Houdini then drops
candidates that are not preserved by a step from states satisfying all the others until the
survivors are jointly inductive (``Init => C`` and ``C and A and T => C'``).

The survivors are published to the other engines (``kind`` and ``ic3`` assert them), and any
property they imply is reported valid with the conjunction as its certificate.
"""

from __future__ import annotations

import random
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from math import lcm

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import constant
from kinduct.kernel.certify import check_invariant
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.lemmas import to_smtlib
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict
from kinduct.plugins.engines.common import (
    copy_invariants,
    first_flag,
    latches,
    trans_state_invariants,
    unknown_on_solver_failure,
)
from kinduct.plugins.engines.vocab import Cone, state_atoms

MAX_PAIR_CANDIDATES = 1500
#: Affine equalities with bigger coefficients come from too few samples, not from the system.
MAX_COEFFICIENT = 16
#: Cap on ``a + b <= c`` candidates per mining round.
MAX_SUM_CANDIDATES = 400
#: Boolean flags whose true/false samples get their own affine hull.
MAX_FLAGS = 4
#: Latches kept true in the sticky simulation runs.
MAX_STICKY = 6


def _max_coefficient(eq: FNode) -> int:
    lhs, rhs = eq.args()
    coefs = [abs(int(rhs.constant_value()))] if rhs.is_constant() else []
    for t in (lhs.args() if lhs.is_plus() else [lhs]):
        if t.is_times() and t.arg(0).is_constant():
            coefs.append(abs(int(t.arg(0).constant_value())))
    return max(coefs, default=1)


class Simulator:
    """Random executions through the solver: each step fixes the current state and asks for a
    successor, nudged by random hints on the free values (dropped when they conflict)."""

    def __init__(self, system: TransitionSystem, ctx: EngineContext, seed: int = 0,
                 registers: Sequence[FNode] | None = None) -> None:
        self.system = system
        self.mgr = system.env.formula_manager
        self.rng = random.Random(seed)
        self.solver = ctx.make_solver()
        mgr = self.mgr
        self.act_init = mgr.FreshSymbol(template="__sim_init_%d")
        self.act_step = mgr.FreshSymbol(template="__sim_step_%d")
        self.solver.add(mgr.Implies(self.act_init, mgr.And(system.init, *system.assumptions)))
        # The successor must satisfy the assumptions too (with inputs of its own): where they
        # define the wires (the Lustre translation) a successor chosen by ``trans`` alone is
        # garbage that no further step accepts.
        self.next_inputs = {i: mgr.FreshSymbol(i.symbol_type(), template="__sim_in_%d")
                            for i in system.input_vars}
        shift = {**system.next_map(), **self.next_inputs}
        ahead = [system.env.substituter.substitute(a, shift) for a in system.assumptions]
        self.solver.add(mgr.Implies(self.act_step, mgr.And(system.trans, *system.assumptions, *ahead)))
        #: Integer hints only on inputs: random values for defined state variables mostly conflict.
        self.int_hint_vars = set(system.input_vars) | set(self.next_inputs.values())
        self.registers = None if registers is None else set(registers)
        #: Probability of a hint per free value; runs alternate between many and few hints
        #: (few keeps "so far" flags such as Lustre's Sofar(env) true for longer).
        self.hint_rate = 0.5
        #: Atoms over state variables are read along with the state (their truth values are
        #: the Boolean terms of the implication templates).
        self.atoms = state_atoms(system)
        nmap = system.next_map()
        self.next_atoms = [system.env.substituter.substitute(a, nmap) for a in self.atoms]

    def _hints(self, symbols: Sequence[FNode], lo: int, hi: int, all_ints: bool = False) -> list[FNode]:
        mgr = self.mgr
        hints = []
        for v in symbols:
            if self.rng.random() >= self.hint_rate:
                continue
            t = v.symbol_type()
            if t.is_bool_type():
                hints.append(v if self.rng.random() < 0.5 else mgr.Not(v))
            elif t.is_int_type() and (all_ints or v in self.int_hint_vars):
                hints.append(mgr.Equals(v, mgr.Int(self.rng.randint(lo, hi))))
        return hints

    def _solve(self, fixed: list[FNode], free: Sequence[FNode], all_ints: bool = False,
               sticky: Sequence[FNode] = ()) -> bool:
        """A model of ``fixed`` (and of ``sticky`` when possible) following as many random
        hints as the unsat cores allow."""
        hints = self._hints(free, -2, 6, all_ints)
        if sticky and self._with_hints([*fixed, *sticky], hints):
            return True
        return self._with_hints(fixed, hints)

    def _with_hints(self, fixed: list[FNode], hints: list[FNode]) -> bool:
        for _ in range(10):
            if self.solver.check([*fixed, *hints]):
                return True
            if not hints:
                return False
            core = set(self.solver.unsat_core())
            dropped = [h for h in hints if h in core]
            hints = [h for h in hints if h not in core] if dropped else []
        return self.solver.check(fixed)

    def runs(self, count: int, depth: int, deadline: float,
             flags: Sequence[FNode] = ()) -> list[dict[FNode, object]]:
        """Up to ``count`` runs of ``depth`` steps; every other run tries to keep ``flags``
        true (random hints alone falsify ``Sofar(env)`` flags within a step or two)."""
        system = self.system
        nmap = system.next_map()
        states: list[dict[FNode, object]] = []
        seen: set[tuple] = set()
        # Initial values are hinted on inputs and registers: a wire's value is set by the others,
        # and a hint on it conflicts and takes a parameter's hint down with it in the core.
        free_init = system.current_vars if self.registers is None else \
            [v for v in system.current_vars if v in self.registers or v in self.int_hint_vars]
        free_step = (*system.input_vars, *self.next_inputs.values(), *system.next_vars)
        for run in range(count):
            sticky_cur = list(flags) if run % 2 == 1 else []
            sticky_next = [nmap[f] for f in sticky_cur]
            # The initial state always gets many hints: left to the solver, parameters such as
            # a protocol's number of caches start at 0, and nothing ever moves.
            self.hint_rate = 0.8
            if not self._solve([self.act_init], free_init, all_ints=True, sticky=sticky_cur):
                break
            self.hint_rate = (0.5, 0.1, 0.5, 0.3)[run % 4]
            vals = self.solver.values([*system.state_vars, *self.atoms])
            stale = 0
            for _ in range(depth):
                key = tuple(vals[v] for v in system.state_vars)
                if key not in seen:
                    seen.add(key)
                    states.append(vals)
                    stale = 0
                else:
                    stale += 1
                    if stale >= 3:  # stuck in known states: a fresh run samples better
                        break
                if time.monotonic() > deadline:
                    return states
                fixed = [self.act_step, *(self.mgr.EqualsOrIff(v, constant(self.mgr, v, vals[v]))
                                          for v in system.state_vars)]
                if not self._solve(fixed, free_step, sticky=sticky_next):
                    break
                nxt = self.solver.values([*system.next_vars, *self.next_atoms])
                vals = {c: nxt[n] for c, n in zip(system.state_vars, system.next_vars, strict=True)}
                vals.update((a, nxt[n]) for a, n in zip(self.atoms, self.next_atoms, strict=True))
        return states


def affine_equalities(mgr, variables: Sequence[FNode], samples: Sequence[dict]) -> list[FNode]:
    """Linear equalities ``sum a_i x_i = b`` satisfied by every sample (the affine hull)."""
    if not variables or len(samples) < 2:
        return []
    n = len(variables)
    basis: list[tuple[int, list[Fraction]]] = []  # (pivot column, row) in reduced form
    for s in samples:
        row = [Fraction(s[v]) for v in variables] + [Fraction(1)]
        for piv, b in basis:
            if row[piv] != 0:
                f = row[piv]
                row = [x - f * y for x, y in zip(row, b, strict=True)]
        piv = next((i for i, x in enumerate(row) if x != 0), None)
        if piv is None:
            continue
        inv = 1 / row[piv]
        row = [x * inv for x in row]
        basis = [(p, [x - b[piv] * y for x, y in zip(b, row, strict=True)]) if b[piv] != 0 else (p, b)
                 for p, b in basis]
        basis.append((piv, row))
        if len(basis) == n + 1:
            return []
    pivots = {p: b for p, b in basis}
    out = []
    is_int = variables[0].symbol_type().is_int_type()
    for free in range(n + 1):
        if free in pivots:
            continue
        coef = [Fraction(0)] * (n + 1)
        coef[free] = Fraction(1)
        for p, b in pivots.items():
            coef[p] = -b[free]
        scale = lcm(*(c.denominator for c in coef))
        ints = [int(c * scale) for c in coef]
        terms = [mgr.Times(_num(mgr, is_int, a), v) if a != 1 else v
                 for a, v in zip(ints[:n], variables, strict=True) if a != 0]
        if len(terms) < 2:
            continue  # constants are candidates of their own
        # sum(a_i x_i) + a_const * 1 = 0 over the samples' coordinates [x..., 1]
        out.append(mgr.Equals(mgr.Plus(terms), _num(mgr, is_int, -ints[n])))
    return out


def _num(mgr, is_int: bool, value: int) -> FNode:
    return mgr.Int(value) if is_int else mgr.Real(value)


class Candidates:
    """Templates instantiated over the state variables and filtered on sampled states."""

    def __init__(self, system: TransitionSystem, samples: list[dict],
                 facts: Sequence[FNode] = (), variables: Sequence[FNode] | None = None,
                 latched: Sequence[FNode] = ()) -> None:
        self.system = system
        #: "So far" flags (:func:`~kinduct.plugins.engines.common.latches`): split on first.
        self.latched = list(latched)
        #: The state variables candidates may mention (IC3 asks only about its step support).
        self.vars = set(system.state_vars if variables is None else variables)
        self.env = system.env
        self.mgr = system.env.formula_manager
        self.samples = samples
        self._base: list[FNode] | None = None
        #: Variables the system's atoms mention (the quantities its guards test).
        self.atom_vars: set[FNode] = set()
        for atom in state_atoms(system):
            self.atom_vars |= self.env.fvo.get_free_variables(atom)
        self.facts = list(facts)
        #: Variables a fact defines (``v = e``): functions of the others, so they only add
        #: piecewise-linear noise to the affine hull of the sampled states.
        self.defined: set[FNode] = set()
        #: Variables some fact mentions: combinational (piecewise) definitions, not latches.
        self.in_facts: set[FNode] = set()
        for f in facts:
            self.in_facts |= self.env.fvo.get_free_variables(f)
        for f in facts:
            if f.is_equals() or f.is_iff():
                lhs, rhs = f.args()
                for a, b in ((lhs, rhs), (rhs, lhs)):
                    if a.is_symbol() and a not in self.env.fvo.get_free_variables(b):
                        self.defined.add(a)
                        break

    def flags(self, bools: Sequence[FNode]) -> list[FNode]:
        """Boolean state variables worth splitting the samples on: those the properties
        mention, directly or through a fact, first."""
        prop_vars: set[FNode] = set()
        for p in self.system.properties:
            prop_vars |= self.env.fvo.get_free_variables(p.obligation(self.env))
        near = set(prop_vars)
        for f in self.facts:
            free = self.env.fvo.get_free_variables(f)
            if free & prop_vars:
                near |= free
        varying = [b for b in bools if len({smp[b] for smp in self.samples}) > 1]
        return sorted(varying, key=lambda b: (b not in self.latched, b not in prop_vars, b not in near))

    def near_property(self, bools: Sequence[FNode]) -> list[FNode]:
        """Boolean state variables a fact ties to a property's variables (``OK = env => ..``),
        not the property variables themselves."""
        prop_vars: set[FNode] = set()
        for p in self.system.properties:
            prop_vars |= self.env.fvo.get_free_variables(p.obligation(self.env))
        near: list[FNode] = []
        for f in self.facts:
            free = self.env.fvo.get_free_variables(f)
            if free & prop_vars:
                near.extend(b for b in bools if b in free and b not in prop_vars and b not in near)
        return near

    def all(self) -> list[FNode]:
        return self.base() + self.conditional()

    def base(self) -> list[FNode]:
        """Candidates true on every sample."""
        if self._base is None:
            self._base = self.mine(self.samples, top=True)
        return self._base

    def conditional(self, dropped: Sequence[FNode] = ()) -> list[FNode]:
        """``flag -> c`` for candidates true on the samples where a flag near the property
        holds (``env => dirty <= 1`` needs invariants that only hold while ``env`` does), and
        for the ``dropped`` base candidates (true on every sample, yet not inductive: often
        only because states where ``env`` fails were never sampled)."""
        known = set(self.base()) - set(dropped)
        out: list[FNode] = []
        bools = [v for v in self.system.state_vars if v in self.vars and v.symbol_type().is_bool_type()]
        for flag in self.flags(bools)[:MAX_FLAGS]:
            part = [smp for smp in self.samples if smp[flag] is True]
            if not part or len(part) == len(self.samples):
                continue
            # Mining needs enough samples to be worth it (a latch's few states are all there
            # is to see while it holds); the dropped ones were mined already.
            enough = len(part) >= (2 if flag in self.latched else 8)
            for c in [*dropped, *(self.mine(part, top=False) if enough else [])]:
                if c not in known and c != flag:
                    known.add(c)
                    out.append(self.mgr.Implies(flag, c))
        return out

    def mine(self, samples: list[dict], top: bool) -> list[FNode]:
        mgr = self.mgr
        system = self.system
        out: list[FNode] = []
        bools = [v for v in system.state_vars if v in self.vars and v.symbol_type().is_bool_type()]
        ints = [v for v in system.state_vars if v in self.vars and v.symbol_type().is_int_type()]
        reals = [v for v in system.state_vars if v in self.vars and v.symbol_type().is_real_type()]
        if not samples:
            return out
        column = {v: [s[v] for s in samples] for v in system.state_vars}
        # Boolean terms (variables and the system's atoms): constants, then equivalences and
        # implications between the others (property atoms come first under the cap).
        atoms = [a for a in state_atoms(system) if all(a in smp for smp in samples[:1])
                 and self.env.fvo.get_free_variables(a) <= self.vars]
        for a in atoms:
            column[a] = [s[a] for s in samples]
        varying_b = []
        for b in [*atoms, *bools]:
            vals = set(column[b])
            if len(vals) == 1:
                out.append(b if vals.pop() else mgr.Not(b))
            else:
                varying_b.append(b)
        pairs = 0
        for i, a in enumerate(varying_b):
            for b in varying_b[i + 1:]:
                if pairs >= MAX_PAIR_CANDIDATES:
                    break
                ca, cb = column[a], column[b]
                if ca == cb:
                    out.append(mgr.Iff(a, b))
                    pairs += 1
                    continue
                if all(x != y for x, y in zip(ca, cb, strict=True)):
                    out.append(mgr.Iff(a, mgr.Not(b)))
                    pairs += 1
                    continue
                for p, q, x, y in ((a, b, ca, cb), (b, a, cb, ca)):
                    if all(not u or w for u, w in zip(x, y, strict=True)):
                        out.append(mgr.Implies(p, q))
                        pairs += 1
                if all(u or w for u, w in zip(ca, cb, strict=True)):
                    out.append(mgr.Or(a, b))
                    pairs += 1
                if all(not (u and w) for u, w in zip(ca, cb, strict=True)):
                    out.append(mgr.Not(mgr.And(a, b)))
                    pairs += 1
        # Numbers: constants, bounds, equal columns, orderings, then the affine hull.
        for group in (ints, reals):
            varying: list[FNode] = []
            reps: dict[tuple, FNode] = {}
            for v in group:
                vals = column[v]
                lo, hi = min(vals), max(vals)
                c_lo, c_hi = constant(mgr, v, lo), constant(mgr, v, hi)
                # Equal columns first, constant ones included: when simulation never moved two
                # counters, ``x = 0`` fails Houdini but ``x = y`` may well be inductive.
                key = tuple(vals)
                if key in reps:
                    out.append(mgr.Equals(v, reps[key]))
                reps.setdefault(key, v)
                if lo == hi:
                    out.append(mgr.Equals(v, c_lo))
                    continue
                out.append(mgr.LE(c_lo, v))
                out.append(mgr.LE(v, c_hi))
                if lo >= 0:
                    out.append(mgr.LE(constant(mgr, v, 0), v))
                if reps[key] is not v:
                    continue
                varying.append(v)
            pairs = 0
            for i, a in enumerate(varying):
                for b in varying[i + 1:]:
                    if pairs >= MAX_PAIR_CANDIDATES:
                        break
                    ca, cb = column[a], column[b]
                    if all(x <= y for x, y in zip(ca, cb, strict=True)):
                        out.append(mgr.LE(a, b))
                        pairs += 1
                    elif all(x >= y for x, y in zip(ca, cb, strict=True)):
                        out.append(mgr.LE(b, a))
                        pairs += 1
            # Sums of two counters the system tests (``exclusive + dirty <= 1``): mutual
            # exclusion between protocol states, which orderings cannot express.
            tested = [v for v in varying if v in self.atom_vars]
            sums = 0
            for i, a in enumerate(tested):
                for b in tested[i + 1:]:
                    if sums >= MAX_SUM_CANDIDATES:
                        break
                    total = [x + y for x, y in zip(column[a], column[b], strict=True)]
                    hi, lo = max(total), min(total)
                    if hi < max(column[a]) + max(column[b]):
                        out.append(mgr.LE(mgr.Plus(a, b), constant(mgr, a, hi)))
                        sums += 1
                    if lo > min(column[a]) + min(column[b]):
                        out.append(mgr.LE(constant(mgr, a, lo), mgr.Plus(a, b)))
                        sums += 1
            for pool in (varying, [v for v in varying if v not in self.defined]):
                if 1 < len(pool) <= 120:
                    out.extend(e for e in affine_equalities(mgr, pool, samples)
                               if _max_coefficient(e) <= MAX_COEFFICIENT)
            # Path-sensitive hulls: equalities that hold whenever a Boolean flag does
            # (``env -> invalid + valid + dirty = First`` when a bug is injected off ``env``).
            if top and 1 < len(varying) <= 120:
                for flag in self.flags(bools)[:MAX_FLAGS]:
                    for polarity in (True, False):
                        part = [smp for smp in samples if smp[flag] is polarity]
                        if len(part) < 3 or len(part) == len(samples):
                            continue
                        guard = flag if polarity else mgr.Not(flag)
                        out.extend(mgr.Implies(guard, e)
                                   for e in affine_equalities(mgr, varying, part)
                                   if _max_coefficient(e) <= MAX_COEFFICIENT)
        unique: list[FNode] = []
        seen_c: set[FNode] = set()
        for c in out:
            if c not in seen_c and not c.is_true():
                seen_c.add(c)
                unique.append(c)
        return unique


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
        if not s.check([mgr.Not(mgr.And(cands))]):
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
        if not s.check([*(acts[c] for c in cands), query]):
            break
        vals = s.values([primed[c] for c in cands])
        cands = [c for c in cands if vals[primed[c]]]
    s.close()
    return cands


def _halves(mgr, candidate: FNode) -> list[FNode]:
    """``a <= b`` and ``b <= a`` for a numeric equality ``a = b`` (also under an implication)."""
    if candidate.is_implies():
        return [mgr.Implies(candidate.arg(0), h) for h in _halves(mgr, candidate.arg(1))]
    if candidate.is_equals() and not candidate.arg(0).get_type().is_bool_type():
        a, b = candidate.args()
        return [mgr.LE(a, b), mgr.LE(b, a)]
    return []


def registers(system: TransitionSystem, facts: Sequence[FNode], solver) -> list[FNode] | None:
    """The registers in the cone of the step and of the properties, or None when that is every
    state variable.  Candidates over wires (streams the assumptions set within a step, as in
    the Lustre translation) are functions of the registers and inputs: they only crowd the
    templates and the affine hull, where ``wire = register`` equalities push out the relations
    between registers that the proof needs."""
    cone = Cone(system, facts, solver)
    regs = set(cone.step())
    for prop in system.properties:
        regs.update(cone.prop(prop.obligation(system.env)))
    return [v for v in system.state_vars if v in regs] if 0 < len(regs) < len(system.state_vars) else None


@attrs.frozen
class _Shape:
    """What invgen reads off a system's structure before it samples: the same in every round."""

    facts: tuple[FNode, ...]
    first: FNode | None
    latched: tuple[FNode, ...]
    registers: list[FNode] | None


_SHAPES: weakref.WeakKeyDictionary[TransitionSystem, _Shape] = weakref.WeakKeyDictionary()


def _shape(system: TransitionSystem, ctx: EngineContext) -> _Shape:
    """The system's :class:`_Shape`, computed once (rounds and ic3's reseeding reuse it)."""
    shape = _SHAPES.get(system)
    if shape is None:
        helper = ctx.make_solver()
        facts = trans_state_invariants(system, helper)
        facts += [c for c in copy_invariants(system, helper) if c not in set(facts)]
        first = first_flag(system, helper)
        shape = _Shape(tuple(facts), first, tuple(latches(system, helper, first)),
                       registers(system, facts, helper))
        helper.close()
        _SHAPES[system] = shape
    return shape


def discover(system: TransitionSystem, ctx: EngineContext, budget: float = 10.0,
             seed: int = 0, on_proved: Callable[[list[FNode], list[FNode]], None] | None = None,
             variables: Sequence[FNode] | None = None,
             known: Sequence[FNode] = ()) -> tuple[list[FNode], list[FNode]]:
    """(facts, invariants): trans-implied state invariants and Houdini survivors (candidates
    over ``variables`` only, when given, else over the :func:`registers`), inductive relative
    to ``known`` invariants (an earlier round's: rounds with other seeds sample other states,
    and the affine hull of a few samples often carries a coincidence that hides a true
    equality; the union of the rounds' invariants is inductive too).

    ``ctx.options`` ``invgen_runs``/``invgen_depth`` size the simulation (8 runs of 20 steps);
    ``budget`` bounds only the simulation (half of it), since a cut-off Houdini proves nothing."""
    shape = _shape(system, ctx)
    facts = list(shape.facts)
    flag, latched = shape.first, shape.latched
    if variables is None:
        variables = shape.registers
    facts += [k for k in known if k not in set(facts)]
    sim = Simulator(system, ctx, seed, variables)
    bools = [v for v in system.state_vars if v.symbol_type().is_bool_type()]
    near = Candidates(system, [], facts).near_property(bools)
    # Half the runs keep the latches true (wire and register alike, or the flag falls a step
    # later) and the flags a fact ties to the property.
    flags = [*latched[:MAX_STICKY], *(b for b in near[:2] if b not in latched)]
    samples = sim.runs(count=int(ctx.options.get("invgen_runs", 8)),
                       depth=int(ctx.options.get("invgen_depth", 20)),
                       deadline=time.monotonic() + budget / 2, flags=flags)
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
    loose = [h for c in dropped for h in _halves(mgr, c) if guard(h) not in kept]
    conditional = guarded([c for c in [*loose, *miner.conditional([*dropped, *loose])]
                           if c not in given])
    # No deadline check here either: skipping this stage on a busy machine made verdicts
    # depend on the load (the invariants of protocols under ``env`` are all conditional).
    if conditional:
        more = houdini(system, ctx, facts, [*proved, *conditional])
        if more is not None:
            proved = more
    return facts, proved


class InvGen(Engine):
    name = "invgen"
    description = "invariant generation (templates + affine hull of simulations, Houdini)"

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        budget = float(ctx.options.get("invgen_budget", 20.0))
        left = ctx.time_left()
        if left is not None:
            budget = min(budget, max(1.0, left - 0.5))
        mgr = system.env.formula_manager

        def early(facts: list[FNode], proved: list[FNode]) -> None:
            ctx.publish_invariants([to_smtlib(f) for f in [*facts, *proved]])

        # Rounds with fresh simulation seeds until every property is proved or time is up.
        rounds = int(ctx.options.get("invgen_rounds", 4))
        lemmas: list[FNode] = []
        open_props = list(properties)
        for seed in range(rounds):
            facts, proved = discover(system, ctx, budget, seed=seed, on_proved=early, known=lemmas)
            fresh = [f for f in [*facts, *proved] if f not in set(lemmas)]
            if seed and not fresh:
                continue
            lemmas.extend(fresh)
            if lemmas:
                ctx.publish_invariants([to_smtlib(f) for f in lemmas])
            settled = [p for p in open_props if self._settled(system, p, lemmas, ctx)]
            for prop in settled:
                yield Verdict(prop.name, Answer.VALID, k=1, invariant=to_smtlib(mgr.And(lemmas)))
            open_props = [p for p in open_props if p not in settled]
            if not open_props:
                break

    def _settled(self, system: TransitionSystem, prop: Property, lemmas: list[FNode],
                 ctx: EngineContext) -> bool:
        """Do the invariants prove ``prop`` (checked again as a certificate)?"""
        mgr = system.env.formula_manager
        inv = mgr.And(lemmas)
        solver = ctx.make_solver()
        solver.add(inv)
        solver.add_all(system.assumptions)
        implied = not solver.check([mgr.Not(prop.obligation(system.env))])
        solver.close()
        if not implied:
            return False
        checker = ctx.make_solver()
        problem = check_invariant(system, prop, inv, checker)
        checker.close()
        return problem is None
