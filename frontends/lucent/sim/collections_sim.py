"""Sets and maps on the simulator and in counterexamples (:mod:`.collections`).

Values mirror the SMT encoding (:mod:`.collections_smt`), so that a trace's streams compare
with the simulator's:

- a key is the tuple of its canonical leaves (:func:`key_of`; a datatype's other
  constructors' fields at their defaults), so equal values are equal keys;
- a set is a ``frozenset`` of keys;
- a map is a :class:`~.types.MapParts`: the ``frozenset`` of its keys (``%dom``) and its values
  (``%val``), the value type's structure whose leaves are :class:`Fun` (a total function of
  the key, as the SMT array: what a map holds at a key it does not bind is read from there).

A trace holds arrays as text (:mod:`kinduct.kernel.arrays`); :func:`from_trace` reads them.
A set that the solver made infinite (a default ``true`` over an infinite sort) is no Lucent
value: it is read without the elements of its default, as a :class:`Finitized` set; a replay
where such a set does not give the trace's streams and violation is inconclusive (the finite
set is what the simulator and the printed counterexample hold, so a replay that succeeds is a
genuine counterexample).  A quantifier over an infinite domain that the values at hand do not
decide (:mod:`.unbounded`) raises :class:`Undecided`, and a replay is inconclusive too.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import collections as C
from kinduct.frontends.lucent.core import machine
from kinduct.frontends.lucent.core.checked import UQuant
from kinduct.frontends.lucent.core.types import (
    MapParts,
    T,
    assemble,
    leaves,
    map_value,
    rebuild,
    scalar_paths,
)
from kinduct.frontends.lucent.core.values import SimulationError
from kinduct.frontends.lucent.sim.defaults import Fun, default_value
from kinduct.kernel import arrays

if TYPE_CHECKING:
    from kinduct.frontends.lucent.sim.instance_api import Instance

#: Most combinations of values a quantifier over an infinite domain is evaluated on.
MAX_CANDIDATES = 10_000


class Undecided(Exception):
    """A value the simulator cannot hold (an infinite set) or a quantifier it cannot decide."""


class Finitized(frozenset):
    """The finite part of a set that the solver made infinite (its listed elements)."""


def finitized(v: Any) -> bool:
    """Whether the value ``v`` holds a :class:`Finitized` set."""
    if isinstance(v, Finitized):
        return True
    if isinstance(v, dict):
        return any(finitized(x) for x in v.values())
    if isinstance(v, list):
        return any(finitized(x) for x in v)
    if isinstance(v, Fun):
        return finitized(v.default) or any(finitized(x) for x in v.entries.values())
    return False


# ---- keys ----

def _default_leaf(t: T) -> Any:
    return Fraction(0) if t.kind == "real" else False if t.kind == "bool" else 0


def key_of(v: Any, t: T) -> tuple:
    """The canonical leaves of the value ``v`` of type ``t``."""
    if t.kind == "adt":
        tag = v["%tag"]
        out: list[Any] = [tag]
        for i, (c, fields) in enumerate(t.items):
            for f, ft in fields:
                out += key_of(v[f"{c}.{f}"], ft) if tag == i else \
                    [_default_leaf(lt) for _, lt in scalar_paths(ft)]
        return tuple(out)
    if t.kind == "record":
        return tuple(x for f, ft in t.items for x in key_of(v[f], ft))
    if t.kind == "array":
        return tuple(x for item in v for x in key_of(item, t.items[0]))
    if t.kind == "tuple":
        return tuple(x for item, it in zip(v, t.items, strict=True) for x in key_of(item, it))
    return (v,)


def value_of(key: tuple, t: T) -> Any:
    """The value of type ``t`` whose canonical leaves are ``key``."""
    it = iter(key)
    return assemble("", t, lambda _n, _t: next(it))


def _canonical(key: tuple, t: T) -> bool:
    paths = scalar_paths(t)
    if any(lt.kind == "enum" and not 0 <= k < len(lt.items)
           for k, (_, lt) in zip(key, paths, strict=True)):
        return False
    return key_of(value_of(key, t), t) == key


# ---- values ----

def _scalar(v: Any, t: T) -> Any:
    if t.kind == "machine":
        return machine.from_bits(v, t)
    if t.kind == "real":
        return Fraction(v)
    if t.kind == "bool":
        return bool(v)
    return int(v)


def _bool_level(t: T) -> list[Any] | None:
    """The values of a finite key leaf (a set's default covers those not listed)."""
    if t.kind == "bool":
        return [False, True]
    if t.kind == "enum":
        return list(range(len(t.items)))
    return None


def _members(arr: Any, paths: list[T], prefix: tuple, dropped: list[bool]) -> set[tuple]:
    """The elements of the set ``arr`` (curried over ``paths``); ``dropped`` notes the
    elements of an infinite default left out."""
    if not paths:
        return {prefix} if arr else set()
    lt, rest = paths[0], paths[1:]
    listed = {_scalar(k, lt): v for k, v in arr.entries}
    out: set[tuple] = set()
    for k, v in listed.items():
        out |= _members(v, rest, prefix + (k,), dropped)
    finite = _bool_level(lt)
    if finite is not None:
        for k in finite:
            if k not in listed:
                out |= _members(arr.default, rest, prefix + (k,), dropped)
    elif _any_true(arr.default, rest):
        dropped.append(True)
    return out


def _any_true(arr: Any, paths: list[T]) -> bool:
    if not paths:
        return bool(arr)
    return _any_true(arr.default, paths[1:]) or any(_any_true(v, paths[1:]) for _, v in arr.entries)


def array_function(arr: Any, key_paths: list[T], leaf: T) -> Any:
    if not key_paths:
        return _leaf_value(arr, leaf)
    rest = key_paths[1:]
    return Fun(array_function(arr.default, rest, leaf),
               {_scalar(k, key_paths[0]): array_function(v, rest, leaf) for k, v in arr.entries})


def _leaf_value(v: Any, t: T) -> Any:
    if t.kind == "set":
        paths = [lt for _, lt in scalar_paths(t.items[0])]
        dropped: list[bool] = []
        members = [k for k in _members(v, paths, (), dropped) if _canonical(k, t.items[0])]
        return Finitized(members) if dropped else frozenset(members)
    if t.kind == "lift":
        return array_function(v, [lt for _, lt in scalar_paths(t.items[0])], t.items[1])
    return _scalar(v, t)


def from_trace(value: Any, t: T) -> Any:
    """The simulator's value of a ``set`` or ``lift`` leaf from a trace's array text."""
    return _leaf_value(arrays.from_text(value), t)


def part_holds(inst: Instance, value: Any, part: tuple, ref: Any) -> bool:
    """A refinement of a set's elements, a map's keys or its values at bound keys."""
    which, kt = part
    keys = value["%dom"] if isinstance(value, MapParts) else value
    return all(inst.holds(map_value(value, k) if which == "value" else value_of(k, kt), ref)
               for k in keys)


# ---- evaluation ----

def evaluate(inst: Instance, e: A.Expr) -> Any:
    if isinstance(e, C.SetLit):
        return frozenset(key_of(inst.eval(x), e.ty.items[0]) for x in e.items)
    if isinstance(e, C.EmptyMap):
        if e.uid not in inst.memo:
            choice = inst.sim.oracle(inst.prefix + e.uid, e.ty, inst.step_no)
            inst.memo[e.uid] = MapParts({"%dom": frozenset(), "%val": choice["%val"]}, e.ty)
        return inst.memo[e.uid]
    if isinstance(e, C.MapUpdate):
        m = inst.eval(e.arg)
        k = key_of(inst.eval(e.key), e.ty.items[0])
        v = inst.eval(e.value)
        vals = [f.set(k, x) for f, x in zip(leaves(m["%val"]), leaves(v), strict=True)]
        return MapParts({"%dom": m["%dom"] | {k}, "%val": rebuild(m["%val"], iter(vals))}, e.ty)
    if isinstance(e, C.MapRead):
        return map_value(inst.eval(e.arg), key_of(inst.eval(e.key), e.arg.ty.items[0]))
    if isinstance(e, C.Member):
        coll = inst.eval(e.coll)
        keys = coll["%dom"] if e.coll.ty.kind == "map" else coll
        return key_of(inst.eval(e.key), e.coll.ty.items[0]) in keys
    if isinstance(e, C.SetOp):
        a, b = inst.eval(e.left), inst.eval(e.right)
        if e.op == "restrict":
            return MapParts({"%dom": a["%dom"] - b, "%val": a["%val"]}, e.ty)
        return {"union": a | b, "inter": a & b, "diff": a - b}[e.op]
    if isinstance(e, UQuant):
        return _quantifier(inst, e)
    raise SimulationError(f"cannot evaluate {type(e).__name__}")


def _guards(e: UQuant) -> dict[str, A.Expr]:
    """The variables whose values are bound by a membership ``x in c`` guarding the body
    (left of a ``forall``'s implication, a conjunct of an ``exists``), with ``c``."""
    body = e.body
    conj = body.left if e.kind == "forall" and isinstance(body, A.Binop) and body.op == "=>" \
        else body if e.kind == "exists" else None
    out: dict[str, A.Expr] = {}
    stack = [conj] if conj is not None else []
    while stack:
        x = stack.pop()
        if isinstance(x, A.Binop) and x.op == "and":
            stack += [x.left, x.right]
        elif isinstance(x, C.Member) and isinstance(x.key, A.Var):
            out.setdefault(x.key.name, x.coll)
    return out


def _collected(inst: Instance, t: T) -> set[tuple]:
    """Keys of type ``t`` held by the sets and maps of the instance's streams."""
    found: set[tuple] = set()
    width = len(scalar_paths(t))

    def visit(v: Any) -> None:
        if isinstance(v, frozenset):
            found.update(k for k in v if len(k) == width)
        elif isinstance(v, dict):
            for x in v.values():
                visit(x)
        elif isinstance(v, list):
            for x in v:
                visit(x)
    for v in list(inst.cur.values()) + list(inst.sim.consts.values()):
        visit(v)
    return {k for k in found if _canonical(k, t)}


def _numbers(inst: Instance, t: T) -> set[Any]:
    """The numbers of ``t``'s kind in the instance's streams and the constants (and 0)."""
    found: set[Any] = {0}
    stack = list(inst.cur.values()) + list(inst.sim.consts.values())
    while stack:
        v = stack.pop()
        if isinstance(v, bool):
            continue
        if isinstance(v, int if t.kind == "int" else (int, Fraction)):
            found.add(v if t.kind == "int" else Fraction(v))
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, frozenset, tuple)):
            stack.extend(v)
    return found


