"""The fast path of Lucent parsing: declarations, statements and contracts by recursive descent
over :mod:`.lexer`'s tokens (expressions and types: :mod:`.fastexpr`), giving what lark's tree
and ``parser``'s builder give for the same text, positions included.

:func:`parse_decls` raises :class:`~.lexer.Decline` on anything it does not handle and on any
syntax error: the caller then parses the text with lark, which stays the reference grammar and
reports every error.  Handled: type declarations (also polymorphic ones) and datatypes,
constants, nodes and functions (``transparent``/``opaque``, ``imported``, type parameters),
contracts (``(*@contract … *)``, ``con … noc``, ``contract`` declarations) with ghost variables
and constants, ``assume``/``guarantee`` (``weakly``), modes and imports, ``include``;
equations, ``assert``, ``check`` (``provided``, ``reachable``), Kind 2's
``--%PROPERTY``/``--%MAIN`` annotations, ``if``, ``frame``, ``when`` and ``cond`` blocks.
Declined besides syntax errors: a machine integer width out of kinduct's limits, an array
element initialised together with others in a frame (lark reports both), and nesting deeper
than the fast path is sure lark accepts.
"""

from __future__ import annotations

from typing import Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.syntax.fastexpr import ExprParser
from kinduct.frontends.lucent.syntax.lexer import EOF, Decline, tokenize
from kinduct.frontends.lucent.syntax.numerals import split_params

#: A statement's depth in lark's tree: start, node, body, statement.
_STMT_DEPTH = 4


def parse_decls(text: str, file: str) -> list[Any]:
    """The declarations of ``text`` as ``parser``'s builder gives them (type and constant
    declarations in lists, nodes and contracts, ``("include", name, pos)``); :class:`Decline`
    when the fast path does not take the text."""
    return _DeclParser(text, file).decls()


