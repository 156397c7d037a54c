"""Candidate invariants: templates over the registers and the affine hull of sampled states.

Candidates are over state variables only (so they can be certified and shared as lemmas):
Boolean constants and equalities, integer/real constants, bounds, equalities and orderings
between variables, bit-vector constants, equalities and (signed and unsigned) bounds, the
truth values of the system's own atoms, and the *affine hull* of the sampled states (linear
equalities such as ``Depth = Cl - Cr`` that no template lists).  Simulated reachable states
discard most false candidates before any solver call.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import lcm

from pysmt.fnode import FNode

from kinduct.kernel.backend import constant
from kinduct.kernel.system import TransitionSystem
from kinduct.plugins.engines.analysis import opaque
from kinduct.plugins.engines.vocab import state_atoms

MAX_PAIR_CANDIDATES = 1500
#: Affine equalities with bigger coefficients come from too few samples, not from the system.
MAX_COEFFICIENT = 16
#: Cap on ``a + b <= c`` candidates per mining round.
MAX_SUM_CANDIDATES = 400
#: Boolean flags whose true/false samples get their own affine hull.
MAX_FLAGS = 4
#: Caps on the unsampled equalities between array- or datatype-sorted registers: pairs, and
#: Boolean registers each pair is also guarded by (both polarities).
MAX_OPAQUE_PAIRS = 16
MAX_OPAQUE_GUARDS = 4




def _max_coefficient(eq: FNode) -> int:
    lhs, rhs = eq.args()
    coefs = [abs(int(rhs.constant_value()))] if rhs.is_constant() else []
    for t in (lhs.args() if lhs.is_plus() else [lhs]):
        if t.is_times() and t.arg(0).is_constant():
            coefs.append(abs(int(t.arg(0).constant_value())))
    return max(coefs, default=1)


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

    def opaque_equalities(self, first: FNode | None = None) -> list[FNode]:
        """``x = y`` for registers of one array or datatype sort, unguarded and under each of a
        few Boolean registers and their negations (``seen -> held = frozen``: a variable that
        holds its value while a clocked call is frozen equals the call's own memory once the
        clock has ticked).  The samples hold no such values, so nothing filters these: the
        caller proves them on the full relation."""
        mgr = self.mgr
        regs = [v for v in self.system.state_vars if v in self.vars and opaque(v)]
        pairs: list[FNode] = []
        for i, a in enumerate(regs):
            for b in regs[i + 1:]:
                if a.symbol_type() == b.symbol_type() and len(pairs) < MAX_OPAQUE_PAIRS:
                    pairs.append(mgr.Equals(a, b))
        if not pairs:
            return []
        bools = [v for v in self.system.state_vars
                 if v in self.vars and v is not first and v.symbol_type().is_bool_type()]
        guards = sorted(bools, key=lambda b: b not in self.latched)[:MAX_OPAQUE_GUARDS]
        out = list(pairs)
        for g in guards:
            for guard in (g, mgr.Not(g)):
                out.extend(mgr.Implies(guard, e) for e in pairs)
        return out

    def _bit_vectors(self, bvs: Sequence[FNode], column: dict) -> list[FNode]:
        """Bit-vector state variables (machine integers, their signedness unknown here):
        equal columns, constants, and bounds read both unsigned and signed."""
        mgr = self.mgr
        out: list[FNode] = []
        reps: dict[tuple, FNode] = {}
        for v in bvs:
            width = v.symbol_type().width
            vals = [int(x) for x in column[v]]  # the solvers' (unsigned) readings
            key = (width, tuple(vals))
            if key in reps:
                out.append(mgr.Equals(v, reps[key]))
            reps.setdefault(key, v)
            lo, hi = min(vals), max(vals)
            if lo == hi:
                out.append(mgr.Equals(v, mgr.BV(lo, width)))
                continue
            out += [mgr.BVULE(mgr.BV(lo, width), v), mgr.BVULE(v, mgr.BV(hi, width))]
            signed = [_signed(x, width) for x in vals]
            slo, shi = min(signed), max(signed)
            out += [mgr.BVSLE(mgr.BV(slo % (1 << width), width), v),
                    mgr.BVSLE(v, mgr.BV(shi % (1 << width), width))]
            if slo >= 0:
                out.append(mgr.BVSLE(mgr.BV(0, width), v))
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
        column = {v: [s[v] for s in samples] for v in system.state_vars if v in samples[0]}
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
        out.extend(self._bit_vectors(
            [v for v in system.state_vars if v in self.vars and v.symbol_type().is_bv_type()],
            column))
        unique: list[FNode] = []
        seen_c: set[FNode] = set()
        for c in out:
            if c not in seen_c and not c.is_true():
                seen_c.add(c)
                unique.append(c)
        return unique


def _signed(value: int, width: int) -> int:
    """A bit-vector's unsigned reading as a two's complement number."""
    return value - (1 << width) if value >= 1 << (width - 1) else value


def halves(mgr, candidate: FNode) -> list[FNode]:
    """``a <= b`` and ``b <= a`` for a numeric equality ``a = b`` (also under an implication)."""
    if candidate.is_implies():
        return [mgr.Implies(candidate.arg(0), h) for h in halves(mgr, candidate.arg(1))]
    if candidate.is_equals() and (candidate.arg(0).get_type().is_int_type()
                                  or candidate.arg(0).get_type().is_real_type()):
        a, b = candidate.args()
        return [mgr.LE(a, b), mgr.LE(b, a)]
    return []


