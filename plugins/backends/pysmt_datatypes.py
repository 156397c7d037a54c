"""Native datatypes for PySMT's z3 and cvc5 converters (:mod:`kinduct.kernel.datatypes`).

PySMT converts a custom sort to an uninterpreted sort and a function symbol to an
uninterpreted function.  For the sorts and function symbols registered as datatypes in the
converter's environment, the converters patched here build the solver's datatype sorts (each
group at once: ``z3.CreateDatatypes``, cvc5's ``mkDatatypeSorts``) and its constructor,
tester and selector terms; everything else converts as before.  Model values of datatype
sorts are read back into :class:`~kinduct.kernel.datatypes.Tree`\\ s (:func:`z3_tree`,
:func:`cvc5_tree`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

from kinduct.kernel import datatypes
from kinduct.kernel.datatypes import Group, Sort, Tree


def _cache(conv: Any) -> dict[Group, dict[Sort, Any]]:
    cache = conv.__dict__.get("_kinduct_datatypes")
    if cache is None:
        cache = conv.__dict__["_kinduct_datatypes"] = {}
    return cache


def _sort_of(conv: Any, tp: Any) -> Sort | None:
    reg = datatypes.find(conv.env)
    return None if reg is None else reg.sorts.get(tp)


# ---- z3 ----

def _z3_sorts(conv: Any, group: Group) -> dict[Sort, Any]:
    import z3
    cache = _cache(conv)
    if group not in cache:
        decls = {s: z3.Datatype(s.decl.name, ctx=conv.ctx) for s in group.sorts}
        by_type = {s.type: d for s, d in decls.items()}
        for s, d in decls.items():
            for c in s.decl.constructors:
                d.declare(c.name, *[(f"{c.name}.{f}", by_type.get(ft) or conv._type_to_z3(ft))
                                    for f, ft in c.fields])
        cache[group] = dict(zip(decls, z3.CreateDatatypes(*decls.values()), strict=True))
    return cache[group]


def _z3_decl(conv: Any, op: datatypes.Op) -> Any:
    native = _z3_sorts(conv, op.sort.group)[op.sort]
    if op.kind == "constructor":
        return native.constructor(op.ctor)
    if op.kind == "tester":
        return native.recognizer(op.ctor)
    return native.accessor(op.ctor, op.field)


def _z3_app(conv: Any, decl: Any, args: Any) -> Any:
    import z3
    arr, size = conv._to_ast_array(args) if args else (None, 0)
    term = z3.Z3_mk_app(conv.ctx.ref(), decl.ast, size, arr)
    z3.Z3_inc_ref(conv.ctx.ref(), term)
    return term


def _patch_z3() -> None:
    import z3
    from pysmt.solvers.z3 import Z3Converter

    type_to_z3 = Z3Converter._type_to_z3
    walk_symbol = Z3Converter.walk_symbol
    walk_function = Z3Converter.walk_function
    get_z3_ref = Z3Converter.get_z3_ref

    def _get_z3_ref(self: Any, formula: Any) -> Any:
        if formula.is_symbol() or formula.is_function_application():
            tp = formula.function_name().symbol_type().return_type \
                if formula.is_function_application() else formula.symbol_type()
            if tp.is_custom_type() and _sort_of(self, tp) is not None:
                return z3.DatatypeRef
        return get_z3_ref(self, formula)

    def _type_to_z3(self: Any, tp: Any) -> Any:
        sort = _sort_of(self, tp) if tp.is_custom_type() else None
        return type_to_z3(self, tp) if sort is None else _z3_sorts(self, sort.group)[sort]

    def _walk_symbol(self: Any, formula: Any, **kwargs: Any) -> Any:
        op = datatypes.op_of(datatypes.find(self.env), formula)
        if op is None:
            return walk_symbol(self, formula, **kwargs)
        return _z3_app(self, _z3_decl(self, op), ())

    def _walk_function(self: Any, formula: Any, args: Any, **kwargs: Any) -> Any:
        op = datatypes.op_of(datatypes.find(self.env), formula)
        if op is None:
            return walk_function(self, formula, args, **kwargs)
        return _z3_app(self, _z3_decl(self, op), args)

    Z3Converter._type_to_z3 = _type_to_z3
    Z3Converter.walk_symbol = _walk_symbol
    Z3Converter.walk_function = _walk_function
    Z3Converter.get_z3_ref = _get_z3_ref


def z3_tree(val: Any, scalar: Callable[[Any], Any]) -> Tree | None:
    """A model's ground datatype value as a tree (None: not one); ``scalar`` reads the other
    values."""
    import z3
    if not (z3.is_app(val) and isinstance(val.sort(), z3.DatatypeSortRef)):
        return None
    decl = val.decl()
    sort = val.sort()
    if not any(sort.constructor(i) == decl for i in range(sort.num_constructors())):
        return None

    def arg(x: Any) -> Any:
        tree = z3_tree(x, scalar)
        return scalar(x) if tree is None else tree
    return Tree(decl.name(), tuple(arg(val.arg(i)) for i in range(val.num_args())))


# ---- cvc5 ----

def _cvc5_sorts(conv: Any, group: Group) -> dict[Sort, Any]:
    cache = _cache(conv)
    if group not in cache:
        solver = conv.cvc5
        unresolved = {s.type: solver.mkUnresolvedDatatypeSort(s.decl.name) for s in group.sorts}
        decls = []
        for s in group.sorts:
            decl = solver.mkDatatypeDecl(s.decl.name)
            for c in s.decl.constructors:
                cd = solver.mkDatatypeConstructorDecl(c.name)
                for f, ft in c.fields:
                    cd.addSelector(f"{c.name}.{f}", unresolved.get(ft) or conv._type_to_cvc5(ft))
                decl.addConstructor(cd)
            decls.append(decl)
        cache[group] = dict(zip(group.sorts, solver.mkDatatypeSorts(decls), strict=True))
    return cache[group]


def _patch_cvc5() -> None:
    if importlib.util.find_spec("cvc5") is None:
        return
    import cvc5
    from pysmt.solvers.cvcfive import CVC5Converter

    type_to_cvc5 = CVC5Converter._type_to_cvc5
    walk_symbol = CVC5Converter.walk_symbol
    walk_function = CVC5Converter.walk_function

    def _type_to_cvc5(self: Any, tp: Any) -> Any:
        sort = _sort_of(self, tp) if tp.is_custom_type() else None
        return type_to_cvc5(self, tp) if sort is None else _cvc5_sorts(self, sort.group)[sort]

    def term(self: Any, op: datatypes.Op, args: Any) -> Any:
        dt = _cvc5_sorts(self, op.sort.group)[op.sort].getDatatype()
        c = dt[op.ctor]
        if op.kind == "constructor":
            return self.cvc5.mkTerm(cvc5.Kind.APPLY_CONSTRUCTOR, c.getTerm(), *args)
        if op.kind == "tester":
            return self.cvc5.mkTerm(cvc5.Kind.APPLY_TESTER, c.getTesterTerm(), *args)
        return self.cvc5.mkTerm(cvc5.Kind.APPLY_SELECTOR, c[op.field].getTerm(), *args)

    def _walk_symbol(self: Any, formula: Any, args: Any, **kwargs: Any) -> Any:
        op = datatypes.op_of(datatypes.find(self.env), formula)
        if op is None:
            return walk_symbol(self, formula, args, **kwargs)
        return term(self, op, ())

    def _walk_function(self: Any, formula: Any, args: Any, **kwargs: Any) -> Any:
        op = datatypes.op_of(datatypes.find(self.env), formula)
        if op is None:
            return walk_function(self, formula, args, **kwargs)
        return term(self, op, args)

    CVC5Converter._type_to_cvc5 = _type_to_cvc5
    CVC5Converter.walk_symbol = _walk_symbol
    CVC5Converter.walk_function = _walk_function


def cvc5_tree(val: Any, scalar: Callable[[Any], Any]) -> Tree | None:
    """A model's datatype value as a tree (None: not one); ``scalar`` reads the others."""
    import cvc5
    if val.getKind() != cvc5.Kind.APPLY_CONSTRUCTOR:
        return None
    dt = val.getSort().getDatatype()
    head = val[0]
    name = next((dt[i].getName() for i in range(dt.getNumConstructors())
                 if dt[i].getTerm() == head), None)
    if name is None:
        return None

    def arg(x: Any) -> Any:
        tree = cvc5_tree(x, scalar)
        return scalar(x) if tree is None else tree
    return Tree(name, tuple(arg(val[i]) for i in range(1, val.getNumChildren())))


def patch_z3() -> None:
    """Z3's converter taught datatypes (when z3 is installed)."""
    if importlib.util.find_spec("z3") is not None:
        _patch_z3()


def patch_cvc5() -> None:
    """cvc5's converter taught datatypes (when cvc5 is installed)."""
    _patch_cvc5()
