"""Node activation in Lucent (Kind 2's ``activate``, ``condact`` and ``restart``), checked into
node calls on a clock (:class:`.clocks.Clock`, the machinery of lazy branches):

- ``(activate N every c)(args)`` (no ``initial default``: only as a case of ``merge`` or the
  argument of ``current``, :mod:`.sampling`) is a call of ``N`` that steps only where ``c``
  ticks and keeps its state elsewhere; its ``->`` and ``pre`` count its ticks.  The arguments
  and ``c`` are evaluated on the caller's clock.
- ``(activate N every c initial default (d…))(args)`` and ``condact(c, N(args), d…)`` are
  that call where ``c`` ticks, and elsewhere hold its outputs of the last tick, or before the
  first tick the defaults' values at the caller's first step (Kind 2's, and Lustre's
  ``if c then current(N(args) when c) else (d -> pre out)``).  Checked as
  ``if c then call else (d0 -> pre call)``, the ``->`` and ``pre`` on the activation's clock
  (``->``: the clock has not ticked yet; ``pre``: the call's value at the last tick), ``d0`` the
  defaults held from the caller's first step.
- ``(restart N every r)(args)``, ``(activate N every c restart every r)(args)`` (also
  ``(activate (restart N every r) every c …)`` and ``condact(c, (restart N every r)(args), …)``):
  where ``r`` holds at a step where the call steps, the instance of ``N`` and every instance it
  calls start over (``Call.restart``; ``clocks.ClockTerms`` and the simulator read it), an
  unguarded ``pre`` there again arbitrary.

Calls so made carry ``clock`` (where they step), ``restart`` (or None) and ``held`` (True for
``condact``-like calls, whose counterexample values hold between ticks, as Kind 2 shows them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check.constarg import ActivatedCall
from kinduct.frontends.lucent.check.lazy import make_clock
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.clocks import Clock
from kinduct.frontends.lucent.core.types import BOOL, INT, T, flat
from kinduct.frontends.lucent.core.walk import const_value

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope

#: What each form is called in messages.
_FORMS = {"condact": "condact", "activate": "activate … initial default", "restart": "restart"}


def activated_call(scope: Scope, name: str, args: list[A.Expr], pos: A.Pos, clock: Clock | None,
                   restart: A.Expr | None, held: bool = False, form: bool = True) -> A.Call:
    """The call ``name(args)`` checked on ``scope``'s clock (its arguments too), then made to
    step on ``clock`` (None: where the caller steps) and to start over where the checked
    ``restart`` holds; ``form``: written as an activation (``activate``, ``condact``,
    ``restart``), whose ``const`` arguments may vary (:mod:`.constarg`), not as a plain call."""
    call = scope.check((ActivatedCall if form else A.Call)(name, args, pos=pos))
    if clock is not None:
        call.clock = clock
    call.restart = restart
    call.held = held
    return call


def restart_of(scope: Scope, e: A.Activate) -> A.Expr | None:
    """The checked restart condition of an activation (None: none)."""
    return None if e.restart is None else scope.expect(e.restart, BOOL)


def check_activate(scope: Scope, e: A.Activate) -> A.Expr:
    """An activation outside a ``merge`` case and ``current``: ``restart``, ``condact`` and
    ``activate … initial default``; an ``activate`` without defaults is refused here."""
    if e.form == "activate" and e.defaults is None:
        raise scope.err(f"'(activate {e.name} every …)(…)' without 'initial default' is only "
                        "allowed as a case of merge or as the argument of current: it has no "
                        "value where its clock does not tick", e.pos)
    if scope.node is not None and scope.node.kind == "function":
        raise scope.err(f"'{_FORMS[e.form]}' is not allowed in a function (it keeps state "
                        "across steps)", e.pos)
    restart = restart_of(scope, e)
    if e.form == "restart":
        return activated_call(scope, e.name, e.args, e.pos, None, restart)
    every = scope.expect(e.every, BOOL)
    clock = make_clock(scope, every, True)
    call = activated_call(scope, e.name, e.args, e.pos, clock, restart, held=True)
    outs = flat(call.ty)
    defaults = [leaf for d in e.defaults for leaf in _leaves(scope.check(d))]
    if len(defaults) != len(outs):
        raise scope.err(f"{e.name} has {len(outs)} output{'s' if len(outs) != 1 else ''}: "
                        f"expected {len(outs)} default{'s' if len(outs) != 1 else ''}, got "
                        f"{len(defaults)}", e.pos)
    for i, (d, t) in enumerate(zip(defaults, outs, strict=True)):
        if flat(d.ty) != [t]:
            raise scope.err(f"type mismatch in default {i + 1} of {e.name}: expected {t}, got "
                            f"{d.ty}", d.pos)
    if not outs:
        return call
    first = _first_values(scope, _shaped(call.ty, iter(defaults)), e.pos)
    held = scope.make_pre(call, e.pos)
    held.clock, held.guarded = clock, True
    hold = A.Binop("->", first, held, pos=e.pos, ty=call.ty)
    hold.clock = clock  # the clock has not ticked yet: the defaults
    return A.Ite(every, call, hold, pos=e.pos, ty=call.ty)


def _leaves(d: A.Expr) -> list[A.Expr]:
    """A checked default split into one expression per output (tuples spread)."""
    if d.ty.kind != "tuple":
        return [d]
    if isinstance(d, A.TupleE):
        return [x for item in d.items for x in _leaves(item)]
    return [x for i, t in enumerate(d.ty.items)
            for x in _leaves(A.Index(d, A.Lit(i, "int", pos=d.pos, ty=INT), pos=d.pos, ty=t))]


def _shaped(t: T, leaves: Iterator[A.Expr]) -> A.Expr:
    """The expression of type ``t`` (the call's outputs) made of the default ``leaves``."""
    if t.kind != "tuple":
        return next(leaves)
    items = [_shaped(it, leaves) for it in t.items]
    return A.TupleE(items, pos=items[0].pos if items else A.NOPOS, ty=t)


def _first_values(scope: Scope, d: A.Expr, pos: A.Pos) -> A.Expr:
    """``d`` held from the first step of ``scope``'s clock (a constant as it is): ``d -> (pre d
    on a clock that ticks at that first step only)``."""
    if all(const_value(x) is not None for x in _leaves(d)):
        return d
    first = scope.clocked(A.Binop("->", A.Lit(True, "bool", pos=pos, ty=BOOL),
                                  A.Lit(False, "bool", pos=pos, ty=BOOL), pos=pos, ty=BOOL))
    at_first = make_clock(scope, first, True)
    kept = scope.make_pre(d, pos)
    kept.clock, kept.guarded = at_first, True
    return scope.clocked(A.Binop("->", d, kept, pos=pos, ty=d.ty))
