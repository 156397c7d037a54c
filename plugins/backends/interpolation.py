"""Craig interpolants and model-based projections for the SMT backends
(:meth:`kinduct.kernel.backend.Solver.interpolant`, :meth:`~kinduct.kernel.backend.Solver.project`).

- cvc5: its native ``getInterpolant`` (a syntax-guided search) on a fresh solver holding ``A``,
  asked for ``I`` with ``A => I`` and ``I => not B``; the answer is read back into PySMT terms
  by :func:`cvc5_back` (PySMT 0.9.6 reads no cvc5 term back).
- z3 (which dropped interpolation in 4.8): the strongest interpolant, ``A`` with its own
  symbols eliminated (``exists a. A``) by z3's quantifier elimination, as Kind 2's IC3QE
  does; ``None`` when the result still quantifies or mentions ``A``'s own symbols.

Both answer ``None`` rather than raise when the solver gives up (time limit, no interpolant
found): an interpolant only ever proposes predicates, which engines check themselves.

Model-based projection (z3's ``Z3_qe_model_project``, the generalisation Spacer and Kind 2's
IC3QE use) turns a model of ``formula`` into a conjunction over the kept symbols that implies
``exists (the others). formula``; cvc5 has none.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.smtlib.parser import SmtLibParser
from pysmt.smtlib.printers import to_smtlib

from kinduct.plugins.backends.child import text_in_child

#: The cvc5 term kinds read back, by their arity handling (see :func:`cvc5_back`).
_NARY = {"AND": "And", "OR": "Or", "ADD": "Plus", "MULT": "Times"}


def _shared(env: Environment, a: Sequence[FNode], b: Sequence[FNode]) -> tuple[set, set]:
    fv = env.fvo.get_free_variables
    in_a = set().union(*(fv(f) for f in a)) if a else set()
    in_b = set().union(*(fv(f) for f in b)) if b else set()
    return in_a & in_b, in_a - in_b


class NativeExtras:
    """Mixed into the PySMT solvers (``pysmt_solvers._PySMTSolver``): their
    :meth:`~kinduct.kernel.backend.Solver.interpolant` and
    :meth:`~kinduct.kernel.backend.Solver.project`, read off the solver's own attributes (its
    name, environment, logic, PySMT solver and last z3 model)."""

    name: str
    env: Environment
    logic: Any

    def interpolant(self, a: Sequence[FNode], b: Sequence[FNode],
                    seconds: float | None = None) -> FNode | None:
        logic = self.logic
        if logic is None and self.name == "cvc5":
            from kinduct.plugins.backends.pysmt_solvers import beyond_default_logic

            logic = _all_logic() if beyond_default_logic(self.env) else None
        return interpolant(self.name, self.env, logic, a, b, seconds)

    def project(self, formula: FNode, keep: Sequence[FNode]) -> FNode | None:
        model = getattr(self, "_model", None)
        if self.name != "z3" or model is None:
            return None
        return z3_project(self.env, self._pysmt.converter, model, formula, keep)  # type: ignore[attr-defined]


def _all_logic() -> Any:
    """cvc5's logic of every theory (as the solvers use beyond linear arithmetic)."""
    from pysmt.logics import Logic

    return Logic(name="ALL", description="every theory cvc5 supports", quantifier_free=False,
                 integer_arithmetic=True, real_arithmetic=True, linear=False, uninterpreted=True,
                 arrays=True, bit_vectors=True)


def interpolant(backend: str, env: Environment, logic: Any, a: Sequence[FNode],
                b: Sequence[FNode], seconds: float | None) -> FNode | None:
    """The interpolant of backend ``backend`` (``z3`` or ``cvc5``), see the module."""
    if backend == "cvc5":
        return cvc5_interpolant(env, logic, a, b, seconds)
    return z3_interpolant(env, a, b, seconds)


def cvc5_back(env: Environment, term: Any) -> FNode | None:
    """The PySMT term of a cvc5 term over known symbols and linear arithmetic (None for any
    other kind of term)."""
    import cvc5

    mgr = env.formula_manager
    K = cvc5.Kind
    cache: dict[int, FNode | None] = {}

    def walk(t: Any) -> FNode | None:
        key = t.getId()
        if key in cache:
            return cache[key]
        kind = t.getKind()
        name = kind.name
        out: FNode | None = None
        if kind == K.CONSTANT:
            try:
                out = mgr.get_symbol(t.getSymbol())
            except Exception:  # noqa: BLE001 - a symbol cvc5 made up itself
                out = None
        elif kind == K.CONST_BOOLEAN:
            out = mgr.Bool(t.getBooleanValue())
        elif kind == K.CONST_INTEGER:
            out = mgr.Int(int(t.getIntegerValue()))
        elif kind == K.CONST_RATIONAL:
            value = Fraction(t.getRealValue())
            out = mgr.Int(int(value)) if t.getSort().isInteger() else mgr.Real(value)
        else:
            kids = [walk(t[i]) for i in range(t.getNumChildren())]
            if any(k is None for k in kids):
                out = None
            elif name in _NARY:
                out = getattr(mgr, _NARY[name])(kids)
            elif kind == K.NOT:
                out = mgr.Not(kids[0])
            elif kind == K.IMPLIES:
                out = mgr.Implies(kids[0], kids[1])
            elif kind == K.XOR:
                out = mgr.Xor(kids[0], kids[1])
            elif kind == K.ITE:
                out = mgr.Ite(kids[0], kids[1], kids[2])
            elif kind == K.EQUAL:
                out = mgr.And([mgr.EqualsOrIff(kids[0], k) for k in kids[1:]])
            elif kind == K.DISTINCT and len(kids) == 2:
                out = mgr.Not(mgr.EqualsOrIff(kids[0], kids[1]))
            elif kind == K.SUB:
                out = mgr.Minus(kids[0], mgr.Plus(kids[1:])) if len(kids) > 2 \
                    else mgr.Minus(kids[0], kids[1])
            elif kind == K.NEG:
                zero = mgr.Int(0) if kids[0].get_type().is_int_type() else mgr.Real(0)
                out = mgr.Minus(zero, kids[0])
            elif kind == K.TO_REAL:
                out = mgr.ToReal(kids[0])
            elif kind in (K.LEQ, K.LT, K.GEQ, K.GT) and len(kids) == 2:
                out = {K.LEQ: mgr.LE, K.LT: mgr.LT, K.GEQ: mgr.GE, K.GT: mgr.GT}[kind](*kids)
        cache[key] = out
        return out

    try:
        return walk(term)
    except Exception:  # noqa: BLE001 - a term PySMT's type checker refuses: no interpolant
        return None


