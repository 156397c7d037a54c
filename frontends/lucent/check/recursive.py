"""Recursive algebraic datatypes (the primer's ``datatype IntList = Cons (head: int, tail:
IntList) | Nil;``), mutually recursive ones and polymorphic ones (``List<T>``).

A recursive datatype has no finite expansion into scalar streams, so unlike the other
datatypes (:mod:`.datatypes`) its value is one SMT term of a native datatype sort
(:mod:`kinduct.kernel.datatypes`): constructors, testers and selectors are the solver's, which
decides them exactly (distinct constructors, injective, acyclic values).  Its type is
``T("adt", name, items=Recursive(name))`` (:class:`~.types.Recursive`); the datatypes it names
that are not declared yet are declared with it (a mutually recursive group).

A field of a recursive datatype is a scalar (``bool``, ``int``, ``real``, a machine integer,
an abstract type), an enumeration, a non-recursive datatype without recursive values, a
recursive datatype, or a record, tuple or array of those: the native constructor has one
field per component (:mod:`.native`), the simulator's tree one argument per Lucent field.
Refinement types on fields (a quantification over the tree) are refused as unsupported.

A selector ``e.f`` written in the program reads a fresh choice (named by the occurrence) where
``e`` was built by another constructor, as a non-recursive datatype's other fields are
arbitrary: its obligation ``C?(e)`` fails there; a non-recursive datatype's value read out of
a tree gets choices named by the read as its other constructors' fields (:mod:`.native`).
The simulator's values are :class:`~kinduct.kernel.datatypes.Tree`\\ s, whose choices it
reads from the oracle under the same names.
"""

from __future__ import annotations

import itertools
import re
import weakref
from typing import TYPE_CHECKING, Any

from pysmt.environment import Environment
from pysmt.typing import PySMTType

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.types import (
    Recursive,
    Refinement,
    T,
    components,
    recursive,
)
from kinduct.frontends.lucent.smt import native
from kinduct.kernel import datatypes as kd
from kinduct.kernel.datatypes import Tree
from kinduct.kernel.errors import SourceLocation, UnsupportedError
from kinduct.kernel.report import format_value

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.checker import Checker

#: Kinds of types a field of a recursive datatype may have besides recursive datatypes.
_SCALAR = frozenset({"bool", "int", "real", "machine", "abstract", "typevar", "enum"})


def names(te: A.TypeExpr, name: str) -> bool:
    """Whether the type expression ``te`` names the type ``name`` (or applies it)."""
    if te.kind in ("name", "app") and te.args[0] == name:
        return True
    for a in te.args:
        subs = [a] if isinstance(a, A.TypeExpr) else \
            [x for x in a if isinstance(x, A.TypeExpr)] if isinstance(a, tuple) else []
        if any(names(x, name) for x in subs):
            return True
    return False


def field_types(te: A.TypeExpr) -> list[A.TypeExpr]:
    """The type expressions of the fields of ``datatype … = te``."""
    return [fte for _, fields, _ in te.args for _, fte in fields]


def holds_recursive(t: T) -> bool:
    """Whether a value of ``t`` holds a recursive datatype's value."""
    return recursive(t) or any(holds_recursive(x) for x in components(t))


def _unsupported(checker: Checker, what: str, pos: A.Pos) -> UnsupportedError:
    located = checker.err("", pos)
    return UnsupportedError(what, SourceLocation(checker.file, pos.line, pos.col),
                            located.source_line)


# ---- declarations ----

def _pending(checker: Checker) -> dict[str, A.TypeExpr]:
    """Datatype declarations (without type parameters) not declared yet."""
    return {td.name: td.type_expr for td in checker.prog.types
            if td.type_expr is not None and td.type_expr.kind == "adt" and not td.type_params
            and td.name not in checker.types}


def group(checker: Checker, te: A.TypeExpr, name: str) -> list[tuple[str, A.TypeExpr]] | None:
    """The datatypes to declare with ``datatype name = te`` when it is recursive: itself and
    the pending datatypes it names (transitively); None when it is not recursive."""
    pending = _pending(checker) if not checker.strict else {}
    out = [(name, te)]
    todo = [te]
    while todo:
        for fte in field_types(todo.pop()):
            for n, other in pending.items():
                if n not in (x for x, _ in out) and names(fte, n):
                    out.append((n, other))
                    todo.append(other)
    recursive_ = any(names(fte, name) for fte in field_types(te)) or len(out) > 1
    return out if recursive_ else None


