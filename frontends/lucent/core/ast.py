"""Lucent abstract syntax: plain dataclasses carrying source positions.

Expressions get a ``ty`` slot filled in by the type checker, so the simulator and the
translation never re-derive types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Pos:
    """A place in the source: 1-based ``line`` and ``col`` (0: unknown), and the character
    offsets ``start``..``end`` of the text it spans."""

    line: int = 0
    col: int = 0
    start: int = 0
    end: int = 0


NOPOS = Pos()


def source_line(text: str, line: int) -> str | None:
    """Line ``line`` (from 1) of ``text``, for an error's caret (None: no such line)."""
    lines = text.splitlines()
    return lines[line - 1] if 1 <= line <= len(lines) else None


@dataclass(eq=False)
class Expr:
    pos: Pos = field(default=NOPOS, kw_only=True)
    ty: Any = field(default=None, kw_only=True)


@dataclass(eq=False)
class Lit(Expr):
    value: Any
    kind: str  # bool | int | real


@dataclass(eq=False)
class Var(Expr):
    name: str


@dataclass(eq=False)
class ModeRef(Expr):
    path: tuple[str, ...]


@dataclass(eq=False)
class Unop(Expr):
    op: str  # not | neg | pre | last | to_int | to_real
    arg: Expr


@dataclass(eq=False)
class Binop(Expr):
    op: str  # or xor and => = <> < <= > >= + - * / div mod -> | lazy: and then, or else, ==>
    left: Expr
    right: Expr


@dataclass(eq=False)
class Ite(Expr):
    cond: Expr
    then: Expr
    orelse: Expr
    #: ``when c then a else b``: only the selected branch is evaluated (:mod:`.lazy`).
    lazy: bool = False


@dataclass(eq=False)
class Call(Expr):
    name: str
    args: list[Expr]
    #: ``N@<int; bool>(…)``: the type arguments of a polymorphic node, given.
    type_args: list[TypeExpr] | None = None
    #: ``None@<int>``: type arguments with no argument list (a nullary constructor).
    bare: bool = False


@dataclass(eq=False)
class TupleE(Expr):
    items: list[Expr]


@dataclass(eq=False)
class ArrayLit(Expr):
    items: list[Expr]


@dataclass(eq=False)
class Caret(Expr):
    elem: Expr
    size: Expr


@dataclass(eq=False)
class Index(Expr):
    arg: Expr
    index: Expr


@dataclass(eq=False)
class Update(Expr):
    arg: Expr
    index: Expr
    value: Expr


@dataclass(eq=False)
class Field(Expr):
    arg: Expr
    name: str


@dataclass(eq=False)
class RecordLit(Expr):
    type_name: str
    fields: list[tuple[str, Expr]]
    #: ``P@<int> { … }``: the type arguments of a polymorphic record type.
    type_args: list[TypeExpr] | None = None


@dataclass(eq=False)
class AnyE(Expr):
    var: str
    type_expr: Any
    pred: Expr | None
    #: ``choose``: the same value for the same values of what the predicate reads
    #: (:mod:`..lucent.choice`).
    functional: bool = False


@dataclass(eq=False)
class Construct(Expr):
    """A value of an algebraic datatype built by its constructor number ``index`` (checked
    form of ``C(args)`` and of a nullary ``C``)."""

    ctor: str
    index: int
    args: list[Expr]


@dataclass(eq=False)
class Tester(Expr):
    """``C?(arg)``: ``arg`` was built by the constructor ``C``."""

    ctor: str
    arg: Expr


@dataclass(eq=False)
class Pattern:
    """A ``match`` pattern: a constructor with sub-patterns, a variable, or ``_``."""

    name: str
    args: list[Pattern] | None
    pos: Pos = NOPOS


@dataclass(eq=False)
class Match(Expr):
    """``match arg with | p1 : e1 | … end`` (source form: the checker makes lazy branches)."""

    arg: Expr
    cases: list[tuple[Pattern, Expr]]


@dataclass(eq=False)
class Quant(Expr):
    """``forall (x: T; …) body`` or ``exists (…) body`` (:mod:`..lucent.quantifiers`)."""

    kind: str  # forall | exists
    params: list[Param]
    body: Expr


@dataclass(eq=False)
class Ascribe(Expr):
    arg: Expr
    type_expr: Any


@dataclass(eq=False)
class SampleClock:
    """The clock of ``e when ck``: ``c`` (``positive``), ``not c``, or ``C(c)`` (``case`` C of
    the enumeration stream ``c``)."""

    name: str
    positive: bool = True
    case: str | None = None
    pos: Pos = NOPOS


@dataclass(eq=False)
class When(Expr):
    """``arg when clock``: ``arg`` sampled on a clock (:mod:`.sampling`)."""

    arg: Expr
    clock: SampleClock


@dataclass(eq=False)
class Merge(Expr):
    """``merge(c; a; b)`` or ``merge c (A -> a) (B -> b)``: the case whose tag (``true``,
    ``false`` or a value of ``c``'s enumeration) ``c`` holds."""

    clock: str
    clock_pos: Pos
    cases: list[tuple[str, Expr]]


@dataclass(eq=False)
class Current(Expr):
    """``current e``: the value of the clocked ``e`` at its clock's last tick."""

    arg: Expr


