"""Z3 and cvc5 solvers through PySMT, with the native solver objects where PySMT falls short
(the backends that hand them out are :mod:`kinduct.plugins.backends.pysmt_backend`).

PySMT 0.9.6 gives us term construction and conversion; we go native for solving under
assumptions, unsat cores over assumptions and batched model reading (PySMT's per-variable
``get_value`` converts every value back into a PySMT term, about five times slower).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import itertools
import sys
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

from pysmt.environment import Environment
from pysmt.exceptions import PysmtTypeError
from pysmt.fnode import FNode
from pysmt.logics import Logic
from pysmt.operators import (
    ARRAY_OPERATORS,
    BV_CONSTANT,
    BV_OPERATORS,
    BV_RELATIONS,
    BV_TONATURAL,
    DIV,
    POW,
)
from pysmt.typing import BOOL

from kinduct.kernel import arrays, datatypes
from kinduct.kernel.backend import Solver, SolverUnknown
from kinduct.kernel.frontend import gc_paused
from kinduct.kernel.verdict import Value
from kinduct.plugins.backends import interpolation, pysmt_datatypes, z3_afresh, z3_lambda


@contextlib.contextmanager
def _any_digits() -> Iterator[None]:
    """Values read from a model may have more digits than Python's default limit for
    converting strings to integers (4300, a guard against hostile input; a solver's model is
    not hostile): lift the limit while reading them."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


class _PySMTSolver(interpolation.NativeExtras, Solver):
    """Shared logic: assumption proxies, core mapping and resets."""

    pysmt_name: str
    solver_options: dict[str, str] = {}
    #: The native solver takes any Boolean term as an assumption (and reports it in cores),
    #: so no proxy literal needs to be asserted for it.
    native_assumptions: bool = False

    def __init__(self, env: Environment, logic: str | None = None) -> None:
        super().__init__(env)
        self.logic = logic
        self._proxies: dict[FNode, FNode] = {}
        self._last_assumptions: list[FNode] = []
        self._fresh = 0
        self._time_limit: float | None = None
        self._quantifiers: dict[FNode, bool] = {}
        self._new_native()

    def _new_native(self) -> None:
        self._pysmt = _pysmt_solver(self.pysmt_name, self.env, self.logic,
                                    incremental=True, solver_options=dict(self.solver_options))
        self._proxies.clear()
        self._natives: dict[FNode, Any] = {}

    def _native_call(self, call, *args):
        """Run a solver call; an exception of the native solver (a theory it refuses, a
        resource limit) becomes :class:`SolverUnknown` with the solver's message, so an
        engine answers ``unknown`` with the reason instead of crashing."""
        try:
            with _any_digits():
                return call(*args)
        except (RuntimeError, ValueError) as exc:
            raise SolverUnknown(f"{self.name}: {exc}") from None

    @property
    def native(self) -> Any:
        raise NotImplementedError

    def to_native(self, formula: FNode) -> Any:
        native = self._natives.get(formula)
        if native is None:
            native = self._pysmt.converter.convert(formula)
            self._natives[formula] = native
        return native

    def add(self, formula: FNode) -> None:
        self._native_call(self._pysmt.add_assertion, formula)

    def push(self) -> None:
        self._pysmt.push()

    def pop(self) -> None:
        self._pysmt.pop()

    def reset(self) -> None:
        self._pysmt.exit()
        self._new_native()
        if self._time_limit is not None:
            self._set_time_limit(self._time_limit)

    def limit_time(self, seconds: float | None) -> None:
        if seconds is None and self._time_limit is None:
            return
        self._time_limit = seconds
        self._set_time_limit(seconds)

    def _set_time_limit(self, seconds: float | None) -> None:
        """The native solver's per-check limit (0 for none)."""
        raise NotImplementedError

    def _literal(self, formula: FNode) -> FNode:
        """A Boolean literal standing for ``formula`` (a proxy implies it when needed)."""
        if formula.is_symbol() or (formula.is_not() and formula.arg(0).is_symbol()):
            return formula
        proxy = self._proxies.get(formula)
        if proxy is None:
            mgr = self.env.formula_manager
            self._fresh += 1
            proxy = mgr.FreshSymbol(template="__assume_%d")
            self._pysmt.add_assertion(mgr.Implies(proxy, formula))
            self._proxies[formula] = proxy
        return proxy

    def check(self, assumptions: Sequence[FNode] = ()) -> bool:
        self._last_assumptions = list(assumptions)
        # a quantified assumption goes through a proxy: asserted, its existentials are
        # Skolemized, which a solver does not do to an assumption literal
        literals = [a if self.native_assumptions and not _quantified(a, self._quantifiers)
                    else self._literal(a) for a in assumptions]
        self._last_literals = literals
        natives = self._native_call(lambda: [self.to_native(lit) for lit in literals])
        return self._native_call(self._check_native, natives)

    def _check_native(self, natives: list[Any]) -> bool:
        raise NotImplementedError

    def _core_natives(self) -> list[Any]:
        raise NotImplementedError

    def _native_key(self, term: Any) -> Any:
        return term

    def unsat_core(self) -> list[FNode]:
        keys = {self._native_key(n) for n in self._core_natives()}
        return [a for a, lit in zip(self._last_assumptions, self._last_literals, strict=True)
                if self._native_key(self.to_native(lit)) in keys]

    def close(self) -> None:
        self._pysmt.exit()


