"""The parse-tree callbacks of Lucent's contracts (grammar in ``lucent.lark``): ghost constants,
``assume``/``guarantee`` (weak ones too), modes with their ``require``/``ensure`` clauses, and
imports of contract nodes."""

from __future__ import annotations

from lark import Token, Transformer, v_args

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.syntax.positions import meta_pos, token_pos


@v_args(meta=True)
class ContractSyntax(Transformer):
    """Callbacks for contract items, called by rule name."""

    def contract_block(self, meta, items):
        return ("contract", [i for i in items if isinstance(i, A.ContractItem)])

    def ghost_const(self, meta, items):
        texpr = items[1] if len(items) == 3 else None
        return A.ContractItem("const", str(items[0]), token_pos(items[0]), expr=items[-1], type_expr=texpr)

    def _assume_guarantee(self, kind, meta, items):
        weak = any(isinstance(i, Token) and i.type == "WEAKLY" for i in items)
        name = next((str(i)[1:-1] for i in items if isinstance(i, Token) and i.type == "STRING"), None)
        expr = items[-1]
        return A.ContractItem(kind, name, meta_pos(meta), expr=expr, weak=weak)

    def assume(self, meta, items):
        return self._assume_guarantee("assume", meta, items)

    def guarantee(self, meta, items):
        return self._assume_guarantee("guarantee", meta, items)

    def mode(self, meta, items):
        item = A.ContractItem("mode", str(items[0]), meta_pos(meta))  # at "mode", as Kind 2 names it
        for kind, name, expr, pos in items[1:]:
            (item.requires if kind == "REQUIRE" else item.ensures).append((name, expr, pos))
        return item

    def mode_clause(self, meta, items):
        name = next((str(i)[1:-1] for i in items if isinstance(i, Token) and i.type == "STRING"), None)
        return (items[0].type, name, items[-1], meta_pos(meta))

    def contract_import(self, meta, items):
        name = items[0]
        args = next((i for i in items[1:] if isinstance(i, list) and (not i or isinstance(i[0], A.Expr))),
                    [])
        outs = next((i for i in items[1:] if isinstance(i, list) and i and isinstance(i[0], tuple)), [])
        targs = next((i for i in items[1:] if isinstance(i, list) and i
                      and isinstance(i[0], A.TypeExpr)), None)
        return A.ContractItem("import", str(name), meta_pos(meta), args=args, outs=[n for n, _ in outs],
                              type_args=targs)
