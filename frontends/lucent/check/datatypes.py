"""Algebraic datatypes: declarations, constructors, testers ``C?(e)``, selectors ``e.f`` with
their obligations, and ``match`` (the primer's "Algebraic Datatypes" and "Lazy Operators").

A value is expanded like a record (:class:`~kinduct.frontends.lucent.core.types.Adt`): a tag, the
index of its constructor, and the fields of every constructor.  Only the tag's constructor's
fields mean anything: equality compares the tags and those fields.  A constructor sets the
tag and its own fields; the fields of the other constructors are arbitrary (fresh choices
named by the construction), so a selector read on a value of another constructor is
unconstrained, as the SMT datatype theory leaves it.  Such a read is what a selector's
obligation (``Selector[L5C9]``, generated) rules out: ``e.f`` owes ``C?(e)`` where ``C`` has
the field ``f``, wherever it is evaluated (inside a lazy branch, only where the branch is
selected).

``match e with | p1 : e1 | … end`` is lazy, like ``when``: each case's expression runs on the
clock of the steps where it is the first case whose pattern matches, so ``pre`` and ``->`` in
it count those steps.  Patterns are constructors with sub-patterns, variables and ``_``; a
match must be exhaustive (checked over nested patterns).

A field's refinement type is owed only by the values its constructor builds (a part of the
type's refinement keyed by :class:`~kinduct.frontends.lucent.core.types.Variant`).  Polymorphic
datatypes are instantiated by :mod:`.polytypes` with :func:`constructors`.

Recursive datatypes (a constructor's field of the type being declared, or of one declared
with it) have no finite expansion: each value is one term of a native SMT datatype
(:mod:`.recursive`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import ctors, lazy
from kinduct.frontends.lucent.check import recursive as rec
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Prop
from kinduct.frontends.lucent.core.types import BOOL, Refinement, T, flat, recursive
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope


def declare(checker: Checker, te: A.TypeExpr, name: str) -> tuple[T, Refinement]:
    """The type of ``datatype name = …`` and the refinements of its fields; its constructors
    are registered in ``checker.ctors`` (name → (type, index))."""
    existing = checker.types.get(name)
    if existing is not None and recursive(existing):  # declared with its group
        return existing, Refinement()
    members = rec.group(checker, te, name)
    if members is not None:
        return rec.declare(checker, members), Refinement()
    ctors.check_names(checker, te)
    items, ref = ctors.constructors(checker, te, name)
    t = T("adt", name, items=items)
    for i, (ctor, _) in enumerate(t.items):
        checker.ctors[ctor] = (t, i)
    return t, ref


def _unsupported(checker: Checker, what: str, pos: A.Pos) -> UnsupportedError:
    located = checker.err("", pos)
    return UnsupportedError(what, SourceLocation(checker.file, pos.line, pos.col),
                            located.source_line)


# ---- expressions ----

def construct(scope: Scope, name: str, args: list[A.Expr], pos: A.Pos,
              uid: Callable[[str, A.Expr], str]) -> A.Expr:
    """``C(args)`` (or a nullary ``C``): a value of C's datatype."""
    t, index = scope.c.ctors[name]
    fields = t.items[index][1]
    if len(args) != len(fields):
        raise scope.err(f"constructor '{name}' takes {len(fields)} argument(s), got {len(args)}",
                        pos)
    checked = [scope.check_as(a, ft) for a, (_, ft) in zip(args, fields, strict=True)]
    return build(scope, t, index, args, checked, pos, uid)


def build(scope: Scope, t: T, index: int, args: list[A.Expr], checked: list[A.Expr],
          pos: A.Pos, uid: Callable[[str, A.Expr], str]) -> A.Expr:
    """The value of ``t`` built by its constructor number ``index`` from the ``checked``
    arguments (``args`` as written)."""
    name, fields = t.items[index]
    for a, x, (_, ft) in zip(args, checked, fields, strict=True):
        if flat(x.ty) != flat(ft):
            raise scope.err(f"type mismatch: expected {ft}, got {x.ty}", a.pos)
    e = A.Construct(name, index, checked, pos=pos, ty=t)
    e.uid = uid("ctor", e)  # names the other constructors' fields
    return e


