"""Immutable C-RASP syntax trees and a printer back to ``.crasp`` source.

Public API (used by the parser, the evaluators, the translation and by synthesis, issue 6):

- Boolean expressions: :class:`BoolConst`, :class:`Letter`, :class:`Ref`, :class:`Not`,
  :class:`And`, :class:`Or`, :class:`Compare` (``op`` in :data:`COMPARISONS`), :class:`Period`.
- Counting expressions: :class:`IntConst`, :class:`Ref`, :class:`Count` (``#(b)``),
  :class:`Window` (``#[rs,re](b)``), :class:`Add`, :class:`Sub`, :class:`Min`, :class:`Max`,
  :class:`Cond` (``b ? c : c``).
- :class:`Rule` (name, expression, :class:`Kind`) and :class:`Program` (alphabet, rules, optional
  ``accept`` name; :attr:`Program.deciding` is the rule deciding acceptance).
- :func:`to_source` prints a program (or :func:`expr_source` an expression) so that
  ``parse(to_source(p)) == p``; the printer only adds the parentheses precedence needs.
- :func:`references` lists the rule names an expression reads; :meth:`Program.dependents` gives
  the rules to re-evaluate after one rule changes.

Nodes are frozen dataclasses: equal when their structure is equal (the source location a
parser attaches is ignored by ``==`` and ``hash``), so synthesis can hash and deduplicate them.
:class:`Ref` carries no type: a name's type is the type of the rule it names
(``program.rule(name).kind``).  Build new programs with :meth:`Program.replace_rule` and
:func:`dataclasses.replace`.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator
from dataclasses import dataclass, field

#: Source position (line, column), 1-based; ignored by equality.
Pos = tuple[int, int] | None


class Kind(enum.Enum):
    """The type of a rule or expression."""

    BOOL = "bool"
    COUNT = "count"


def _pos() -> Pos:
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class BoolConst:
    value: bool
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Letter:
    """True at positions holding ``letter``."""

    letter: str
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Ref:
    """The value of an earlier rule at the same position (Boolean or counting)."""

    name: str
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Not:
    arg: Expr
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class And:
    left: Expr
    right: Expr
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Or:
    left: Expr
    right: Expr
    pos: Pos = _pos()


#: Comparison operators in their ASCII spelling.
COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")


@dataclass(frozen=True, slots=True)
class Compare:
    op: str
    left: Expr
    right: Expr
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Period:
    """True at positions j (1-based) with ``j mod modulus == offset``."""

    modulus: int
    offset: int
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class IntConst:
    value: int
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Count:
    """``#(arg)``: positions i <= j where ``arg`` holds."""

    arg: Expr
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Window:
    """``#[start,end](arg)``: positions j-end <= i <= j-start where ``arg`` holds
    (positions before 1 count as false); ``0 <= start <= end``."""

    start: int
    end: int
    arg: Expr
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Add:
    left: Expr
    right: Expr
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Sub:
    left: Expr
    right: Expr
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Min:
    left: Expr
    right: Expr
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Max:
    left: Expr
    right: Expr
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Cond:
    """``cond ? then : other`` on counting branches."""

    cond: Expr
    then: Expr
    other: Expr
    pos: Pos = _pos()


Expr = (BoolConst | Letter | Ref | Not | And | Or | Compare | Period | IntConst | Count | Window
        | Add | Sub | Min | Max | Cond)



@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    expr: Expr
    kind: Kind
    pos: Pos = _pos()


@dataclass(frozen=True, slots=True)
class Program:
    """A C-RASP program: rules in order, each reading only earlier rules."""

    alphabet: tuple[str, ...]
    rules: tuple[Rule, ...]
    accept: str | None = None

    @property
    def deciding(self) -> Rule:
        """The Boolean rule whose value at the last position decides acceptance."""
        if self.accept is None:
            return self.rules[-1]
        return self.rule(self.accept)

    def rule(self, name: str) -> Rule:
        for r in self.rules:
            if r.name == name:
                return r
        raise KeyError(name)

    def index(self, name: str) -> int:
        for i, r in enumerate(self.rules):
            if r.name == name:
                return i
        raise KeyError(name)

    def replace_rule(self, name: str, expr: Expr) -> Program:
        """A copy with rule ``name`` defined by ``expr`` (same kind, same place)."""
        rules = tuple(dataclasses.replace(r, expr=expr) if r.name == name else r for r in self.rules)
        return dataclasses.replace(self, rules=rules)

    def dependents(self, name: str) -> list[str]:
        """``name`` and every later rule that reads it, directly or not, in program order."""
        dirty = {name}
        out = []
        for r in self.rules:
            if r.name == name or references(r.expr) & dirty:
                dirty.add(r.name)
                out.append(r.name)
        return out