class _DeclParser(ExprParser):
    def __init__(self, text: str, file: str) -> None:
        super().__init__(text, file, tokenize(text))

    def src(self, e: A.Expr) -> str:
        return self.text[e.pos.start:e.pos.end].strip()

    def decls(self) -> list[Any]:
        out: list[Any] = []
        k = self.k
        while k[self.i] != EOF:
            t = k[self.i]
            if t in ("node", "function", "transparent", "opaque"):
                out.append(self.node())
            elif t == "const":
                out.append(self.const_decl())
            elif t == "type":
                out.append(self.type_decl())
            elif t == "contract":
                out.append(self.contract_decl())
            elif t == "include":
                s = self.i
                self.i += 1
                name = self.v[self.expect("STRING")][1:-1]
                if k[self.i] == ";":
                    self.i += 1
                out.append(("include", name, self.pos(s, self.i - 1)))
            elif t == "NAME" and self.v[self.i] == "datatype":
                out.append(self.datatype())
            else:
                raise Decline(f"declaration starting with {t!r}")
        return out

    # ---- declarations ----
    def type_decl(self) -> list[A.TypeDecl]:
        self.i += 1
        names = self.name_list()
        if self.k[self.i] == "<" and len(names) == 1:
            params = self.type_params()
            self.expect("=")
            texpr = self.type_expr()
            self.expect(";")
            return [A.TypeDecl(names[0][0], texpr, names[0][1], params)]
        texpr = None
        if self.k[self.i] == "=":
            self.i += 1
            texpr = self.type_expr()
        self.expect(";")
        return [A.TypeDecl(n, texpr, p) for n, p in names]

    def datatype(self) -> list[A.TypeDecl]:
        s = self.i
        self.i += 1
        n = self.name()
        params = self.type_params() if self.k[self.i] == "<" else []
        self.expect("=")
        if self.k[self.i] == "|":
            self.i += 1
        ctors = [self.constructor()]
        while self.k[self.i] == "|":
            self.i += 1
            ctors.append(self.constructor())
        self.expect(";")
        adt = A.TypeExpr("adt", tuple(ctors), self.pos(s, self.i - 1))
        return [A.TypeDecl(self.v[n], adt, self.tpos(n), params)]

    def constructor(self) -> tuple[str, tuple, A.Pos]:
        n = self.name()
        fields = []
        if self.k[self.i] == "(":
            self.i += 1
            while self.k[self.i] != ")":
                if fields:
                    self.expect(",")
                f = self.name()
                self.expect(":")
                fields.append((self.v[f], self.type_expr()))
            self.i += 1
        return (self.v[n], tuple(fields), self.tpos(n))

    def const_decl(self) -> list[A.ConstDecl]:
        s = self.i
        self.i += 1
        decls = []
        while True:
            names = self.name_list()
            texpr, value = self.typed_value()
            self.expect(";")
            decls += [A.ConstDecl(n, texpr, value, p) for n, p in names]
            # lark reads 'datatype' as the keyword where a declaration may start
            if self.k[self.i] != "NAME" or self.v[self.i] == "datatype":
                break
        pos = self.pos(s, self.i - 1)
        for d in decls:
            d.decl_pos = pos
        return decls

    def typed_value(self) -> tuple[A.TypeExpr | None, A.Expr | None]:
        """``[: T] [= e]``."""
        texpr = value = None
        if self.k[self.i] == ":":
            self.i += 1
            texpr = self.type_expr()
        if self.k[self.i] == "=":
            self.i += 1
            value, d = self.expr()
            self.shallow(d, 3)
        return texpr, value

    def header(self, s: int) -> tuple[list[A.Param], list[A.Param]]:
        """``(params) returns (params) [;]`` of the declaration starting at token ``s``."""
        self.expect("(")
        groups = []
        if self.k[self.i] != ")":
            groups.append(self.params())
        self.expect(")")
        self.expect("returns")
        self.expect("(")
        if self.k[self.i] != ")":
            groups.append(self.params())
        self.expect(")")
        if self.k[self.i] == ";":
            self.i += 1
        # lark reads which list is missing from the declaration's text (parser._split_params)
        return split_params(self.text[self.starts[s]:self.ends[self.i - 1]], groups)

    def node(self) -> A.NodeDecl:
        s = self.i
        modifier = None
        if self.k[s] in ("transparent", "opaque"):
            modifier = self.k[s]
            self.i += 1
        kind = self.k[self.i]
        if kind not in ("node", "function"):
            raise Decline("node modifier")
        self.i += 1
        imported = self.k[self.i] == "imported"
        if imported:
            self.i += 1
        n = self.name()
        tparams = self.type_params() if self.k[self.i] == "<" else []
        ins, outs = self.header(s)
        contract: list[A.ContractItem] = []
        while self.k[self.i] in ("con", "CONTRACT_OPEN"):
            contract += self.contract_block()
        locals_: list[A.Param] = []
        consts: list[tuple] = []
        body: list = []
        if not imported:
            while True:
                t = self.k[self.i]
                if t == "var":
                    locals_ += self.var_section()
                elif t == "const":
                    consts += self.const_section()
                else:
                    break
            self.expect("let")
            body = self.block(("tel",), _STMT_DEPTH - 1)
            self.i += 1
            if self.k[self.i] in (";", "."):
                self.i += 1
        return A.NodeDecl(self.v[n], kind, imported, ins, outs, locals_, consts, body, contract,
                          self.tpos(n), modifier, tparams)

    def var_section(self) -> list[A.Param]:
        s = self.i
        self.i += 1
        params: list[A.Param] = []
        while True:
            names = self.name_list()
            self.expect(":")
            texpr = self.type_expr()
            pred = self.predicate()
            self.expect(";")
            params += [A.Param(n, texpr, p, False, pred) for n, p in names]
            if self.k[self.i] != "NAME":
                break
        pos = self.pos(s, self.i - 1)
        for p in params:
            p.decl_pos = pos
        return params

    def const_section(self) -> list[tuple]:
        s = self.i
        self.i += 1
        items = []
        while True:
            names = self.name_list()
            texpr, value = self.typed_value()
            self.expect(";")
            items += [(n, texpr, value) for n, _ in names]
            if self.k[self.i] != "NAME":
                break
        pos = self.pos(s, self.i - 1)
        return [(*item, pos) for item in items]

    def contract_decl(self) -> A.NodeDecl:
        s = self.i
        self.i += 1
        n = self.name()
        tparams = self.type_params() if self.k[self.i] == "<" else []
        ins, outs = self.header(s)
        self.expect("let")
        items = self.contract_items("tel")
        self.i += 1
        if self.k[self.i] == ";":
            self.i += 1
        return A.NodeDecl(self.v[n], "contract", False, ins, outs, [], [], [], items, self.tpos(n),
                          type_params=tparams)

    # ---- contracts ----
    def contract_block(self) -> list[A.ContractItem]:
        if self.k[self.i] == "con":
            self.i += 1
            items = self.contract_items("noc")
            self.i += 1
            if self.k[self.i] == ";":
                self.i += 1
            return items
        self.i += 1
        items = self.contract_items("CONTRACT_CLOSE")
        self.i += 1
        return items

    def contract_items(self, close: str) -> list[A.ContractItem]:
        """Contract items up to the token ``close`` (not consumed)."""
        items = []
        while self.k[self.i] != close:
            items.append(self.contract_item())
        return items

    def contract_item(self) -> A.ContractItem:
        s = self.i
        t = self.k[s]
        if t == "var":
            self.i += 1
            ghosts = []
            while True:
                names = self.name_list()
                self.expect(":")
                texpr = self.type_expr()
                ghosts += [(n, texpr, p) for n, p in names]
                if self.k[self.i] != ",":
                    break
                self.i += 1
            self.expect("=")
            e = self.item_expr()
            self.expect(";")
            if len(ghosts) == 1:
                name, texpr, pos = ghosts[0]
                return A.ContractItem("var", name, pos, expr=e, type_expr=texpr)
            return A.ContractItem("vars", ghosts[0][0], ghosts[0][2], expr=e, ghosts=ghosts)
        if t == "const":
            self.i += 1
            n = self.name()
            texpr = None
            if self.k[self.i] == ":":
                self.i += 1
                texpr = self.type_expr()
            self.expect("=")
            e = self.item_expr()
            self.expect(";")
            return A.ContractItem("const", self.v[n], self.tpos(n), expr=e, type_expr=texpr)
        if self.soft("assume") or self.soft("guarantee"):
            kind = self.v[s]
            weak = self.soft("weakly")
            name = self.string()
            e = self.item_expr()
            self.expect(";")
            return A.ContractItem(kind, name, self.pos(s, self.i - 1), expr=e, weak=weak)
        if self.soft("mode"):
            return self.mode(s)
        if t == "import":
            self.i += 1
            n = self.name()
            targs = self.type_args() if self.k[self.i] == "@" else None
            self.expect("(")
            args, d = self.expr_list(")")
            self.shallow(d, 6)
            self.expect(")")
            self.expect("returns")
            self.expect("(")
            outs = [] if self.k[self.i] == ")" else self.name_list()
            self.expect(")")
            self.expect(";")
            return A.ContractItem("import", self.v[n], self.pos(s, self.i - 1), args=args,
                                  outs=[o for o, _ in outs], type_args=targs)
        raise Decline(f"contract item starting with {t!r}")

    def mode(self, s: int) -> A.ContractItem:
        n = self.name()
        item = A.ContractItem("mode", self.v[n], A.NOPOS)
        self.expect("(")
        while self.k[self.i] != ")":
            c = self.i
            if self.soft("require"):
                clauses = item.requires
            elif self.soft("ensure"):
                clauses = item.ensures
            else:
                raise Decline("mode clause")
            name = self.string()
            e = self.item_expr()
            self.expect(";")
            clauses.append((name, e, self.pos(c, self.i - 1)))
        self.i += 1
        if self.k[self.i] == ";":
            self.i += 1
        item.pos = self.pos(s, self.i - 1)
        return item

    def item_expr(self) -> A.Expr:
        e, d = self.expr()
        self.shallow(d, _STMT_DEPTH + 1)
        return e

    def string(self) -> str | None:
        """An optional string literal's text."""
        i = self.i
        if self.k[i] != "STRING":
            return None
        self.i = i + 1
        return self.v[i][1:-1]

    # ---- statements ----
    def block(self, ends: tuple[str, ...], base: int) -> list:
        """Statements up to one of the tokens ``ends`` (not consumed)."""
        self.shallow(0, base + 1)
        out: list = []
        k = self.k
        while k[self.i] not in ends:
            stmt = self.statement(base + 1)
            if stmt is not None:
                out.append(stmt)
        return out

    def statement(self, base: int) -> Any:
        s = self.i
        t = self.k[s]
        if t == "NAME" or t == "(":
            return self.equation(base)
        if t == "check":
            return self.check(base)
        if t == "assert":
            self.i += 1
            e = self.stmt_expr(base)
            self.expect(";")
            return A.Assert(e, self.pos(s, self.i - 1))
        if t == "PROPERTY" or t == "BLOCK_PROPERTY":
            self.i += 1
            if t == "BLOCK_PROPERTY" and self.k[self.i] == ":":
                self.i += 1
            name = self.string()
            e = self.stmt_expr(base)
            self.expect(";")
            if t == "BLOCK_PROPERTY":
                self.expect("CONTRACT_CLOSE")
            return A.Check(name, e, e.pos, kind="invariant", text=self.src(e))
        if t == "MAIN" or t == "BLOCK_MAIN":
            self.i += 1
            main = True
            if self.k[self.i] == ":":
                self.i += 1
                if self.k[self.i] not in ("true", "false"):
                    raise Decline("MAIN annotation")
                main = self.k[self.i] == "true"
                self.i += 1
            if t == "BLOCK_MAIN":
                self.expect(";")
                self.expect("CONTRACT_CLOSE")
            elif self.k[self.i] == ";":
                self.i += 1
            return A.MainAnnot(self.pos(s, self.i - 1)) if main else None
        if t == "if":
            return self.if_block(base)
        if t == "when":
            self.i += 1
            cond = self.stmt_expr(base + 1)
            self.expect("then")
            then = self.block(("else", "end"), base + 1)
            orelse = None
            if self.k[self.i] == "else":
                self.i += 1
                orelse = self.block(("end",), base + 1)
            return self.lazy_end(s, [(cond, then)], orelse, "when")
        if t == "cond":
            self.i += 1
            cases = []
            while self.k[self.i] == "|":
                self.i += 1
                c = self.stmt_expr(base + 2)
                self.expect(":")
                cases.append((c, self.block(("|", "otherwise", "end"), base + 2)))
            if not cases:
                raise Decline("cond without cases")
            orelse = None
            if self.k[self.i] == "otherwise":
                self.i += 1
                self.expect(":")
                orelse = self.block(("end",), base + 1)
            return self.lazy_end(s, cases, orelse, "cond")
        if t == "frame":
            return self.frame(base)
        raise Decline(f"statement starting with {t!r}")

    def lazy_end(self, s: int, branches: list, orelse: list | None, kind: str) -> A.LazyBlock:
        """``end [;]`` of a ``when`` or ``cond`` block starting at token ``s``."""
        self.expect("end")
        if self.k[self.i] == ";":
            self.i += 1
        return A.LazyBlock(branches, orelse, self.pos(s, self.i - 1), kind)

    def frame(self, base: int) -> A.FrameBlock:
        s = self.i
        self.i += 1
        self.expect("(")
        names = [n for n, _ in self.name_list()]
        self.expect(")")
        inits = []
        while self.k[self.i] != "let":
            f = self.i
            paren, lhs = self.lhs()
            if not lhs:
                raise Decline("empty initialisation")
            self.expect("=")
            rhs = self.stmt_expr(base + 1)
            self.expect(";")
            if paren or len(lhs) > 1:  # initial values assigned together
                if any(indices for _, _, indices in lhs):
                    raise Decline("array element initialised with others")  # lark reports it
                eq = A.Equation([(name, pos) for name, pos, _ in lhs], rhs, self.pos(f, self.i - 1))
                inits.append((naming.TUPLE_INIT, eq, self.pos(f, self.i - 1)))
                continue
            name, pos, indices = lhs[0]
            if indices:  # an initial value given element by element
                rhs = A.ArrayDef(name, indices, rhs, pos)
            inits.append((name, rhs, pos))
        self.i += 1
        body = self.block(("tel",), base + 1)
        self.i += 1
        if self.k[self.i] == ";":
            self.i += 1
        return A.FrameBlock(names, inits, body, self.pos(s, self.i - 1))

    def stmt_expr(self, base: int) -> A.Expr:
        e, d = self.expr()
        self.shallow(d, base)
        return e

    def equation(self, base: int) -> A.Equation | A.ArrayDef:
        s = self.i
        _, lhs = self.lhs()
        self.expect("=")
        rhs = self.stmt_expr(base)
        self.expect(";")
        indexed = [item for item in lhs if item[2]]
        if not indexed:
            return A.Equation([(name, pos) for name, pos, _ in lhs], rhs, self.pos(s, self.i - 1))
        name, pos, indices = indexed[0]
        return A.ArrayDef(name, indices, rhs, pos, alone=len(lhs) == 1)

    def lhs(self) -> tuple[bool, list[tuple[str, A.Pos, list[str]]]]:
        """``a, b[i]`` or ``(a, b)`` or ``()``: whether in parentheses, and the names with their
        positions and indices."""
        lhs = []
        paren = self.k[self.i] == "("
        if paren:
            self.i += 1
        if not (paren and self.k[self.i] == ")"):
            while True:
                n = self.name()
                indices = []
                while self.k[self.i] == "[":
                    self.i += 1
                    indices.append(self.v[self.name()])
                    self.expect("]")
                lhs.append((self.v[n], self.tpos(n), indices))
                if self.k[self.i] != ",":
                    break
                self.i += 1
        if paren:
            self.expect(")")
        return paren, lhs

    def check(self, base: int) -> A.Check:
        s = self.i
        self.i += 1
        if self.k[self.i] == "reachable":
            self.i += 1
            name = self.string()
            e = self.stmt_expr(base)
            bounds = {}
            while self.k[self.i] in ("from", "within", "at"):
                kw = self.k[self.i]
                self.i += 1
                bounds[kw] = self.stmt_expr(base)
            self.expect(";")
            chk = A.Check(name, e, self.pos(s, self.i - 1), kind="reachable", text=self.src(e))
            chk.bounds.update(bounds)
            return chk
        name = self.string()
        e = self.stmt_expr(base)
        if self.k[self.i] == "provided":
            self.i += 1
            provided = self.stmt_expr(base)
            self.expect(";")
            chk = A.Check(name, e, self.pos(s, self.i - 1), kind="provided", text=self.src(e))
            chk.provided = provided
            return chk
        self.expect(";")
        return A.Check(name, e, self.pos(s, self.i - 1), kind="invariant", text=self.src(e))

    def if_block(self, base: int) -> A.IfBlock:
        s = self.i
        self.i += 1
        cond = self.stmt_expr(base + 1)
        self.expect("then")
        branches = [(cond, self.block(("elsif", "else", "fi"), base + 1))]
        while self.k[self.i] == "elsif":
            self.i += 1
            c = self.stmt_expr(base + 2)
            self.expect("then")
            branches.append((c, self.block(("elsif", "else", "fi"), base + 2)))
        orelse = None
        if self.k[self.i] == "else":
            self.i += 1
            orelse = self.block(("fi",), base + 2)
        self.expect("fi")
        return A.IfBlock(branches, orelse, self.pos(s, self.i - 1))
