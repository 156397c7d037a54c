"""Realizability of a contract system by quantifier elimination (Katis, Gacek and Whalen,
"Towards synthesis from assume-guarantee contracts"; Kind 2's ``CONTRACTCK``).

The step of a :class:`~kinduct.kernel.contracts.ContractSystem` reads registers ``X`` (the
memory), uncontrollable values ``U`` (inputs, and the auxiliary streams the assumptions depend
on) and controllable values ``W`` (outputs and every other auxiliary stream).  ``P(X, U)`` are
the assumptions with the definitions they read, ``Q(X, U, W)`` the guarantees, modes and the
other definitions, ``X' = f(X, U, W)`` the registers' updates and ``I(X)`` the initial state.
The viable states are the greatest fixpoint of

    F_0 = true,   F_{n+1}(X) = F_n(X) and not Viol_n(X),
    Viol_n(X) = exists U. P(X, U) and not R_n(X, U),
    R_n(X, U) = exists W. Q(X, U, W) and F_n(f(X, U, W)),

each ``exists`` eliminated by z3's ``qe`` tactic.  The contract is *realizable* when the
fixpoint is reached with every initial state viable, *unrealizable* as soon as some initial
state is not viable in some ``F_n`` (the sequence only shrinks, so this is sound before the
fixpoint too); *unknown* when elimination leaves a quantifier, the formulas grow too large, the
iteration bound or the deadline is reached.  For an unrealizable contract a bounded search
finds a *deadlocking trace*: steps that keep the assumptions and the guarantees, ending in a
state and an input (satisfying the assumptions) for which no output satisfies the guarantees
(``not R_0``), with a minimal *conflicting set* of guarantees at that last step (an unsat core
over selectors, minimised by deletion).

The *satisfiability* of a contract (Kind 2's ``satisfiabilityCheck``) is the same fixpoint
with everything controllable: is there one infinite run keeping assumptions and guarantees?
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from fractions import Fraction

import attrs
import z3
from pysmt.fnode import FNode
from pysmt.solvers.z3 import Z3Converter

from kinduct.kernel.contracts import ContractElement, ContractSystem
from kinduct.kernel.verdict import Value

#: Iterations of the fixpoint before the answer is unknown (``--bound`` overrides it).
MAX_ITERATIONS = 64
#: A viable region larger than this (z3 AST nodes) is given up on: unknown.
MAX_REGION_SIZE = 200_000
#: At most this long (milliseconds) for simplifying one region, and for checking the result.
SIMPLIFY_MS = 5_000
#: At most this long (milliseconds) for confirming a fixpoint by quantified solving.
REFUTE_MS = 10_000


class GiveUp(Exception):
    """The check cannot go on (unknown, with the reason)."""


@attrs.frozen
class Deadlock:
    """A deadlocking trace: the values of every variable at every step (by name), every
    element's value at every step (by its key in :attr:`Outcome.elements`), and the
    conflicting elements at the last step."""

    steps: tuple[dict[str, Value], ...]
    values: dict[str, tuple[bool, ...]]
    conflict: tuple[ContractElement, ...]
    #: The registers' first values (constants, and what the first step does not read).
    initial: dict[str, Value] = attrs.field(factory=dict)


@attrs.frozen
class Outcome:
    """``result``: realizable, unrealizable or unknown (satisfiable, unsatisfiable or unknown
    for a satisfiability check)."""

    result: str
    runtime: float
    iterations: int = 0
    reason: str | None = None
    deadlock: Deadlock | None = None


def element_keys(system: ContractSystem) -> dict[str, ContractElement]:
    """Every element of the system under a unique key (assumptions, guarantees, then each
    mode's requirements and ensures), in that order."""
    out: dict[str, ContractElement] = {}
    for i, e in enumerate(system.assumptions):
        out[f"a{i}"] = e
    for i, e in enumerate(system.guarantees):
        out[f"g{i}"] = e
    for m_i, m in enumerate(system.modes):
        for i, e in enumerate(m.requires):
            out[f"m{m_i}r{i}"] = e
        for i, e in enumerate(m.ensures):
            out[f"m{m_i}e{i}"] = e
    return out


class _Game:
    """The system in z3 terms, with the partition of its variables."""

    def __init__(self, system: ContractSystem, deadline: float | None, satisfiability: bool) -> None:
        self.system = system
        self.deadline = deadline
        self.ctx = z3.Context()
        self.conv = Z3Converter(system.env, self.ctx)
        c = self.conv.convert
        self.registers = [c(r) for r in system.registers]
        self.updates = [c(system.updates[r]) for r in system.registers]
        self.init = c(system.init)
        aux = sorted(system.auxiliaries, key=lambda v: v.symbol_name())
        self.symbols: list[FNode] = [*system.inputs, *system.outputs, *aux]
        self.keys = element_keys(system)
        self.elements = {k: c(e.formula) for k, e in self.keys.items()}
        defs = [c(d) for d in system.definitions]
        assumptions = [self.elements[f"a{i}"] for i in range(len(system.assumptions))]
        guarantees = [self.elements[f"g{i}"] for i in range(len(system.guarantees))]
        for m_i, m in enumerate(system.modes):
            req = z3.And([self.elements[f"m{m_i}r{i}"] for i in range(len(m.requires))] + [True],
                         self.ctx)
            guarantees += [z3.Implies(req, self.elements[f"m{m_i}e{i}"])
                           for i in range(len(m.ensures))]
        self.defs = defs
        inputs = [c(v) for v in system.inputs]
        outputs = [c(v) for v in system.outputs]
        aux_z3 = [c(v) for v in aux]
        cone = _cone(assumptions, defs, set(self.registers), set(outputs))
        u_aux = [v for v in aux_z3 if v in cone]
        w_aux = [v for v in aux_z3 if v not in cone]
        self.current = inputs + outputs + aux_z3
        if satisfiability:
            self.U: list[z3.ExprRef] = []
            self.W = inputs + outputs + aux_z3
            self.P = z3.BoolVal(True, self.ctx)
            self.Q = z3.And(assumptions + guarantees + defs + [True], self.ctx)
        else:
            self.U = inputs + u_aux
            self.W = outputs + w_aux
            u_set = set(self.U) | set(self.registers)
            premise = [d for d in defs if _vars(d) <= u_set]
            rest = [d for d in defs if not _vars(d) <= u_set]
            self.P = z3.And(assumptions + premise + [True], self.ctx)
            self.Q = z3.And(guarantees + rest + [True], self.ctx)

    # ---- limits ----
    def remaining_ms(self) -> int:
        if self.deadline is None:
            return 0  # no limit
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise GiveUp("timeout")
        return max(1, int(left * 1000))

    def solver(self) -> z3.Solver:
        s = z3.Solver(ctx=self.ctx)
        ms = self.remaining_ms()
        if ms:
            s.set("timeout", ms)
        return s

    def sat(self, formula: z3.BoolRef) -> bool:
        s = self.solver()
        s.add(formula)
        r = s.check()
        if r == z3.unknown:
            raise GiveUp(f"the solver answered unknown ({s.reason_unknown()})")
        return r == z3.sat

    # ---- quantifier elimination ----
    def exists(self, variables: Sequence[z3.ExprRef], body: z3.BoolRef) -> z3.BoolRef:
        """``exists variables. body`` without the quantifier, simplified (z3's ``qe`` tactic;
        not ``qe2``, which treats the free constants of a quantifier-free goal as existential
        and so answers ``true`` for a formula the ``simplify`` before it solved)."""
        if not variables:
            return self.simplify(body)
        failure = ""
        for name in ("qe",):  # one tactic today; the loop reports the last failure
            goal = z3.Goal(ctx=self.ctx)
            goal.add(z3.Exists(list(variables), body))
            tactic = z3.Then(z3.Tactic("simplify", ctx=self.ctx), z3.Tactic(name, ctx=self.ctx),
                             z3.Tactic("simplify", ctx=self.ctx), ctx=self.ctx)
            ms = self.remaining_ms()
            if ms:
                tactic = z3.TryFor(tactic, ms, ctx=self.ctx)
            try:
                result = tactic(goal).as_expr()
            except z3.Z3Exception as exc:
                self.remaining_ms()  # the deadline, not the tactic, when it has passed
                failure = f"quantifier elimination failed: {exc}"
                continue
            if _has_quantifier(result):
                self.remaining_ms()  # a tactic stopped by its time limit leaves the goal as it was
                failure = ("quantifier elimination left a quantifier (a theory z3 does not "
                           "eliminate, e.g. nonlinear arithmetic)")
                continue
            if _size(result) > MAX_REGION_SIZE:
                raise GiveUp(f"the viable region grew over {MAX_REGION_SIZE} terms")
            return self.simplify(result)
        raise GiveUp(failure)

    def simplify(self, f: z3.BoolRef) -> z3.BoolRef:
        """An equivalent, usually smaller formula (``ctx-solver-simplify``); the result is
        checked to be equivalent, and ``f`` itself is kept when that cannot be shown."""
        plain = z3.simplify(f)
        tactic: z3.Tactic = z3.Then(z3.Tactic("simplify", ctx=self.ctx),
                                    z3.Tactic("ctx-solver-simplify", ctx=self.ctx), ctx=self.ctx)
        ms = self.remaining_ms()
        tactic = z3.TryFor(tactic, min(ms, SIMPLIFY_MS) if ms else SIMPLIFY_MS, ctx=self.ctx)
        try:
            smaller = tactic(plain).as_expr()
        except z3.Z3Exception:
            return plain
        s = z3.Solver(ctx=self.ctx)
        s.set("timeout", SIMPLIFY_MS)
        s.add(smaller != plain)
        return smaller if s.check() == z3.unsat else plain

    def next_of(self, f: z3.BoolRef) -> z3.BoolRef:
        """``f`` over the registers' next values."""
        if not self.registers:
            return f
        return z3.substitute(f, *zip(self.registers, self.updates, strict=True))


def _vars(f: z3.ExprRef) -> set[z3.ExprRef]:
    return {e for e in _subterms(f) if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED}


def _cone(assumptions: list[z3.BoolRef], defs: list[z3.BoolRef], registers: set, outputs: set) -> set:
    """The auxiliary variables the assumptions depend on (Kind 2: they are uncontrollable):
    a definition ``v = e`` makes ``v`` depend on the variables of ``e``; any other constraint
    ties its variables together."""
    deps: dict[z3.ExprRef, set[z3.ExprRef]] = {}
    for d in defs:
        lhs = _defined(d)
        if lhs is not None:
            deps.setdefault(lhs, set()).update(_vars(d.arg(1)))
        else:
            vs = _vars(d)
            for v in vs:
                deps.setdefault(v, set()).update(vs - {v})
    cone: set[z3.ExprRef] = set()
    todo = [v for a in assumptions for v in _vars(a)]
    while todo:
        v = todo.pop()
        if v in cone or v in registers or v in outputs:
            continue
        cone.add(v)
        todo.extend(deps.get(v, ()))
    return cone


def _defined(d: z3.BoolRef) -> z3.ExprRef | None:
    """``v`` when ``d`` is ``v = e`` with ``v`` a variable not in ``e``."""
    if z3.is_eq(d) and z3.is_const(d.arg(0)) and d.arg(0).decl().kind() == z3.Z3_OP_UNINTERPRETED:
        v = d.arg(0)
        if v not in _vars(d.arg(1)):
            return v
    return None


def _subterms(f: z3.ExprRef) -> Iterator[z3.ExprRef]:
    """Every distinct subterm of ``f`` (``f`` included), each once."""
    todo, seen = [f], set()
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        yield e
        todo.extend(e.children())


def _has_quantifier(f: z3.ExprRef) -> bool:
    return any(z3.is_quantifier(e) for e in _subterms(f))


def _size(f: z3.ExprRef) -> int:
    return sum(1 for _ in _subterms(f))


def check(system: ContractSystem, deadline: float | None = None, max_iterations: int | None = None,
          satisfiability: bool = False, want_trace: bool = True) -> Outcome:
    """Decide the realizability (or, with ``satisfiability``, the satisfiability) of
    ``system``; ``deadline`` on the ``time.monotonic`` clock."""
    start = time.monotonic()
    yes, no = ("satisfiable", "unsatisfiable") if satisfiability else ("realizable", "unrealizable")
    if not system.has_contract or not (system.guarantees or system.modes or satisfiability):
        return Outcome(yes, 0.0)  # nothing to guarantee: any component will do
    if system.unsupported:
        return Outcome("unknown", time.monotonic() - start, reason=system.unsupported)
    if system.realizable_only and not satisfiability:
        got = check(attrs.evolve(system, realizable_only=None), deadline, max_iterations,
                    want_trace=False)
        if got.result == "realizable":
            return got
        return Outcome("unknown", time.monotonic() - start, got.iterations,
                       reason=got.reason if got.result == "unknown" else system.realizable_only)
    bound = max_iterations or MAX_ITERATIONS
    try:
        game = _Game(system, deadline, satisfiability)
        F = z3.BoolVal(True, game.ctx)
        R0 = None
        for n in range(bound):
            R = game.exists(game.W, z3.And(game.Q, game.next_of(F)))
            if R0 is None:
                R0 = R
            if satisfiability:
                bad = z3.Not(R)
            else:
                bad = game.exists(game.U, z3.And(game.P, z3.Not(R)))
            # Viol_n grows with n (F_n shrinks), so F_{n+1} = F_n and not Viol_n = not Viol_n
            narrower = game.simplify(z3.Not(bad))
            if satisfiability:
                # one initial state must stay viable (the registers' first values are chosen too)
                if not game.sat(z3.And(game.init, narrower)):
                    return Outcome(no, time.monotonic() - start, n + 1)
            elif game.sat(z3.And(game.init, bad)):
                # some initial state (every first value is the environment's) is not viable
                deadlock = _deadlock(game, R0, n + 1) if want_trace else None
                if deadlock is _NONE_WITHIN_BOUND:
                    # there must be one within n + 1 steps: the eliminations disagree with search
                    return Outcome("unknown", time.monotonic() - start, n + 1,
                                   reason="no deadlocking trace confirms the unrealizability")
                return Outcome(no, time.monotonic() - start, n + 1,
                               deadlock=deadlock if isinstance(deadlock, Deadlock) else None)
            if not game.sat(z3.And(F, bad)):
                refuted = None if satisfiability else _refute(game, F)
                if refuted:
                    return Outcome("unknown", time.monotonic() - start, n + 1, reason=refuted)
                return Outcome(yes, time.monotonic() - start, n + 1)
            F = narrower
        return Outcome("unknown", time.monotonic() - start, bound,
                       reason=f"no fixpoint of the viable states after {bound} iterations")
    except GiveUp as exc:
        return Outcome("unknown", time.monotonic() - start, reason=str(exc))


def _refute(game: _Game, F: z3.BoolRef) -> str | None:
    """Check the fixpoint by z3's quantified solving, independently of the eliminations: every
    viable state, for every input under the assumptions, has an output that keeps the guarantees
    and leads to a viable state.  A refutation (never seen) makes the answer unknown; a check
    that does not finish leaves it as computed."""
    s = game.solver()
    ms = game.remaining_ms()
    s.set("timeout", min(ms, REFUTE_MS) if ms else REFUTE_MS)
    s.add(F, game.P)
    body = z3.And(game.Q, game.next_of(F))
    s.add(z3.ForAll(game.W, z3.Not(body)) if game.W else z3.Not(body))
    if s.check() == z3.sat:
        return "the viable states found by quantifier elimination are not closed (internal error)"
    return None


# ---- deadlocking trace ----

#: :func:`_deadlock` searched every length and found no deadlock (not a solver's unknown).
_NONE_WITHIN_BOUND = object()


def _deadlock(game: _Game, R0: z3.BoolRef, longest: int) -> Deadlock | object | None:
    """The shortest run (at most ``longest`` steps before the last) that keeps assumptions and
    guarantees and ends where an input satisfying the assumptions leaves no output satisfying
    the guarantees; with the conflicting set at its last step.  None when a solver gives up,
    :data:`_NONE_WITHIN_BOUND` when there is none."""
    ctx = game.ctx
    s = game.solver()
    regs = [_copy(v, 0, ctx) for v in game.registers]
    s.add(z3.substitute(game.init, *zip(game.registers, regs, strict=True)) if regs else game.init)
    steps: list[list[z3.ExprRef]] = []
    for k in range(longest + 1):
        cur = [_copy(v, k, ctx) for v in game.current]
        steps.append(cur)
        rename = list(zip(game.registers + game.current, regs + cur, strict=True))

        def at(f: z3.ExprRef, rename=rename) -> z3.ExprRef:
            return z3.substitute(f, *rename) if rename else f
        s.push()
        s.add(at(game.P), at(z3.Not(R0)))
        r = s.check()
        if r == z3.sat:
            return _finish(game, s.model(), steps, regs_per_step(game, s.model(), k), k)
        s.pop()
        if r == z3.unknown:
            return None
        s.add(at(game.P), at(game.Q))
        nxt = [_copy(v, k + 1, ctx) for v in game.registers]
        for v, u in zip(nxt, game.updates, strict=True):
            s.add(v == at(u))
        regs = nxt
    return _NONE_WITHIN_BOUND


def regs_per_step(game: _Game, model: z3.ModelRef, last: int) -> list[list[z3.ExprRef]]:
    """The registers' values at steps 0..last, read from the model of the search."""
    return [[model.eval(_copy(v, k, game.ctx), model_completion=True) for v in game.registers]
            for k in range(last + 1)]


def _copy(v: z3.ExprRef, k: int, ctx: z3.Context) -> z3.ExprRef:
    return z3.Const(f"{v.decl().name()}@{k}", v.sort())


def _finish(game: _Game, model: z3.ModelRef, steps: list[list[z3.ExprRef]],
            reg_values: list[list[z3.ExprRef]], last: int) -> Deadlock | object | None:
    """Values of the run, the conflicting set at its last step, and outputs there that keep
    every guarantee but one of the conflict."""
    ctx = game.ctx
    values: list[dict[z3.ExprRef, z3.ExprRef]] = []
    for k in range(last + 1):
        vals = {v: model.eval(c, model_completion=True) for v, c in zip(game.current, steps[k], strict=True)}
        vals.update(zip(game.registers, reg_values[k], strict=True))
        values.append(vals)
    # the conflicting set: the last state and the uncontrollable values fixed
    fixed = [v == values[last][v] for v in game.registers + game.U]
    s = game.solver()
    s.add(*fixed, game.P, *game.defs)
    selectors = {key: z3.Bool(f"%sel.{key}", ctx) for key, e in game.keys.items()
                 if e.category != "assumption"}
    guards = _guarded(game, selectors)
    s.add(guards)
    core = list(selectors)
    answer = s.check(*[selectors[k] for k in core])
    if answer == z3.sat:
        return _NONE_WITHIN_BOUND  # the last step is no deadlock after all: never a wrong trace
    if answer != z3.unsat:
        return None
    names = {str(x) for x in s.unsat_core()}
    core = [k for k in core if str(selectors[k]) in names]
    for k in list(core):  # deletion-based minimisation
        trial = [selectors[x] for x in core if x != k]
        if s.check(*trial) == z3.unsat:
            core.remove(k)
    # outputs at the last step: every guarantee of the conflict but its last, then greedily more
    keep = core[:-1]
    for k in selectors:
        if k in keep or k == (core[-1] if core else None):
            continue
        if s.check(*[selectors[x] for x in keep + [k]]) == z3.sat:
            keep.append(k)
    if s.check(*[selectors[x] for x in keep]) == z3.sat:
        m = s.model()
        values[last].update({v: m.eval(v, model_completion=True) for v in game.current})
    # the registers too: a const input of the component is one (kept from the first step)
    steps_out = tuple({sym.symbol_name(): _value(values[k][game.conv.convert(sym)])
                       for sym in (*game.system.registers, *game.symbols)}
                      for k in range(last + 1))
    element_values = {}
    for key, f in game.elements.items():
        row = []
        for k in range(last + 1):
            subst = list(values[k].items())
            row.append(z3.is_true(z3.simplify(z3.substitute(f, *subst))))
        element_values[key] = tuple(row)
    initial = {r.decl().name(): _value(v) for r, v in zip(game.registers, reg_values[0], strict=True)}
    return Deadlock(steps_out, element_values, tuple(game.keys[k] for k in core), initial)


def _guarded(game: _Game, selectors: dict[str, z3.BoolRef]) -> list[z3.BoolRef]:
    """Each guarantee, requirement and ensure under its selector; a dropped requirement frees
    the mode (its ensures are then owed under an unknown requirement)."""
    ctx = game.ctx
    out = []
    system = game.system
    for i in range(len(system.guarantees)):
        out.append(z3.Implies(selectors[f"g{i}"], game.elements[f"g{i}"]))
    for m_i, m in enumerate(system.modes):
        reqs = []
        for i in range(len(m.requires)):
            r = z3.Bool(f"%req.{m_i}.{i}", ctx)
            reqs.append(r)
            out.append(z3.Implies(selectors[f"m{m_i}r{i}"], r == game.elements[f"m{m_i}r{i}"]))
        for i in range(len(m.ensures)):
            out.append(z3.Implies(selectors[f"m{m_i}e{i}"],
                                  z3.Implies(z3.And(reqs + [True], ctx), game.elements[f"m{m_i}e{i}"])))
    return out


def _value(v: z3.ExprRef) -> Value:
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    if z3.is_int_value(v):
        return v.as_long()
    if z3.is_rational_value(v):
        return Fraction(v.numerator_as_long(), v.denominator_as_long())
    if z3.is_algebraic_value(v):
        return Fraction(str(v.approx(20)).rstrip("?"))
    return str(v)
