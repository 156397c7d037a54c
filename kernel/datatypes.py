"""Native (SMT-LIB) algebraic datatypes over PySMT, and their values in traces.

PySMT has no datatype theory.  A group of (mutually recursive) datatypes is declared here,
per PySMT :class:`~pysmt.environment.Environment`: each datatype is a PySMT custom sort
(``type_manager.Type(name, 0)``), and its constructors, testers and selectors are PySMT
function symbols (a nullary constructor is a symbol of the sort) recorded in the
environment's :class:`Registry`.  Formulas apply them like uninterpreted functions; the
backends (:mod:`kinduct.plugins.backends.pysmt_solvers`) recognise them through the registry
and build the solver's native datatype terms, so the solver decides them exactly
(distinctness, injectivity, acyclicity).

A value of a datatype is a :class:`Tree` (a constructor's name and its arguments: numbers,
Booleans, trees).  A trace holds it as text (:func:`to_text`, ``adt:`` and a JSON tree), and
:func:`constant` turns it back into a ground PySMT term for replay.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Sequence
from typing import Any, Literal

import attrs
from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.typing import PySMTType

from kinduct.kernel import arrays


@attrs.frozen
class Constructor:
    """A constructor's name and its fields (name, PySMT type); a field's type may be a sort
    of its own group or of a group declared before."""

    name: str
    fields: tuple[tuple[str, PySMTType], ...] = ()


@attrs.frozen
class Datatype:
    """A datatype to declare: its sort's name and its constructors (at least one)."""

    name: str
    constructors: tuple[Constructor, ...]


@attrs.define(eq=False)
class Sort:
    """A declared datatype: its PySMT sort and its function symbols, per constructor."""

    decl: Datatype
    type: PySMTType
    group: Group
    constructors: list[FNode] = attrs.field(factory=list)
    testers: list[FNode] = attrs.field(factory=list)
    selectors: list[list[FNode]] = attrs.field(factory=list)

    def index(self, ctor: str) -> int:
        return next(i for i, c in enumerate(self.decl.constructors) if c.name == ctor)


@attrs.define(eq=False)
class Group:
    """Datatypes declared together (they may name each other)."""

    sorts: list[Sort] = attrs.field(factory=list)


@attrs.frozen
class Op:
    """What a registered function symbol is: a constructor, a tester or a selector (``field``)
    of the constructor numbered ``ctor`` of ``sort``."""

    kind: Literal["constructor", "tester", "selector"]
    sort: Sort
    ctor: int
    field: int = -1


@attrs.define(eq=False)
class Registry:
    """The datatypes declared in one environment."""

    sorts: dict[PySMTType, Sort] = attrs.field(factory=dict)
    ops: dict[FNode, Op] = attrs.field(factory=dict)
    groups: list[Group] = attrs.field(factory=list)


_REGISTRIES: weakref.WeakKeyDictionary[Environment, Registry] = weakref.WeakKeyDictionary()


def registry(env: Environment) -> Registry:
    """The datatypes of ``env`` (empty when none was declared)."""
    reg = _REGISTRIES.get(env)
    if reg is None:
        reg = _REGISTRIES[env] = Registry()
    return reg


def find(env: Environment | None) -> Registry | None:
    """The registry of ``env`` if a datatype was declared there."""
    return None if env is None else _REGISTRIES.get(env)


def declare(env: Environment, datatypes: Sequence[Datatype]) -> list[Sort]:
    """Declare ``datatypes`` as one group in ``env``; their sorts, in order.  A field's sort
    is a sort of the group (:func:`sort_type` of its name) or a sort declared before."""
    reg = registry(env)
    mgr, tm = env.formula_manager, env.type_manager
    group = Group()
    for d in datatypes:
        t = tm.Type(d.name, 0)
        if t in reg.sorts:
            raise ValueError(f"datatype {d.name} is declared twice")
        group.sorts.append(Sort(d, t, group))
    for s in group.sorts:
        reg.sorts[s.type] = s
    for s in group.sorts:
        for i, c in enumerate(s.decl.constructors):
            for _, ft in c.fields:
                if ft.is_custom_type() and ft not in reg.sorts:
                    raise ValueError(f"field of {c.name}: undeclared sort {ft}")
            ftypes = [ft for _, ft in c.fields]
            ctor = mgr.Symbol(f"%adt.{s.decl.name}.{c.name}",
                              tm.FunctionType(s.type, ftypes) if ftypes else s.type)
            tester = mgr.Symbol(f"%adt.{s.decl.name}.{c.name}?", tm.FunctionType(
                tm.BOOL(), [s.type]))
            sels = [mgr.Symbol(f"%adt.{s.decl.name}.{c.name}.{f}", tm.FunctionType(ft, [s.type]))
                    for f, ft in c.fields]
            s.constructors.append(ctor)
            s.testers.append(tester)
            s.selectors.append(sels)
            reg.ops[ctor] = Op("constructor", s, i)
            reg.ops[tester] = Op("tester", s, i)
            for j, sel in enumerate(sels):
                reg.ops[sel] = Op("selector", s, i, j)
    reg.groups.append(group)
    return group.sorts