def _quantifier(inst: Instance, e: UQuant) -> bool:
    guards = _guards(e)
    exact = all(n in guards for n, _, _ in e.params)
    domains: list[list[Any]] = []
    for name, t, _ in e.params:
        if name in guards:
            coll = inst.eval(guards[name])
            keys = coll["%dom"] if isinstance(coll, MapParts) else coll
        else:
            keys = _collected(inst, t) | {key_of(default_value(t), t)}
            if t.kind in ("int", "real"):  # the numbers at hand and their neighbours
                keys |= {(n + d,) for n in _numbers(inst, t) for d in (-1, 0, 1)}
        domains.append([value_of(k, t) for k in sorted(keys, key=repr)])
    want = e.kind == "exists"
    saved = {n: inst.cur.get(n, _MISSING) for n, _, _ in e.params}
    try:
        for count, values in enumerate(itertools.product(*domains)):
            if count >= MAX_CANDIDATES:
                exact = False
                break
            for (name, _, _), v in zip(e.params, values, strict=True):
                inst.cur[name] = v
            if not all(ref.empty or inst.holds(v, ref)
                       for (_, _, ref), v in zip(e.params, values, strict=True)):
                continue
            if bool(inst.eval(e.body)) is want:
                return want
    finally:
        for n, old in saved.items():
            if old is _MISSING:
                inst.cur.pop(n, None)
            else:
                inst.cur[n] = old
    if exact:
        return not want
    raise Undecided(f"the simulator cannot decide the quantifier at line {e.pos.line}, column "
                    f"{e.pos.col} (over an infinite domain)")


