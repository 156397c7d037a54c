"""The fast path's expressions: recursive descent with precedence climbing over the
tokens of :mod:`.lexer`, building the AST of :mod:`..core.ast` with the positions lark's tree
gives (``lucent.lark``; ``parser`` is the reference).

Positions: a node spans its first token to its last; a parenthesised operand counts with its
parentheses in the span of the node around it (lark's "container" positions) but not in its own.
Each parsing method returns ``(node, depth)``, ``depth`` bounding from above the depth of lark's
parse tree for that node, so that a file lark would refuse as too deeply nested is declined.

Precedence, loosest first (``lucent.lark``): ``->`` (right) | ``=> ==>`` (right) | ``or xor``,
``or else`` | ``and``, ``and then`` | comparisons and ``in`` | ``+ -`` | ``* / div mod`` | ``++``
| ``||`` | ``&&`` | ``lsh rsh`` (not associative) | unary minus, whose operand is a product
| ``not pre last current int real !`` | postfix ``[i] [i := v] [lo..hi] [hi:lo] .f ^n`` |
atoms.  ``if``/``when`` conditionals and machine-integer conversions are atoms whose operand
extends as far as it can (not over a sampling ``when``); ``any {…}``/``choose {…}`` stand where
an arrow's operand does.  Atoms: names, literals, calls (with type arguments too), record,
array, tuple, set and map literals, parentheses and ascriptions, ``merge``, activations and
``condact``, testers, ``match``, quantifiers, ``::`` mode references.  A syntax error raises
:class:`~.lexer.Decline`.
"""

from __future__ import annotations

import re

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import collections, machine
from kinduct.frontends.lucent.syntax.fastclocks import ClockParser
from kinduct.frontends.lucent.syntax.fasttypes import MACHINE, MAX_RECURSION, TYPE_DEPTH, Pos
from kinduct.frontends.lucent.syntax.lexer import Decline
from kinduct.frontends.lucent.syntax.numerals import decimal, hex_real

ARROW, IMPLIES, DISJ, CONJ, CMP, APPEND, SUM, PROD, CONCAT, BVOR, BVAND, SHIFT = range(1, 13)

#: Binary operators: token kind -> (precedence, right associative).
BINARY: dict[str, tuple[int, bool]] = {
    "->": (ARROW, True), "=>": (IMPLIES, True), "==>": (IMPLIES, True),
    "or": (DISJ, False), "xor": (DISJ, False), "and": (CONJ, False),
    "<=": (CMP, False), ">=": (CMP, False), "<>": (CMP, False), "<": (CMP, False),
    ">": (CMP, False), "=": (CMP, False),
    "+": (SUM, False), "-": (SUM, False), "*": (PROD, False), "/": (PROD, False),
    "div": (PROD, False), "mod": (PROD, False), "++": (CONCAT, False), "||": (BVOR, False),
    "&&": (BVAND, False), "lsh": (SHIFT, False), "rsh": (SHIFT, False),
}
_UNARY = {"not": "not", "pre": "pre", "last": "last", "int": "to_int", "real": "to_real",
          "!": "bvnot"}
#: The words of :data:`~.lexer.SOFT` that lark reads as keywords where an expression starts
#: (``map`` too when it is not soft).
EXPR_WORDS = frozenset({"map", "match"})
#: The tokens that make more of a name or number than itself (a call, a literal, a postfix).
_AFTER_LEAF = frozenset({"(", "{", "@", "?", "[", ".", "^"})
_LITERALS = {"true": (True, "bool"), "false": (False, "bool")}

#: lark's array concatenation bar (``lucent.lark``'s ``PIPE``): a '|' that is neither '||' nor a
#: match arm's bar; another '|' after an expression ends it.
_PIPE = re.compile(r"\|(?!\|)(?!\s*[A-Za-z_]\w*\s*(\([^:;]*\))?\s*:(?!=))")


