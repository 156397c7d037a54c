"""Simulated executions of a system through the solver, the samples invariant mining reads.

Only the scalar state (Booleans, numbers, bit-vectors) is sampled: datatype- and array-sorted
state variables (:func:`~kinduct.plugins.engines.analysis.opaque`) are left to the solver in
every step, so a sample is a scalar state that some state of the system projects to (not
always a reachable one; samples only propose candidates, which are proved on the full
relation)."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from fractions import Fraction

from pysmt.fnode import FNode

from kinduct.kernel.backend import SolverUnknown, constant
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.system import TransitionSystem, conjuncts
from kinduct.plugins.engines.analysis import opaque
from kinduct.plugins.engines.vocab import state_atoms


class Simulator:
    """Random executions through the solver: each step fixes the current state and asks for a
    successor, nudged by random hints on the free values (dropped when they conflict)."""

    def __init__(self, system: TransitionSystem, ctx: EngineContext, seed: int = 0,
                 registers: Sequence[FNode] | None = None, state_hints: bool = True) -> None:
        self.system = system
        self.mgr = system.env.formula_manager
        self.rng = random.Random(seed)
        self.solver = ctx.make_solver()
        mgr = self.mgr
        self.act_init = mgr.FreshSymbol(template="__sim_init_%d")
        self.act_step = mgr.FreshSymbol(template="__sim_step_%d")
        # Samples need not be reachable states (they only propose candidates): quantified
        # conjuncts (bounds and contents of sets and maps) are left out, since a solver that
        # cannot decide them would stop every run.
        init, trans, assumptions = (_quantifier_free(system, f)
                                    for f in (system.init, system.trans, mgr.And(system.assumptions)))
        self.solver.add(mgr.Implies(self.act_init, mgr.And(init, assumptions)))
        # The successor must satisfy the assumptions too (with inputs of its own): where they
        # define the wires (the Lustre translation) a successor chosen by ``trans`` alone is
        # garbage that no further step accepts.
        self.next_inputs = {i: mgr.FreshSymbol(i.symbol_type(), template="__sim_in_%d")
                            for i in system.input_vars}
        shift = {**system.next_map(), **self.next_inputs}
        ahead = system.env.substituter.substitute(assumptions, shift)
        self.solver.add(mgr.Implies(self.act_step, mgr.And(trans, assumptions, ahead)))
        #: Integer hints only on inputs: random values for defined state variables mostly conflict.
        self.int_hint_vars = set(system.input_vars) | set(self.next_inputs.values())
        self.registers = None if registers is None else set(registers)
        #: Hints on the next state's variables too (else on the inputs alone: where the
        #: assumptions define most state variables, their hints mostly conflict, and each
        #: conflict costs a query and an unsat core).
        self.state_hints = state_hints
        #: The state variables a sample holds (and each step fixes), with their next copies.
        self.scalars = [v for v in system.state_vars if not opaque(v)]
        nmap = system.next_map()
        self.next_scalars = [nmap[v] for v in self.scalars]
        #: Probability of a hint per free value; runs alternate between many and few hints
        #: (few keeps "so far" flags such as Lustre's Sofar(env) true for longer).
        self.hint_rate = 0.5
        #: Atoms over state variables are read along with the state (their truth values are
        #: the Boolean terms of the implication templates).
        self.atoms = [a for a in state_atoms(system)
                      if not any(opaque(v) for v in system.env.fvo.get_free_variables(a))]
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
        """False also when the solver cannot decide (the run ends there)."""
        try:
            for _ in range(10):
                if self.solver.check([*fixed, *hints]):
                    return True
                if not hints:
                    return False
                core = set(self.solver.unsat_core())
                dropped = [h for h in hints if h in core]
                hints = [h for h in hints if h not in core] if dropped else []
            return self.solver.check(fixed)
        except SolverUnknown:
            return False

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
        free_step = (*system.input_vars, *self.next_inputs.values(),
                     *(system.next_vars if self.state_hints else ()))
        for run in range(count):
            sticky_cur = list(flags) if run % 2 == 1 else []
            sticky_next = [nmap[f] for f in sticky_cur]
            # The initial state always gets many hints: left to the solver, parameters such as
            # a protocol's number of caches start at 0, and nothing ever moves.
            self.hint_rate = 0.8
            if not self._solve([self.act_init], free_init, all_ints=True, sticky=sticky_cur):
                break
            self.hint_rate = (0.5, 0.1, 0.5, 0.3)[run % 4]
            vals = self.solver.values([*self.scalars, *self.atoms])
            stale = 0
            for _ in range(depth):
                key = tuple(vals[v] for v in self.scalars)
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
                                          for v in self.scalars)]
                if not self._solve(fixed, free_step, sticky=sticky_next):
                    break
                nxt = self.solver.values([*self.next_scalars, *self.next_atoms])
                if any(oversized(nxt[n]) for n in self.next_scalars):
                    break  # a run whose numbers explode (r / e each step) says nothing of bounds
                vals = {c: nxt[n] for c, n in zip(self.scalars, self.next_scalars, strict=True)}
                vals.update((a, nxt[n]) for a, n in zip(self.atoms, self.next_atoms, strict=True))
        return states




def _quantifier_free(system: TransitionSystem, formula: FNode) -> FNode:
    """The conjunction of ``formula``'s quantifier-free conjuncts."""
    qf = system.env.qfo.is_qf
    if qf(formula):
        return formula
    return system.env.formula_manager.And([c for c in conjuncts(formula) if qf(c)])


#: Digits from which a sampled number ends its run (:func:`oversized`).
MAX_DIGITS = 30


def oversized(value: object) -> bool:
    """Whether ``value`` is a number of more than :data:`MAX_DIGITS` digits (numerator or
    denominator): on a nonlinear model (``r = pre r / e``) a run's numbers can double their
    digits at every step, each later query and model slower (63,000 digits after 12 steps
    made one run of ``ic3``'s discovery last a minute)."""
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        return False
    limit = 10 ** MAX_DIGITS
    if isinstance(value, Fraction):
        return abs(value.numerator) >= limit or value.denominator >= limit
    return abs(value) >= limit
