"""Polymorphic nodes and functions (``node N<T1; T2>(x: T1; …)``), elaborated once per
instance: a call ``N@<int; bool>(…)`` gives the type arguments, a call ``N(…)`` has them
inferred from its arguments' types.  Each instance is an ordinary node named
``N<<int, bool>>``, checked and translated on its own.  A polymorphic node that no node calls
is analysed once, its type parameters abstract types (so its proofs hold for every instance).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import constants
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.types import Refinement, T, flat, recursive
from kinduct.frontends.lucent.core.walk import calls_in_decl
from kinduct.kernel.errors import InputError, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope
    from kinduct.frontends.lucent.core.checked import Node


def instance(scope: Scope, d: A.NodeDecl, call: A.Call, args: list[A.Expr]) -> Node:
    """The instance of the polymorphic (or ``const``-parameterised, :mod:`.constants`) node
    ``d`` that ``call`` (with its checked ``args``) calls, elaborated on first use."""
    c = scope.c
    params = constants.call_params(scope, d, call, args)
    if not d.type_params:
        targs, names = [], []
    elif call.type_args is not None:
        if len(call.type_args) != len(d.type_params):
            raise scope.err(f"node {d.name} has {len(d.type_params)} type parameter(s), "
                            f"{len(call.type_args)} given", call.pos)
        targs = [c.resolve_type(te) for te in call.type_args]
        names = [_type_name(scope, te, t, ref) for te, (t, ref) in zip(call.type_args, targs,
                                                                        strict=True)]
    else:
        targs = [(t, Refinement()) for t in _inferred(scope, d, call, args, params)]
        names = [str(t) for t, _ in targs]
    labels = names + constants.instance_label(params)
    name = f"{d.name}<<{', '.join(labels)}>>" if labels else d.name
    if name in scope.done:
        return scope.done[name]
    saved = c.type_params, c.type_param_names
    c.type_params = dict(zip(d.type_params, targs, strict=True))
    c.type_param_names = dict(zip(d.type_params, names, strict=True))
    try:
        return c.elaborate(replace(d, name=name, type_params=[]), scope.done, params)
    finally:
        c.type_params, c.type_param_names = saved


def input_hints(scope: Scope, d: A.NodeDecl, call: A.Call) -> list[T | None]:
    """The types the inputs of ``d`` have in the instance ``call`` gives explicitly (``N@<int>
    (…)``), one per argument, to type its arguments' constructors (None where unknown)."""
    c = scope.c
    if call.type_args is None or len(call.type_args) != len(d.type_params) or \
            len(call.args) != len(d.inputs):
        return [None] * len(call.args)
    targs = [c.resolve_type(te) for te in call.type_args]
    saved = c.type_params
    c.type_params = dict(zip(d.type_params, targs, strict=True))
    try:  # only hints: a type that needs the node's constants gives none
        return [c.resolve_type(p.type_expr, scope=constants.Deferred())[0] for p in d.inputs]
    except (InputError, UnsupportedError):
        return [None] * len(call.args)
    finally:
        c.type_params = saved


def elaborate_uncalled(checker: Checker, order: list[str], done: dict[str, Node]) -> None:
    """Elaborate each polymorphic node that no node calls under its own name, its type
    parameters abstract types: what it proves holds for every instance."""
    candidates = [name for name in order
                  if constants.generic(checker.decls[name]) and name not in done]
    if not candidates:  # most models: no walk of every declaration for its calls
        return
    called = {c.name for d in [*checker.decls.values(), *checker.contracts.values()]
              for c in calls_in_decl(d)}
    for name in candidates:
        d = checker.decls[name]
        if name not in called and name not in done:
            saved = checker.type_params
            checker.type_params = {p: (T("abstract", p), Refinement()) for p in d.type_params}
            try:
                constants.elaborate_uncalled(checker, replace(d, type_params=[]), done)
            finally:
                checker.type_params = saved