#: PySMT's solver classes by name: made directly, since asking PySMT's factory for one first
#: imports every solver binding PySMT knows (cvc5's alone is 30-50 ms of a run on z3).
_PYSMT_SOLVERS = {"z3": ("kinduct.plugins.backends.z3_convert", "FastZ3Solver"),
                  "cvc5": ("pysmt.solvers.cvcfive", "CVC5Solver")}


def _pysmt_solver(name: str, env: Environment, logic: str | None, **options: Any) -> Any:
    """PySMT's solver ``name`` for ``logic`` (None: its most generic), chosen as PySMT's
    factory chooses (the closest logic the solver supports)."""
    from pysmt.exceptions import NoLogicAvailableError
    from pysmt.factory import DEFAULT_LOGIC
    from pysmt.logics import convert_logic_from_string, get_closer_logic, most_generic_logic

    module, cls = _PYSMT_SOLVERS[name]
    solver_class = getattr(importlib.import_module(module), cls)
    wanted = convert_logic_from_string(logic) if logic is not None else None
    if wanted is None:
        try:
            wanted = most_generic_logic(solver_class.LOGICS)
        except NoLogicAvailableError:
            wanted = DEFAULT_LOGIC
    return solver_class(environment=env, logic=get_closer_logic(solver_class.LOGICS, wanted), **options)


def _quantified(term: FNode, cache: dict[FNode, bool]) -> bool:
    """Whether ``term`` holds a quantifier (Lucent's sets and maps); ``cache``: the answers so
    far."""
    found = cache.get(term)
    if found is None:
        stack, seen, found = [term], set(), False
        while stack and not found:
            t = stack.pop()
            if t in seen:
                continue
            seen.add(t)
            found = t.is_quantifier()
            stack.extend(t.args())
        cache[term] = found
    return found