def sort_type(env: Environment, name: str) -> PySMTType:
    """The PySMT sort named ``name`` (to name a sort of a group being declared)."""
    return env.type_manager.Type(name, 0)


def op_of(reg: Registry | None, node: FNode) -> Op | None:
    """The datatype operation ``node`` applies (a function application or a nullary
    constructor's symbol), if any."""
    if reg is None:
        return None
    if node.is_function_application():
        return reg.ops.get(node.function_name())
    if node.is_symbol():
        return reg.ops.get(node)
    return None


# ---- terms ----

def construct(env: Environment, sort: Sort, index: int, args: Sequence[FNode]) -> FNode:
    """The constructor numbered ``index`` of ``sort`` applied to ``args``."""
    ctor = sort.constructors[index]
    return env.formula_manager.Function(ctor, list(args)) if args else ctor


def test(env: Environment, sort: Sort, index: int, term: FNode) -> FNode:
    """Whether ``term`` was built by the constructor numbered ``index``."""
    return env.formula_manager.Function(sort.testers[index], [term])


def select(env: Environment, sort: Sort, index: int, field: int, term: FNode) -> FNode:
    """The field ``field`` of the constructor numbered ``index`` of ``term``."""
    return env.formula_manager.Function(sort.selectors[index][field], [term])


# ---- values ----

@attrs.frozen
class Tree:
    """A value of a datatype: its constructor and the constructor's arguments."""

    ctor: str
    args: tuple[Any, ...] = ()

    def __str__(self) -> str:
        """In Lucent's syntax: ``C(1, N)``."""
        def show(v: Any) -> str:
            return ("true" if v else "false") if isinstance(v, bool) else str(v)
        return f"{self.ctor}({', '.join(map(show, self.args))})" if self.args else self.ctor


def _encode(v: Any) -> Any:
    if isinstance(v, Tree):
        return {"c": v.ctor, "a": [_encode(x) for x in v.args]}
    return arrays.encode_number(v)


def _decode(v: Any) -> Any:
    if isinstance(v, dict) and "c" in v:
        return Tree(v["c"], tuple(_decode(x) for x in v["a"]))
    return arrays.decode_number(v)


PREFIX = "adt:"


def to_text(value: Tree) -> str:
    return PREFIX + json.dumps(_encode(value), separators=(",", ":"))


def from_text(text: Any) -> Tree:
    if isinstance(text, Tree):
        return text
    if not isinstance(text, str) or not text.startswith(PREFIX):
        raise ValueError(f"not a datatype value: {text!r}")
    return _decode(json.loads(text[len(PREFIX):]))


def constant(env: Environment, t: PySMTType, value: Any, scalar: Any) -> FNode:
    """The ground PySMT term of ``value`` (a :class:`Tree` or its text) of the datatype sort
    ``t``; ``scalar(sort, v)`` makes the constants of the other sorts."""
    reg = registry(env)

    def build(st: PySMTType, v: Any) -> FNode:
        sort = reg.sorts.get(st)
        if sort is None:
            return scalar(st, v)
        i = sort.index(v.ctor)
        fields = sort.decl.constructors[i].fields
        if len(fields) != len(v.args):
            raise ValueError(f"{v.ctor} takes {len(fields)} argument(s), not {len(v.args)}")
        return construct(env, sort, i, [build(ft, x) for (_, ft), x in zip(fields, v.args,
                                                                            strict=True)])
    return build(t, from_text(value))


def evaluate(op: Op, args: Sequence[Any]) -> Any:
    """The value of ``op`` applied to Python values (trees for datatype arguments); None
    where it has none here (a selector of another constructor's field: the solver's)."""
    c = op.sort.decl.constructors[op.ctor]
    if op.kind == "constructor":
        return Tree(c.name, tuple(args))
    tree = args[0]
    if not isinstance(tree, Tree):
        return None
    if op.kind == "tester":
        return tree.ctor == c.name
    return tree.args[op.field] if tree.ctor == c.name else None
