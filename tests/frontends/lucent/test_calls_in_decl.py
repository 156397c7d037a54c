"""``walk.calls_in_decl`` (the calls of a declaration, for the call order): the calls a plain
recursive walk of every field of every syntax node finds, in the same order, on a generated
model and on Lucent files of the tests and examples."""

from __future__ import annotations

import sys
from pathlib import Path

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.walk import calls_in_decl
from kinduct.frontends.lucent.syntax.parser import parse_text

ROOT = Path(__file__).resolve().parents[3]


def _reference(d: A.NodeDecl) -> list[A.Expr]:
    """Every call and activation below ``d``'s body, contract, declared types and inline
    refinements, by a recursive walk of every field (the order of the kernel's stack walk:
    last field first)."""
    roots: list = list(d.body) + list(d.contract)
    roots += [p.type_expr for p in d.inputs + d.outputs + d.locals] + [te for _, te, _, _ in d.consts]
    roots += [p.pred for p in d.inputs + d.outputs + d.locals if p.pred is not None]
    walked = (A.Expr, A.Equation, A.Assert, A.Check, A.IfBlock, A.LazyBlock, A.FrameBlock,
              A.TypeExpr, A.ContractItem)
    found: list[A.Expr] = []

    def items(v) -> list:
        if isinstance(v, walked):
            return [v]
        if isinstance(v, (list, tuple)):
            return [y for x in v for y in items(x)]
        if isinstance(v, dict):
            return [y for x in v.values() for y in items(x)]
        return []

    stack = list(roots)
    while stack:
        x = stack.pop()
        if isinstance(x, (A.Call, A.Activate)):
            found.append(x)
        if isinstance(x, walked):
            for v in vars(x).values():
                stack.extend(items(v))
    return found


def test_calls_in_decl_finds_what_a_plain_walk_finds() -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks.scale_models import gen_nodes

    texts = [gen_nodes(30)] + [p.read_text() for p in sorted((ROOT / "examples").rglob("*.lus"))]
    checked = 0
    for text in texts:
        try:
            prog = parse_text(text, "x.lus")
        except Exception:  # noqa: BLE001 - files that do not parse are not this test's
            continue
        for d in list(prog.nodes) + list(prog.contracts):
            assert [id(c) for c in calls_in_decl(d)] == [id(c) for c in _reference(d)]
            checked += 1
    assert checked > 30
