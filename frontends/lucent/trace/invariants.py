"""Formulas over a Lucent analysis's variables printed as Lucent expressions (``kinduct check
--print-invariants``, Kind 2's ``--print_invs``).

Variables are named by what the translation recorded they mean
(``TransitionSystem.source_terms``, :mod:`kinduct.frontends.lucent.smt.meanings`); a formula
naming a variable with no such record is not printed (``SourceFormula.text`` is None, a note
says which), rather than printed with an invented name.  Every operator is written with
parentheses around it, so no precedence is relied on: Booleans (``and``, ``or``, ``not``,
``=>``), ``=``, orders, arithmetic over integers and reals (reals with a decimal
point, ``/``), ``div`` of integers, ``real`` of an integer, ``if c then a else b``, and an
enumeration's variable compared with its constants by name (an order between it and an
index, the translation's range, as the constants it admits).  Anything else (arrays, bit-vectors,
quantifiers, uninterpreted functions) is not printed either.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from pysmt import operators as op
from pysmt.fnode import FNode

from kinduct.kernel.frontend import SourceFormula
from kinduct.kernel.system import SourceTerm, TransitionSystem

#: A printed formula longer than this is not shown (a person cannot read it either).
MAX_TEXT = 20_000

_BINARY = {op.IMPLIES: "=>", op.IFF: "=", op.EQUALS: "=", op.LE: "<=", op.LT: "<",
           op.MINUS: "-", op.DIV: "/"}
_NARY = {op.AND: ("and", "true"), op.OR: ("or", "false"), op.PLUS: ("+", "0"),
         op.TIMES: ("*", "1")}


class Unprintable(Exception):
    """The formula has a part with no Lucent text (the message says which)."""


def source_formula(system: TransitionSystem, formula: FNode) -> SourceFormula:
    """``formula`` as Lucent text over the names ``system.source_terms`` gives its variables."""
    terms = system.source_terms
    try:
        text = _Printer(terms).text(formula)
    except Unprintable as exc:
        return SourceFormula(None, False, (str(exc),))
    if len(text) > MAX_TEXT:
        return SourceFormula(None, False, (f"the Lucent text has {len(text)} characters",))
    used = [terms[v] for v in sorted(formula.get_free_variables(), key=str)]
    notes = tuple(dict.fromkeys(t.note for t in used if t.note))
    return SourceFormula(text, all(t.readable for t in used), notes)


def _real(value: Fraction) -> str:
    if value.denominator == 1:
        text = f"{abs(value.numerator)}.0"
    else:
        text = f"({abs(value.numerator)}.0 / {value.denominator}.0)"
    return f"(- {text})" if value < 0 else text


class _Printer:
    def __init__(self, terms: Mapping[FNode, SourceTerm]) -> None:
        self.terms = terms
        self.memo: dict[FNode, str] = {}

    def text(self, f: FNode) -> str:
        done = self.memo.get(f)
        if done is None:
            done = self.memo[f] = self._text(f)
        return done

    def _text(self, f: FNode) -> str:  # noqa: C901 - one case per operator
        kind = f.node_type()
        args = f.args()
        if f.is_symbol():
            term = self.terms.get(f)
            if term is None:
                raise Unprintable(f"the variable {f.symbol_name()} has no Lucent name")
            if term.values:
                raise Unprintable(f"{term.text} is an enumeration read as a number")
            return term.text
        if kind == op.BOOL_CONSTANT:
            return "true" if f.constant_value() else "false"
        if kind == op.INT_CONSTANT:
            v = f.constant_value()
            return f"(- {-v})" if v < 0 else str(v)
        if kind == op.REAL_CONSTANT:
            return _real(Fraction(f.constant_value()))
        if kind == op.NOT:
            return f"(not {self.text(args[0])})"
        if kind in (op.EQUALS, op.IFF):
            enum = self._enum_equality(args[0], args[1])
            if enum is not None:
                return enum
        if kind in (op.LE, op.LT):
            enum = self._enum_order(kind, args[0], args[1])
            if enum is not None:
                return enum
        if kind == op.DIV and args[0].get_type().is_int_type():
            return f"({self.text(args[0])} div {self.text(args[1])})"
        if kind in _BINARY and len(args) == 2:
            return f"({self.text(args[0])} {_BINARY[kind]} {self.text(args[1])})"
        if kind in _NARY:
            word, unit = _NARY[kind]
            if not args:
                return unit
            if len(args) == 1:
                return self.text(args[0])
            return "(" + f" {word} ".join(self.text(a) for a in args) + ")"
        if kind == op.ITE:
            c, a, b = (self.text(x) for x in args)
            return f"(if {c} then {a} else {b})"
        if kind == op.TOREAL:
            return f"(real {self.text(args[0])})"
        raise Unprintable(f"no Lucent text for the operator {op.op_to_str(kind)}")

    def _enum_equality(self, a: FNode, b: FNode) -> str | None:
        """``x = c`` of an enumeration's variable and a constant's index, or two such
        variables of the same enumeration, by the constants' names; None: no enumeration."""
        ta = self.terms.get(a) if a.is_symbol() else None
        tb = self.terms.get(b) if b.is_symbol() else None
        if ta is not None and ta.values and _integer(b):
            return f"({ta.text} = {_constant(ta, b)})"
        if tb is not None and tb.values and _integer(a):
            return f"({_constant(tb, a)} = {tb.text})"
        if ta is not None and tb is not None and ta.values and ta.values == tb.values:
            return f"({ta.text} = {tb.text})"
        return None


    def _enum_order(self, kind: int, a: FNode, b: FNode) -> str | None:
        """An order between an enumeration's variable and an index (the translation's range of
        the variable), as the constants it admits: ``((c = Green) or (c = Blue))``."""
        ta = self.terms.get(a) if a.is_symbol() else None
        tb = self.terms.get(b) if b.is_symbol() else None
        if ta is not None and ta.values and _integer(b):
            term, bound = ta, b.constant_value()
            admits = [i for i in range(len(ta.values)) if (i <= bound if kind == op.LE else i < bound)]
        elif tb is not None and tb.values and _integer(a):
            term, bound = tb, a.constant_value()
            admits = [i for i in range(len(tb.values)) if (bound <= i if kind == op.LE else bound < i)]
        else:
            return None
        if not admits:
            return "false"
        return "(" + " or ".join(f"({term.text} = {term.values[i]})" for i in admits) + ")"


def _integer(f: FNode) -> bool:
    """Whether ``f`` is an integer constant (PySMT's own test raises on array constants)."""
    return f.node_type() == op.INT_CONSTANT


def _constant(term: SourceTerm, index: FNode) -> str:
    i = index.constant_value()
    if not 0 <= i < len(term.values):
        raise Unprintable(f"{term.text} compared with {i}, no constant of its enumeration")
    return term.values[i]
