"""The fast path's clock operators (``lucent.lark``'s ``clock_expr``, ``merge``, ``activate``,
``restart_call``, ``condact``): the clock of a sampling ``e when c``, ``merge`` in its two
forms, and the activations ``(activate N every c …)(args)``, ``(restart N every r)(args)`` and
``condact(c, N(args), d…)``, built as ``parser``'s builder builds them (``clocksyntax``).
:class:`~.fastexpr.ExprParser` builds on it.
"""

from __future__ import annotations

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.syntax.fasttypes import TypeParser
from kinduct.frontends.lucent.syntax.lexer import Decline


class ClockParser(TypeParser):
    """Clock operators; each method returns ``(node, depth)`` as :mod:`.fastexpr`'s do."""

    def expr_list(self, close: str) -> tuple[list[A.Expr], int]:
        """Expressions up to ``close`` (:class:`~.fastexpr.ExprParser`)."""
        raise NotImplementedError

    def clock(self) -> A.SampleClock:
        """``c``, ``not c``, ``not (c)`` or ``C(c)``."""
        s = self.i
        if self.k[s] == "not":
            self.i += 1
            if self.k[self.i] == "(":
                self.i += 1
                n = self.name()
                self.expect(")")
            else:
                n = self.name()
            return A.SampleClock(self.v[n], False, None, self.pos(s, self.i - 1))
        n = self.name()
        if self.k[self.i] == "(":
            self.i += 1
            c = self.name()
            self.expect(")")
            return A.SampleClock(self.v[c], True, self.v[n], self.pos(s, self.i - 1))
        return A.SampleClock(self.v[n], True, None, self.tpos(n))

    def merge(self, i: int) -> tuple[A.Expr, int]:
        """``merge(c; a; b)`` or ``merge c (A -> a) (B -> b) ...``."""
        self.i = i + 1
        if self.k[self.i] == "(":
            self.i += 1
            c = self.name()
            self.expect(";")
            e1, d1 = self.expr()
            self.expect(";")
            e2, d2 = self.expr()
            self.expect(")")
            return (A.Merge(self.v[c], self.tpos(c), [("true", e1), ("false", e2)],
                            pos=self.pos(i, self.i - 1)), max(d1, d2) + 1)
        c = self.name()
        cases = []
        depth = 0
        while self.k[self.i] == "(":
            self.i += 1
            tag = self.k[self.i]
            if tag not in ("true", "false"):
                tag = self.v[self.name()]
            else:
                self.i += 1
            self.expect("->")
            e, d = self.expr()
            self.expect(")")
            cases.append((tag, e))
            depth = max(depth, d)
        if not cases:
            raise Decline("merge")
        return A.Merge(self.v[c], self.tpos(c), cases, pos=self.pos(i, self.i - 1)), depth + 2

    def activate(self, i: int) -> tuple[A.Expr, int]:
        """``(activate N every c [initial default (d...)] [restart every r])(args)``,
        ``(activate (restart N every r) every c ...)(args)``, ``(restart N every r)(args)``
        (token ``i``: the first parenthesis)."""
        self.i = i + 1
        every = restart = defaults = None
        depth = 0
        if self.k[self.i] == "restart":
            self.i += 1
            name = self.v[self.name()]
            self.expect("every")
            restart, depth = self.expr()
            form = "restart"
        else:
            self.i += 1
            form = "activate"
            if self.k[self.i] == "(":
                name, restart, depth = self.restarted()
            else:
                name = self.v[self.name()]
            self.expect("every")
            every, d = self.expr()
            depth = max(depth, d)
            if self.k[self.i] == "initial":
                self.i += 1
                self.expect("default")
                defaults, d = self.expr_list(")")
                if not defaults:
                    raise Decline("activation defaults")
                depth = max(depth, d + 1)
            if self.k[self.i] == "restart" and restart is None:
                self.i += 1
                self.expect("every")
                restart, d = self.expr()
                depth = max(depth, d)
        self.expect(")")
        args, d = self.call_args()
        return (A.Activate(name, args, every, restart, defaults, form, pos=self.pos(i, self.i - 1)),
                max(depth, d) + 2)

    def restarted(self) -> tuple[str, A.Expr, int]:
        """``(restart N every r)`` as the node of an activation."""
        self.expect("(")
        self.expect("restart")
        name = self.v[self.name()]
        self.expect("every")
        restart, d = self.expr()
        self.expect(")")
        return name, restart, d + 1

    def call_args(self) -> tuple[list[A.Expr], int]:
        """``(e, ...)``."""
        self.expect("(")
        args, d = self.expr_list(")")
        self.expect(")")
        return args, d + 2

    def condact(self, i: int) -> tuple[A.Expr, int]:
        """``condact(c, N(args), d...)``, the node possibly ``(restart N every r)``."""
        self.i = i + 1
        self.expect("(")
        every, depth = self.expr()
        self.expect(",")
        restart = None
        if self.k[self.i] == "(":
            name, restart, d = self.restarted()
            depth = max(depth, d)
        else:
            name = self.v[self.name()]
        args, d = self.call_args()
        depth = max(depth, d)
        defaults: list[A.Expr] = []
        if self.k[self.i] == ",":
            self.i += 1
            defaults, d = self.expr_list(")")
            if not defaults:
                raise Decline("condact defaults")
            depth = max(depth, d + 1)
        self.expect(")")
        return (A.Activate(name, args, every, restart, defaults, "condact",
                           pos=self.pos(i, self.i - 1)), depth + 1)
