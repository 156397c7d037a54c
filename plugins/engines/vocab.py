"""The literal vocabulary IC3 describes states with.

A state is a full assignment of the state variables.  IC3 blocks it as a *cube* of literals that
are all true in it and together pin it down exactly: a Boolean variable or its negation, and for
a numeric variable the two half-spaces ``x <= v`` and ``x >= v``.  Unsat cores and inductive
generalisation then drop literals, so a blocked state grows into a half-space (``x >= 11`` gives
the lemma ``x <= 10``).  To reach relational lemmas (``x = y``) cubes also carry the truth values
of the system's own atoms over state variables (IC3IA's predicates, seeded from init, trans and
the property) and difference bounds ``x - y <= d``/``x - y >= d`` for variables that occur
together in an atom.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from pysmt.fnode import FNode

from kinduct.kernel.backend import constant
from kinduct.kernel.system import TransitionSystem
from kinduct.plugins.engines.analysis import register_updates

#: Caps that keep cubes of big systems small enough for fast queries.
MAX_ATOMS = 150
MAX_PAIRS = 60
#: Up to this many numeric state variables, all pairs get difference literals.
SMALL = 8


def theory_atoms(env, formula: FNode) -> set[FNode]:
    """The arithmetic comparison atoms of ``formula`` (Boolean variables are separate)."""
    found: set[FNode] = set()
    stack = [formula]
    seen: set[FNode] = set()
    while stack:
        f = stack.pop()
        if f in seen:
            continue
        seen.add(f)
        if f.is_le() or f.is_lt() or (f.is_equals() and not f.arg(0).get_type().is_bool_type()):
            found.add(f)
            continue
        stack.extend(f.args())
    return found


def current_atoms(system: TransitionSystem, sources: Sequence[FNode],
                  states: set[FNode]) -> Iterator[tuple[FNode, set[FNode]]]:
    """The distinct, simplified theory atoms of ``sources`` over ``states`` only, each with its
    variables; atoms over next-state variables alone are renamed to current ones."""
    env = system.env
    to_cur = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}
    seen: set[FNode] = set()
    for src in sources:
        for atom in sorted(theory_atoms(env, src), key=lambda a: a.node_id()):
            free = env.fvo.get_free_variables(atom)
            if free and free <= set(to_cur):
                atom = env.substituter.substitute(atom, to_cur)
                free = {to_cur[v] for v in free}
            if not free or not free <= states:
                continue
            atom = env.simplifier.simplify(atom)
            if atom.is_bool_constant() or atom in seen:
                continue
            seen.add(atom)
            yield atom, free


def state_atoms(system: TransitionSystem, limit: int = MAX_ATOMS) -> list[FNode]:
    """Arithmetic atoms of the property, init, trans and assumptions that mention state variables
    only (atoms over next-state variables are renamed to current), property atoms first."""
    env = system.env
    states = set(system.state_vars)
    sources = [*(p.obligation(env) for p in system.properties), system.init, system.trans,
               *system.assumptions]
    out: list[FNode] = []
    for atom, _ in current_atoms(system, sources, states):
        out.append(atom)
        if len(out) >= limit:
            return out
    seen = set(out)
    # Latches that copy another variable (``v' = u``, Lustre's ``pre u``): an atom over one
    # also makes sense over the other (guards test ``pre x = 0``, properties test ``x < 1``).
    copy = {v: u for v, u in register_updates(system).items() if u in states and u != v}
    if copy:
        back = {u: v for v, u in copy.items()}
        for atom in list(out):
            for mapping in (copy, back):
                free = env.fvo.get_free_variables(atom)
                if free and free <= set(mapping):
                    moved = env.simplifier.simplify(env.substituter.substitute(atom, mapping))
                    if moved not in seen and not moved.is_bool_constant():
                        seen.add(moved)
                        out.append(moved)
                        if len(out) >= limit:
                            return out
    return out


class Vocabulary:
    """Literals describing a state, ordered from most specific (tried first when dropping).

    With ``support`` the state variables are restricted to it (and the atoms and pairs to those
    over it): the vocabulary of projected predecessor cubes (see :func:`step_support`)."""

    def __init__(self, system: TransitionSystem, extra: Iterable[FNode] = (),
                 support: Sequence[FNode] | None = None) -> None:
        self.system = system
        env = system.env
        self.env = env
        self.mgr = env.formula_manager
        states = set(system.state_vars) if support is None else set(support)
        self.bools = [v for v in system.state_vars if v in states and v.symbol_type().is_bool_type()]
        self.nums = [v for v in system.state_vars if v in states and
                     (v.symbol_type().is_int_type() or v.symbol_type().is_real_type())]
        sources = [system.init, system.trans, *system.assumptions,
                   *(p.obligation(env) for p in system.properties), *extra]
        atoms: list[FNode] = []
        pairs: list[tuple[FNode, FNode]] = []
        seen_pairs: set[tuple[FNode, FNode]] = set()
        for atom, free in current_atoms(system, sources, states):
            if len(atoms) < MAX_ATOMS:
                atoms.append(atom)
            numeric = sorted((v for v in free if v in set(self.nums)), key=lambda v: v.node_id())
            for i, a in enumerate(numeric):
                for b in numeric[i + 1:]:
                    if a.symbol_type() == b.symbol_type() and (a, b) not in seen_pairs \
                            and len(pairs) < MAX_PAIRS:
                        seen_pairs.add((a, b))
                        pairs.append((a, b))
        if len(self.nums) <= SMALL:
            # Few numeric variables: every same-typed pair may be related (``x = y``).
            for i, a in enumerate(self.nums):
                for b in self.nums[i + 1:]:
                    if a.symbol_type() == b.symbol_type() and (a, b) not in seen_pairs \
                            and (b, a) not in seen_pairs:
                        seen_pairs.add((a, b))
                        pairs.append((a, b))
        self.atoms = atoms
        self.pairs = pairs
        self.symbols = [v for v in system.state_vars if v in states]
        #: What to read from a model to build a cube: state variables, then atoms.
        self.terms = [*self.symbols, *self.atoms]

    def cube(self, values: dict[FNode, object]) -> list[FNode]:
        """The literals true in the state ``values`` (a full assignment of state variables)."""
        mgr = self.mgr
        lits: list[FNode] = []
        consts = {v: constant(mgr, v, values[v]) for v in self.symbols}
        for v in self.nums:
            c = consts[v]
            lits.append(mgr.LE(v, c))
            lits.append(mgr.GE(v, c))
        for a, b in self.pairs:
            d = values[a] - values[b]
            dc = constant(mgr, a, d)
            diff = mgr.Minus(a, b)
            lits.append(mgr.LE(diff, dc))
            lits.append(mgr.GE(diff, dc))
        for atom in self.atoms:
            val = values.get(atom)
            if val is None:
                val = evaluate(self.env, atom, consts)
            lits.append(atom if val else mgr.Not(atom))
        for v in self.bools:
            lits.append(v if values[v] else mgr.Not(v))
        return lits


def evaluate(env, formula: FNode, consts: dict[FNode, FNode]) -> bool | None:
    value = env.simplifier.simplify(env.substituter.substitute(formula, consts))
    return value.constant_value() if value.is_bool_constant() else None


