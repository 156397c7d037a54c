"""The fast path's expressions and types: recursive descent with precedence climbing over the
tokens of :mod:`.lexer`, building the AST of :mod:`..core.ast` with the positions lark's tree
gives (``lucent.lark``; ``parser`` is the reference).

Positions: a node spans its first token to its last; a parenthesised operand counts with its
parentheses in the span of the node around it (lark's "container" positions) but not in its own.
Each parsing method returns ``(node, depth)``, ``depth`` bounding from above the depth of lark's
parse tree for that node, so that a file lark would refuse as too deeply nested is declined.

Precedence, loosest first (``lucent.lark``): ``->`` (right) | ``=> ==>`` (right) | ``or xor``,
``or else`` | ``and``, ``and then`` | comparisons and ``in`` | ``+ -`` | ``* / div mod`` | ``++``
| ``||`` | ``&&`` | ``lsh rsh`` (not associative) | unary minus, whose operand is a product
| ``not pre last current int real !`` | postfix ``[i] .f ^n`` | atoms.  ``if``/``when``
conditionals are atoms whose ``else`` operand extends as far as it can (not over ``when``).
Constructs not listed here raise :class:`~.lexer.Decline`.
"""

from __future__ import annotations

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.limits import MAX_NESTING
from kinduct.frontends.lucent.syntax.lexer import Decline, Tokens
from kinduct.frontends.lucent.syntax.numerals import decimal, hex_real

Pos = A.Pos

ARROW, IMPLIES, DISJ, CONJ, CMP, SUM, PROD, CONCAT, BVOR, BVAND, SHIFT = range(1, 12)

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
#: The words of :data:`~.lexer.SOFT` that lark reads as keywords where an expression starts,
#: and where a type starts.
EXPR_WORDS = frozenset({"map", "match"})
TYPE_WORDS = frozenset({"set", "map"})
_LITERALS = {"true": (True, "bool"), "false": (False, "bool")}

#: The deepest parse tree the fast path builds (lark refuses beyond ``MAX_NESTING``; the
#: margin covers the declaration levels above an expression), and how deeply its methods
#: may recurse.
MAX_DEPTH = MAX_NESTING - 60
MAX_RECURSION = 400


