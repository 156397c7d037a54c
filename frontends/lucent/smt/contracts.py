"""A node instance's contract, properties and refinement obligations in the translation.

Called by :meth:`Inst.translate <kinduct.frontends.lucent.smt.translate.Inst.translate>` once
the instance's streams exist. An abstracted instance (imported, or read by its contract) assumes
its guarantees and mode ensures; an instance that owes its obligations in this analysis
(:meth:`Inst.owes`) adds its properties, guarantees, mode checks and (the main node)
``_one_mode_active`` as properties; a callee's assumptions are properties at its call site, the
main node's are assumed. ``owed`` wraps a formula owed only while the assumptions held so far.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pysmt.fnode import FNode

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Prop
from kinduct.frontends.lucent.core.types import BOOL
from kinduct.frontends.lucent.smt import obligations

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst

Owed = Callable[[FNode], FNode]


def refinements(inst: Inst, abstract: bool, owed: Owed) -> None:
    """Refinement types: assumptions on the main node's inputs, obligations on a callee's
    inputs (checked at the call site, Kind 2's source ``Assumption``), on outputs
    (``Guarantee``, owed while the assumptions hold) and on locals (``Generated``, placed
    at their ``var`` section); an abstracted callee's outputs are assumed to have their
    types. Obligations are named by :func:`obligations.named`."""
    tr, node, mgr = inst.tr, inst.node, inst.mgr
    entries: list[tuple[Any, Prop]] = []
    for n, ref in node.refinements.items():
        pos, sofar = node.var_pos[n], None
        if n in node.inputs:
            if inst.top:
                tr.assume(mgr.And(inst.refine_term(inst.env[n], ref)))
                continue
            source = "Assumption"
        elif n in node.outputs:
            if abstract:
                tr.assume(owed(mgr.And(inst.refine_term(inst.env[n], ref))))
                continue
            if not inst.owes():
                continue
            source, sofar = "Guarantee", node.sofar
        elif abstract or not inst.owes():
            continue
        else:
            source, pos = "Generated", node.decl_pos.get(n, pos)
        entries.append((inst.env[n], Prop(n, A.Var(n, pos=pos, ty=node.types[n]), pos, source,
                                          ref=ref, sofar=sofar)))
    for p in node.obligations:
        # an abstracted callee with a body owes its contract's obligations in its own
        # analysis; an imported one, which has none, owes them here (Kind 2: Generated)
        if abstract and not (p.contract and node.imported) or not abstract and not inst.owes():
            continue
        entries.append((inst.expr(p.expr), replace(p, source="Generated") if abstract else p))
    for term, p in obligations.named(entries):
        f = mgr.And(inst.refine_term(term, p.ref))
        tr.add_property(f"{inst.prefix}{p.name}", owed(f) if p.sofar else f, p, inst.prefix)
    if inst.top and not abstract:
        for p in tr.checked.const_obligations:
            tr.add_property(p.name, mgr.And(inst.refine_term(inst.expr(p.expr), p.ref)), p,
                            inst.prefix)


def assume_contract(inst: Inst, owed: Owed) -> None:
    """An abstracted instance: its guarantees and its modes' ensures are assumed."""
    tr, node, mgr = inst.tr, inst.node, inst.mgr
    for g in node.guarantees:
        with tr.element(node.name, "guarantee", g.name, g.pos):
            tr.assume(owed(inst.expr(g.expr)))
    for m in node.modes:
        req = mgr.And([inst.expr(r) for r in m.requires])
        for _, e, pos in m.ensures:
            with tr.element(node.name, "ensure", f"ensure[L{pos.line}C{pos.col}]", pos):
                tr.assume(owed(mgr.Implies(req, inst.expr(e))))


def add_properties(inst: Inst, owed: Owed) -> None:
    """An instance that owes its obligations: its properties, guarantees and mode checks (and,
    for the main node, that one mode is active) become properties of the system."""
    tr, node, mgr, prefix = inst.tr, inst.node, inst.mgr, inst.prefix
    for p in node.props:
        tr.add_property(prefix + p.name, inst.expr(p.expr), p, prefix)
    for g in node.guarantees:
        tr.add_property(prefix + g.name, owed(inst.expr(g.expr)), g, prefix, "Guarantee")
    for m in node.modes:
        req = mgr.And([inst.expr(r) for r in m.requires])
        # Kind 2's non-vacuity check: the mode can be active (Kind 2 does not wait for a
        # callee's assumptions here); a mode that never can is reported unreachable.
        reach = Prop(f"{m.site}{m.name}[L{m.pos.line}C{m.pos.col}]", conj(m.requires), m.pos,
                     "NonVacuityCheck", kind="reachable")
        tr.add_property(prefix + reach.name, req, reach, prefix)
        for name, e, pos in m.ensures:
            p = Prop(name, A.Binop("=>", conj(m.requires), e, ty=e.ty), pos, "Ensure",
                     sofar=node.sofar)
            tr.add_property(prefix + name, owed(mgr.Implies(req, inst.expr(e))), p, prefix,
                            "Ensure")
    if node.modes and inst.top:
        any_mode = disj([conj(m.requires) for m in node.modes])
        origins = {m.contract for m in node.modes}
        name = f"{origins.pop()}._one_mode_active" if len(origins) == 1 and \
            node.modes[0].contract else "_one_mode_active"
        p = Prop(name, any_mode, node.decl.pos, "OneModeActive")
        tr.add_property(prefix + name, inst.expr(any_mode), p, prefix, "OneModeActive")


def assumptions(inst: Inst) -> None:
    """The node's assumptions: assumed in the main node, properties at a callee's call site."""
    tr, node = inst.tr, inst.node
    for a in node.assumes:
        if inst.top:
            with tr.element(node.name, "assumption", a.name, a.pos):
                tr.assume(inst.expr(a.expr))
        else:
            tr.add_property(inst.prefix + a.name, inst.expr(a.expr), a, inst.prefix, "Assumption")


def conj(exprs: list[A.Expr]) -> A.Expr:
    """``true and e1 and ... and en``, a checked expression."""
    acc: A.Expr = A.Lit(True, "bool", ty=BOOL)
    for x in exprs:
        acc = A.Binop("and", acc, x, ty=BOOL)
    return acc


def disj(exprs: list[A.Expr]) -> A.Expr:
    """``false or e1 or ... or en``, a checked expression."""
    acc: A.Expr = A.Lit(False, "bool", ty=BOOL)
    for x in exprs:
        acc = A.Binop("or", acc, x, ty=BOOL)
    return acc