@dataclass(eq=False)
class Activate(Expr):
    """A call of ``name`` that steps only where ``every`` holds (None: at every step) and
    starts over where ``restart`` holds: ``(activate N every c [initial default (d…)]
    [restart every r])(args)``, ``condact(c, N(args), d…)``, ``(restart N every r)(args)``
    (:mod:`.activation`).  ``defaults``: the outputs before the first tick (None: none given,
    then the call is clocked)."""

    name: str
    args: list[Expr]
    every: Expr | None
    restart: Expr | None
    defaults: list[Expr] | None
    form: str  # activate | condact | restart


# ---- type expressions (resolved later by the checker) ----

@dataclass(eq=False)
class TypeExpr:
    #: name | subrange | subtype | enum | struct | tuple | array | adt | machine (args: (T,))
    #: | app (``Pair<int; bool>``, args: (name, (TypeExpr, ...)))
    kind: str
    args: tuple
    pos: Pos = NOPOS


# ---- statements ----

@dataclass(eq=False)
class Equation:
    lhs: list[tuple[str, Pos]]
    rhs: Expr
    pos: Pos


@dataclass(eq=False)
class ArrayDef:
    """``A[i] = e`` (``A[i][j] = e`` …): ``A`` defined element by element, the index variables
    ranging over its dimensions (:mod:`..lucent.arraydef`)."""

    name: str
    indices: list[str]
    rhs: Expr
    pos: Pos
    #: False when other variables share the left side (not supported).
    alone: bool = True


@dataclass(eq=False)
class Assert:
    expr: Expr
    pos: Pos


@dataclass(eq=False)
class Check:
    name: str | None
    expr: Expr
    pos: Pos
    kind: str = "invariant"  # invariant | reachable | provided
    provided: Expr | None = None
    bounds: dict[str, Expr] = field(default_factory=dict)
    text: str = ""
    source: str = "PropAnnot"


@dataclass(eq=False)
class MainAnnot:
    pos: Pos


@dataclass(eq=False)
class IfBlock:
    branches: list[tuple[Expr, list]]
    orelse: list | None
    pos: Pos


@dataclass(eq=False)
class LazyBlock:
    """``when c then … else … end`` (one branch, ``orelse`` the else part) or ``cond | c1: …
    | c2: … otherwise: … end``: only the selected branch is evaluated (:mod:`.lazy`)."""

    branches: list[tuple[Expr, list]]
    orelse: list | None
    pos: Pos
    kind: str = "when"  # when | cond


@dataclass(eq=False)
class FrameBlock:
    names: list[str]
    inits: list[tuple[str, Expr, Pos]]
    body: list
    pos: Pos


# ---- declarations ----

@dataclass(eq=False)
class Param:
    name: str
    type_expr: TypeExpr
    pos: Pos
    const: bool = False
    pred: Expr | None = None
    #: A local's declaration section (its ``var`` keyword), where Kind 2 places its obligations.
    decl_pos: Pos | None = None


@dataclass(eq=False)
class ContractItem:
    kind: str  # var | vars | const | assume | guarantee | mode | import
    name: str | None
    pos: Pos
    expr: Expr | None = None
    type_expr: TypeExpr | None = None
    weak: bool = False
    requires: list[tuple[str | None, Expr, Pos]] = field(default_factory=list)
    ensures: list[tuple[str | None, Expr, Pos]] = field(default_factory=list)
    args: list[Expr] = field(default_factory=list)
    outs: list[str] = field(default_factory=list)
    #: ``import C@<int>(…)``: the type arguments of a polymorphic contract, given.
    type_args: list[TypeExpr] | None = None
    #: ``vars``: the ghost variables defined together (name, type, position).
    ghosts: list[tuple[str, TypeExpr, Pos]] = field(default_factory=list)


@dataclass(eq=False)
class NodeDecl:
    name: str
    kind: str  # node | function | contract
    imported: bool
    inputs: list[Param]
    outputs: list[Param]
    locals: list[Param]
    consts: list[tuple[str, TypeExpr | None, Expr, Pos]]
    body: list
    contract: list[ContractItem]
    pos: Pos
    modifier: str | None = None
    #: ``node N<T1; T2>(…)``: a polymorphic node, elaborated once per instance.
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False)
class TypeDecl:
    name: str
    type_expr: TypeExpr | None
    pos: Pos
    #: ``type Pair<T; U> = …``: a type constructor, instantiated per type arguments.
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False)
class ConstDecl:
    name: str
    type_expr: TypeExpr | None
    value: Expr | None
    pos: Pos
    #: The ``const`` keyword of its declaration, where Kind 2 places its obligation.
    decl_pos: Pos | None = None


@dataclass(eq=False)
class Program:
    types: list[TypeDecl]
    consts: list[ConstDecl]
    nodes: list[NodeDecl]
    contracts: list[NodeDecl]
    file: str
    text: str


# ---- Kind 2 (Lustre v4) array concatenation and slices, before checking ----

@dataclass(eq=False)
class Concat(Binop):
    """``left | right`` before it is checked (a :class:`Binop` to the walkers; checked by
    ``check.concat``)."""



@dataclass(eq=False)
class Slice(Expr):
    """``arg[lo..hi]`` before it is checked: the elements ``lo`` to ``hi`` of an array, both
    constant, ``lo <= hi`` (Lustre v4 reads ``hi < lo`` backwards: refused as unsupported)."""

    arg: Expr
    lo: Expr
    hi: Expr

    def kids(self) -> list[Expr]:
        return [self.arg, self.lo, self.hi]
