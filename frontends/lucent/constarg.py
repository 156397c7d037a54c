"""A ``const`` parameter given a stream that is not a constant expression (newer Kind 2
accepts ``N(x)`` for ``node N(const n: int)``).

The callee instance reads the argument as it reads any input (its value at each step), and
the caller owes a generated property that the argument does not change:
``true -> a = pre a``, named ``N[L5C3].const_input[n]`` after the call site.  Where that
property holds the stream is the constant the callee declares; where it fails kinduct
reports the varying argument (a counterexample), never a verdict that assumed it constant.
A constant expression (outside a node) still needs constant arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent import ast as A
from kinduct.frontends.lucent.checked import Prop
from kinduct.frontends.lucent.types import BOOL

if TYPE_CHECKING:
    from kinduct.frontends.lucent.typecheck import _Scope


def owe_constant(scope: _Scope, callee: str, param: str, arg: A.Expr, raw: A.Expr,
                 call: A.Call) -> None:
    """Owe that the checked ``arg`` (source ``raw``) of the ``const`` parameter ``param`` of
    ``callee`` keeps its first value; an error where there is no node to owe it."""
    if scope.node is None or scope.node.kind == "function":
        raise scope.err(f"the argument of the const parameter '{param}' of {callee} must be a "
                        "constant expression", raw.pos)
    pos = raw.pos
    same = A.Binop("=", arg, scope.make_pre(arg, pos), pos=pos, ty=BOOL)
    held = A.Binop("->", A.Lit(True, "bool", pos=pos, ty=BOOL), same, pos=pos, ty=BOOL)
    name = f"{callee}[L{call.pos.line}C{call.pos.col}].const_input[{param}]"
    scope.node.props.append(Prop(name, held, pos, clock=scope.clock))
