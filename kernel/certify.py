"""Checking inductive-invariant certificates of valid verdicts.

A certificate ``Inv`` (over current state variables) proves the invariant property ``P`` when

1. ``Init and A => Inv``           (it holds initially),
2. ``Inv and A and T => Inv'``     (it is preserved by every step),
3. ``Inv and A => P``              (it implies the property at every step),

where ``A`` are the system's assumptions.  Engines run this check on a fresh solver before they
report ``valid``; ``--certify`` runs it again with the *other* backend so that one solver's bug
cannot produce an unsound proof unnoticed.  A ``k``-inductive proof (``kind``'s
:class:`~kinduct.kernel.verdict.Proof`) is re-checked the same way by :func:`check_proof`: the
queries of the scripts ``--certificates`` writes (:mod:`kinduct.kernel.certificates`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver, SolverUnknown
from kinduct.kernel.lemmas import parse_lemmas
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Proof


def check_invariant(system: TransitionSystem, prop: Property, inv: FNode, solver: Solver) -> str | None:
    """None when ``inv`` certifies ``prop``; otherwise which of the three conditions fails."""
    env = system.env
    mgr = env.formula_manager
    free = env.fvo.get_free_variables(inv)
    allowed = {*system.state_vars, *system.rigid_symbols()}
    if not free <= allowed:
        extra = sorted(v.symbol_name() for v in free - allowed)
        return f"certificate mentions non-state variables: {', '.join(extra)}"
    assumptions = mgr.And(system.assumptions)
    inv_next = env.substituter.substitute(inv, system.next_map())
    goal = prop.obligation(env)
    conditions = (
        ("initiation", mgr.And(system.init, assumptions, mgr.Not(inv))),
        ("consecution", mgr.And(inv, assumptions, system.trans, mgr.Not(inv_next))),
        ("safety", mgr.And(inv, assumptions, mgr.Not(goal))),
    )
    return first_failure(solver, conditions)


def certify(system: TransitionSystem, prop: Property, invariant_text: str, backend: str) -> str | None:
    """Re-check an SMT-LIB certificate with ``backend``; None when it holds, else the failure."""
    from kinduct.kernel import registry

    try:
        (inv,) = parse_lemmas(system, [invariant_text])
    except Exception as exc:  # a malformed certificate is a failed certificate
        return f"certificate does not parse: {exc}"
    solver = registry.backend(backend).solver(system.env)
    try:
        return check_invariant(system, prop, inv, solver)
    finally:
        solver.close()


def check_proof(system: TransitionSystem, prop: Property, proof: Proof, phi: FNode,
                solver: Solver) -> str | None:
    """None when ``phi`` (``proof.invariant``, parsed) is a ``proof.k``-inductive invariant
    implying ``prop``: no violation at steps ``0..k-1`` from init, none at step ``k`` after
    ``k`` steps where it holds (the proof's simple-path pairs assumed), and it implies the
    property; otherwise which condition fails."""
    mgr = system.env.formula_manager
    ub = Unroller(system)
    k = proof.k
    if k < 1:
        return f"the proof's depth k = {k} is not positive"

    def path(last: int) -> list[FNode]:
        return ([ub.at(a, j) for j in range(last + 1) for a in system.assumptions]
                + [ub.at(system.trans, j) for j in range(last)])

    def differ(i: int, j: int) -> FNode:
        return mgr.Not(mgr.And([mgr.EqualsOrIff(ub.timed(v, i), ub.timed(v, j))
                                for v in system.state_vars]))

    conditions = [(f"base case at step {j}",
                   mgr.And(ub.at(system.init, 0), *path(j), mgr.Not(ub.at(phi, j))))
                  for j in range(k)]
    conditions.append((f"{k}-induction", mgr.And(
        *path(k), *(ub.at(phi, j) for j in range(k)),
        *(differ(i, j) for i, j in proof.distinct if max(i, j) <= k), mgr.Not(ub.at(phi, k)))))
    conditions.append(("safety", mgr.And(phi, *system.assumptions,
                                         mgr.Not(prop.obligation(system.env)))))
    return first_failure(solver, conditions)


def certify_proof(system: TransitionSystem, prop: Property, proof: Proof,
                  backend: str) -> str | None:
    """Re-check a ``k``-inductive proof with ``backend``; None when it holds, else the failure."""
    from kinduct.kernel import registry

    try:
        (phi,) = parse_lemmas(system, [proof.invariant])
    except Exception as exc:  # a malformed certificate is a failed certificate
        return f"certificate does not parse: {exc}"
    solver = registry.backend(backend).solver(system.env)
    try:
        return check_proof(system, prop, proof, phi, solver)
    finally:
        solver.close()


def first_failure(solver: Solver, conditions: Sequence[tuple[str, FNode]]) -> str | None:
    """The first of the (label, query) ``conditions`` that ``solver`` finds satisfiable (the
    condition fails) or cannot decide, said in words; None when every query is unsat.

    Each query is checked under an assumption literal: z3 then keeps its incremental core,
    where a check without assumptions first runs its one-shot tactics (measured on a 2-inductive
    proof of FMCAD08's microwave27 with 78 lemmas: 26.7 s one-shot, 0.6 s under a literal)."""
    mgr = solver.env.formula_manager
    for label, query in conditions:
        solver.reset()
        lit = mgr.FreshSymbol(template="__condition_%d")
        solver.add(mgr.Implies(lit, query))
        try:
            if solver.check([lit]):
                return f"{label} fails"
        except SolverUnknown as exc:
            return f"{label}: solver returned unknown ({exc})"
    return None
