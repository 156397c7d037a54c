"""The parse-tree callbacks of Lucent's clock operators (grammar in ``lucent.lark``): the
sampling ``e when ck``, ``current``, ``merge`` in its two forms, and the activations
``(activate N every c …)(args)``, ``(restart N every r)(args)`` and ``condact(c, N(args), d…)``,
built into the AST nodes :class:`~.ast.When`, :class:`~.ast.Current`, :class:`~.ast.Merge` and
:class:`~.ast.Activate`.  ``parser._Builder`` inherits them."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.syntax.positions import meta_pos, token_pos


def _exprs(items: list) -> list[A.Expr]:
    return [i for i in items if isinstance(i, A.Expr)]


@v_args(meta=True)
class ClockSyntax(Transformer):
    """Callbacks for the clock operators, called by rule (or alias) name."""

    def sample(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return A.When(items[0], items[-1], pos=meta_pos(meta))

    def clock_on(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return A.SampleClock(str(items[0]), True, None, meta_pos(meta))

    def clock_not(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return A.SampleClock(str(items[-1]), False, None, meta_pos(meta))

    def clock_case(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return A.SampleClock(str(items[1]), True, str(items[0]), meta_pos(meta))

    def current(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return A.Current(items[-1], pos=meta_pos(meta))

    def merge(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        clock = items[1]
        e1, e2 = _exprs(items)
        return A.Merge(str(clock), token_pos(clock), [("true", e1), ("false", e2)], pos=meta_pos(meta))

    def merge_cases(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        clock = items[1]
        return A.Merge(str(clock), token_pos(clock), [i for i in items if isinstance(i, tuple)],
                       pos=meta_pos(meta))

    def merge_case(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return (items[0], items[-1])

    def merge_tag(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return str(items[0])

    def restarted(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        """``(restart N every r)`` as the node of an activation."""
        return ("restarted", str(items[1]), items[-1])

    def call_args(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return ("args", items[0] if items else [])

    def activate(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        name, restart = _node(items[1])
        every = defaults = None
        for i, it in enumerate(items):
            if isinstance(it, Token) and it.type == "EVERY" and every is None:
                every = items[i + 1]
            elif isinstance(it, Token) and it.type == "DEFAULT":
                defaults = items[i + 1]
            elif isinstance(it, Token) and it.type == "EVERY":  # `restart every r`
                restart = items[i + 1]
        return A.Activate(name, items[-1][1], every, restart, defaults, "activate",
                          pos=meta_pos(meta))

    def restart_call(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return A.Activate(str(items[1]), items[-1][1], None, items[3], None, "restart",
                          pos=meta_pos(meta))

    def condact(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        name, restart = _node(items[2])
        defaults = items[4] if len(items) > 4 else []
        return A.Activate(name, items[3][1], items[1], restart, defaults, "condact",
                          pos=meta_pos(meta))


def _node(item: Any) -> tuple[str, A.Expr | None]:
    """The activated node's name and restart condition: a ``NAME`` token or ``restarted``."""
    if isinstance(item, tuple):
        return item[1], item[2]
    return str(item), None