def tester(scope: Scope, e: A.Tester) -> A.Expr:
    """``C?(arg)``."""
    if e.ctor not in scope.c.ctors and e.ctor not in scope.c.poly_ctors:
        raise scope.err(f"unknown constructor '{e.ctor}'", e.pos)
    arg = scope.check(e.arg)
    if arg.ty.kind != "adt" or all(c != e.ctor for c, _ in arg.ty.items):
        t = scope.c.ctors[e.ctor][0] if e.ctor in scope.c.ctors else \
            f"{scope.c.poly_ctors[e.ctor][0]}<…>"
        raise scope.err(f"type mismatch: expected {t}, got {arg.ty}", e.arg.pos)
    return A.Tester(e.ctor, arg, pos=e.pos, ty=BOOL)


def _field_key(t: T, field: str) -> tuple[str, T] | None:
    """The constructor that has the field ``field`` and the field's type."""
    owners = [(c, ft) for c, fields in t.items for f, ft in fields if f == field]
    return owners[0] if len(owners) == 1 else None


def selector(scope: Scope, arg: A.Expr, field: str, pos: A.Pos) -> A.Expr:
    """``arg.field`` on a datatype value, with its obligation (in a node)."""
    t = arg.ty
    owners = [c for c, fields in t.items for f, _ in fields if f == field]
    if not owners:
        raise scope.err(f"datatype {t} has no field '{field}'", pos)
    if len(owners) > 1:
        raise _unsupported(scope.c, f"a selector of a field that several constructors of {t} "
                           f"have ('{field}': {', '.join(owners)})", pos)
    ctor, ft = _field_key(t, field)  # type: ignore[misc]
    if scope.node is not None:
        var = "%selected"
        test = A.Tester(ctor, A.Var(var, pos=pos, ty=t), pos=pos, ty=BOOL)
        ref = Refinement(preds=[(var, test)], label="Selector")
        scope.node.obligations.append(Prop(f"Selector[L{pos.line}C{pos.col}]", arg, pos,
                                           "Generated", ref=ref, clock=scope.clock))
    read = A.Field(arg, f"{ctor}.{field}", pos=pos, ty=ft)
    return rec.mark(read, owed=True) if recursive(t) else read


def _read(arg: A.Expr, ctor: str, field: str, ft: T) -> A.Expr:
    """The field of a value known to be built by ``ctor`` (no obligation)."""
    read = A.Field(arg, f"{ctor}.{field}", pos=arg.pos, ty=ft)
    return rec.mark(read, owed=False) if recursive(arg.ty) else read


# ---- match ----

def match(scope: Scope, e: A.Match) -> A.Expr:
    """The cases of ``match`` as a chain of lazy branches (the type the context expects,
    ``scope.hint``, or else the first case's, is expected of the others)."""
    hint, scope.hint = scope.hint, None
    arg = scope.check(e.arg)
    t = arg.ty
    if t.kind != "adt":
        raise scope.err(f"type mismatch: expected a datatype, got {t}", e.arg.pos)
    for p, _ in e.cases:
        _check_pattern(scope, p, t, top=True)
    if not _exhaustive([[p] for p, _ in e.cases], [t]):
        raise scope.err("this match is not exhaustive: some values match no case", e.pos)
    return _cases(scope, arg, e.cases, e.pos, hint)