def declare(checker: Checker, members: list[tuple[str, A.TypeExpr]]) -> T:
    """Declare the recursive datatypes ``members`` (name, body) together; the first's type."""
    from kinduct.frontends.lucent.check import datatypes
    for _, te in members:
        datatypes.check_names(checker, te)
    types = {n: T("adt", n, items=Recursive(n)) for n, _ in members}
    checker.types.update(types)
    try:
        for n, te in members:
            _fill(checker, types[n], te)
    except BaseException:  # a field names a type not declared yet: declared again later
        for n in types:
            del checker.types[n]
        raise
    for n, te in members:
        for i, (ctor, _) in enumerate(types[n].items):
            if ctor in checker.ctors:  # in two datatypes of the group
                raise checker.err(f"'{ctor}' is declared twice", te.pos)
            checker.ctors[ctor] = (types[n], i)
    for n, te in members:
        if base(types[n]) is None:
            raise checker.err(f"datatype {n} has no finite value (every constructor needs "
                              "another value of it)", te.pos)
    return types[members[0][0]]


_INSTANCES: weakref.WeakKeyDictionary[Any, dict[str, T]] = weakref.WeakKeyDictionary()


def instance(checker: Checker, te: A.TypeExpr, name: str) -> tuple[T, Refinement]:
    """The instance ``name`` (``List<int>``) of a recursive polymorphic datatype ``te``,
    under the checker's current type parameters; one type per instance."""
    refined = [p for p, (_, ref) in checker.type_params.items() if not ref.empty]
    if refined:  # one type per instance, the refinement apart: it would be dropped
        uses = [fte for fte in field_types(te) if names(fte, refined[0])] or field_types(te)
        raise _unsupported(checker, f"a refinement type as the type argument {refined[0]} of "
                           f"the recursive datatype {name.split('<', 1)[0]} (it would be owed "
                           "by every subtree)", uses[0].pos)
    known = _INSTANCES.setdefault(checker, {})
    t = known.get(name)
    if t is None:
        for fte in field_types(te):
            other = [n for n in _pending(checker) if names(fte, n)]
            if other:
                raise _unsupported(checker, "a polymorphic datatype recursive with another "
                                   f"datatype ({other[0]})", fte.pos)
        t = known[name] = T("adt", name, items=Recursive(name))
        try:
            _fill(checker, t, te)
        except BaseException:
            del known[name]
            raise
        if base(t) is None:
            raise checker.err(f"datatype {name} has no finite value (every constructor needs "
                              "another value of it)", te.pos)
    return t, Refinement()


def _fill(checker: Checker, t: T, te: A.TypeExpr) -> None:
    from kinduct.frontends.lucent.check import datatypes
    items, ref = datatypes.constructors(checker, te, t.name)
    if not ref.empty:
        pos = next(fte.pos for _, fields, _ in te.args for _, fte in fields)
        for _, fields, _ in te.args:
            for _, fte in fields:
                if not checker.resolve_type(fte)[1].empty:
                    pos = fte.pos
                    break
        raise _unsupported(checker, f"a refinement type on a field of the recursive datatype "
                           f"{t.name} (it would be owed by every subtree)", pos)
    for (_, fields, _), (_, resolved) in zip(te.args, items, strict=True):
        for (_, fte), (_, ft) in zip(fields, resolved, strict=True):
            if not _allowed(ft):
                raise _unsupported(checker, f"a field of type {ft} in the recursive datatype "
                                   f"{t.name} (fields are scalars, enumerations, recursive "
                                   "datatypes, datatypes without recursive values, and records, "
                                   "tuples and arrays of them)", fte.pos)
    t.items.ctors = items


def _allowed(t: T) -> bool:
    """Whether a field may have type ``t`` (:mod:`.native`): a scalar, an enumeration, a
    recursive datatype, a datatype that holds no recursive value, or a record, tuple or array
    of those."""
    if t.kind in _SCALAR or recursive(t):
        return True
    if t.kind == "adt" and holds_recursive(t):
        return False
    return t.kind in ("record", "tuple", "array", "adt") and \
        all(_allowed(c) for c in components(t))


def _recursive_leaves(t: T) -> list[T]:
    """The recursive datatypes among the native fields of a field's type."""
    return [p for p in native.paths(t) if recursive(p)]


def base(t: T) -> int | None:
    """The first constructor of ``t`` that builds a finite value from default values (the
    simulator's default), or None where every one needs a value of ``t`` itself."""
    group_ = reachable(t)
    found: dict[T, int] = {}
    changed = True
    while changed:
        changed = False
        for x in group_:
            if x in found:
                continue
            for i, (_, fields) in enumerate(x.items):
                if all(lt in found for _, ft in fields for lt in _recursive_leaves(ft)):
                    found[x] = i
                    changed = True
                    break
    return found.get(t)