def children(e: Expr) -> Iterator[Expr]:
    """Direct subexpressions of ``e``."""
    if isinstance(e, (Not, Count, Window)):
        yield e.arg
    elif isinstance(e, (And, Or, Compare, Add, Sub, Min, Max)):
        yield e.left
        yield e.right
    elif isinstance(e, Cond):
        yield e.cond
        yield e.then
        yield e.other


def walk(e: Expr) -> Iterator[Expr]:
    """Every subexpression of ``e``, parents before children."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(children(node))))


def references(e: Expr) -> set[str]:
    """The rule names ``e`` reads."""
    return {n.name for n in walk(e) if isinstance(n, Ref)}


# --- printing ---------------------------------------------------------------------------------

# Binding strength, loose to tight (DESIGN §7): ?: , or, and, not, comparisons, + -, atoms.
_COND, _OR, _AND, _NOT, _CMP, _SUM, _ATOM = range(7)


def _level(e: Expr) -> int:
    if isinstance(e, Cond):
        return _COND
    if isinstance(e, Or):
        return _OR
    if isinstance(e, And):
        return _AND
    if isinstance(e, Not):
        return _NOT
    if isinstance(e, Compare):
        return _CMP
    if isinstance(e, (Add, Sub)):
        return _SUM
    return _ATOM


def _wrap(e: Expr, at_least: int) -> str:
    text = expr_source(e)
    return text if _level(e) >= at_least else f"({text})"


def quote(letter: str) -> str:
    return f"'{letter}'"


def expr_source(e: Expr) -> str:
    """``e`` in ``.crasp`` syntax with the fewest parentheses that keep its structure."""
    if isinstance(e, BoolConst):
        return "true" if e.value else "false"
    if isinstance(e, Letter):
        return quote(e.letter)
    if isinstance(e, Ref):
        return e.name
    if isinstance(e, IntConst):
        return str(e.value)
    if isinstance(e, Period):
        return f"period({e.modulus}, {e.offset})"
    if isinstance(e, Count):
        return f"#({expr_source(e.arg)})"
    if isinstance(e, Window):
        return f"#[{e.start},{e.end}]({expr_source(e.arg)})"
    if isinstance(e, Min):
        return f"min({expr_source(e.left)}, {expr_source(e.right)})"
    if isinstance(e, Max):
        return f"max({expr_source(e.left)}, {expr_source(e.right)})"
    if isinstance(e, Not):
        return f"not {_wrap(e.arg, _NOT)}"
    if isinstance(e, And):
        return f"{_wrap(e.left, _AND)} and {_wrap(e.right, _NOT)}"
    if isinstance(e, Or):
        return f"{_wrap(e.left, _OR)} or {_wrap(e.right, _AND)}"
    if isinstance(e, Compare):  # non-associative: both sides at sum level
        return f"{_wrap(e.left, _SUM)} {e.op} {_wrap(e.right, _SUM)}"
    if isinstance(e, Add):
        return f"{_wrap(e.left, _SUM)} + {_wrap(e.right, _ATOM)}"
    if isinstance(e, Sub):
        return f"{_wrap(e.left, _SUM)} - {_wrap(e.right, _ATOM)}"
    if isinstance(e, Cond):  # right-associative
        return f"{_wrap(e.cond, _OR)} ? {_wrap(e.then, _COND)} : {_wrap(e.other, _COND)}"
    raise TypeError(f"not a C-RASP expression: {e!r}")


def to_source(program: Program, comment: str | None = None) -> str:
    """The program as ``.crasp`` text (parses back to an equal program)."""
    lines = [f"-- {line}" for line in (comment.splitlines() if comment else [])]
    lines.append("alphabet " + ", ".join(quote(a) for a in program.alphabet))
    width = max((len(r.name) for r in program.rules), default=0)
    for r in program.rules:
        lines.append(f"{r.name.ljust(width)} := {expr_source(r.expr)}")
    if program.accept is not None:
        lines.append(f"accept {program.accept}")
    return "\n".join(lines) + "\n"