def contract_types(scope: Scope, c: A.NodeDecl, item: A.ContractItem, args: list[A.Expr]
                   ) -> dict[str, tuple[T, Refinement]]:
    """The type parameters of the contract ``c`` that ``import c@<types>(args) returns (…)``
    binds: those given, or those its arguments' types give (a contract without type
    parameters: the types of the importing node, unchanged)."""
    checker = scope.c
    if not c.type_params:
        if item.type_args is not None:
            raise scope.err(f"contract {c.name} has no type parameters", item.pos)
        return checker.type_params
    if item.type_args is not None:
        if len(item.type_args) != len(c.type_params):
            raise scope.err(f"contract {c.name} has {len(c.type_params)} type parameter(s), "
                            f"{len(item.type_args)} given", item.pos)
        return dict(zip(c.type_params, [checker.resolve_type(te) for te in item.type_args],
                        strict=True))
    outs = [scope.check(A.Var(o, pos=item.pos)) for o in item.outs]
    saved = checker.type_params
    checker.type_params = {p: (T("typevar", p), Refinement()) for p in c.type_params}
    try:
        want = [checker.resolve_type(p.type_expr, scope=constants.Deferred())[0]
                for p in c.inputs + c.outputs]
    finally:
        checker.type_params = saved
    binding: dict[str, T] = {}
    for w, g in zip(want, args + outs, strict=True):
        if not match_type(w, g.ty, binding):
            raise scope.err(f"type mismatch in an argument of contract {c.name}: expected {w}, "
                            f"got {g.ty}", g.pos)
    missing = [p for p in c.type_params if p not in binding]
    if missing:
        raise scope.err(f"import requires explicit annotation; type variable {missing[0]} of "
                        f"contract {c.name} cannot be inferred bottom-up: give it, as in "
                        f"{c.name}@<int>(…)", item.pos)
    return {p: (binding[p], Refinement()) for p in c.type_params}


def _inferred(scope: Scope, d: A.NodeDecl, call: A.Call, args: list[A.Expr],
              params: dict[str, A.Expr]) -> list[T]:
    c = scope.c
    saved = c.type_params, c.node_consts, c.unknown_consts
    c.type_params = {p: (T("typevar", p), Refinement()) for p in d.type_params}
    constants.enter(c, d, params)
    try:
        want = [t for p in d.inputs
                for t in flat(c.resolve_type(p.type_expr, scope=constants.Deferred())[0])]
    finally:
        c.type_params, c.node_consts, c.unknown_consts = saved
    got = [t for a in args for t in flat(a.ty)]
    if len(want) != len(got):
        raise scope.err(f"node {d.name} expects {len(want)} argument(s), got {len(got)}",
                        call.pos)
    binding: dict[str, T] = {}
    for i, (w, g) in enumerate(zip(want, got, strict=True)):
        if not match_type(w, g, binding):
            shown = binding.get(w.name, w) if w.kind == "typevar" else w
            raise scope.err(f"type mismatch in argument {i + 1} of {d.name}: expected {shown}, "
                            f"got {g}", call.pos)
    missing = [p for p in d.type_params if p not in binding]
    if missing:
        raise scope.err(f"call requires explicit annotation; type variable {missing[0]} of "
                        f"{d.name} cannot be inferred bottom-up: give it, as in "
                        f"{d.name}@<int>(…)", call.pos)
    return [binding[p] for p in d.type_params]


def _type_name(scope: Scope, te: A.TypeExpr, t: T, ref: Refinement) -> str:
    """How an instance's name shows a type argument: its type, or where it has a refinement,
    the declared type's name (``Nat``) or the text written (a type parameter of the calling
    instance shows what that instance binds it to)."""
    if ref.empty:
        return str(t)
    if te.kind == "name" and te.args[0] in scope.c.type_param_names:
        return scope.c.type_param_names[te.args[0]]
    text = scope.c.text[te.pos.start:te.pos.end] if te.pos.end > te.pos.start else str(t)
    return " ".join(text.split())


def match_type(want: T, got: T, binding: dict[str, T],
               assumed: set[tuple[int, int]] | None = None) -> bool:
    """Whether ``got`` is ``want`` with its type variables bound (extending ``binding``); an
    instance of a polymorphic record or datatype (``Option<T>``) matches those of the same
    declaration (``Option<int>``) field by field (``assumed``: the pairs of recursive
    datatypes being matched, which match where they recur)."""
    if want.kind == "typevar":
        if want.name in binding:
            return binding[want.name] == got
        binding[want.name] = got
        return True
    if want.kind != got.kind or want.size != got.size or len(want.items) != len(got.items) \
            or (want.kind == "symarray" and want.name != got.name):
        return False
    if want.kind in ("tuple", "array", "symarray"):
        return all(match_type(w, g, binding) for w, g in zip(want.items, got.items, strict=True))
    if want.kind in ("record", "adt") and "<" in want.name:
        if recursive(want):
            key = (id(want.items), id(got.items))
            if assumed is not None and key in assumed:
                return True
            assumed = (assumed or set()) | {key}
        return want.name.split("<", 1)[0] == got.name.split("<", 1)[0] and all(
            wf == gf and match_type(wt, gt, binding, assumed)
            for (wf, wt), (gf, gt) in zip(_parts(want), _parts(got), strict=True))
    return want == got


def _parts(t: T) -> list[tuple[str, T]]:
    """A record's fields, or a datatype's fields keyed by constructor."""
    if t.kind == "adt":
        return [(f"{c}.{f}", ft) for c, fields in t.items for f, ft in fields] + \
            [(f"{c}/{len(fields)}", T("bool")) for c, fields in t.items]
    return list(t.items)
