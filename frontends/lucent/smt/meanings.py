"""What the translation's state variables mean in Lucent: the record the translation keeps in
``TransitionSystem.source_terms`` (:class:`~kinduct.kernel.system.SourceTerm`), so that an
invariant over the variables can be printed in Lucent (:mod:`kinduct.frontends.lucent.trace.invariants`).

Recorded: the main node's streams by name (``x``, ``r.f``, ``a[2]``), the memory of ``pre x``
as ``(0 -> pre x)``, the first-step flag as ``(true -> false)``, global constants by name (all
readable in the main node); an instance's streams and memories by their qualified names
(``Callee[L9C8].x``, ``(0 -> pre Callee[L9C8].x)``: not readable there); the memory of
``pre`` of a scalar expression of the main node's declared streams as ``(0 -> pre (e))``
(:func:`expression`).

A memory is written with a value of its type at the first step (:func:`memory`): there the
translation's memory is unconstrained, so an invariant holds for every value it may have, the
one written included; a bare ``pre x`` would not do, as each occurrence of an unguarded
``pre x`` is arbitrary on its own at the first step (Kind 2's semantics), and an invariant
that reads the memory twice (``pre x = 0 => 0 <= pre x``) would not hold of two of them.

Streams of types whose leaves have no Lucent path (tuples, datatypes, maps, symbolic arrays,
collections, machine integers) and every other variable (a division's quotient, a ``pre`` of
another expression, an unguarded ``pre``'s first value, ...) are not recorded: a formula over
them stays in SMT-LIB.
"""

from __future__ import annotations

from collections.abc import Collection
from fractions import Fraction

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.types import T, leaves
from kinduct.frontends.lucent.smt.inst_api import STerm
from kinduct.kernel.system import SourceTerm, SystemBuilder

#: The scalar kinds a recorded leaf may have (their SMT sorts are Bool, Int, Real).
_SCALARS = ("bool", "int", "real", "enum")


#: Per leaf type (by ``id``, the type kept beside so that the ``id`` stays its own): the
#: suffixes of its scalar leaves' Lucent paths, each leaf's type and enumeration constants,
#: or None when some leaf has no path.  A large model describes 41,000 streams of a few types.
#: Emptied when it holds :data:`_KEEP` types (a long-lived process, the server, keeps none).
_SUFFIXES: dict[int, tuple[T, list[tuple[str, T, tuple[str, ...]]] | None]] = {}
_KEEP = 4096


def _suffixes(t: T) -> list[tuple[str, T, tuple[str, ...]]] | None:
    """The Lucent paths of ``t``'s scalar leaves in ``types.assemble``'s order (records and
    arrays of scalars) as suffixes of the stream's name, with each leaf's type and
    enumeration constants; None when some leaf has no path."""
    known = _SUFFIXES.get(id(t))
    if known is not None and known[0] is t:
        return known[1]
    out: list[tuple[str, T, tuple[str, ...]]] = []

    def walk(text: str, lt: T) -> bool:
        if lt.kind == "record":
            return all(walk(f"{text}.{f}", ft) for f, ft in lt.items)
        if lt.kind == "array":
            return all(walk(f"{text}[{i}]", lt.items[0]) for i in range(lt.size))
        if lt.kind in _SCALARS:
            out.append((text, lt, tuple(lt.items) if lt.kind == "enum" else ()))
            return True
        return False
    result = out if walk("", t) else None
    if len(_SUFFIXES) >= _KEEP:
        _SUFFIXES.clear()
    _SUFFIXES[id(t)] = (t, result)
    return result


def describe(builder: SystemBuilder, term: STerm, name: str, t: T, readable: bool = True,
             note: str | None = None, pre: bool = False) -> None:
    """Record that the leaves of ``term`` (the terms of stream ``name``, of type ``t``) mean
    ``name``'s leaves (the memory of ``pre name``'s with ``pre``, :func:`memory`); nothing
    when a leaf has no Lucent path."""
    paths = _suffixes(t)
    if paths is None:
        return
    terms = leaves(term)
    if len(paths) != len(terms):
        return
    record = builder.source_terms
    for (suffix, lt, values), leaf in zip(paths, terms, strict=True):
        text = name + suffix
        record[leaf] = SourceTerm(memory(text, lt) if pre else text, readable, values, note)


def memory(text: str, t: T) -> str:
    """The memory of ``pre text`` (of scalar type ``t``): ``(v -> pre text)``, ``v`` a value of
    ``t`` (what it holds at the first step does not matter, see the module's docstring)."""
    first = {"bool": "false", "int": "0", "real": "0.0"}.get(t.kind)
    if t.kind == "enum":
        first = t.items[0]
    return f"({first} -> pre {text})"


def first_step(builder: SystemBuilder, flag: STerm) -> None:
    """The first-step flag: true at step 0 only, Lucent's ``true -> false``."""
    builder.source_terms[flag] = SourceTerm("(true -> false)")


#: The operators :func:`expression` writes as they are (Lucent's own, none of them lazy).
_OPERATORS = frozenset(("or", "xor", "and", "=>", "=", "<>", "<", "<=", ">", ">=", "+", "-", "*",
                        "/", "div", "mod", "->"))


def expression(e: A.Expr, names: Collection[str]) -> str | None:
    """``e`` as Lucent text, parenthesised, when it reads only ``names`` (streams the main node
    declares) with literals and the operators of Booleans, integers and reals (``pre``, ``->``
    and ``if`` included); None for anything else (a constant, a call, a machine integer, a
    lazy operator, ...), which is then not named."""
    if e.ty is None or e.ty.kind not in ("bool", "int", "real"):
        return None
    if isinstance(e, A.Var):
        return e.name if e.name in names else None
    if isinstance(e, A.Lit):
        if e.kind == "bool":
            return "true" if e.value else "false"
        if e.kind == "int":
            return str(e.value) if int(e.value) >= 0 else f"(- {-int(e.value)})"
        value = Fraction(e.value)
        text = f"{abs(value.numerator)}.0" if value.denominator == 1 else \
            f"({abs(value.numerator)}.0 / {value.denominator}.0)"
        return text if value >= 0 else f"(- {text})"
    if isinstance(e, A.Unop) and e.op in ("not", "neg", "pre", "to_real"):
        arg = expression(e.arg, names)
        word = {"not": "not", "neg": "-", "pre": "pre", "to_real": "real"}[e.op]
        return None if arg is None else f"({word} {arg})"
    if isinstance(e, A.Binop) and e.op in _OPERATORS:
        left, right = expression(e.left, names), expression(e.right, names)
        return None if left is None or right is None else f"({left} {e.op} {right})"
    if isinstance(e, A.Ite) and not e.lazy:
        parts = [expression(x, names) for x in (e.cond, e.then, e.orelse)]
        if any(p is None for p in parts):
            return None
        return f"(if {parts[0]} then {parts[1]} else {parts[2]})"
    return None