def reachable(t: T) -> list[T]:
    """``t`` and the recursive datatypes its fields name, transitively."""
    out = [t]
    for x in out:
        for _, fields in x.items:
            for _, ft in fields:
                out.extend(lt for lt in _recursive_leaves(ft) if lt not in out)
    return out


# ---- translation ----

def sort(env: Environment, t: T) -> PySMTType:
    """The native datatype sort of ``t`` in ``env``, declared (with the datatypes it names
    that are not declared yet) on first use."""
    reg = kd.registry(env)
    st = kd.sort_type(env, t.name)
    if st in reg.sorts:
        return st
    todo = [x for x in reachable(t) if kd.sort_type(env, x.name) not in reg.sorts]
    kd.declare(env, [kd.Datatype(x.name, tuple(
        kd.Constructor(c, tuple((f"{f}.{k}", native.sort(env, p)) for f, ft in fields
                                for k, p in enumerate(native.paths(ft))))
        for c, fields in x.items)) for x in todo])
    return st


def _sort(env: Environment, t: T) -> kd.Sort:
    return kd.registry(env).sorts[sort(env, t)]


def construct(env: Environment, e: A.Construct, args: list[Any]) -> Any:
    """``e`` applied to the terms of its arguments (structured: one SMT field per leaf)."""
    fields = e.ty.items[e.index][1]
    return kd.construct(env, _sort(env, e.ty), e.index, [
        native.to_native(env, x, p) for a, (_, ft) in zip(args, fields, strict=True)
        for x, p in zip(native.split(a, ft), native.paths(ft), strict=True)])


def test(env: Environment, e: A.Tester, arg: Any) -> Any:
    t = e.arg.ty
    return kd.test(env, _sort(env, t), _index(t, e.ctor), arg)


def select(inst: Any, e: A.Field, arg: Any) -> Any:
    """``e`` (a selector of a recursive datatype's field): the field, or where ``arg`` was
    built by another constructor and ``e`` is written in the program, a fresh choice."""
    env = inst.tr.b.env
    t = e.arg.ty
    ctor, field = e.name.split(".", 1)
    i = _index(t, ctor)
    fields = t.items[i][1]
    j = next(k for k, (f, _) in enumerate(fields) if f == field)
    s = _sort(env, t)
    at = itertools.count(sum(len(native.paths(ft)) for _, ft in fields[:j]))
    name = _named(e)

    def junk(key: str, ft: T) -> Any:
        return inst.fresh(f"{name}%junk{key}", ft)
    value = native.join(e.ty, lambda p, path: native.from_native(
        env, kd.select(env, s, i, next(at), arg), p, junk, inst.ite, path))
    if not getattr(e, "owed", False):
        return value
    return inst.ite(kd.test(env, s, i, arg), value, inst.fresh(name, e.ty))


def _index(t: T, ctor: str) -> int:
    return next(i for i, (c, _) in enumerate(t.items) if c == ctor)


def _named(field: A.Field) -> str:
    """The name of a read's choices (named on first use where no check named it)."""
    if not hasattr(field, "choice"):
        mark(field, owed=False)
    return field.choice  # type: ignore[attr-defined]


def mark(field: A.Field, owed: bool) -> A.Field:
    """A read of a recursive datatype's field, named (its choices are): a selector written in
    the program (``owed``: its obligation is owed) reads a choice where its obligation fails, a
    pattern's read is used only where its pattern matches."""
    field.choice = naming.current().choice(field.pos.line, field.pos.col)  # type: ignore[attr-defined]
    field.owed = owed  # type: ignore[attr-defined]
    return field


# ---- simulation ----

def default(t: T) -> Tree:
    """A value of ``t``: its first constructor that builds a finite value, of defaults."""
    from kinduct.frontends.lucent.sim.simulate import default_value
    i = base(t)
    assert i is not None  # checked at the declaration
    ctor, fields = t.items[i]
    return Tree(ctor, tuple(default_value(ft) for _, ft in fields))


def evaluate(inst: Any, e: A.Expr) -> Any:
    """The simulator's value of a constructor, tester or selector of a recursive datatype."""
    if isinstance(e, A.Construct):
        return Tree(e.ctor, tuple(inst.eval(a) for a in e.args))
    if isinstance(e, A.Tester):
        return inst.eval(e.arg).ctor == e.ctor
    assert isinstance(e, A.Field)
    v = inst.eval(e.arg)
    ctor, field = e.name.split(".", 1)
    name = inst.prefix + _named(e)
    if v.ctor == ctor:
        fields = e.arg.ty.items[_index(e.arg.ty, ctor)][1]
        return native.rejunk(v.args[next(k for k, (f, _) in enumerate(fields) if f == field)],
                             e.ty, lambda key, ft: inst.sim.oracle(f"{name}%junk{key}", ft,
                                                                   inst.step_no))
    if not getattr(e, "owed", False):  # a pattern's read, used only where the pattern matches
        from kinduct.frontends.lucent.sim.simulate import default_value
        return default_value(e.ty)
    return inst.sim.oracle(name, e.ty, inst.step_no)