class Z3Solver(_PySMTSolver):
    name = "z3"
    pysmt_name = "z3"
    native_assumptions = True

    _quantified = False  # expect_quantifiers: a check z3 leaves undecided is tried afresh

    def expect_quantifiers(self) -> None:
        self._quantified = True

    @property
    def native(self) -> Any:
        return self._pysmt.z3

    def add_renamed(self, formula: FNode, leaf: Callable[[FNode], FNode | None]) -> bool:
        # renamed as converted (z3_convert.FastZ3Converter.convert_renamed): at 1 MB the step-0
        # formulas' renamed copy cost about a second before its conversion walked it again
        if self.env.stc.get_type(formula) != BOOL:
            raise PysmtTypeError("Argument must be boolean.")
        term = self._native_call(self._pysmt.converter.convert_renamed, formula, leaf)
        if term is None:
            return False
        self._native_call(self._pysmt.z3.add, term)
        return True

    def _set_time_limit(self, seconds: float | None) -> None:
        self._pysmt.z3.set("timeout", 0 if seconds is None else max(1, int(seconds * 1000)))

    def _check_native(self, natives: list[Any]) -> bool:
        import z3
        from z3 import z3core

        # z3.Solver.check casts every assumption through Python (slow for hundreds of cube
        # literals per query); the C call takes the ASTs as they are.
        solver = self._pysmt.z3
        array = (z3.Ast * len(natives))()
        for i, term in enumerate(natives):
            array[i] = term.as_ast()
        res, model, afresh = z3_afresh.check(solver, natives, lambda: z3.CheckSatResult(
            z3core.Z3_solver_check_assumptions(solver.ctx.ref(), solver.solver, len(natives),
                                               array)), self._quantified, self._time_limit)
        self._core = list(natives) if afresh else None  # the fresh solver's core is not ours
        if res == z3.sat:
            self._model = model
            return True
        if res == z3.unsat:
            return False
        raise SolverUnknown(self._pysmt.z3.reason_unknown())

    def check_afresh(self, assumptions: Sequence[FNode] = (), after: float | None = None) -> bool:
        limit = self._time_limit
        if self._quantified or (after is not None and limit is not None and limit <= after):
            # quantified: its checks already go afresh where undecided (no e-matching)
            return self.check(assumptions)
        if after is not None:
            start = time.monotonic()
            self._set_time_limit(after)
            try:
                return self.check(assumptions)
            except SolverUnknown:  # not within ``after``: afresh, within what is left
                pass
            finally:
                self._set_time_limit(limit)
            if limit is not None:
                limit = max(0.001, limit - (time.monotonic() - start))
        self._last_assumptions = self._last_literals = list(assumptions)
        natives = self._native_call(lambda: [self.to_native(a) for a in assumptions])
        return self._native_call(self._check_afresh_native, natives, limit)

    def _check_afresh_native(self, natives: list[Any], seconds: float | None) -> bool:
        import z3

        res, model, reason = z3_afresh.solve(self._pysmt.z3, natives, seconds)
        self._core = list(natives)
        if res == z3.sat:
            self._model = model
            return True
        if res == z3.unsat:
            return False
        raise SolverUnknown(reason)

    def _core_natives(self) -> list[Any]:
        return self._core if self._core is not None else list(self._pysmt.z3.unsat_core())

    def _native_key(self, term: Any) -> Any:
        return term.get_id()

    def values(self, symbols: Sequence[FNode]) -> dict[FNode, Value]:
        with _any_digits(), gc_paused():  # a large model's values: live objects, no cycles
            return self._values(symbols)

    def _values(self, symbols: Sequence[FNode]) -> dict[FNode, Value]:
        import z3
        from z3 import z3core

        model = self._model
        ref = model.ctx.ref()
        out: dict[FNode, Value] = {}
        cell = (z3.Ast * 1)()
        typed = self.env.stc.get_type  # the system's (``FNode.get_type`` walks in PySMT's global one)
        ast_of = self._pysmt.converter.native_ast
        for sym in symbols:
            # Fast path on the C API for the common sorts; the general path below otherwise.
            if z3core.Z3_model_eval(ref, model.model, ast_of(sym), True, cell):
                t = typed(sym)
                if t.is_bool_type():
                    b = z3core.Z3_get_bool_value(ref, cell[0])
                    if b != 0:  # Z3_L_UNDEF
                        out[sym] = b == 1
                        continue
                elif (t.is_int_type() or t.is_real_type()) and z3core.Z3_is_numeral_ast(ref, cell[0]):
                    text = z3core.Z3_get_numeral_string(ref, cell[0])
                    out[sym] = int(text) if t.is_int_type() else Fraction(text)
                    continue
            val = model.eval(self.to_native(sym), model_completion=True)
            if z3.is_true(val):
                out[sym] = True
            elif z3.is_false(val):
                out[sym] = False
            elif z3.is_int_value(val):
                out[sym] = val.as_long()
            elif z3.is_rational_value(val):
                out[sym] = Fraction(val.numerator_as_long(), val.denominator_as_long())
            elif z3.is_bv_value(val):
                out[sym] = val.as_long()
            elif z3.is_algebraic_value(val):
                out[sym] = Fraction(val.approx(20).as_fraction())
            elif _z3_is_array(val):
                out[sym] = arrays.to_text(_z3_array(model, val, sym))
            elif (tree := pysmt_datatypes.z3_tree(
                    val, lambda x, s=sym: _z3_scalar(model, x, s))) is not None:
                out[sym] = datatypes.to_text(tree)
            else:
                raise SolverUnknown(f"cannot read a value of {sym}: {val}")
        return out