class ExprParser:
    """Expressions and types over ``tokens``; ``i`` is the next token."""

    def __init__(self, text: str, file: str, tokens: Tokens) -> None:
        self.text = text
        self.file = file
        self.k = tokens.kinds
        self.v = tokens.values
        self.starts = tokens.starts
        self.ends = tokens.ends
        self.lines = tokens.lines
        self.cols = tokens.cols
        self.i = 0
        self.nest = 0

    # ---- tokens and positions ----
    def pos(self, a: int, b: int) -> A.Pos:
        """The span of tokens ``a`` to ``b``."""
        return Pos(self.lines[a], self.cols[a], self.starts[a], self.ends[b])

    def tpos(self, a: int) -> A.Pos:
        """The span of token ``a``."""
        return Pos(self.lines[a], self.cols[a], self.starts[a], self.ends[a])

    def expect(self, kind: str) -> int:
        """Consume a token of ``kind``; its index."""
        i = self.i
        if self.k[i] != kind:
            raise Decline(f"expected {kind!r}, found {self.k[i]!r} at offset {self.starts[i]}")
        self.i = i + 1
        return i

    def name(self) -> int:
        """Consume a name; its index.  (A word of :data:`~.lexer.SOFT` is a name here: where
        a name is declared or used, lark's contextual lexer accepts none of those keywords.)"""
        i = self.i
        if self.k[i] != "NAME":
            raise Decline(f"expected a name at offset {self.starts[i]}")
        self.i = i + 1
        return i

    def soft(self, word: str) -> bool:
        """Whether the next token is the grammar's word ``word`` that Kind 2 does not reserve
        (consumed if so)."""
        i = self.i
        if self.k[i] == "NAME" and self.v[i] == word:
            self.i = i + 1
            return True
        return False

    def name_list(self) -> list[tuple[str, A.Pos]]:
        """``a, b, c``: names with their positions."""
        names = [self.name()]
        while self.k[self.i] == ",":
            self.i += 1
            names.append(self.name())
        return [(self.v[n], self.tpos(n)) for n in names]

    @staticmethod
    def shallow(depth: int, base: int) -> None:
        """Decline a tree deeper than the fast path builds."""
        if base + depth > MAX_DEPTH:
            raise Decline("deeply nested")

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

    def binary(self, minp: int) -> tuple[A.Expr, int]:
        """Operators of precedence ``minp`` or tighter, by precedence climbing."""
        self.nest += 1
        if self.nest > MAX_RECURSION:
            raise Decline("deeply nested")
        s = self.i
        left, d = self.factor()
        k = self.k
        shifted = False  # left is a shift: another one applies further out, if anywhere
        while True:
            op = k[self.i]
            info = BINARY.get(op)
            if info is None:
                if op == "NAME" and self.v[self.i] == "in":
                    info = (CMP, False)
                elif op == "|":
                    raise Decline("array concatenation '|'")
                else:
                    break
            prec, right = info
            if prec < minp or (shifted and prec == SHIFT):
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
            left = A.Binop(opname, left, rhs, pos=self.pos(s, self.i - 1))
            d = (d if d > dr else dr) + 1
        self.nest -= 1
        return left, d

    def factor(self) -> tuple[A.Expr, int]:
        """Unary minus (over a product) and the other prefix operators."""
        s = self.i
        k = self.k[s]
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
                self.i += 1
                index, di = self.expr()
                if k[self.i] != "]":
                    raise Decline("update, slice or extraction")
                self.i += 1
                node = A.Index(node, index, pos=self.pos(s, self.i - 1))
                d = (d if d > di else di) + 1
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
                raise Decline(f"the word '{v}'")
            nk = self.k[i + 1]
            if nk == "(":
                self.i = i + 2
                args, d = self.expr_list(")")
                self.expect(")")
                return A.Call(v, args, pos=self.pos(i, self.i - 1)), d + 2
            if nk == "{":
                return self.record(i)
            if nk == "@" or nk == "?":
                raise Decline("type arguments or a tester")
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
        raise Decline(f"expression starting with {k!r} at offset {self.starts[i]}")

    def paren(self, i: int) -> tuple[A.Expr, int]:
        """``(e)`` (the node of ``e`` itself), ``(e1, e2, ...)``."""
        self.i = i + 1
        if self.k[self.i] in ("activate", "restart"):
            raise Decline("activation")
        first, d = self.expr()
        t = self.k[self.i]
        if t == ")":
            self.i += 1
            return first, d
        if t != ",":
            raise Decline("ascription")
        self.i += 1
        rest, dr = self.expr_list(")")
        if not rest:
            raise Decline("tuple")
        self.expect(")")
        return A.TupleE([first, *rest], pos=self.pos(i, self.i - 1)), max(d, dr + 1) + 1

    def record(self, i: int) -> tuple[A.Expr, int]:
        """``R { f = e; ... }``."""
        self.i = i + 2
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
        return A.RecordLit(self.v[i], fields, pos=self.pos(i, self.i - 1)), depth + 2

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

    # ---- types ----
    def type_expr(self) -> A.TypeExpr:
        """Named, subrange, enumerated, record, tuple and array types."""
        s = self.i
        k = self.k[s]
        if k in ("bool", "int", "real"):
            self.i += 1
            t = A.TypeExpr("name", (k,), self.tpos(s))
        elif k == "NAME":
            n = self.name()
            if self.v[n] in TYPE_WORDS or self.k[self.i] == "<":
                raise Decline("type application")
            t = A.TypeExpr("name", (self.v[n],), self.tpos(s))
        elif k == "enum":
            self.i += 1
            self.expect("{")
            names = self.name_list()
            self.expect("}")
            t = A.TypeExpr("enum", tuple(n for n, _ in names), self.pos(s, self.i - 1))
        elif k == "struct" or k == "{":
            t = self.struct_type(s)
        elif k == "[":
            self.i += 1
            items = [self.type_expr()]
            while self.k[self.i] == ",":
                self.i += 1
                items.append(self.type_expr())
            self.expect("]")
            t = A.TypeExpr("tuple", tuple(items), self.pos(s, self.i - 1))
        elif k == "subrange":
            self.i += 1
            self.expect("[")
            lo = self.bound()
            self.expect(",")
            hi = self.bound()
            self.expect("]")
            self.expect("of")
            self.expect("int")
            t = A.TypeExpr("subrange", (lo, hi), self.pos(s, self.i - 1))
        else:
            raise Decline(f"type starting with {k!r}")
        while self.k[self.i] == "^":
            self.i += 1
            t = A.TypeExpr("array", (t, self.size()), self.pos(s, self.i - 1))
        return t

    def struct_type(self, s: int) -> A.TypeExpr:
        """``struct { a, b: T; c: U }`` (``struct`` optional)."""
        if self.k[s] == "struct":
            self.i += 1
        self.expect("{")
        fields = []
        while True:
            names = self.name_list()
            self.expect(":")
            texpr = self.type_expr()
            fields += [(n, texpr) for n, _ in names]
            if self.k[self.i] == ";":
                self.i += 1
            if self.k[self.i] == "}":
                break
            if self.k[self.i - 1] != ";":
                raise Decline("record type")
        self.i += 1
        return A.TypeExpr("struct", tuple(fields), self.pos(s, self.i - 1))

    def bound(self) -> A.Expr | None:
        """A subrange's bound: an expression, or ``*`` (none)."""
        if self.k[self.i] == "*":
            self.i += 1
            return None
        e, d = self.expr()
        self.shallow(d, 10)
        return e

    def size(self) -> A.Expr:
        """An array type's size: a number, a name or a parenthesised expression."""
        i = self.i
        k = self.k[i]
        if k == "NUMBER":
            self.i += 1
            return A.Lit(int(self.v[i]), "int", pos=self.tpos(i))
        if k == "NAME":
            n = self.name()
            return A.Var(self.v[n], pos=self.tpos(n))
        self.expect("(")
        e, d = self.expr()
        self.shallow(d, 10)
        self.expect(")")
        return e
