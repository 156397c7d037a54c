"""Outputs and local variables that no equation defines (kind2-tests' typecheck-pass accepts
them; Kind 2 itself refuses them): with a warning, such a stream is unconstrained, a value of
its declared type (refinement included) chosen afresh at every step, as an input is.

Each one is given the equation ``x = any@<T>`` (an :class:`~.ast.AnyE` without predicate), so the
translation, the simulator and counterexamples treat its value as they treat any other ``any``:
free at every step, and recorded in a trace so that a counterexample replays.  A ``function``'s
undefined output is instead a function of the inputs (``choose`` given the inputs as arguments):
equal inputs give equal outputs, as for an imported function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.core import ast as A

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope
    from kinduct.frontends.lucent.core.checked import Node


def define_free(checker: Checker, d: A.NodeDecl, node: Node, scope: Scope,
                defined: dict[str, A.Pos]) -> None:
    """Give every output and local variable of ``d`` missing from ``defined`` an unconstrained
    value (an equation of ``node``), and warn about it."""
    params = {p.name: p for p in d.outputs + d.locals}
    for n in node.outputs + node.locals:
        if n in defined:
            continue
        p = params[n]
        what = "output" if n in node.outputs else "local variable"
        pos = node.var_pos[n]
        free = A.AnyE("%any", p.type_expr, None, functional=d.kind == "function", pos=pos)
        value = scope.check(free)
        if d.kind == "function":
            value.args = [A.Var(i, pos=pos, ty=node.types[i]) for i in node.inputs]
        node.eqs.append(([n], value))
        defined[n] = pos
        checker.warnings.append(f"{checker.file}:{pos.line}:{pos.col}: warning: {what} '{n}' is "
                                "not defined: it is unconstrained")
