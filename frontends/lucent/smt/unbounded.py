"""The SMT side of quantifiers over infinite domains (``check.unbounded`` checks them into
:class:`~.checked.UQuant`): kinduct's own SMT quantifiers over the variables' leaves, guarded by
their canonical form and refinements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.core.checked import UQuant
from kinduct.frontends.lucent.core.types import (
    scalar_paths,
)
from kinduct.frontends.lucent.smt.collections_smt import canonical, key_value
from kinduct.frontends.lucent.smt.sorts import scalar_sort

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst


def translate(inst: Inst, e: UQuant) -> Any:
    """``e`` as an SMT quantifier over its variables' leaves."""
    mgr = inst.mgr
    syms_all, conds, saved = [], [], {}
    for name, t, ref in e.params:
        # named by the quantifier: where its body is translated again (a refinement's
        # predicate applied to another stream), the memo's terms name the same variables
        syms = [mgr.Symbol(f"%q{id(e)}.{name}.{j}", scalar_sort(lt))
                for j, (_, lt) in enumerate(scalar_paths(t))]
        syms_all += syms
        value = key_value(t, syms)
        saved[name] = inst.env.get(name)
        inst.env[name] = value
        conds.append(canonical(mgr, t, iter(syms)))
        if not ref.empty:
            conds += inst.refine_term(value, ref)
    try:
        body = inst.expr(e.body)
    finally:
        for name, old in saved.items():
            if old is None:
                del inst.env[name]
            else:
                inst.env[name] = old
    guard = mgr.And(conds)
    if e.kind == "forall":
        return mgr.ForAll(syms_all, mgr.Implies(guard, body))
    return mgr.Exists(syms_all, mgr.And(guard, body))