def _cases(scope: Scope, arg: A.Expr, cases: list[tuple[A.Pattern, A.Expr]],
           pos: A.Pos, hint: T | None) -> A.Expr:
    pattern, body = cases[0]
    if len(cases) == 1:
        return _body(scope, arg, pattern, body, hint)
    cond = _condition(pattern, arg)
    if cond is None:  # a variable or '_' matches all: later cases are never reached
        return _body(scope, arg, pattern, body, hint)
    with lazy.branch(scope, cond, True):
        then = _body(scope, arg, pattern, body, hint)
    with lazy.branch(scope, cond, False):
        orelse = _cases(scope, arg, cases[1:], pos, hint or then.ty)
    if flat(then.ty) != flat(orelse.ty):
        raise scope.err(f"type mismatch: expected {then.ty}, got {orelse.ty}", cases[1][1].pos)
    return A.Ite(cond, then, orelse, lazy=True, pos=pos, ty=then.ty)


def _body(scope: Scope, arg: A.Expr, pattern: A.Pattern, body: A.Expr, hint: T | None
          ) -> A.Expr:
    bound = _bindings(pattern, arg)
    return (scope.with_constants(bound) if bound else scope).check_as(body, hint)


def _is_ctor_pattern(p: A.Pattern, t: T) -> bool:
    return p.args is not None or (t.kind == "adt" and any(c == p.name for c, _ in t.items))


def _check_pattern(scope: Scope, p: A.Pattern, t: T, top: bool = False) -> None:
    if not _is_ctor_pattern(p, t):
        if p.name in scope.c.ctors or p.name in scope.c.poly_ctors:
            raise scope.err(f"constructor '{p.name}' does not build a value of {t}", p.pos)
        return  # a variable or '_'
    if t.kind != "adt":
        raise scope.err(f"type mismatch: a constructor pattern for a value of {t}", p.pos)
    index = next((i for i, (c, _) in enumerate(t.items) if c == p.name), None)
    if index is None:
        raise scope.err(f"constructor '{p.name}' does not build a value of {t}", p.pos)
    fields = t.items[index][1]
    args = p.args or []
    if len(args) != len(fields):
        raise scope.err(f"constructor '{p.name}' has {len(fields)} field(s), the pattern "
                        f"{len(args)}", p.pos)
    for sub, (_, ft) in zip(args, fields, strict=True):
        _check_pattern(scope, sub, ft)


def _condition(p: A.Pattern, value: A.Expr) -> A.Expr | None:
    """When ``value`` matches ``p`` (None: always)."""
    t = value.ty
    if not _is_ctor_pattern(p, t):
        return None
    index = next(i for i, (c, _) in enumerate(t.items) if c == p.name)
    acc: A.Expr = A.Tester(p.name, value, pos=p.pos, ty=BOOL)
    for sub, (f, ft) in zip(p.args or [], t.items[index][1], strict=True):
        c = _condition(sub, _read(value, p.name, f, ft))
        if c is not None:
            acc = A.Binop("and", acc, c, pos=p.pos, ty=BOOL)
    return acc


def _bindings(p: A.Pattern, value: A.Expr) -> dict[str, A.Expr]:
    t = value.ty
    if not _is_ctor_pattern(p, t):
        return {} if p.name == "_" else {p.name: value}
    index = next(i for i, (c, _) in enumerate(t.items) if c == p.name)
    out: dict[str, A.Expr] = {}
    for sub, (f, ft) in zip(p.args or [], t.items[index][1], strict=True):
        out.update(_bindings(sub, _read(value, p.name, f, ft)))
    return out


def _exhaustive(rows: list[list[A.Pattern]], types: list[T]) -> bool:
    """Whether every value vector of ``types`` matches one of the pattern ``rows``."""
    if not types:
        return bool(rows)
    t, rest = types[0], types[1:]
    wild = [row[1:] for row in rows if not _is_ctor_pattern(row[0], t)]
    if t.kind != "adt" or len(wild) == len(rows):  # no constructor pattern in this column
        return _exhaustive(wild, rest)
    for ctor, fields in t.items:
        n = len(fields)
        special = [list(row[0].args or []) + row[1:] for row in rows
                   if _is_ctor_pattern(row[0], t) and row[0].name == ctor]
        special += [[A.Pattern("_", None)] * n + w for w in wild]
        if not _exhaustive(special, [ft for _, ft in fields] + rest):
            return False
    return True


