"""The elaborated Lucent model the checker produces and the translation and simulator read:
nodes with typed streams and plain equations, properties, modes, and the expression forms
the checker adds (free constants, refinement-type tests, quantifiers kept as such)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.names import Names
from kinduct.frontends.lucent.core.types import Refinement, T


@dataclass(frozen=True, eq=False)
class CheckWarning:
    """A warning of the checker, located; kept typed up to the report, which prints it as
    ``file:line:col: warning: message``.  Two warnings are the same only if they are one
    object (a retracted warning is removed by identity)."""

    file: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: warning: {self.message}"

@dataclass(eq=False)
class ConstRef(A.Expr):
    """A free (declared but undefined) global constant: one arbitrary value for the whole run."""

    name: str


@dataclass(eq=False)
class Refines(A.Expr):
    """``arg`` has the refinement type ``ref`` (bounds, predicates, components'): a Boolean."""

    arg: A.Expr
    ref: Refinement


@dataclass
class Bound:
    """A variable of a :class:`Quantified`: its type, refinement and concise predicate."""

    name: str
    ty: T
    ref: Refinement
    pred: A.Expr | None = None


@dataclass(eq=False)
class Quantified(A.Expr):
    """``forall``/``exists`` over an unbounded domain, kept as a quantifier
    (:mod:`.quantified`): ``body`` reads the variables of ``params`` as :class:`~.ast.Var`."""

    kind: str  # forall | exists
    params: list[Bound]
    body: A.Expr


@dataclass
class Prop:
    name: str
    expr: A.Expr
    pos: A.Pos
    source: str = "PropAnnot"
    kind: str = "invariant"  # invariant | reachable
    bounds: dict = field(default_factory=dict)  # from / within / at → int
    #: A generated obligation: ``expr`` (a stream, a constant's value, an ascribed
    #: expression) must have this refinement type.
    ref: Refinement | None = None
    #: An obligation of a contract (a ghost's type): owed at the call site also where the
    #: node is imported (it has no body of its own to be checked in).
    contract: bool = False
    #: The stream that is true while the node's assumptions have held so far; the property
    #: is owed only then (a guarantee, a mode's ensure, an output's refinement type).
    sofar: str | None = None
    #: What prefixes a generated obligation's name (an import site ``Spec[L3C3].``, an
    #: ascription's ``N.type_ascription_L5C9[L5C9].``).
    site: str = ""
    #: The clock of the lazy branch it was made in (:class:`.clocks.Clock`; an ascription there):
    #: owed only where the branch is selected.
    clock: Any = None


@dataclass
class Mode:
    name: str
    requires: list[A.Expr]
    ensures: list[tuple[str, A.Expr, A.Pos]]
    pos: A.Pos
    #: Where the mode comes from an imported contract: the import site that prefixes the
    #: names of its properties (``Spec[L13C13].``) and the contract's name.
    site: str = ""
    contract: str = ""


@dataclass
class Node:
    """An elaborated node: every stream typed, every equation plain."""

    name: str
    kind: str
    imported: bool
    decl: A.NodeDecl
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    locals: list[str] = field(default_factory=list)
    ghosts: list[str] = field(default_factory=list)
    types: dict[str, T] = field(default_factory=dict)
    refinements: dict[str, Refinement] = field(default_factory=dict)
    var_pos: dict[str, A.Pos] = field(default_factory=dict)
    #: A local's declaration section (``var`` keyword), where Kind 2 places its obligations.
    decl_pos: dict[str, A.Pos] = field(default_factory=dict)
    const_inputs: set[str] = field(default_factory=set)
    eqs: list[tuple[list[str], A.Expr]] = field(default_factory=list)
    asserts: list[A.Expr] = field(default_factory=list)
    props: list[Prop] = field(default_factory=list)
    assumes: list[Prop] = field(default_factory=list)
    guarantees: list[Prop] = field(default_factory=list)
    modes: list[Mode] = field(default_factory=list)
    pres: list[A.Unop] = field(default_factory=list)
    calls: list[A.Call] = field(default_factory=list)
    #: Functions whose calls were replaced by their expressions (they count as called).
    inlined: set[str] = field(default_factory=set)
    main: bool = False
    has_contract: bool = False
    warnings: list[CheckWarning] = field(default_factory=list)
    #: Streams defined circularly after the first step, whose equations are constraints.
    cut: set[str] = field(default_factory=set)
    #: Streams whose equations the simulator checks rather than evaluates, at every step: each
    #: breaks a cycle through node calls that is no cycle of values (``calldeps.untangle``).
    untangled: set[str] = field(default_factory=set)
    #: The ghost stream "every assumption has held up to now", when the node has assumptions.
    sofar: str | None = None
    #: Generated obligations on expressions: type ascriptions ``(e : T)``, local and ghost
    #: constants and ghost variables declared with a refinement type.
    obligations: list[Prop] = field(default_factory=list)
    #: The clocks of its lazy branches (:class:`.clocks.Clock`), each after its parent.
    clocks: list = field(default_factory=list)

    @property
    def streams(self) -> list[str]:
        return self.inputs + self.outputs + self.locals + self.ghosts

    def var_class(self, name: str) -> str:
        if name in self.inputs:
            return "input"
        if name in self.outputs:
            return "output"
        return "local"


@dataclass
class Checked:
    nodes: dict[str, Node]
    order: list[str]  # callees before callers
    free_consts: dict[str, T]
    const_refinements: dict[str, Refinement]
    file: str
    text: str
    warnings: list[CheckWarning]
    #: Defined constants whose declared refinement type is an obligation.
    const_obligations: list[Prop] = field(default_factory=list)
    #: The numbering of the program's generated ids; the translation and the simulator
    #: continue it where they name what the checker left unnamed.
    names: Names = field(default_factory=Names)

    def top_nodes(self) -> list[str]:
        called = {c.name for n in self.nodes.values() for c in n.calls} | \
            {f for n in self.nodes.values() for f in n.inlined}
        return [n for n in self.order if n not in called and not self.nodes[n].imported]


@dataclass(eq=False)
class SymDef(A.Expr):
    """The array of the symbolic size of ``ty`` whose element at ``var`` is ``body``."""

    var: str
    body: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.body]


class BoundRead(A.Index):
    """A read of an array of known size at an index that reads an index variable of a
    :class:`SymDef`: its out-of-range value is one per index."""


@dataclass(eq=False)
class UQuant(A.Expr):
    kind: str  # forall | exists
    params: list[tuple[str, T, Refinement]]
    body: A.Expr  # the variables' concise predicates included (a guard)

    def kids(self) -> list[A.Expr]:
        return [self.body]