class ExprParser(ClockParser):
    """Expressions (and, through :class:`~.fastclocks.ClockParser` and
    :class:`~.fasttypes.TypeParser`, clock operators and types) over the tokens."""

    # ---- expressions ----
    def expr(self) -> tuple[A.Expr, int]:
        """``arrow [when clock]``."""
        s = self.i
        node, d = self.binary(ARROW)
        if self.k[self.i] == "when":
            self.i += 1
            clock = self.clock()
            node = A.When(node, clock, pos=self.pos(s, self.i - 1))
            d += 1
        return node, d

    def binary(self, minp: int) -> tuple[A.Expr, int]:
        """Operators of precedence ``minp`` or tighter, by precedence climbing."""
        self.nest += 1
        if self.nest > MAX_RECURSION:
            raise Decline("deeply nested")
        s = self.i
        k = self.k
        # 'any {x: T | p}' and 'choose {...}' stand where an arrow's operand does, and only '->'
        # may follow them
        top = ARROW + 1
        if minp == ARROW and k[s] in ("any", "choose") and k[s + 1] == "{":
            left, d = self.any_expr()
            top = ARROW
        else:
            left, d = self.factor()
        shifted = False  # left is a shift: another one applies further out, if anywhere
        while True:
            op = k[self.i]
            info = BINARY.get(op)
            if info is None:
                if op == "NAME" and self.v[self.i] == "in":
                    info = (CMP, False)
                elif op == "|" and _PIPE.match(self.text, self.starts[self.i]):
                    info = (APPEND, False)
                else:
                    break
            prec, right = info
            if prec < minp or (shifted and prec == SHIFT) or (top == ARROW and prec != ARROW):
                break
            self.i += 1
            opname = "in" if op == "NAME" else op
            if op == "or" and k[self.i] == "else":
                self.i += 1
                opname = "or else"
            elif op == "and" and k[self.i] == "then":
                self.i += 1
                opname = "and then"
            shifted = prec == SHIFT
            if shifted:
                rhs, dr = self.factor()
            else:
                rhs, dr = self.binary(prec if right else prec + 1)
            if op == "|":
                left = A.Concat("|", left, rhs, pos=self.pos(s, self.i - 1))
            else:
                left = A.Binop(opname, left, rhs, pos=self.pos(s, self.i - 1))
            d = (d if d > dr else dr) + 1
        self.nest -= 1
        return left, d

    def any_expr(self) -> tuple[A.Expr, int]:
        """``any {x: T | p}`` or ``choose {x: T | p}``."""
        s = self.i
        self.i += 2
        n = self.name()
        self.expect(":")
        texpr = self.type_expr()
        self.expect("|")
        pred, d = self.expr()
        self.expect("}")
        return (A.AnyE(self.v[n], texpr, pred, functional=self.k[s] == "choose",
                       pos=self.pos(s, self.i - 1)), max(d, TYPE_DEPTH) + 1)

    def factor(self) -> tuple[A.Expr, int]:
        """Unary minus (over a product) and the other prefix operators."""
        s = self.i
        k = self.k[s]
        if (k == "NAME" or k == "NUMBER") and self.k[s + 1] not in _AFTER_LEAF:
            # the commonest operand, a name or a number alone (what atom() would build)
            v = self.v[s]
            if k == "NAME" and v in EXPR_WORDS:
                return self.postfix()
            self.i = s + 1
            pos = Pos(self.lines[s], self.cols[s], self.starts[s], self.ends[s])
            return (A.Var(v, pos=pos) if k == "NAME" else A.Lit(int(v), "int", pos=pos)), 1
        if k == "-":
            self.i += 1
            arg, d = self.binary(PROD)
            return A.Unop("neg", arg, pos=self.pos(s, self.i - 1)), d + 1
        op = _UNARY.get(k)
        if op is not None:
            self.i += 1
            arg, d = self.factor()
            return A.Unop(op, arg, pos=self.pos(s, self.i - 1)), d + 1
        if k == "current":
            self.i += 1
            arg, d = self.factor()
            return A.Current(arg, pos=self.pos(s, self.i - 1)), d + 1
        return self.postfix()

    def postfix(self) -> tuple[A.Expr, int]:
        """An atom followed by ``[i]``, ``.f`` and ``^n``."""
        s = self.i
        node, d = self.atom()
        k = self.k
        while True:
            t = k[self.i]
            if t == "[":
                node, d = self.subscript(s, node, d)
            elif t == ".":
                self.i += 1
                n = self.name()
                node = A.Field(node, self.v[n], pos=self.pos(s, n))
                d += 1
            elif t == "^":
                self.i += 1
                size, ds = self.atom()
                node = A.Caret(node, size, pos=self.pos(s, self.i - 1))
                d = (d if d > ds else ds) + 1
            else:
                return node, d

    def subscript(self, s: int, node: A.Expr, d: int) -> tuple[A.Expr, int]:
        """``[i]``, ``[i := v; ...]``, ``[lo .. hi]`` or ``[hi:lo]`` after ``node`` (from token
        ``s``)."""
        k = self.k
        i = self.i + 1
        if k[i] == "NUMBER" and k[i + 1] == ":" and k[i + 2] == "NUMBER" and k[i + 3] == "]":
            self.i = i + 4
            op = machine.extract_op(int(self.v[i]), int(self.v[i + 2]))
            return A.Unop(op, node, pos=self.pos(s, self.i - 1)), d + 1
        self.i = i
        index, di = self.expr()
        d = max(d, di)
        t = k[self.i]
        if t == "]":
            self.i += 1
            return A.Index(node, index, pos=self.pos(s, self.i - 1)), d + 1
        if t == "..":
            self.i += 1
            hi, dh = self.expr()
            self.expect("]")
            return A.Slice(node, index, hi, pos=self.pos(s, self.i - 1)), max(d, dh) + 1
        pairs = []
        while True:
            self.expect(":=")
            value, dv = self.expr()
            pairs.append((index, value))
            d = max(d, dv)
            if k[self.i] == ";":
                self.i += 1
            if k[self.i] == "]":
                break
            if k[self.i - 1] != ";":
                raise Decline("update")
            index, di = self.expr()
            d = max(d, di)
        self.i += 1
        pos = self.pos(s, self.i - 1)
        for index, value in pairs:
            node = A.Update(node, index, value, pos=pos)
        return node, d + len(pairs)

    def expr_list(self, close: str) -> tuple[list[A.Expr], int]:
        """``e1, e2, ...`` up to (not including) ``close``, possibly empty."""
        items: list[A.Expr] = []
        depth = 0
        if self.k[self.i] == close:
            return items, depth
        while True:
            e, d = self.expr()
            items.append(e)
            if d > depth:
                depth = d
            if self.k[self.i] != ",":
                return items, depth
            self.i += 1

    def atom(self) -> tuple[A.Expr, int]:
        """Names, calls, literals, parentheses, conditionals, array and record literals."""
        i = self.i
        k = self.k[i]
        if k == "NAME":
            v = self.v[i]
            if v in EXPR_WORDS:
                if v == "match":
                    return self.match(i)
                return self.map_literal(i)
            nk = self.k[i + 1]
            if nk == "(":
                self.i = i + 2
                args, d = self.expr_list(")")
                self.expect(")")
                return A.Call(v, args, pos=self.pos(i, self.i - 1)), d + 2
            if nk == "{":
                return self.record(i)
            if nk == "@":
                return self.poly(i)
            if nk == "?":
                self.i = i + 2
                self.expect("(")
                arg, d = self.expr()
                self.expect(")")
                return A.Tester(v, arg, pos=self.pos(i, self.i - 1)), d + 1
            self.i = i + 1
            return A.Var(v, pos=self.tpos(i)), 1
        if k == "NUMBER":
            self.i = i + 1
            return A.Lit(int(self.v[i]), "int", pos=self.tpos(i)), 1
        lit = _LITERALS.get(k)
        if lit is not None:
            self.i = i + 1
            return A.Lit(lit[0], lit[1], pos=self.tpos(i)), 1
        if k == "(":
            return self.paren(i)
        if k == "if" or k == "when":
            self.i = i + 1
            cond, dc = self.expr()
            self.expect("then")
            then, dt = self.expr()
            self.expect("else")
            orelse, de = self.binary(ARROW)
            node = A.Ite(cond, then, orelse, lazy=k == "when", pos=self.pos(i, self.i - 1))
            return node, max(dc, dt, de) + 1
        if k == "[":
            self.i = i + 1
            items, d = self.expr_list("]")
            if not items:
                raise Decline("empty array literal")
            self.expect("]")
            return A.ArrayLit(items, pos=self.pos(i, self.i - 1)), d + 2
        if k == "DECIMAL":
            self.i = i + 1
            return A.Lit(decimal(self.v[i]), "real", pos=self.tpos(i)), 1
        if k == "HEXINT":
            self.i = i + 1
            return A.Lit(int(self.v[i], 16), "int", pos=self.tpos(i)), 1
        if k == "HEXREAL":
            self.i = i + 1
            return A.Lit(hex_real(self.v[i]), "real", pos=self.tpos(i)), 1
        if k == "::":
            path = []
            while self.k[self.i] == "::":
                self.i += 1
                path.append(self.v[self.name()])
            return A.ModeRef(tuple(path), pos=self.pos(i, self.i - 1)), 1
        if k == "merge":
            return self.merge(i)
        if k == "'(":
            self.i = i + 1
            items, d = self.expr_list(")")
            if not items:
                raise Decline("empty tuple")
            self.expect(")")
            return A.TupleE(items, pos=self.pos(i, self.i - 1)), d + 2
        if k == "forall" or k == "exists":
            self.i = i + 1
            self.expect("(")
            outer, self.pred_depth = self.pred_depth, 0
            params = self.params()
            preds, self.pred_depth = self.pred_depth, outer
            self.expect(")")
            body, d = self.expr()
            return A.Quant(k, params, body, pos=self.pos(i, self.i - 1)), max(d, TYPE_DEPTH, preds + 2) + 3
        if k in MACHINE or k == "uint" or k == "sint":
            op = machine.conversion_op(self.machine_spec(True))
            arg, d = self.binary(ARROW)
            return A.Unop(op, arg, pos=self.pos(i, self.i - 1)), d + 2
        if (k == "any" or k == "choose") and self.k[i + 1] == "@":
            self.i = i + 2
            self.expect("<")
            texpr = self.type_expr()
            self.expect(">")
            return (A.AnyE("%any", texpr, None, functional=k == "choose", pos=self.pos(i, self.i - 1)),
                    TYPE_DEPTH + 1)
        if k == "condact":
            return self.condact(i)
        if k == "map":  # when Kind 2 reserves the word (lexer.SOFT)
            return self.map_literal(i)
        if k == "{":
            self.i = i + 1
            items, d = self.expr_list("}")
            self.expect("}")
            parts: list = [items]
            if self.k[self.i] == "@":
                parts.append(self.type_args())
                d = TYPE_DEPTH
            return collections.set_literal(parts, self.pos(i, self.i - 1)), d + 2
        raise Decline(f"expression starting with {k!r} at offset {self.starts[i]}")

    def poly(self, i: int) -> tuple[A.Expr, int]:
        """``N@<T>(args)``, ``R@<T> { ... }`` or ``C@<T>`` (a name at token ``i``)."""
        self.i = i + 1
        targs = self.type_args()
        t = self.k[self.i]
        if t == "(":
            self.i += 1
            args, d = self.expr_list(")")
            self.expect(")")
            return A.Call(self.v[i], args, targs, pos=self.pos(i, self.i - 1)), max(d, TYPE_DEPTH) + 2
        if t == "{":
            fields, d = self.field_inits()
            return (A.RecordLit(self.v[i], fields, targs, pos=self.pos(i, self.i - 1)),
                    max(d, TYPE_DEPTH) + 2)
        return A.Call(self.v[i], [], targs, pos=self.pos(i, self.i - 1), bare=True), TYPE_DEPTH + 2

    def map_literal(self, i: int) -> tuple[A.Expr, int]:
        """``map[k := v; ...]`` (``map`` at token ``i``), type arguments possibly after."""
        self.i = i + 1
        self.expect("[")
        parts: list = []
        depth = 0
        while self.k[self.i] != "]":
            if parts and self.k[self.i - 1] != ";":
                raise Decline("map literal")
            key, dk = self.expr()
            self.expect(":=")
            value, dv = self.expr()
            parts += [key, value]
            depth = max(depth, dk, dv)
            if self.k[self.i] == ";":
                self.i += 1
        self.i += 1
        if self.k[self.i] == "@":
            parts.append(self.type_args())
            depth = TYPE_DEPTH
        return collections.map_literal(parts, self.pos(i, self.i - 1)), depth + 1

    def match(self, i: int) -> tuple[A.Expr, int]:
        """``match e with | P : e ... end``."""
        self.i = i + 1
        arg, depth = self.expr()
        self.expect("with")
        cases = []
        while self.k[self.i] == "|":
            self.i += 1
            pattern = self.pattern()
            self.expect(":")
            e, d = self.expr()
            cases.append((pattern, e))
            depth = max(depth, d)
        if not cases:
            raise Decline("match without cases")
        self.expect("end")
        return A.Match(arg, cases, pos=self.pos(i, self.i - 1)), depth + 2

    def pattern(self) -> A.Pattern:
        n = self.name()
        if self.k[self.i] != "(":
            return A.Pattern(self.v[n], None, self.tpos(n))
        self.i += 1
        args = [self.pattern()]
        while self.k[self.i] == ",":
            self.i += 1
            args.append(self.pattern())
        self.expect(")")
        return A.Pattern(self.v[n], args, self.tpos(n))

    def paren(self, i: int) -> tuple[A.Expr, int]:
        """``(e)`` (the node of ``e`` itself), ``(e1, e2, ...)``."""
        self.i = i + 1
        if self.k[self.i] in ("activate", "restart"):
            return self.activate(i)
        first, d = self.expr()
        t = self.k[self.i]
        if t == ")":
            self.i += 1
            return first, d
        if t == ":":
            self.i += 1
            texpr = self.type_expr()
            self.expect(")")
            return A.Ascribe(first, texpr, pos=self.pos(i, self.i - 1)), max(d, TYPE_DEPTH) + 1
        if t != ",":
            raise Decline(f"parenthesis followed by {t!r}")
        self.i += 1
        rest, dr = self.expr_list(")")
        if not rest:
            raise Decline("tuple")
        self.expect(")")
        return A.TupleE([first, *rest], pos=self.pos(i, self.i - 1)), max(d, dr + 1) + 1

    def record(self, i: int) -> tuple[A.Expr, int]:
        """``R { f = e; ... }``."""
        self.i = i + 1
        fields, depth = self.field_inits()
        return A.RecordLit(self.v[i], fields, pos=self.pos(i, self.i - 1)), depth + 2

    def field_inits(self) -> tuple[list[tuple[str, A.Expr]], int]:
        """``{ f = e; ... }``."""
        self.expect("{")
        fields = []
        depth = 0
        while True:
            f = self.name()
            self.expect("=")
            e, d = self.expr()
            fields.append((self.v[f], e))
            depth = max(depth, d)
            if self.k[self.i] == ";":
                self.i += 1
            if self.k[self.i] == "}":
                break
            if self.k[self.i - 1] != ";":
                raise Decline("record literal")
        self.i += 1
        return fields, depth
