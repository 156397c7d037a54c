"""The fast path's token cursor and types (``lucent.lark``'s ``type_expr``): named, machine,
subrange, subtype, enumerated, record, tuple and array types and type applications, the type
parameters and type arguments of polymorphic declarations and calls, and the machine-integer
specifications that conversions share with types.  :class:`~.fastexpr.ExprParser` builds on it.
"""

from __future__ import annotations

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import machine
from kinduct.frontends.lucent.core.limits import MAX_NESTING
from kinduct.frontends.lucent.syntax.lexer import Decline, Tokens

Pos = A.Pos

#: The deepest parse tree the fast path builds (lark refuses beyond ``MAX_NESTING``; the
#: margin covers the declaration levels above an expression), and how deeply its methods
#: may recurse.
MAX_DEPTH = MAX_NESTING - 60
MAX_RECURSION = 400
#: How deeply types may nest in the fast path (each level: at most two levels of lark's tree).
MAX_TYPE_NESTING = 40
#: The depth of lark's tree for a type, at most (an expression holding a type counts it).
TYPE_DEPTH = 12 + 2 * MAX_TYPE_NESTING

#: The words that lark reads as keywords where a type starts (whether Kind 2 reserves them or
#: not: :data:`~.lexer.SOFT`).
TYPE_WORDS = frozenset({"set", "map"})
MACHINE = frozenset(machine.NAMES)


class TypeParser:
    """Tokens, positions and types; ``i`` is the next token."""

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
        self.tnest = 0
        #: The depth of the deepest predicate of a declared name met so far (a quantifier's
        #: variables are inside an expression: its depth counts them).
        self.pred_depth = 0

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

    def type_base(self) -> int:
        """The depth of an expression inside the current type, in lark's tree, at most."""
        return 12 + 2 * self.tnest

    @staticmethod
    def shallow(depth: int, base: int) -> None:
        """Decline a tree deeper than the fast path builds."""
        if base + depth > MAX_DEPTH:
            raise Decline("deeply nested")

    def expr(self) -> tuple[A.Expr, int]:
        """An expression and its depth (:class:`~.fastexpr.ExprParser`)."""
        raise NotImplementedError

    # ---- types ----
    def type_expr(self) -> A.TypeExpr:
        """A type (``lucent.lark``'s ``type_expr``, sets and maps declined)."""
        self.tnest += 1
        if self.tnest > MAX_TYPE_NESTING:
            raise Decline("deeply nested type")
        s = self.i
        k = self.k[s]
        if k in ("bool", "int", "real"):
            self.i += 1
            t = A.TypeExpr("name", (k,), self.tpos(s))
        elif self.v[s] in TYPE_WORDS and (k == "NAME" or k == self.v[s]):  # reserved or not
            self.i += 1
            self.expect("<")
            args = self.type_list()
            if len(args) != (1 if self.v[s] == "set" else 2):
                raise Decline(f"{self.v[s]} type")
            t = A.TypeExpr(self.v[s], args, self.pos(s, self.i - 1))
        elif k == "NAME":
            n = self.name()
            if self.k[self.i] == "<":
                self.i += 1
                args = self.type_list()
                t = A.TypeExpr("app", (self.v[n], args), self.pos(s, self.i - 1))
            else:
                t = A.TypeExpr("name", (self.v[n],), self.tpos(s))
        elif k in MACHINE or k == "uint" or k == "sint":
            t = A.TypeExpr("machine", (self.machine_spec(False),), self.pos(s, self.i - 1))
        elif k == "subtype":
            self.i += 1
            self.expect("{")
            n = self.name()
            self.expect(":")
            texpr = self.type_expr()
            self.expect("|")
            e, d = self.expr()
            self.shallow(d, self.type_base())
            self.expect("}")
            t = A.TypeExpr("subtype", (self.v[n], texpr, e), self.pos(s, self.i - 1))
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
        self.tnest -= 1
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
        self.shallow(d, self.type_base())
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
        self.shallow(d, self.type_base())
        self.expect(")")
        return e

    def type_list(self) -> tuple[A.TypeExpr, ...]:
        """``T1; T2 ...>`` after ``<`` (``,`` separates too), the closing ``>`` consumed."""
        items = [self.type_expr()]
        while self.k[self.i] in (";", ","):
            self.i += 1
            items.append(self.type_expr())
        self.expect(">")
        return tuple(items)

    def type_args(self) -> list[A.TypeExpr]:
        """``@<T1; T2>``."""
        self.expect("@")
        self.expect("<")
        return list(self.type_list())

    def type_params(self) -> list[str]:
        """``<T1; T2>`` after a declared name."""
        self.expect("<")
        names = [self.v[self.name()]]
        while self.k[self.i] in (";", ","):
            self.i += 1
            names.append(self.v[self.name()])
        self.expect(">")
        return names

    def machine_spec(self, conversion: bool) -> machine.T:
        """``int8`` ... ``uint64``, ``uint<N>``/``sint<N>`` (a type), ``uint@<N>``/``sint@<N>``
        (a conversion: ``conversion``)."""
        i = self.i
        k = self.k[i]
        self.i += 1
        if k in MACHINE:
            t = machine.NAMES[k]
            return machine.machine(machine.signed(t), t.size)
        if conversion:
            self.expect("@")
        self.expect("<")
        n = int(self.v[self.expect("NUMBER")])
        self.expect(">")
        if not 1 <= n <= machine.MAX_WIDTH:
            raise Decline("machine integer width")  # lark reports it
        return machine.machine(k == "sint", n)

    def params(self) -> list[A.Param]:
        out: list[A.Param] = []
        while True:
            const = self.k[self.i] == "const"
            if const:
                self.i += 1
            names = self.name_list()
            self.expect(":")
            texpr = self.type_expr()
            pred = self.predicate()
            out += [A.Param(n, texpr, p, const, pred) for n, p in names]
            if self.k[self.i] != ";":
                return out
            self.i += 1
            if self.k[self.i] == ")":
                return out

    def predicate(self) -> A.Expr | None:
        """``| e`` after a declared type, or nothing."""
        if self.k[self.i] != "|":
            return None
        self.i += 1
        e, d = self.expr()
        self.shallow(d, 5)
        self.pred_depth = max(self.pred_depth, d)
        return e
