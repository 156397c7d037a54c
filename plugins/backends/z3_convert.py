"""PySMT's z3 solver with a leaner walk of its converter.

PySMT's ``Z3Converter`` builds each z3 term with z3's C API already; what costs is its
``DagWalker``: two stack entries, a key function and a dispatch per node (about 2.3 s for the
300,000 terms of a 1 MB model's step-0 unrolling).  :class:`FastZ3Converter` walks the DAG with
one stack of nodes and calls the very same handlers (``functions``) into the very same memo,
so every term it makes is the one PySMT's walk would make.

:class:`FastZ3Solver` also asks its own environment's type checker whether an assertion is
Boolean: PySMT's solver asks ``FNode.get_type``, which types the formula in PySMT's global
environment, a whole walk of it (about 1 s for a 1 MB model's step-0 formulas) where the
system's environment has typed every term as it was made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pysmt import operators as op
from pysmt.exceptions import PysmtTypeError
from pysmt.fnode import FNode
from pysmt.solvers.z3 import Z3Converter
from pysmt.solvers.z3 import Z3Solver as PySMTZ3Solver
from pysmt.typing import BOOL

from kinduct.kernel.frontend import gc_paused

_BINDERS = frozenset({op.FORALL, op.EXISTS})


class FastZ3Converter(Z3Converter):
    """``Z3Converter`` with an iterative walk of its own (same handlers, same memo)."""

    def convert(self, formula: FNode) -> Any:
        with gc_paused():  # only live terms are made: the collector would scan them for nothing
            try:
                term = self._walk_nodes(formula)
            except Exception:  # noqa: BLE001 - PySMT's own walk raises its own error
                return super().convert(formula)
        return self.get_z3_ref(formula)(term, self.ctx)

    def native_ast(self, formula: FNode) -> Any:
        """``formula``'s z3 AST as z3's C API takes it (no Python wrapper: reading a model's
        55,000 values at 1 MB made one per value)."""
        found = self.memoization.get(formula)
        return found if found is not None else self.convert(formula).as_ast()

    def convert_renamed(self, formula: FNode, leaf: Callable[[FNode], FNode | None]) -> Any:
        """The z3 term of ``formula`` with each leaf ``x`` replaced by ``leaf(x)`` where that is
        a term (None: kept), made without the renamed PySMT formula: each node's handler gets
        the original node (the same kind, payload and types as its renamed copy) and its
        renamed arguments' z3 terms, so the term is the one :meth:`convert` makes of the
        renamed formula.  The leaves' terms go into the converter's memo (a model's values are
        read by them); the renamed nodes' do not (they have no PySMT node).  None where
        ``formula`` holds a quantifier (a bound variable is not a leaf to rename)."""
        with gc_paused():
            term = self._walk_renamed(formula, leaf)
        return None if term is None else self.get_z3_ref(formula)(term, self.ctx)

    def _walk_renamed(self, formula: FNode, leaf: Callable[[FNode], FNode | None]) -> Any:
        memo: dict[FNode, Any] = {}
        functions = self.functions
        stack = [formula]
        while stack:
            node = stack[-1]
            if node in memo:
                stack.pop()
                continue
            if node.node_type() in _BINDERS:
                return None
            args = node.args()
            if not args:
                stack.pop()
                renamed = leaf(node)
                memo[node] = self._walk_nodes(node if renamed is None else renamed)
                continue
            pending = [a for a in args if a not in memo]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            memo[node] = functions[node.node_type()](node, args=[memo[a] for a in args])
        return memo[formula]

    def _walk_nodes(self, formula: FNode) -> Any:
        memo = self.memoization
        found = memo.get(formula)
        if found is not None:
            return found
        functions = self.functions
        stack = [formula]
        while stack:
            node = stack[-1]
            if node in memo:
                stack.pop()
                continue
            args = node.args()
            pending = [a for a in args if a not in memo]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            memo[node] = functions[node.node_type()](node, args=[memo[a] for a in args])
        return memo[formula]


class FastZ3Solver(PySMTZ3Solver):
    """PySMT's z3 solver whose converter is :class:`FastZ3Converter`."""

    def __init__(self, environment: Any, logic: Any, **options: Any) -> None:
        super().__init__(environment, logic, **options)
        self.converter = FastZ3Converter(environment, z3_ctx=self.z3.ctx)

    def _assert_is_boolean(self, formula: FNode) -> None:
        if self.environment.stc.get_type(formula) != BOOL:
            raise PysmtTypeError("Argument must be boolean.")