def from_trace(value: Any, t: T, scalar: Any) -> Tree:
    """A trace's value of ``t`` (its text) as the simulator's tree; ``scalar(v, ft)`` reads
    the fields of the other types."""
    tree = kd.from_text(value)

    def walk(v: Any, ty: T) -> Any:
        if not recursive(ty):
            return native.value(v, ty, scalar)
        fields = ty.items[_index(ty, v.ctor)][1]
        args = iter(v.args)  # one per native field
        return Tree(v.ctor, tuple(native.join(ft, lambda p, _: walk(next(args), p))
                                  for _, ft in fields))
    return walk(tree, t)


def text(v: Any, t: T, scalar: Any) -> str:
    """A datatype's value in Lucent's syntax: ``Cons(1, Nil)``; ``scalar(v, ft)`` shows the
    scalar fields."""
    if isinstance(v, dict):  # a non-recursive datatype's value
        v = native.tree(v, t)
    if not isinstance(v, Tree):
        return str(v)
    fields = t.items[_index(t, v.ctor)][1]
    if not fields:
        return v.ctor

    def show(x: Any, ft: T) -> str:
        if recursive(ft):
            return text(x, ft, scalar)
        if ft.kind == "enum" and isinstance(x, int) and 0 <= x < len(ft.items):
            return ft.items[x]
        if ft.kind == "adt":
            return text(native.tree(x, ft), ft, scalar)
        if ft.kind == "record":
            return "{" + "; ".join(f"{f} = {show(x[f], t)}" for f, t in ft.items) + "}"
        if ft.kind in ("array", "tuple"):
            its = [ft.items[0]] * ft.size if ft.kind == "array" else list(ft.items)
            return "[" + ", ".join(show(y, t) for y, t in zip(x, its, strict=True)) + "]"
        shown = scalar(x, ft)
        return shown if isinstance(shown, str) else format_value(x)
    return f"{v.ctor}({', '.join(show(x, ft) for x, (_, ft) in zip(v.args, fields, strict=True))})"


def parse(text: str, t: T, scalar: Any) -> Any:
    """A value of the datatype ``t`` written in Lucent's syntax (``Cons(1, Nil)``, a record
    field as ``{f = 1; g = Nil}``, an array or tuple field as ``[1, 2]``; ``kinduct
    simulate``'s inputs); ``scalar(text, ft)`` reads the scalar fields.  ValueError where it is
    not one."""
    tokens = [x for x in re.findall(r"[A-Za-z_][A-Za-z0-9_]*|[-+]?[0-9][0-9./]*|[(),]|\S",
                                    text)]
    pos = 0

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError("unexpected end")
        pos += 1
        return tokens[pos - 1]

    def expect(token: str) -> None:
        if take() != token:
            raise ValueError(f"expected '{token}'")

    def value(ty: T) -> Any:
        if ty.kind == "record":  # {f = v; g = w}
            expect("{")
            out = {}
            for k, (f, ft) in enumerate(ty.items):
                if k:
                    expect(";")
                expect(f)
                expect("=")
                out[f] = value(ft)
            expect("}")
            return out
        if ty.kind in ("array", "tuple"):  # [v, w]
            its = [ty.items[0]] * ty.size if ty.kind == "array" else list(ty.items)
            expect("[")
            items = []
            for k, it in enumerate(its):
                if k:
                    expect(",")
                items.append(value(it))
            expect("]")
            return items
        if ty.kind != "adt":
            return scalar(take(), ty)
        ctor = take()
        fields = ty.items[_index(ty, ctor)][1] if any(c == ctor for c, _ in ty.items) else None
        if fields is None:
            raise ValueError(f"no constructor {ctor} of {ty}")
        args = []
        if fields:
            expect("(")
            for k, (_, ft) in enumerate(fields):
                if k:
                    expect(",")
                args.append(value(ft))
            expect(")")
        return Tree(ctor, tuple(args)) if recursive(ty) else native.from_tree(
            Tree(ctor, tuple(args)), ty)
    out = value(t)
    if pos != len(tokens):
        raise ValueError("trailing text")
    return out