_MISSING = object()


# ---- counterexamples ----

def text(v: Any, t: T, json_of: Callable[[Any, T], Any]) -> str:
    """A set or map value in Lucent's syntax: ``{1, 2}``, ``map[1 := true; 2 := false]``."""
    def show(x: Any, xt: T) -> str:
        j = json_of(x, xt)
        return j if isinstance(j, str) else _json_text(j)
    if t.kind == "set":
        items = sorted(v, key=_order)
        return "{" + ", ".join(show(value_of(k, t.items[0]), t.items[0]) for k in items) + "}"
    key, value = t.items
    pairs = [f"{show(value_of(k, key), key)} := {show(map_value(v, k), value)}"
             for k in sorted(v["%dom"], key=_order)]
    return "map[" + "; ".join(pairs) + "]"


def _order(k: tuple) -> tuple:
    return tuple((0, x) if isinstance(x, (int, Fraction)) else (1, repr(x)) for x in k)


def _json_text(j: Any) -> str:
    import json
    if isinstance(j, dict) and set(j) == {"num", "den"}:
        return f"{j['num']}/{j['den']}"
    if isinstance(j, bool):
        return "true" if j else "false"
    if isinstance(j, list):
        return "[" + ", ".join(_json_text(x) for x in j) + "]"
    return json.dumps(j) if not isinstance(j, (int, str)) else str(j)