class CVC5Solver(_PySMTSolver):
    name = "cvc5"
    pysmt_name = "cvc5"
    native_assumptions = True
    # PySMT forces ite-simp and simp-ite-compress, which cvc5 refuses together with
    # unsat assumptions; model completion is cvc5's default for getValue.
    # arrays-exp: constant arrays (Lucent's empty sets).
    solver_options = {"ite-simp": "false", "simp-ite-compress": "false",
                      "produce-unsat-assumptions": "true", "arrays-exp": "true"}

    def __init__(self, env: Environment, logic: str | None = None) -> None:
        _patch_cvc5_converter()
        super().__init__(env, logic)

    def _new_native(self) -> None:
        if self.logic is not None or not beyond_default_logic(self.env):
            super()._new_native()
            return
        # PySMT's default logic for cvc5 is linear arithmetic (QF_UFLIRA), and cvc5 refuses a
        # single non-linear or bit-vector term in it; a system multiplying or dividing
        # variables, or using bit-vectors (Lucent's machine integers, beside integers), gets
        # cvc5's "ALL" logic (which includes both) instead.
        from pysmt.solvers.cvcfive import CVC5Solver as _Native

        self._pysmt = _Native(environment=self.env, logic=_ALL, incremental=True,
                              solver_options=dict(self.solver_options))
        self._proxies.clear()
        self._natives = {}

    @property
    def native(self) -> Any:
        return self._pysmt.cvc5

    def _set_time_limit(self, seconds: float | None) -> None:
        ms = 0 if seconds is None else max(1, int(seconds * 1000))
        self._pysmt.cvc5.setOption("tlimit-per", str(ms))

    def _check_native(self, natives: list[Any]) -> bool:
        s = self._pysmt.cvc5
        res = s.checkSatAssuming(*natives) if natives else s.checkSat()
        if res.isSat():
            return True
        if res.isUnsat():
            return False
        raise SolverUnknown(str(res.getUnknownExplanation()))

    def _core_natives(self) -> list[Any]:
        return list(self._pysmt.cvc5.getUnsatAssumptions())

    def values(self, symbols: Sequence[FNode]) -> dict[FNode, Value]:
        with _any_digits():
            return self._values(symbols)

    def _values(self, symbols: Sequence[FNode]) -> dict[FNode, Value]:
        if not symbols:
            return {}
        terms = [self.to_native(s) for s in symbols]
        vals = self._pysmt.cvc5.getValue(terms)
        out: dict[FNode, Value] = {}
        for sym, val in zip(symbols, vals, strict=True):
            if val.isBooleanValue():
                out[sym] = val.getBooleanValue()
            elif val.isIntegerValue():
                v = val.getIntegerValue()
                out[sym] = Fraction(v) if sym.symbol_type().is_real_type() else v
            elif val.isRealValue():
                out[sym] = Fraction(val.getRealValue())
            elif val.isBitVectorValue():
                out[sym] = int(val.getBitVectorValue(10))
            elif val.getSort().isArray():
                out[sym] = arrays.to_text(_cvc5_array(val, sym))
            elif (tree := pysmt_datatypes.cvc5_tree(val, lambda x, s=sym: _cvc5_scalar(x, s))
                  ) is not None:
                out[sym] = datatypes.to_text(tree)
            else:
                raise SolverUnknown(f"cannot read a value of {sym}: {val}")
        return out


def _z3_is_array(val: Any) -> bool:
    import z3
    return z3.is_array(val) or (z3.is_quantifier(val) and val.is_lambda())


def _z3_scalar(model: Any, val: Any, sym: FNode) -> Any:
    import z3
    if z3.is_true(val):
        return True
    if z3.is_false(val):
        return False
    if z3.is_int_value(val) or z3.is_bv_value(val):
        return val.as_long()
    if z3.is_rational_value(val):
        return Fraction(val.numerator_as_long(), val.denominator_as_long())
    if z3.is_algebraic_value(val):
        return Fraction(val.approx(20).as_fraction())
    if _z3_is_array(val):
        return _z3_array(model, val, sym)
    raise SolverUnknown(f"cannot read a value of {sym}: {val}")


def _z3_array(model: Any, val: Any, sym: FNode) -> arrays.ArrayValue:
    """An array value of z3's model: stores over a constant array, or a function's graph."""
    import z3
    entries = []
    while z3.is_store(val):
        entries.append((_z3_scalar(model, val.arg(1), sym), _z3_scalar(model, val.arg(2), sym)))
        val = val.arg(0)
    if z3.is_const_array(val):
        default = _z3_scalar(model, val.arg(0), sym)
    elif z3.is_as_array(val):
        graph = model[z3.get_as_array_func(val)]
        for k, v in graph.as_list()[:-1]:
            entries.append((_z3_scalar(model, k, sym), _z3_scalar(model, v, sym)))
        default = _z3_scalar(model, model.eval(graph.else_value(), model_completion=True), sym)
    elif z3.is_quantifier(val) and val.is_lambda() and val.num_vars() == 1:
        return z3_lambda.read(model, val, sym, entries, _z3_scalar, _z3_array)
    else:
        simpler = z3.simplify(val)
        if simpler.eq(val):
            raise SolverUnknown(f"cannot read a value of {sym}: {val}")
        rest = _z3_array(model, simpler, sym)
        return arrays.ArrayValue(rest.default, tuple(entries) + rest.entries)
    return arrays.ArrayValue(default, tuple(entries))


