"""Polymorphic type declarations and datatypes (``type Pair<T; U> = [T, U];``,
``datatype Option<T> = None | Some (val: T);``), monomorphised: each application
``Option<int>`` is the declaration's body resolved with its type parameters bound to the type
arguments (their refinements included), an ordinary type named ``Option<int>``.  Two
applications to the same types are the same type.

A constructor of a polymorphic datatype builds a value of the instance its arguments give
(``Some(1)`` is an ``Option<int>``), of the instance written (``None@<int>``), or else of the
type the context expects (``x = None`` where ``x: Option<int>``; the expected types are those
of :meth:`Scope.check_as`); when none tells, the type parameter cannot be inferred bottom-up
and an annotation is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import ctors, datatypes, recursive
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.types import Refinement, T

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope


def declare(checker: Checker, td: A.TypeDecl) -> None:
    """Register the type constructor ``td``, after resolving its body once with its type
    parameters as type variables (an error in the body is reported where it is declared)."""
    twice = [p for i, p in enumerate(td.type_params) if p in td.type_params[:i]]
    if twice:
        raise checker.err(f"type parameter '{twice[0]}' is declared twice", td.pos)
    if td.type_expr is None:
        raise checker.err(f"type {td.name} with type parameters needs a definition", td.pos)
    adt = td.type_expr.kind == "adt"
    if adt:
        ctors.check_names(checker, td.type_expr)
    if adt:  # a recursive datatype names itself
        checker.poly_types[td.name] = td
    try:
        instantiate(checker, td, [(T("typevar", p), Refinement()) for p in td.type_params])
    except BaseException:
        checker.poly_types.pop(td.name, None)
        raise
    checker.poly_types[td.name] = td
    if adt:
        for i, (ctor, _, _) in enumerate(td.type_expr.args):
            checker.poly_ctors[ctor] = (td.name, i)


def apply(checker: Checker, te: A.TypeExpr, unresolved: Callable[[str], Exception]
          ) -> tuple[T, Refinement]:
    """The type ``Name<args>`` (``te`` of kind ``app``); ``unresolved`` is raised for a type
    not declared yet while declarations wait for each other."""
    name, args = te.args
    td = checker.poly_types.get(name)
    if td is None:
        if name in checker.types or name in ("bool", "int", "real"):
            raise checker.err(f"type '{name}' takes no type arguments", te.pos)
        if checker.strict and name in checker.pending_names:
            raise unresolved(name)
        raise checker.err(f"unknown type '{name}'", te.pos)
    if len(args) != len(td.type_params):
        raise checker.err(f"type {name} has {len(td.type_params)} type parameter(s), "
                          f"{len(args)} given", te.pos)
    return instantiate(checker, td, [checker.resolve_type(a) for a in args])


def instantiate(checker: Checker, td: A.TypeDecl, targs: list[tuple[T, Refinement]]
                ) -> tuple[T, Refinement]:
    """The body of ``td`` with its type parameters bound to ``targs``."""
    assert td.type_expr is not None
    name = f"{td.name}<{', '.join(str(t) for t, _ in targs)}>"
    saved = checker.type_params, checker.type_param_names
    checker.type_params = dict(zip(td.type_params, targs, strict=True))
    checker.type_param_names = {p: str(t) for p, (t, _) in zip(td.type_params, targs,
                                                                strict=True)}
    try:
        if td.type_expr.kind == "adt":
            if any(recursive.names(fte, td.name) for fte in recursive.field_types(td.type_expr)):
                return recursive.instance(checker, td.type_expr, name)
            items, ref = ctors.constructors(checker, td.type_expr, name)
            return T("adt", name, items=items), ref
        if td.type_expr.kind == "enum":
            raise checker.err("an enumeration cannot have type parameters", td.pos)
        return checker.resolve_type(td.type_expr, name)
    finally:
        checker.type_params, checker.type_param_names = saved


# ---- constructors ----

def is_constructor(scope: Scope, e: A.Expr) -> bool:
    """Whether ``e`` (unchecked) applies a constructor of a polymorphic datatype."""
    if isinstance(e, A.Var):
        n = e.name
        return n in scope.c.poly_ctors and n not in scope.env and n not in scope.local_consts
    return isinstance(e, A.Call) and e.name in scope.c.poly_ctors and e.name not in scope.c.decls


def needs_hint(scope: Scope, e: A.Expr) -> bool:
    """Whether ``e`` applies a constructor of a polymorphic datatype whose fields do not name
    every type parameter (``None``, ``Left(1)`` of ``Either<L; R>``), with no type arguments:
    typed by where it is used."""
    if not is_constructor(scope, e) or (isinstance(e, A.Call) and e.type_args is not None):
        return False
    dname, index = scope.c.poly_ctors[e.name]  # type: ignore[attr-defined]
    td = scope.c.poly_types[dname]
    generic, _ = instantiate(scope.c, td, [(T("typevar", p), Refinement())
                                           for p in td.type_params])
    return not set(td.type_params) <= _typevars(generic.items[index][1])


def _typevars(x: object) -> set[str]:
    """The type variables in a type or in a structure of types."""
    if isinstance(x, T):
        return {x.name} if x.kind == "typevar" else _typevars(x.items)
    if isinstance(x, tuple):
        return set().union(*(_typevars(i) for i in x))
    return set()


def construct(scope: Scope, e: A.Var | A.Call, expected: T | None,
              uid: Callable[[str, A.Expr], str]) -> A.Expr:
    """``C(args)``, ``C``, ``C@<types>(args)`` or ``C@<types>`` for a constructor ``C`` of a
    polymorphic datatype; ``expected``: the type the context expects, if known."""
    from kinduct.frontends.lucent.check.polymorphism import match_type

    c = scope.c
    name = e.name
    args = e.args if isinstance(e, A.Call) else []
    type_args = e.type_args if isinstance(e, A.Call) else None
    dname, index = c.poly_ctors[name]
    td = c.poly_types[dname]
    if type_args is not None:
        if len(type_args) != len(td.type_params):
            raise scope.err(f"datatype {dname} has {len(td.type_params)} type parameter(s), "
                            f"{len(type_args)} given", e.pos)
        t, _ = instantiate(c, td, [c.resolve_type(a) for a in type_args])
        fields = t.items[index][1]
        _arity(scope, name, fields, args, e.pos)
        checked = [scope.check_as(a, ft) for a, (_, ft) in zip(args, fields, strict=True)]
        return datatypes.build(scope, t, index, args, checked, e.pos, uid)
    generic, _ = instantiate(c, td, [(T("typevar", p), Refinement()) for p in td.type_params])
    fields = generic.items[index][1]
    _arity(scope, name, fields, args, e.pos)
    binding: dict[str, T] = {}
    if expected is not None and not match_type(generic, expected, binding):
        binding = {}  # not an instance of this datatype: the caller reports the mismatch
    hint = _instance(c, td, binding)
    checked = []
    for i, (a, (_, ft)) in enumerate(zip(args, fields, strict=True)):
        want = hint.items[index][1][i][1] if hint is not None else None
        x = scope.check_as(a, want)
        if not match_type(ft, x.ty, binding):
            shown = hint.items[index][1][i][1] if hint is not None else ft
            raise scope.err(f"type mismatch: expected {shown}, got {x.ty}", a.pos)
        checked.append(x)
        hint = hint or _instance(c, td, binding)
    t = _instance(c, td, binding)
    if t is None:
        missing = next(p for p in td.type_params if p not in binding)
        raise scope.err(f"'{name}' requires an explicit annotation; type variable {missing} "
                        f"cannot be inferred bottom-up: write {name}@<…>", e.pos)
    return datatypes.build(scope, t, index, args, checked, e.pos, uid)


def _instance(checker: Checker, td: A.TypeDecl, binding: dict[str, T]) -> T | None:
    """The instance of ``td`` that ``binding`` gives (None: a type parameter is unbound)."""
    if any(p not in binding for p in td.type_params):
        return None
    return instantiate(checker, td, [(binding[p], Refinement()) for p in td.type_params])[0]


def _arity(scope: Scope, name: str, fields: tuple, args: list[A.Expr], pos: A.Pos) -> None:
    if len(args) != len(fields):
        raise scope.err(f"constructor '{name}' takes {len(fields)} argument(s), got {len(args)}",
                        pos)


# ---- record literals ----

def record_type(scope: Scope, e: A.RecordLit, checked: dict[str, A.Expr]) -> T | None:
    """The type of the record literal ``P@<types> { … }`` or ``P { … }`` of a polymorphic
    record type ``P`` (None: ``P`` is not one); inferring the type arguments checks the
    fields, kept in ``checked``."""
    from kinduct.frontends.lucent.check.polymorphism import match_type

    c = scope.c
    td = c.poly_types.get(e.type_name)
    if td is None:
        return None
    if e.type_args is not None:
        if len(e.type_args) != len(td.type_params):
            raise scope.err(f"type {td.name} has {len(td.type_params)} type parameter(s), "
                            f"{len(e.type_args)} given", e.pos)
        return instantiate(c, td, [c.resolve_type(a) for a in e.type_args])[0]
    generic, _ = instantiate(c, td, [(T("typevar", p), Refinement()) for p in td.type_params])
    if generic.kind != "record":
        return None
    fields = dict(generic.items)
    binding: dict[str, T] = {}
    for f, x in e.fields:
        if f not in fields:
            raise scope.err(f"record type {td.name} has no field '{f}'", x.pos)
        checked[f] = scope.check(x)
        if not match_type(fields[f], checked[f].ty, binding):
            raise scope.err(f"type mismatch: expected {fields[f]}, got {checked[f].ty}", x.pos)
    t = _instance(c, td, binding)
    if t is None:
        missing = next(p for p in td.type_params if p not in binding)
        raise scope.err(f"'{td.name}' requires an explicit annotation; type variable {missing} "
                        f"cannot be inferred bottom-up: write {td.name}@<…> {{ … }}", e.pos)
    return t
