"""Two shortcuts through lark's tree building for large models (issue 35: a million-byte model
loaded in seconds), each giving exactly what lark's own machinery gives:

- :func:`skip_unit_rules`: the reductions of the precedence cascade's unit rules
  (``?sum: prod``), about four of every five reductions, return their one child as it is; lark's
  callback for them returns that same child after copying its own position fields into its
  "container" fields, which the positions of the enclosing rules read back unchanged.
- :class:`FastTransformer`: a transformer's pass over the parse tree that calls each rule's
  callback directly with ``(meta, children)`` (what ``v_args(meta=True)`` gives it), rather
  than through lark's per-call wrapper objects; a rule without a callback becomes a ``Tree``,
  ``Discard`` drops a child, as in lark's ``Transformer``.  Errors propagate as raised (lark
  wraps them in ``VisitError``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import lark
from lark import Tree


def _first(children: list[Any]) -> Any:
    return children[0]


def skip_unit_rules(parser: lark.Lark) -> int:
    """Make the LALR parser's callbacks of ``?rule: other_rule`` return the child itself; the
    number of rules changed (0 when lark's internals are not where this lark version keeps
    them: then nothing changes)."""
    callbacks = getattr(getattr(getattr(parser.parser, "parser", None), "parser", None), "callbacks", None)
    if not isinstance(callbacks, dict):
        return 0
    changed = 0
    for rule in list(callbacks):
        if not isinstance(rule, lark.grammar.Rule):
            continue
        if not rule.options.expand1 or rule.alias or len(rule.expansion) != 1:
            continue
        sym = rule.expansion[0]
        # a nonterminal's value is kept whole; an '_rule' child would be spliced in, a filtered
        # token dropped: those keep lark's callback
        if sym.is_term or sym.name.startswith("_"):
            continue
        callbacks[rule] = _first
        changed += 1
    return changed


class FastTransformer:
    """Transform a lark tree bottom-up with ``callbacks[rule](meta, children)``."""

    def __init__(self, owner: object) -> None:
        self.owner = owner
        self.methods: dict[str, Callable[..., Any] | None] = {}

    def _method(self, name: str) -> Callable[..., Any] | None:
        try:
            return self.methods[name]
        except KeyError:
            pass
        attr = getattr(type(self.owner), name, None) if not name.startswith("_") else None
        func = getattr(attr, "base_func", attr)  # a v_args wrapper's function
        self.methods[name] = func if callable(func) else None
        return self.methods[name]

    def transform(self, tree: Tree) -> Any:
        discard = lark.Discard
        children = []
        for c in tree.children:
            if isinstance(c, Tree):
                c = self.transform(c)
                if c is discard:
                    continue
            children.append(c)
        func = self._method(tree.data)
        if func is None:
            return Tree(tree.data, children, tree.meta)
        return func(self.owner, tree.meta, children)