def cvc5_interpolant(env: Environment, logic: Any, a: Sequence[FNode], b: Sequence[FNode],
                     seconds: float | None) -> FNode | None:
    """cvc5's interpolant of ``a`` and ``b`` (see the module's docstring).

    cvc5's search ignores its own time limit, so it runs in a forked child process, killed
    after ``seconds``; the child hands the interpolant back as SMT-LIB text."""
    shared, _ = _shared(env, a, b)
    text = text_in_child(lambda: _cvc5_text(env, logic, a, b), seconds)
    if text is None:
        return None
    declarations = "\n".join(f"(declare-fun {_quote(v.symbol_name())} "
                             f"{v.symbol_type().as_smtlib(True)})" for v in shared)
    try:
        script = SmtLibParser(environment=env).get_script(
            io.StringIO(f"{declarations}\n(assert {text})"))
    except Exception:  # noqa: BLE001 - text this process cannot read: no interpolant
        return None
    (formula,) = [cmd.args[0] for cmd in script.commands if cmd.name == "assert"]
    return formula


def _cvc5_text(env: Environment, logic: Any, a: Sequence[FNode], b: Sequence[FNode]) -> str | None:
    from pysmt.solvers.cvcfive import CVC5Solver

    mgr = env.formula_manager
    options = {"produce-interpolants": "true", "ite-simp": "false", "simp-ite-compress": "false"}
    if logic is None:  # PySMT's default logic for cvc5
        solver = env.factory.Solver(name="cvc5", incremental=True, solver_options=options)
    else:
        solver = CVC5Solver(environment=env, logic=logic, incremental=True, solver_options=options)
    native = solver.cvc5
    for f in a:
        native.assertFormula(solver.converter.convert(f))
    got = native.getInterpolant(solver.converter.convert(mgr.Not(mgr.And(b))))
    if got.isNull():
        return None
    back = cvc5_back(env, got)
    return None if back is None else to_smtlib(back, daggify=False)


def _quote(name: str) -> str:
    simple = all(c.isalnum() or c in "~!@$%^&*_-+=<>.?/" for c in name) and not name[0].isdigit()
    return name if simple else f"|{name}|"


def z3_interpolant(env: Environment, a: Sequence[FNode], b: Sequence[FNode],
                   seconds: float | None) -> FNode | None:
    """``exists (symbols of a alone). a`` by z3's quantifier elimination (see the module)."""
    import z3
    from pysmt.solvers.z3 import Z3Converter

    shared, own = _shared(env, a, b)
    ctx = z3.Context()
    converter = Z3Converter(env, ctx)
    mgr = env.formula_manager
    body = converter.convert(mgr.And(a))
    bound = [converter.convert(v) for v in sorted(own, key=lambda v: v.node_id())]
    goal = z3.Goal(ctx=ctx)
    goal.add(z3.Exists(bound, body) if bound else body)
    tactic = z3.Then(z3.Tactic("qe", ctx=ctx), z3.Tactic("simplify", ctx=ctx), ctx=ctx)
    if seconds is not None:
        tactic = z3.TryFor(tactic, max(1, int(seconds * 1000)), ctx=ctx)
    try:
        result = tactic(goal)
        formula = result.as_expr()
        back = converter.back(formula)
    except Exception:  # noqa: BLE001 - z3 gave up or PySMT cannot read its answer back
        return None
    if env.qfo.is_qf(back) and env.fvo.get_free_variables(back) <= shared:
        return back
    return None


def z3_project(env: Environment, converter: Any, model: Any, formula: FNode,
               keep: Sequence[FNode]) -> FNode | None:
    """z3's model-based projection of ``formula`` onto ``keep`` under ``model`` (a model of
    z3's solver whose ``converter`` is given), simplified; None when it fails or keeps another
    symbol."""
    import z3
    from z3 import z3core

    kept = set(keep)
    drop = [v for v in env.fvo.get_free_variables(formula) if v not in kept]
    try:
        body = converter.convert(formula)
        if drop:
            ctx = body.ctx
            bound = (z3.Ast * len(drop))()
            for i, v in enumerate(drop):
                bound[i] = converter.convert(v).as_ast()
            projected = z3.BoolRef(z3core.Z3_qe_model_project(
                ctx.ref(), model.model, len(drop), bound, body.as_ast()), ctx)
        else:
            projected = body
        back = converter.back(projected)
    except Exception:  # noqa: BLE001 - z3 cannot project this (a theory MBP lacks)
        return None
    if not env.fvo.get_free_variables(back) <= kept or not env.qfo.is_qf(back):
        return None
    return back