def _cvc5_scalar(v: Any, sym: FNode) -> Any:
    if v.isBooleanValue():
        return v.getBooleanValue()
    if v.isIntegerValue():
        return int(v.getIntegerValue())
    if v.isRealValue():
        return Fraction(v.getRealValue())
    if v.isBitVectorValue():
        return int(v.getBitVectorValue(10))
    if v.getSort().isArray():
        return _cvc5_array(v, sym)
    raise SolverUnknown(f"cannot read a value of {sym}: {v}")


def _cvc5_array(val: Any, sym: FNode) -> arrays.ArrayValue:
    import cvc5

    def scalar(v: Any) -> Any:
        return _cvc5_scalar(v, sym)
    entries = []
    while val.getKind() == cvc5.Kind.STORE:
        entries.append((scalar(val[1]), scalar(val[2])))
        val = val[0]
    if val.getKind() != cvc5.Kind.CONST_ARRAY:
        raise SolverUnknown(f"cannot read a value of {sym}: {val}")
    return arrays.ArrayValue(scalar(val.getConstArrayBase()), tuple(entries))


def _cvc5_array_value(self: Any, formula: FNode, args: Sequence[Any], **kwargs: Any) -> Any:
    """PySMT's cvc5 converter lacks constant arrays (Lucent's empty sets): a constant array
    of the default, then the stores."""
    import cvc5
    from pysmt.typing import ArrayType
    sort = ArrayType(formula.array_value_index_type(), formula.array_value_default().get_type())
    term = self.cvc5.mkConstArray(self._type_to_cvc5(sort), args[0])
    for i in range(1, len(args), 2):
        term = self.cvc5.mkTerm(cvc5.Kind.STORE, term, args[i], args[i + 1])
    return term


@functools.cache
def _patch_cvc5_converter() -> None:
    """cvc5's converter patched (constant arrays, datatypes) once, when the first cvc5 solver
    is made: a run on z3 never imports cvc5."""
    if importlib.util.find_spec("cvc5") is None:
        return
    from pysmt.solvers.cvcfive import CVC5Converter
    CVC5Converter.walk_array_value = _cvc5_array_value
    pysmt_datatypes.patch_cvc5()


pysmt_datatypes.patch_z3()


#: cvc5's logic of every theory it supports, non-linear arithmetic included.
_ALL = Logic(name="ALL", description="every theory cvc5 supports", quantifier_free=False,
             integer_arithmetic=True, real_arithmetic=True, linear=False, uninterpreted=True,
             arrays=True, bit_vectors=True)

#: Per formula manager: (number of terms scanned so far, a term outside QF_UFLIRA seen).
_SCANNED: weakref.WeakKeyDictionary[Any, tuple[int, bool]] = weakref.WeakKeyDictionary()


def _beyond(node: FNode) -> bool:
    """Whether ``node`` is outside quantifier-free linear arithmetic: a non-linear term, a
    bit-vector one, an array, a datatype or a quantifier."""
    if node.is_quantifier():
        return True
    kind = node.node_type()
    if node.is_times():
        return sum(1 for a in node.args() if not a.is_constant()) > 1
    if kind in (DIV, POW):
        return not node.arg(1).is_constant()
    if kind in BV_OPERATORS or kind in BV_RELATIONS or kind in (BV_CONSTANT, BV_TONATURAL):
        return True
    if node.is_quantifier() or kind in ARRAY_OPERATORS:  # Lucent's sets and maps
        return True
    if node.is_function_application():  # a datatype's constructor, tester or selector
        ft = node.function_name().symbol_type()
        return any(t.is_custom_type() for t in (ft.return_type, *ft.param_types))
    return node.is_symbol() and (node.symbol_type().is_bv_type() or
                                 node.symbol_type().is_array_type() or
                                 node.symbol_type().is_custom_type())  # datatypes


def beyond_default_logic(env: Environment) -> bool:
    """Does any term built in ``env`` so far multiply, divide or raise by a non-constant, use
    bit-vectors, or quantify?

    The scan is incremental: terms are kept in creation order by the formula manager, so each
    call looks only at the terms created since the last one."""
    mgr = env.formula_manager
    terms = mgr.formulae
    done, found = _SCANNED.get(mgr, (0, False))
    if not found and done < len(terms):
        found = any(_beyond(node) for node in itertools.islice(terms.values(), done, None))
        _SCANNED[mgr] = (len(terms), found)
    return found


#: The solvers by backend name (:mod:`kinduct.plugins.backends.pysmt_backend` hands them out).
SOLVERS: dict[str, type[_PySMTSolver]] = {"z3": Z3Solver, "cvc5": CVC5Solver}


def make_solver(name: str, env: Environment, logic: str | None = None) -> Solver:
    """A new solver of backend ``name`` (``z3`` or ``cvc5``) over ``env``."""
    return SOLVERS[name](env, logic)
