"""A ``const`` parameter given a stream that is not a constant expression by an activation
(``(activate N every c)(x)``, ``condact``, ``restart``), which Kind 2's type checker accepts
(it checks the arguments of ``const`` parameters in plain calls only; kind2-tests'
``typecheck-pass/test_activate_every.lus``).

The callee instance reads the argument as it reads any input (its value where it steps), and
the caller owes a generated property that the argument does not change:
``true -> a = pre a``, named ``N[L5C3].const_input[n]`` after the call site, at every step of
the caller.  Where that property holds the stream is the constant the callee declares; where it
fails kinduct reports the varying argument (a counterexample), never a verdict that assumed it
constant.  A plain call ``N(x)``, a call in a function and a constant expression still need
constant arguments (a located error, as in Kind 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Prop
from kinduct.frontends.lucent.core.types import BOOL

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope


@dataclass(eq=False)
class ActivatedCall(A.Call):
    """The call inside an activation form, before it is checked (a plain call once checked)."""

    def check(self, scope: Scope) -> A.Expr:
        return scope.check_call(self)


def owe_constant(scope: Scope, callee: str, param: str, arg: A.Expr, raw: A.Expr,
                 call: A.Call) -> None:
    """Owe that the checked ``arg`` (source ``raw``) of the ``const`` parameter ``param`` of
    ``callee`` keeps its first value, where ``call`` is an activation's; an error otherwise."""
    if not isinstance(call, ActivatedCall) or scope.node is None \
            or scope.node.kind == "function":
        raise scope.err(f"the argument of the const parameter '{param}' of {callee} must be a "
                        "constant expression", raw.pos)
    pos = raw.pos
    same = A.Binop("=", arg, scope.make_pre(arg, pos), pos=pos, ty=BOOL)
    held = A.Binop("->", A.Lit(True, "bool", pos=pos, ty=BOOL), same, pos=pos, ty=BOOL)
    name = f"{callee}[L{call.pos.line}C{call.pos.col}].const_input[{param}]"
    scope.node.props.append(Prop(name, held, pos, clock=scope.clock))
