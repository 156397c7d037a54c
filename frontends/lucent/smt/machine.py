"""The translation of machine integers to SMT bit-vectors (:mod:`kinduct.frontends.lucent.core.machine`
holds their semantics)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pysmt.fnode import FNode
from pysmt.typing import BVType

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.machine import CONCAT, bits_of, extract_bits
from kinduct.frontends.lucent.core.types import INT, T, signed
from kinduct.frontends.lucent.core.walk import const_value

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst


def smt_type(t: T):
    return BVType(t.size)


def translate_unop(inst: Inst, e: A.Unop, a: FNode) -> FNode:
    """A conversion to or from a machine integer, an extraction, ``!`` or unary minus, on the
    term ``a``."""
    mgr = inst.mgr
    src, t = e.arg.ty, e.ty
    if e.op == "neg":
        return mgr.BVNeg(a)
    if e.op == "bvnot":
        return mgr.BVNot(a)
    bits = extract_bits(e.op)
    if bits is not None:
        return mgr.BVExtract(a, bits[1], bits[0])
    if e.op == "to_int":  # src is a machine integer
        nat = mgr.BVToNatural(a)
        if not signed(src):
            return nat
        return mgr.Ite(mgr.BVSLT(a, mgr.BV(0, src.size)), mgr.Minus(nat, mgr.Int(1 << src.size)), nat)
    if src.kind == "machine":
        return _resize(mgr, a, src, t.size)
    inner = e.arg
    if isinstance(inner, A.Unop) and inner.op == "to_int" and inner.arg.ty.kind == "machine":
        # uint8 (int x): x's bits resized, without the detour through int (hard for solvers)
        return _resize(mgr, inst.expr(inner.arg), inner.arg.ty, t.size)
    value = const_value(e.arg)
    if value is not None:
        return mgr.BV(bits_of(int(value), t), t.size)
    # from a stream of int: the bit-vector whose value is congruent to it modulo 2^width
    name, n = e.uid, 0
    while inst.prefix + name in mgr.symbols:  # applied to several values (a type's predicate)
        n += 1
        name = f"{e.uid}#{n}"
    bv = inst.fresh(name, t)
    q = inst.fresh(naming.quotient(name), INT)
    inst.tr.assume(mgr.Equals(a, mgr.Plus(mgr.Times(mgr.Int(1 << t.size), q), mgr.BVToNatural(bv))))
    return bv


def _resize(mgr, a: FNode, src: T, width: int) -> FNode:
    """The machine integer ``a`` of type ``src`` modulo ``2^width`` (cut, or extended by its
    sign bit if ``src`` is signed, by zeros otherwise: its value is kept)."""
    if width == src.size:
        return a
    if width < src.size:
        return mgr.BVExtract(a, 0, width - 1)
    return (mgr.BVSExt if signed(src) else mgr.BVZExt)(a, width - src.size)


def translate_binop(mgr, e: A.Binop, a: FNode, b: FNode) -> FNode:
    """``a op b`` on machine integers (a comparison of them included)."""
    t = e.left.ty
    s = signed(t)
    op = e.op
    if op == CONCAT:
        return mgr.BVConcat(a, b)
    simple = {"+": mgr.BVAdd, "-": mgr.BVSub, "*": mgr.BVMul, "&&": mgr.BVAnd, "||": mgr.BVOr,
              "lsh": mgr.BVLShl,
              "rsh": mgr.BVAShr if s else mgr.BVLShr,
              "/": mgr.BVSDiv if s else mgr.BVUDiv, "div": mgr.BVSDiv if s else mgr.BVUDiv,
              "mod": mgr.BVSRem if s else mgr.BVURem,
              "<": mgr.BVSLT if s else mgr.BVULT, "<=": mgr.BVSLE if s else mgr.BVULE,
              ">": mgr.BVSGT if s else mgr.BVUGT, ">=": mgr.BVSGE if s else mgr.BVUGE}
    return simple[op](a, b)
