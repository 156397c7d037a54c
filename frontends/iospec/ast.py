"""The abstract syntax of I/O specifications: value sets, terms and specifications.

Every node is immutable and carries the place (line, column) it was written at, so that the
well-formedness checks and the evaluators can point at the offending piece of the file.

A specification is a :class:`Seq` of actions (sequential composition is associative and ``0`` is
its unit, so nested sequences are flattened by the parser):

=================  ============================================================================
``Read``           ``[> x : τ]`` read a value into ``x``; ``mode`` says what an invalid value
                   (one outside ``τ``) means: ``assume`` (never given), ``stop`` (the program
                   must stop), ``retry`` (the program must read again; the value is discarded)
``Write``          ``[{t1, ..., ε} >]`` write one of the terms' values (``None`` is ``ε``: write
                   nothing)
``Branch``         ``[c] => s1 else s2``
``Loop``           ``(s)^E`` repeat ``s`` until an exit marker ``E`` is reached
``Exit``           ``E`` leave the innermost enclosing loop
=================  ============================================================================
"""

from __future__ import annotations

from typing import Literal

import attrs


@attrs.frozen
class Loc:
    """A 1-based line and column in the specification file."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


NOWHERE = Loc(0, 0)

# ---------------------------------------------------------------------------------------------
# Value sets (the τ of ``[> x : τ]``): constant sets of integers.


@attrs.frozen
class Everything:
    """All integers (``int``)."""


@attrs.frozen
class Compare:
    """``{v | v op bound}`` for ``op`` one of ``< <= > >= = !=`` (``nat`` is ``>= 0``)."""

    op: str
    bound: int


@attrs.frozen
class Range:
    """``lo..hi``: the integers from ``lo`` to ``hi``, both included."""

    lo: int
    hi: int


@attrs.frozen
class Finite:
    """``{1, 2, 3}``: exactly these integers."""

    values: tuple[int, ...]


@attrs.frozen
class SetOp:
    """``A | B`` (union), ``A & B`` (intersection)."""

    op: Literal["|", "&"]
    left: ValueSet
    right: ValueSet


@attrs.frozen
class Complement:
    """``!A``: the integers not in ``A``."""

    inner: ValueSet


ValueSet = Everything | Compare | Range | Finite | SetOp | Complement

# ---------------------------------------------------------------------------------------------
# Terms.  Three types: ``int``, ``list`` (of ints) and ``bool``.

TermType = Literal["int", "list", "bool"]


@attrs.frozen
class Const:
    """An integer or Boolean literal."""

    value: int | bool
    loc: Loc = attrs.field(default=NOWHERE, eq=False)


@attrs.frozen
class Current:
    """``x_C`` (``back = 0``): the last value read into ``x``; ``x_C^-k`` the one ``k`` reads
    before it."""

    var: str
    back: int = 0
    loc: Loc = attrs.field(default=NOWHERE, eq=False)


@attrs.frozen
class All:
    """``x_A``: the list of every value read into ``x``, oldest first."""

    var: str
    loc: Loc = attrs.field(default=NOWHERE, eq=False)


@attrs.frozen
class Apply:
    """An operator or function applied to terms: ``+ - * / %`` (``/`` and ``%`` round towards
    minus infinity), unary ``neg``, comparisons, ``and or not``, and the functions of
    :data:`FUNCTIONS`."""

    op: str
    args: tuple[Term, ...]
    loc: Loc = attrs.field(default=NOWHERE, eq=False)


Term = Const | Current | All | Apply

#: name → (argument types, result type)
FUNCTIONS: dict[str, tuple[tuple[TermType, ...], TermType]] = {
    "sum": (("list",), "int"),
    "product": (("list",), "int"),
    "len": (("list",), "int"),
    "length": (("list",), "int"),
    "max": (("list",), "int"),
    "min": (("list",), "int"),
    "abs": (("int",), "int"),
    "elem": (("int", "list"), "bool"),
    "count": (("int", "list"), "int"),
    "reverse": (("list",), "list"),
}
COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")
CONNECTIVES = ("and", "or")

# ---------------------------------------------------------------------------------------------
# Specifications.

InputMode = Literal["assume", "stop", "retry"]


@attrs.frozen
class Read:
    var: str
    values: ValueSet
    mode: InputMode = "assume"
    loc: Loc = attrs.field(default=NOWHERE, eq=False)


@attrs.frozen
class Write:
    """``options``: the terms one of whose values is written; ``None`` stands for ``ε``."""

    options: tuple[Term | None, ...]
    loc: Loc = attrs.field(default=NOWHERE, eq=False)


@attrs.frozen
class Branch:
    cond: Term
    then: Seq
    orelse: Seq
    loc: Loc = attrs.field(default=NOWHERE, eq=False)


@attrs.frozen
class Loop:
    body: Seq
    loc: Loc = attrs.field(default=NOWHERE, eq=False)


@attrs.frozen
class Exit:
    loc: Loc = attrs.field(default=NOWHERE, eq=False)


Action = Read | Write | Branch | Loop | Exit


@attrs.frozen
class Seq:
    """Sequential composition; the empty sequence is the empty specification ``0``."""

    items: tuple[Action, ...] = ()


@attrs.frozen
class Spec:
    """A parsed, well-formed specification and the file it came from."""

    body: Seq
    source: str = ""
    file: str | None = None

    def variables(self) -> tuple[str, ...]:
        """The variables read somewhere in the specification, in order of first appearance."""
        seen: list[str] = []

        def walk(seq: Seq) -> None:
            for item in seq.items:
                if isinstance(item, Read) and item.var not in seen:
                    seen.append(item.var)
                elif isinstance(item, Branch):
                    walk(item.then)
                    walk(item.orelse)
                elif isinstance(item, Loop):
                    walk(item.body)

        walk(self.body)
        return tuple(seen)
