"""Arrays whose size is no known constant: ``int^N`` with a free constant ``N``, ``int^n``
with a ``const`` parameter ``n`` of a node analysed for every value of it.

Where a size folds to a constant, arrays stay expanded element by element (:mod:`.arraydef`);
otherwise the type is a ``symarray`` (:class:`~.types.T` of that kind, its size a checked
integer expression over free constants and ``const`` parameters, ``dim``, compared by its
text) and its value one SMT array from the indices per leaf of the element type
(:class:`~.types.SymArr`, leaves of kind ``ilift``).  Only the elements ``0 .. n-1`` mean
anything; the rest of each SMT array is never read, so a definition may constrain it freely:

- ``A[i]`` is the element where ``0 <= i < n`` and, outside, an unconstrained value, as for
  arrays of known size (one fresh array of them per read and step, so that reads by a
  quantified variable get a value per index);
- ``A = B`` and ``A <> B`` compare the elements ``0 .. n-1`` (a ``forall``);
- a refinement of the elements (``Nat^n``) is a ``forall`` over ``0 .. n-1`` (its predicate
  may not divide nor read out of range: that would need a stream per element);
- ``x ^ n`` is a constant array where ``x`` is a constant, else an array constrained by a
  ``forall``; ``A[i := v]`` stores ``v`` at ``i``; concatenations and slices are refused;
- an element-wise definition ``A[i] = e(i)`` (:class:`SymDef`) is an array constrained by
  ``forall i. 0 <= i < n => A[i] = e(i)``.  Its right side may read other arrays by the
  index, and ``A`` itself only under a guarded ``pre`` (``-1 -> pre A[i-1]``: the ``pre`` is
  pushed down to the arrays it reads, the index being constant over time); what would need
  a choice or a node instance per element (calls but of functions of their inputs, which are
  inlined and owe their types at a witness index, ``any``, divisions, unguarded ``pre``) is
  refused, as is any other current read of ``A`` (no well-founded order could be checked).

A node's ``const`` parameters stay unknown only where no instance per value covers it
(:func:`.constants.elaborate_uncalled`), and only in that node (a callee elaborated with
unknown parameters is still refused).  The simulator holds these arrays as lists of their
elements (:mod:`.symarrays_sim`).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.check import unbounded
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import BoundRead, ConstRef, Prop, Refines, SymDef
from kinduct.frontends.lucent.core.types import BOOL, INT, T
from kinduct.frontends.lucent.core.walk import (
    children,
    const_value,
    current_vars,
    has_temporal,
    map_children,
    subterms,
)
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope
    from kinduct.frontends.lucent.core.checked import Node


# ---- types ----

def size(c: Checker, e: A.Expr) -> int | A.Expr:
    """The size ``e`` of an array type or of ``x ^ e``: its value where it folds, else the
    checked expression (over free constants, and the ``const`` parameters of a node analysed
    for every value of them)."""
    env = {n: INT for n, owner in c.unknown_consts.items() if owner == c.symbolic_node}
    checked = c.top_scope(env, strict_consts=c.strict).expect(e, INT)
    v = const_value(checked)
    if v is not None:
        return int(v)
    if has_temporal(checked) or not all(
            isinstance(x, (ConstRef, A.Var, A.Lit)) or
            (isinstance(x, A.Binop) and x.op in ("+", "-", "*")) or
            (isinstance(x, A.Unop) and x.op == "neg") for x in subterms(checked)):
        raise c.err("expected a constant integer expression", e.pos)
    return checked


def array_type(elem: T, dim: A.Expr) -> T:
    """The type of arrays of ``elem`` of the symbolic size ``dim``."""
    return T("symarray", text(dim), items=(elem,), dim=dim)


def text(e: A.Expr) -> str:
    """A size expression as written (what type equality compares)."""
    if isinstance(e, (ConstRef, A.Var)):
        return e.name
    if isinstance(e, A.Lit):
        return str(e.value)
    if isinstance(e, A.Unop):
        return f"-{text(e.arg)}"
    assert isinstance(e, A.Binop)
    return f"({text(e.left)} {e.op} {text(e.right)})"


def caret(elem: A.Expr, dim: A.Expr, pos: A.Pos) -> A.Expr:
    """``elem ^ dim`` of a symbolic size."""
    r = A.Caret(elem, dim, pos=pos, ty=array_type(elem.ty, dim))
    r.uid = naming.uid("caret", r)
    return r


def refuse(c: Checker, what: str, t: T, pos: A.Pos) -> None:
    """Refuse ``what`` (a form kinduct builds element by element) on an array of symbolic
    size."""
    if t.kind == "symarray":
        raise _unsupported(c, f"{what} of an array of symbolic size ({t})", pos)


def _unsupported(c: Checker, what: str, pos: A.Pos) -> UnsupportedError:
    return UnsupportedError(what, SourceLocation(c.file, pos.line, pos.col), A.source_line(c.text, pos.line))


# ---- element-wise definitions ----


def define(checker: Checker, stmt: A.ArrayDef, node: Node, scope: Scope, shapes: list[T],
           elem: T) -> A.Expr:
    """The value the definition ``stmt`` gives its array, one of whose dimensions
    (``shapes``) has a symbolic size."""
    return _build(checker, stmt, node, scope, shapes, elem, 0, {}, {})


def _build(checker: Checker, stmt: A.ArrayDef, node: Node, scope: Scope, shapes: list[T],
           elem: T, k: int, consts: dict[str, A.Expr], bound: dict[str, A.Expr]) -> A.Expr:
    """``bound``: the index variables of symbolic dimensions, with their sizes."""
    if k == len(shapes):
        sub = scope.with_constants(consts)
        sub.env = {**sub.env, **{v: INT for v in bound}}
        sub.local_consts = {n: v for n, v in sub.local_consts.items() if n not in bound}
        rhs = sub.expect(stmt.rhs, elem)
        rhs = _inline_functions(checker, scope, node, rhs, bound)
        return _prepare(checker, scope, node, stmt.name, rhs, set(bound))
    s, v = shapes[k], stmt.indices[k]
    if s.kind == "array":
        items = [_build(checker, stmt, node, scope, shapes, elem, k + 1,
                        {**consts, v: A.Lit(j, "int", pos=stmt.rhs.pos, ty=INT)}, bound)
                 for j in range(s.size)]
        return A.ArrayLit(items, pos=stmt.pos, ty=s)
    body = _build(checker, stmt, node, scope, shapes, elem, k + 1, consts, {**bound, v: s.dim})
    d = SymDef(v, body, pos=stmt.pos, ty=s)
    d.uid = naming.uid("def", d)
    return d


def _prepare(checker: Checker, scope: Scope, node: Node, name: str, rhs: A.Expr,
             bound: set[str]) -> A.Expr:
    """The right side of an element-wise definition, ready to be read under a quantifier
    over its index variables ``bound`` (see the module's docstring for what is refused)."""
    rhs = unbounded.inline(scope, rhs)
    rhs = _rewrite(checker, node, rhs, bound)
    for x in _current(rhs):
        if isinstance(x, A.Var) and x.name == name:
            raise _unsupported(checker, f"a definition of the array '{name}' of symbolic size "
                               "that reads it at the current step", x.pos)
        if getattr(x, "uid", None) is not None and not isinstance(x, A.Index) and not (
                isinstance(x, A.Unop) and x.op == "pre"):
            raise _unsupported(checker, "a node call, 'any', a division or a conversion in the "
                               "element-wise definition of an array of symbolic size", x.pos)
    return rhs


def _inline_functions(checker: Checker, scope: Scope, node: Node, e: A.Expr,
                      bound: dict[str, A.Expr], selected: A.Expr | None = None,
                      path: tuple[A.Expr, ...] = ()) -> A.Expr:
    """``e`` with each call of a function that is one expression of its inputs (no state,
    calls, contract, properties; refinement types on its inputs and output only, which read
    nothing else) replaced by that expression.  The refinements become properties of
    ``node`` at an arbitrary index in range (a witness stream for each index variable, as a
    ``forall`` in a property is decided): the callee's input types at the call site
    (Kind 2's ``Assumption``), its output type as its guarantee.  A call in a lazy branch
    (``when i = 0 then 0 else F(i)``) owes them only where ``selected``, the conditions of the
    branches on the way to it (``path``: their conditions; without state: the function has
    none to keep).  A call on any other clock (the definition in a lazy block) is kept."""
    if isinstance(e, A.Ite) and e.lazy and not has_temporal(e.cond):
        def sub(x: A.Expr, lit: A.Expr) -> A.Expr:
            guard = lit if selected is None else A.Binop("and", selected, lit, pos=e.pos, ty=BOOL)
            return _inline_functions(checker, scope, node, x, bound, guard, (*path, e.cond))
        out = copy.copy(e)
        out.cond = _inline_functions(checker, scope, node, e.cond, bound, selected, path)
        out.then = sub(e.then, e.cond)
        out.orelse = sub(e.orelse, A.Unop("not", e.cond, pos=e.pos, ty=BOOL))
        return out
    if isinstance(e, A.Call) and _on_path(getattr(e, "clock", None), path):
        callee = scope.done.get(e.name)
        if _function_of_inputs(callee) and len(e.args) == len(callee.inputs):
            args = [_inline_functions(checker, scope, node, a, bound, selected, path)
                    for a in e.args]
            if e in node.calls:
                node.calls.remove(e)
            node.inlined.add(callee.name)
            defs = {names[0]: x for names, x in callee.eqs}
            env = dict(zip(callee.inputs, args, strict=True))
            out = callee.outputs[0]
            assumed: A.Expr = A.Lit(True, "bool", pos=e.pos, ty=BOOL)
            for name in callee.inputs:  # at the call site
                ref = callee.refinements.get(name)
                if ref is not None and not ref.empty:
                    owed = Refines(env[name], ref, pos=e.pos, ty=BOOL)
                    _owe(node, bound, _where(selected, owed), _label(e, callee, name, ref),
                         e.pos, "Assumption")
                    assumed = A.Binop("and", assumed, owed, pos=e.pos, ty=BOOL)
            ref = callee.refinements.get(out)
            if ref is not None and not ref.empty:  # while the callee's input types hold
                owed = Refines(unbounded.substitute(defs[out], env, defs), ref, pos=e.pos, ty=BOOL)
                _owe(node, bound, _where(selected, A.Binop("=>", assumed, owed, pos=e.pos,
                                                           ty=BOOL)),
                     _label(e, callee, out, ref), e.pos, "Guarantee")
            return unbounded.substitute(defs[out], env, defs)
        return e
    return map_children(e, lambda x: _inline_functions(checker, scope, node, x, bound, selected,
                                                   path))


def _on_path(clock: Any, path: tuple[A.Expr, ...]) -> bool:
    """Whether every condition of ``clock`` (a :class:`.clocks.Clock`, None: the node's) is one
    of the lazy branches' conditions ``path`` on the way to the call."""
    while clock is not None:
        if not any(clock.cond is c for c in path):
            return False
        clock = clock.parent
    return True


def _where(selected: A.Expr | None, owed: A.Expr) -> A.Expr:
    """``owed``, only where ``selected`` holds (None: everywhere)."""
    return owed if selected is None else A.Binop("=>", selected, owed, pos=owed.pos, ty=BOOL)


def _label(call: A.Call, callee: Node, name: str, ref) -> str:
    pos = callee.var_pos.get(name, call.pos)
    return f"{call.site}.{ref.kind_name}[L{pos.line}C{pos.col}]"


def _function_of_inputs(callee: Node | None) -> bool:
    if callee is None or callee.kind != "function" or callee.imported or callee.has_contract \
            or callee.props or callee.asserts or callee.pres or callee.calls \
            or callee.obligations or callee.cut or len(callee.outputs) != 1 \
            or not all(len(names) == 1 for names, _ in callee.eqs):
        return False
    for name, ref in callee.refinements.items():
        if name not in callee.inputs and name != callee.outputs[0]:
            return False
        todo = [ref]
        while todo:
            r = todo.pop()
            todo.extend(r.parts.values())
            if any(current_vars(pred) - {var} for var, pred in r.preds):
                return False
    return True


def _owe(node: Node, bound: dict[str, A.Expr], owed: A.Expr, name: str, pos: A.Pos,
         source: str) -> None:
    """The property ``owed`` at every index in range: each index variable a fresh stream."""
    witnesses: dict[str, A.Expr] = {}
    guard: A.Expr = A.Lit(True, "bool", pos=pos, ty=BOOL)
    for v, d in bound.items():
        w = A.AnyE(v, INT, None, pos=pos, ty=INT)
        w.uid = naming.uid("witness", w)
        w.ref = None
        witnesses[v] = w
        inside = A.Binop("and", A.Binop("<=", A.Lit(0, "int", pos=pos, ty=INT), w, pos=pos,
                                        ty=BOOL),
                         A.Binop("<", w, d, pos=pos, ty=BOOL), pos=pos, ty=BOOL)
        guard = A.Binop("and", guard, inside, pos=pos, ty=BOOL)
    expr = A.Binop("=>", guard, unbounded.substitute(owed, witnesses, {}), pos=pos, ty=BOOL)
    node.props.append(Prop(name, expr, pos, source))


def _current(e: A.Expr) -> list[A.Expr]:
    """The subexpressions of ``e`` not under ``pre``."""
    out, todo = [], [e]
    while todo:
        x = todo.pop()
        out.append(x)
        if not (isinstance(x, A.Unop) and x.op == "pre"):
            todo.extend(children(x))
    return out


def _reads(e: A.Expr, bound: set[str]) -> bool:
    return any(isinstance(x, A.Var) and x.name in bound for x in subterms(e))


def _rewrite(checker: Checker, node: Node, e: A.Expr, bound: set[str]) -> A.Expr:
    """``e`` with each ``pre`` of an expression reading ``bound`` pushed down to the streams
    it reads, and each read of an array of known size by ``bound`` a :class:`BoundRead`."""
    if not _reads(e, bound):
        return e
    if isinstance(e, A.Unop) and e.op == "pre":
        if not getattr(e, "guarded", False):
            raise _unsupported(checker, "an unguarded 'pre' that reads an index variable in the "
                               "definition of an array of symbolic size", e.pos)
        # by uid: the checked tree may be a copy (functions inlined) of the one the node lists
        uid = getattr(e, "uid", None)
        node.pres[:] = [q for q in node.pres if q is not e and (uid is None or q.uid != uid)]
        return _rewrite(checker, node, _push(checker, node, e, e.arg, bound), bound)
    out = copy.copy(e)
    for k, v in vars(e).items():
        if isinstance(v, A.Expr):
            setattr(out, k, _rewrite(checker, node, v, bound))
        elif isinstance(v, list) and all(isinstance(x, A.Expr) for x in v):
            setattr(out, k, [_rewrite(checker, node, x, bound) for x in v])
    if isinstance(out, A.Index) and out.arg.ty.kind == "array" and _reads(out.index, bound):
        r = BoundRead(out.arg, out.index, pos=out.pos, ty=out.ty)
        r.uid = out.uid
        return r
    return out


def _push(checker: Checker, node: Node, p: A.Unop, e: A.Expr, bound: set[str]) -> A.Expr:
    """``pre e`` (``p``, guarded) where ``e`` reads the index variables ``bound``, which
    keep their values over time."""
    if not _reads(e, bound):
        if isinstance(e, (A.Lit, ConstRef)):
            return e
        u = A.Unop("pre", e, pos=p.pos, ty=e.ty)
        u.uid = naming.uid("pre", u)
        u.guarded = True
        if getattr(p, "clock", None) is not None:
            u.clock = p.clock
        node.pres.append(u)
        return u
    if isinstance(e, A.Var):
        return e
    if isinstance(e, A.Index):
        r = A.Index(_push(checker, node, p, e.arg, bound), _push(checker, node, p, e.index, bound),
                    pos=e.pos, ty=e.ty)
        r.uid = naming.uid("idx", r)
        return r
    if isinstance(e, A.Binop) and e.op not in ("->", "/", "div", "mod"):
        return A.Binop(e.op, _push(checker, node, p, e.left, bound),
                       _push(checker, node, p, e.right, bound), pos=e.pos, ty=e.ty)
    if isinstance(e, A.Unop) and e.op in ("not", "neg"):
        return A.Unop(e.op, _push(checker, node, p, e.arg, bound), pos=e.pos, ty=e.ty)
    if isinstance(e, A.Ite):
        return A.Ite(_push(checker, node, p, e.cond, bound), _push(checker, node, p, e.then, bound),
                     _push(checker, node, p, e.orelse, bound), pos=e.pos, ty=e.ty)
    raise _unsupported(checker, "this expression under 'pre' in the element-wise definition of "
                       "an array of symbolic size", e.pos)
