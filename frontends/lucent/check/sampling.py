"""Sampling in Lucent: ``e when ck``, ``merge`` and ``current``, checked as Kind 2 v3.0.0 reads
them (its Lustre has clocks only where a stream is sampled and merged back at once).

A sampled expression has no value where its clock does not tick, so it may appear only

- as a case of ``merge c (A -> e_A) (B -> e_B) …`` (or ``merge(c; e_true; e_false)`` for a
  Boolean ``c``), the cases covering ``c``'s values once each: ``e when c`` for ``true``,
  ``e when not c`` for ``false``, ``e when A(c)`` for the value ``A``, or an activation on
  that clock, ``(activate N every c)`` (``every not c``, ``every c = A``).  A case may also be
  a plain expression (Kind 2's extension), as if sampled on its case's clock;
- as the argument of ``current`` (Lustre's; Kind 2 v3.0.0 refuses ``current``): its value at
  its clock's last tick, arbitrary before the first (as an unguarded ``pre``).

The sampled ``e`` is evaluated on the caller's clock (its ``pre`` and ``->`` at every step),
except that a node call standing alone as the case (``N(x)``, ``N(x) when c``) steps only on
the case's clock, as Kind 2 activates it.  A ``merge`` is checked into a conditional over its
cases; the calls on clocks are made by :mod:`.activation`.  A clock is a stream named by an
identifier (Kind 2's grammar): a Boolean, or an enumeration for ``A(c)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check.activation import activated_call, restart_of
from kinduct.frontends.lucent.check.lazy import make_clock
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.clocks import Clock
from kinduct.frontends.lucent.core.types import BOOL, flat

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope


def misplaced(scope: Scope, e: A.When) -> A.Expr:
    """``e when c`` where a sampled stream cannot be: an error."""
    raise scope.err("'e when c' is only allowed as a case of merge or as the argument of "
                    "current: a sampled stream has no value where its clock does not tick",
                    e.pos)


def _tag(ck: A.SampleClock) -> str:
    """The merge case a sampling clock selects: ``true``, ``false`` or a value ``A``."""
    return ck.case or ("true" if ck.positive else "false")


def _clock_text(name: str, tag: str) -> str:
    return {"true": name, "false": f"not {name}"}.get(tag, f"{tag}({name})")


def _stream(scope: Scope, name: str, pos: A.Pos) -> A.Expr:
    return scope.check(A.Var(name, pos=pos))


def _value_test(c: A.Expr, tag: str, pos: A.Pos) -> tuple[A.Expr, bool]:
    """The condition and polarity of the case ``tag`` of the clock stream ``c``."""
    if c.ty.kind == "bool":
        return c, tag == "true"
    value = A.Lit(c.ty.items.index(tag), "enum", pos=pos, ty=c.ty)
    return A.Binop("=", c, value, pos=pos, ty=BOOL), True


def check_merge(scope: Scope, e: A.Merge) -> A.Expr:
    """``merge``: the cases' clocks checked, then a conditional over the clock's values."""
    c = _stream(scope, e.clock, e.clock_pos)
    if c.ty.kind == "bool":
        values = ["true", "false"]
    elif c.ty.kind == "enum":
        values = list(c.ty.items)
    else:
        raise scope.err(f"the clock of merge must be a Boolean or an enumeration stream, got "
                        f"{c.ty}", e.clock_pos)
    tags = [tag for tag, _ in e.cases]
    for tag in tags:
        if tag not in values:
            raise scope.err(f"merge case '{tag}' is not a value of {c.ty}", e.pos)
        if tags.count(tag) > 1:
            raise scope.err(f"merge case '{tag}' is given twice", e.pos)
    missing = [v for v in values if v not in tags]
    if missing:
        raise scope.err(f"merge case '{missing[0]}' is missing", e.pos)
    cases: dict[str, A.Expr] = {}
    for tag, x in e.cases:
        cases[tag] = _case(scope, e, c, tag, x)
    first = cases[tags[0]]
    for tag in tags[1:]:
        if flat(cases[tag].ty) != flat(first.ty):
            raise scope.err(f"type mismatch: the cases of merge have types {first.ty} and "
                            f"{cases[tag].ty}", cases[tag].pos)
    acc = cases[values[-1]]
    for tag in reversed(values[:-1]):
        cond, positive = _value_test(c, tag, e.pos)
        acc = A.Ite(cond, cases[tag], acc, pos=e.pos, ty=first.ty) if positive else \
            A.Ite(cond, acc, cases[tag], pos=e.pos, ty=first.ty)
    return acc


def _case(scope: Scope, e: A.Merge, c: A.Expr, tag: str, x: A.Expr) -> A.Expr:
    """One case of a merge on the stream ``c``: sampled on its own clock, an activation on it,
    a call (activated on it) or a plain expression."""
    inner = x
    if isinstance(x, A.When):
        ck = x.clock
        if ck.name != e.clock or _tag(ck) != tag:
            raise scope.err(f"clock mismatch: the case '{tag}' of this merge is sampled 'when "
                            f"{_clock_text(e.clock, tag)}', not 'when "
                            f"{_clock_text(ck.name, _tag(ck))}'", ck.pos)
        inner = x.arg
    if isinstance(inner, A.Activate) and inner.form == "activate" and inner.defaults is None:
        if not _same_clock(inner.every, e.clock, tag):
            raise scope.err(f"clock mismatch: the activation in the case '{tag}' of this merge "
                            f"must be 'every {_every_text(e.clock, tag)}'", inner.every.pos)
        return _activated(scope, inner, _case_clock(scope, c, tag, e.pos))
    if isinstance(inner, A.Call):
        return activated_call(scope, inner.name, inner.args, inner.pos,
                              _case_clock(scope, c, tag, e.pos), None, form=False)
    return scope.check(inner)


def _case_clock(scope: Scope, c: A.Expr, tag: str, pos: A.Pos) -> Clock:
    cond, positive = _value_test(c, tag, pos)
    return make_clock(scope, cond, positive)


def _every_text(name: str, tag: str) -> str:
    return {"true": name, "false": f"not {name}"}.get(tag, f"{name} = {tag}")


def _same_clock(every: A.Expr, name: str, tag: str) -> bool:
    """Whether an activation's ``every`` is written as the case's clock, as Kind 2 requires:
    ``c``, ``not c``, or ``c = A``."""
    def is_clock(x: A.Expr) -> bool:
        return isinstance(x, A.Var) and x.name == name
    if tag == "true":
        return is_clock(every)
    if tag == "false":
        return isinstance(every, A.Unop) and every.op == "not" and is_clock(every.arg)
    return isinstance(every, A.Binop) and every.op == "=" and is_clock(every.left) and \
        isinstance(every.right, A.Var) and every.right.name == tag


def _activated(scope: Scope, e: A.Activate, clock: Clock) -> A.Call:
    """``(activate N every c [restart every r])(args)`` stepping on ``clock``."""
    return activated_call(scope, e.name, e.args, e.pos, clock, restart_of(scope, e))


def check_current(scope: Scope, e: A.Current) -> A.Expr:
    """``current e``: where e's clock ticks, e; elsewhere its value at the last tick (an
    arbitrary value before the first, Lustre's nil)."""
    if scope.node is not None and scope.node.kind == "function":
        raise scope.err("'current' is not allowed in a function (it keeps state across steps)",
                        e.pos)
    arg = e.arg
    if isinstance(arg, A.When):
        ck = arg.clock
        cond, positive = _sample_test(scope, ck)
        clock = make_clock(scope, cond, positive)
        inner = arg.arg
        tag = _tag(ck)
        if isinstance(inner, A.Activate) and inner.form == "activate" and inner.defaults is None:
            if not _same_clock(inner.every, ck.name, tag):
                raise scope.err(f"clock mismatch: this activation is sampled 'when "
                                f"{_clock_text(ck.name, tag)}': it must be 'every "
                                f"{_every_text(ck.name, tag)}'", inner.every.pos)
            value = _activated(scope, inner, clock)
        elif isinstance(inner, A.Call):
            value = activated_call(scope, inner.name, inner.args, inner.pos, clock, None,
                                   form=False)
        else:
            value = scope.check(inner)
    elif isinstance(arg, A.Activate) and arg.form == "activate" and arg.defaults is None:
        cond, positive = scope.expect(arg.every, BOOL), True
        clock = make_clock(scope, cond, True)
        value = _activated(scope, arg, clock)
    else:
        raise scope.err("'current' needs a clocked argument: 'e when c' or '(activate N every "
                        "c)(…)'", e.pos)
    last = scope.make_pre(value, e.pos)
    last.clock, last.guarded = clock, False
    if positive:
        return A.Ite(cond, value, last, pos=e.pos, ty=value.ty)
    return A.Ite(cond, last, value, pos=e.pos, ty=value.ty)


def _sample_test(scope: Scope, ck: A.SampleClock) -> tuple[A.Expr, bool]:
    """The condition and polarity of the clock of ``e when ck``."""
    c = _stream(scope, ck.name, ck.pos)
    if ck.case is None:
        if c.ty != BOOL:
            raise scope.err(f"the clock '{ck.name}' must be a Boolean stream (or 'A({ck.name})' "
                            f"for a value A of an enumeration), got {c.ty}", ck.pos)
        return c, ck.positive
    if c.ty.kind != "enum":
        raise scope.err(f"'{ck.case}({ck.name})' samples on a value of an enumeration stream; "
                        f"'{ck.name}' has type {c.ty}", ck.pos)
    if ck.case not in c.ty.items:
        raise scope.err(f"'{ck.case}' is not a value of {c.ty}", ck.pos)
    return _value_test(c, ck.case, ck.pos)
