"""A PySMT environment whose type checker types a new term from its arguments' known types,
and whose formula manager makes and types a new term in one call.

PySMT type-checks every term it creates (``FormulaManager.create_node``) with a DAG walk from
the term; the arguments of a new term are always typed already, so the walk's stack machinery
is overhead: half the translation time of a large model (a 1 MB generated model: 5.4 s of
translation, 2.7 s with this checker).  :class:`FastTypeChecker` reads the arguments' types from
the walker's memo and calls the same handler the walk would call, and falls back to the walk
(hence to PySMT's own error) whenever an argument is not typed yet or the term is ill-typed.
:class:`FastFormulaManager` does the same inside ``create_node`` itself, which every term of a
translation goes through (a 1 MB model: 294,000 terms); it builds the same nodes, with the same
ids, as PySMT's manager.
"""

from __future__ import annotations

import pysmt.operators as op
from pysmt.environment import Environment
from pysmt.fnode import FNode, FNodeContent
from pysmt.formula import FormulaManager
from pysmt.type_checker import SimpleTypeChecker
from pysmt.typing import BOOL, INT, REAL, PySMTType


class FastTypeChecker(SimpleTypeChecker):
    """PySMT's type checker, one handler call per new term."""

    def get_type(self, formula: FNode) -> PySMTType:
        memo = self.memoization
        known = memo.get(formula)
        if known is not None:
            return known
        try:
            args = [memo[a] for a in formula.args()]
        except KeyError:
            return super().get_type(formula)
        result = self.functions[formula.node_type()](formula, args=args)
        if result is None:  # ill-typed: PySMT's walk raises its own error
            return super().get_type(formula)
        memo[formula] = result
        return result


_content = tuple.__new__  # an FNodeContent without the namedtuple's argument handling

_LOGIC = frozenset((op.AND, op.OR, op.NOT, op.IMPLIES, op.IFF))
_ARITH = frozenset((op.PLUS, op.MINUS, op.TIMES))
_ORDER = frozenset((op.LE, op.LT))
_CONSTANT = {op.INT_CONSTANT: INT, op.REAL_CONSTANT: REAL, op.BOOL_CONSTANT: BOOL}


def _same(types: list[PySMTType], t: PySMTType) -> bool:
    for x in types:
        if x is not t:
            return False
    return True


def _rule(node_type: int, types: list[PySMTType]) -> PySMTType | None:
    """The type of a term of the most common shapes (Boolean connectives, integer or real
    arithmetic and order, equality of integers or reals, a conditional of one type, literals)
    whose arguments have these types, read by identity of PySMT's ``BOOL``, ``INT`` and
    ``REAL``: what PySMT's handler gives for them.  None for anything else, which then goes to
    the handler (the same type, or its error)."""
    if node_type in _LOGIC:
        return BOOL if _same(types, BOOL) else None
    if node_type in _ARITH or node_type in _ORDER:
        first = types[0] if types else None
        if (first is INT or first is REAL) and _same(types, first):
            return first if node_type in _ARITH else BOOL
        return None
    if len(types) == 2 and node_type == op.EQUALS:
        first = types[0]
        return BOOL if (first is INT or first is REAL) and types[1] is first else None
    if len(types) == 3 and node_type == op.ITE:
        return types[1] if types[0] is BOOL and types[1] is types[2] else None
    return _CONSTANT.get(node_type)


class FastFormulaManager(FormulaManager):
    """PySMT's formula manager whose ``create_node`` looks a term up once and types a new one
    from its arguments' known types (:class:`FastTypeChecker`'s rule, without its calls)."""

    def __init__(self, env: Environment) -> None:
        self._checker = env.stc  # made before the manager (PySMT's Environment)
        super().__init__(env)

    def create_node(self, node_type: int, args: tuple[FNode, ...], payload: object = None) -> FNode:
        content = _content(FNodeContent, (node_type, args, payload))
        # one lookup (hashing a content calls ``FNode.__hash__``, a Python method, per
        # argument): the new node is made first and kept only when the content is new
        made = FNode(content, self._next_free_id)
        node = self.formulae.setdefault(content, made)
        if node is not made:
            return node
        self._next_free_id += 1
        checker = self._checker
        memo = checker.memoization
        try:
            types = [memo[a] for a in args]
        except KeyError:  # an argument made elsewhere: PySMT's walk
            checker.get_type(node)
            return node
        result = _rule(node_type, types)
        if result is None:  # not one of the common shapes: PySMT's handler
            result = checker.functions[node_type](node, args=types)
            if result is None:  # ill-typed: PySMT's walk raises its own error
                checker.get_type(node)
                return node
        memo[node] = result
        return node

    def EqualsOrIff(self, left: FNode, right: FNode) -> FNode:  # noqa: N802 - PySMT's name
        """PySMT's ``EqualsOrIff`` (the same node) reading ``left``'s type from the memo (every
        definition of a translation is one: 58,000 at 1 MB)."""
        known = self._checker.memoization.get(left)
        if known is None:
            return super().EqualsOrIff(left, right)
        return self.create_node(op.IFF if known.is_bool_type() else op.EQUALS, (left, right))

    def Symbol(self, name: str, typename: PySMTType = BOOL) -> FNode:  # noqa: N802 - PySMT's name
        """PySMT's ``Symbol`` (the same node, the same errors) in one call where the name is
        new or already has this type (a 1 MB model: 111,000 symbols, three calls each before)."""
        known = self.symbols.get(name)
        if known is not None:
            if known.symbol_type() == typename:
                return known
        elif name and isinstance(typename, PySMTType):
            # ``create_node`` inlined: a symbol's type is its payload's (PySMT's
            # ``walk_symbol``), so no handler is called for it
            content = _content(FNodeContent, (op.SYMBOL, (), (name, typename)))
            made = FNode(content, self._next_free_id)
            node = self.formulae.setdefault(content, made)
            if node is made:
                self._next_free_id += 1
                self._checker.memoization[node] = typename
            self.symbols[name] = node
            return node
        return super().Symbol(name, typename)  # PySMT's error (a new type, an empty name)


class FastEnvironment(Environment):
    """A PySMT environment with :class:`FastTypeChecker` and :class:`FastFormulaManager`."""

    TypeCheckerClass = FastTypeChecker
    FormulaManagerClass = FastFormulaManager
