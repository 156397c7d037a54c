"""The constraints a refinement type puts on a translated term (bounds, predicates, the
components' own), for the SMT translation of a node instance.

A named type's predicate is one checked expression applied to every value of that type (and
to each element of an array): the subexpressions that read its bound variable and carry a
``uid`` (a division by a constant, whose translation is keyed by its dividend) are translated
afresh for each application instead of being read from the instance's memo, which would hand
every application the first one's result.  The checker refuses those that would need streams
of their own per application (calls, divisions by variables).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pysmt.fnode import FNode

from kinduct.frontends.lucent.core.types import Refinement, SymArr, Variant
from kinduct.frontends.lucent.core.walk import (
    needs_stream,
    refuse_stream_predicate,
    renamed,
    uid_nodes_reading,
)

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst, STerm


def constraints(inst: Inst, term: STerm, ref: Refinement, stream: str | None = None) -> list[FNode]:
    """The constraints of ``ref`` on ``term`` (a scalar, or a record/array/tuple of terms).
    A predicate that keeps state on its variable (:mod:`.streamrefine`) is applied only to a
    stream named ``stream`` (an ``any``'s result), its variable renamed apart; elsewhere it is
    refused, located."""
    mgr = inst.mgr
    out = []
    for key, sub in ref.parts.items():
        if isinstance(key, tuple):  # a set's elements, a map's keys or values
            from kinduct.frontends.lucent.smt.collections_smt import part_constraints
            out.extend(part_constraints(inst, term, key, sub))
            continue
        if isinstance(key, Variant):  # owed by a value of that constructor only
            built = mgr.Equals(term["%tag"], mgr.Int(key.index))
            out.extend(mgr.Implies(built, c) for c in constraints(inst, term[key.key], sub))
            continue
        if key == "*" and isinstance(term, SymArr):  # every element of a symbolic size
            from kinduct.frontends.lucent.smt.symarrays import refine_elements
            out.extend(refine_elements(inst, term, sub))
            continue
        items = term if key == "*" else [term[key]]
        for item in items:
            out.extend(constraints(inst, item, sub))
    if ref.lo is not None:
        out.append(mgr.GE(term, mgr.Int(ref.lo)))
    if ref.hi is not None:
        out.append(mgr.LE(term, mgr.Int(ref.hi)))
    for var, pred in ref.preds:
        if needs_stream(pred, var):
            if stream is None:
                refuse_stream_predicate(inst.tr.file, inst.tr.checked.text, pred.pos,
                                    "where the type's values are no stream of a node")
            var, pred = renamed(var, pred, stream)
        saved_env, saved_memo = inst.env.get(var), inst.memo
        fresh = {e.uid for e in uid_nodes_reading(pred, var)}
        inst.env[var] = term
        inst.memo = {uid: v for uid, v in saved_memo.items() if uid not in fresh}
        try:
            out.append(inst.expr(pred))
        finally:
            saved_memo.update((uid, v) for uid, v in inst.memo.items() if uid not in fresh)
            inst.memo = saved_memo
            if saved_env is None:
                del inst.env[var]
            else:
                inst.env[var] = saved_env
    return out
