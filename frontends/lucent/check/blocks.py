"""If blocks (``if … then … elsif … else … fi``) and frame blocks (``frame (x, y) … let … tel``)
elaborated into plain equations, one conditional expression per variable.  If blocks are eager
(every branch is evaluated at every step, as ``if c then a else b``); in a frame block, a
variable a branch omits keeps its previous value (``last``), from its initial value on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import arraydef, lazy
from kinduct.frontends.lucent.check.scope_api import typed_var
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.types import BOOL

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope
    from kinduct.frontends.lucent.core.checked import Node


def _collect_if(checker: Checker, stmts: list, node: Node, scope: Scope,
                frame: dict[str, A.Expr] | None) -> dict[str, A.Expr]:
    """Equations of one branch (nested if blocks merged) as name → checked expression."""
    out: dict[str, A.Expr] = {}
    for s in stmts:
        if isinstance(s, A.Equation):
            if not s.lhs:  # Kind 2: a syntax error
                raise checker.err("an equation with no variable on its left side is not "
                                  "allowed here", s.pos)
            for i, (n, p) in enumerate(s.lhs):
                if n in out or n in [m for m, _ in s.lhs[:i]]:
                    raise checker.err(f"'{n}' is defined twice", p)
            out.update(lazy.equation_parts(checker, node, scope, frame, s))
        elif isinstance(s, A.ArrayDef):
            if s.name in out:
                raise checker.err(f"'{s.name}' is defined twice", s.pos)
            out[s.name] = arraydef.elaborate(checker, s, node, scope)
        elif isinstance(s, A.IfBlock):
            for n, e in if_exprs(checker, s, node, scope, frame).items():
                if n in out:
                    raise checker.err(f"'{n}' is defined twice", s.pos)
                out[n] = e
        else:
            raise checker.err("only equations and if blocks are allowed here", getattr(s, "pos", A.NOPOS))
    return out


def if_exprs(checker: Checker, blk: A.IfBlock, node: Node, scope: Scope,
             frame: dict[str, A.Expr] | None) -> dict[str, A.Expr]:
    """The variables the if block ``blk`` defines, each with one conditional expression;
    ``frame``: the enclosing frame block's ``last`` of each of its variables (what a branch
    that omits one means), None outside a frame block."""
    branches = [(scope.expect(c, BOOL), _collect_if(checker, b, node, scope, frame))
                for c, b in blk.branches]
    orelse = _collect_if(checker, blk.orelse or [], node, scope, frame)
    names = set(orelse)
    for _, b in branches:
        names |= set(b)
    result = {}
    for n in sorted(names, key=lambda x: node.streams.index(x) if x in node.streams else 0):
        def default(n=n):
            if frame is None:
                raise checker.err(f"'{n}' is not defined in every branch of this if block", blk.pos)
            return frame[n]
        acc = orelse[n] if n in orelse else default()
        for c, b in reversed(branches):
            acc = A.Ite(c, b[n] if n in b else default(), acc, pos=blk.pos, ty=node.types[n])
        result[n] = acc
    return result


def define_if_block(checker: Checker, blk: A.IfBlock, node: Node, scope: Scope,
                    defined: dict[str, A.Pos]) -> None:
    """Add to ``node`` the equations of the if block ``blk``, a statement of its body."""
    for n, e in if_exprs(checker, blk, node, scope, None).items():
        if n in defined:
            raise checker.err(f"'{n}' is defined twice", blk.pos)
        defined[n] = blk.pos
        node.eqs.append(([n], e))


def define_frame(checker: Checker, fr: A.FrameBlock, node: Node, scope: Scope,
                 defined: dict[str, A.Pos]) -> None:
    """Add to ``node`` the equations of the frame block ``fr``."""
    inits = {}
    for n, e, p in fr.inits:
        if n == naming.TUPLE_INIT:  # several variables initialised at once
            for m, x in lazy.equation_parts(checker, node, scope, None, e).items():
                if m not in fr.names:
                    raise checker.err(f"'{m}' is not a variable of this frame", p)
                inits[m] = x
            continue
        if n not in fr.names:
            raise checker.err(f"'{n}' is not a variable of this frame", p)
        inits[n] = (arraydef.elaborate(checker, e, node, scope) if isinstance(e, A.ArrayDef)
                    else scope.check(e))
        scope.unify(node.types[n], inits[n].ty, e.pos)
    stutter = {}
    for n in fr.names:
        if n not in node.types:
            raise checker.err(f"unknown name '{n}'", fr.pos)
        if n in node.inputs:
            raise checker.err(f"cannot define input '{n}'", fr.pos)
        prev = scope.make_pre(typed_var(n, node.types[n], fr.pos), fr.pos)
        prev.guarded = n in inits
        stutter[n] = A.Binop("->", inits[n], prev, pos=fr.pos, ty=node.types[n]) if n in inits else prev
    scope.last = stutter
    body: dict[str, A.Expr] = {}
    for s in fr.body:
        if isinstance(s, A.IfBlock):
            got = if_exprs(checker, s, node, scope, stutter)
        elif isinstance(s, A.LazyBlock):
            got = lazy.block_exprs(checker, s, node, scope, stutter)
        elif isinstance(s, A.Equation):
            got = _collect_if(checker, [s], node, scope, stutter)
        elif isinstance(s, A.ArrayDef):
            got = {s.name: arraydef.elaborate(checker, s, node, scope)}
        else:
            raise checker.err("only equations and if blocks are allowed in a frame",
                              getattr(s, "pos", fr.pos))
        for n, e in got.items():
            if n not in fr.names:
                raise checker.err(f"'{n}' is not a variable of this frame", fr.pos)
            if n in body:
                raise checker.err(f"'{n}' is defined twice", fr.pos)
            body[n] = e
    scope.last = None
    for n in fr.names:
        if n in defined:
            raise checker.err(f"'{n}' is defined twice", fr.pos)
        defined[n] = fr.pos
        node.eqs.append(([n], body.get(n, stutter[n])))
