"""Source positions of lark parse-tree nodes and tokens, shared by the parse-tree callbacks."""

from __future__ import annotations

from typing import Any

from lark import Token

from kinduct.frontends.lucent.core import ast as A


def meta_pos(meta: Any) -> A.Pos:
    """The position of a rule's match (``NOPOS`` for an empty one)."""
    if getattr(meta, "empty", False):
        return A.NOPOS
    return A.Pos(meta.line, meta.column, meta.start_pos, meta.end_pos)


def token_pos(tok: Token) -> A.Pos:
    """The position of a token."""
    return A.Pos(tok.line, tok.column, tok.start_pos, tok.end_pos)
