"""The fast path of the RASP parser: lark's tree of a valid program, built without lark.

:class:`Reader` reads the tokens of ``rasp.lark`` with one regular expression per line and the
statements and expressions by recursive descent, and builds the tree lark builds
(``maybe_placeholders``: a missing optional part is ``None``), with lark's tokens and, on every
node, ``meta.line`` and ``meta.column`` where lark's ``propagate_positions`` puts them (the
first token of the node's text, parentheses included) -- the places the interpreter reports.

It never judges a statement wrong: a top-level statement it cannot read (a syntax error, a
lexer quirk it does not reproduce, nesting deeper than :data:`MAX_DEPTH` brackets or blocks,
where its recursion stops) is handed to the caller's ``reference``, which parses that statement
with lark and returns lark's statements or raises lark's error.  ``tests/frontends/rasp/
test_rasp_fastpath.py`` checks the two readings agree.

Tokens are read in chunks of lines, so memory holds the tree and one chunk of tokens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lark import Token, Tree

#: Brackets and blocks nested deeper than this are left to lark (this reader recurses, about a
#: dozen frames a level; programs nested more than ``syntax.MAX_NESTING`` are refused anyway).
MAX_DEPTH = 40

#: ``(ws, token, other)`` triples of one line: lark's terminals (and a comment), or else the
#: character no terminal starts with.
_TOKEN = re.compile(r"""([ \t\f\r]*)(?:(\#.*|[A-Za-z_][A-Za-z_0-9]*|[0-9]+(?:\.[0-9]+)?|"[^"\n]*"|'[^'\n]*'"""
                    r"""|\*\*|==|!=|<=|>=|[-+*/%^()\[\]{},:;=<>])|([^ \t\f\r]))""")
_CMPOPS = frozenset({"==", "!=", "<=", ">=", "<", ">"})
#: Binary operators and their binding levels: or, and, (not: 3), comparisons, + -, * / %.
_BINARY = {"or": 1, "and": 2, "in": 4, "==": 4, "!=": 4, "<=": 4, ">=": 4, "<": 4, ">": 4,
           "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}
_KEYWORDS = frozenset({"def", "for", "in", "load", "return", "if", "else", "or", "and", "not"})
#: lark's rule names (aliases are plain strings in lark's trees, rule names tokens).
_RULE = {name: Token("RULE", name) for name in (
    "start", "assign", "names", "exprs", "expr_stmt", "load", "funcdef", "params", "param",
    "return_stmt", "forloop", "pairs", "pair", "args")}
_END = "\0"  # the token after the last one read so far (the end of a chunk or of the text)
_BAD = "\1"  # a character no token starts with
_CHUNK = 2000  # lines tokenised at a time


class Place:
    """A node's place as lark's ``Meta`` gives it (``line``, ``column``; never empty)."""

    __slots__ = ("line", "column")
    empty = False

    def __init__(self, line: int, column: int) -> None:
        self.line = line
        self.column = column


class Decline(Exception):
    """This statement is not read here: ask lark."""


class _Refill(Exception):
    """The statement runs past the tokens read so far."""


#: A token as read: (text, line, column, offset).
Tok = tuple[str, int, int, int]
#: ``reference(reader, first_token)``: lark's statements from token ``first_token`` on (or lark's
#: error, raised), leaving ``reader.i`` at the token after the text lark read.
Reference = Callable[["Reader", int], list[Tree]]


class Reader:
    """Reads one text; :meth:`read` returns the ``start`` tree, and :attr:`suspect` lists the
    statements (indices in its children) long enough to nest deeper than a limit."""

    def __init__(self, text: str, suspect_tokens: int) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.next_line = 0  # the first line not tokenised yet
        self.line_offset = 0  # its offset in the text
        self.toks: list[Tok] = []
        self.i = 0
        self.depth = 0
        self.suspect_tokens = suspect_tokens
        self.suspect: list[int] = []
        #: The place of the text's first token (lark's place for the whole program).
        self.first: Place | None = None

    # -- tokens ---------------------------------------------------------------------------

    def more(self, lines: int = _CHUNK) -> bool:
        """Tokenise up to ``lines`` more lines after the current tokens (whose end marker is
        dropped); False at the end of the text."""
        toks = self.toks
        if toks and toks[-1][0] == _END:
            end = toks.pop()
        else:
            end = None
        if self.next_line >= len(self.lines):
            toks.append(end or (_END, len(self.lines), 1, len(self.text)))
            return False
        findall = _TOKEN.findall
        stop = min(self.next_line + lines, len(self.lines))
        offset = self.line_offset
        for index in range(self.next_line, stop):
            line = self.lines[index]
            lineno = index + 1
            col = 1
            for ws, tok, other in findall(line):
                col += len(ws)
                if other:  # lark stops here (or before): the rest of the line is not read
                    toks.append((_BAD, lineno, col, offset + col - 1))
                    break
                if tok[0] == "#":
                    break
                toks.append((tok, lineno, col, offset + col - 1))
                col += len(tok)
            offset += len(line) + 1
        self.next_line = stop
        self.line_offset = offset
        if self.first is None:
            real = next((t for t in toks if t[0] != _END), None)
            if real is not None:
                self.first = Place(real[1], real[2])
        toks.append((_END, stop, 1, min(offset, len(self.text))))
        return True

    def _fail(self) -> Decline:
        if self.toks[self.i][0] == _END and self.next_line < len(self.lines):
            raise _Refill
        return Decline()

    def _expect(self, text: str) -> Tok:
        tok = self.toks[self.i]
        if tok[0] != text:
            raise self._fail()
        self.i += 1
        return tok

    def _token(self, kind: str, tok: Tok) -> Token:
        text, line, col, start = tok
        t = str.__new__(Token, text)
        t.type, t.value, t.start_pos, t.line, t.column = kind, text, start, line, col
        t.end_line, t.end_column, t.end_pos = line, col + len(text), start + len(text)
        return t

    def _name(self) -> Token:
        tok = self.toks[self.i]
        c = tok[0][0]
        if not (c.isalpha() or c == "_") or tok[0] in _KEYWORDS:
            raise self._fail()
        self.i += 1
        return self._token("NAME", tok)

    def ends(self, start: int) -> Iterator[tuple[int, int]]:
        """Where the statement at token ``start`` may end, in order: (the token index after,
        the text offset after) each ``;`` and closing ``}`` outside brackets, the end of a line
        with a character no token starts with, and the end of the text."""
        depth, k = 0, start
        while True:
            text, line, col, offset = self.toks[k]
            if text == _END:
                if not self.more():
                    yield k, len(self.text)
                    return
                continue
            k += 1
            if text == _BAD:
                yield k, offset - (col - 1) + len(self.lines[line - 1])
            elif text in "([{":
                depth += 1
            elif text in ")]}":
                depth -= 1
                if depth <= 0 and text == "}":
                    yield k, offset + 1
            elif text == ";" and depth <= 0:
                yield k, offset + 1

    # -- statements -----------------------------------------------------------------------

    def read(self, reference: Reference) -> Tree:
        """The ``start`` tree of the whole text."""
        self.more()
        statements: list[Tree] = []
        while True:
            start = self.i
            if self.toks[start][0] == _END:
                self.toks.clear()
                self.i = 0
                if not self.more():
                    break
                continue
            try:
                self.depth = 0
                got = self._statement()
            except _Refill:
                self._refill(start)
                continue
            except (Decline, RecursionError):
                self.i = start
                got_many = reference(self, start)
                self.suspect.extend(range(len(statements), len(statements) + len(got_many)))
                statements.extend(got_many)
                continue
            if got is not None:
                if self.i - start > self.suspect_tokens:
                    self.suspect.append(len(statements))
                statements.append(got)
        return Tree(_RULE["start"], statements, self.first)

    def _refill(self, start: int) -> None:
        """Drop the tokens before ``start`` and read more lines (twice as many as are held, so
        a long statement is read again only a logarithmic number of times)."""
        held = len(self.toks) - start
        del self.toks[:start]
        self.i = 0
        self.more(max(_CHUNK, held // 4))

    def _statement(self) -> Tree | None:
        tok = self.toks[self.i]
        text = tok[0]
        if text == ";":
            self.i += 1
            return None
        if text == "def":
            return self._funcdef(tok)
        if text == "for":
            return self._forloop(tok)
        if text == "load":
            self.i += 1
            nxt = self.toks[self.i]
            if nxt[0][0] not in "\"'":
                raise self._fail()
            self.i += 1
            self._expect(";")
            return Tree(_RULE["load"], [self._token("STRING", nxt)], Place(tok[1], tok[2]))
        if text in _KEYWORDS and text != "not":
            raise self._fail()
        nxt = self.toks[self.i + 1][0] if self.i + 1 < len(self.toks) else _END
        if (nxt == "=" or nxt == ",") and text not in _KEYWORDS:
            names = self._names()
            self._expect("=")
            exprs = self._exprs()
            self._expect(";")
            return Tree(_RULE["assign"], [names, exprs], names.meta)
        expr, place = self._expr()
        self._expect(";")
        return Tree(_RULE["expr_stmt"], [expr], place)

    def _block(self, until_return: bool) -> tuple[list[Tree], Tree | None]:
        """``{ statements [return exprs ;] }`` after the ``{``, and the closing ``}``."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Decline
        body: list[Tree] = []
        ret = None
        while True:
            tok = self.toks[self.i]
            if until_return and tok[0] == "return":
                self.i += 1
                exprs = self._exprs()
                self._expect(";")
                ret = Tree(_RULE["return_stmt"], [exprs], Place(tok[1], tok[2]))
                self._expect("}")
                break
            if not until_return and tok[0] == "}":
                self.i += 1
                break
            got = self._statement()
            if got is not None:
                body.append(got)
        self.depth -= 1
        return body, ret

    def _funcdef(self, tok: Tok) -> Tree:
        self.i += 1
        name = self._name()
        self._expect("(")
        params = None
        if self.toks[self.i][0] != ")":
            items = []
            while True:
                pname = self._name()
                default = None
                if self.toks[self.i][0] == "=":
                    self.i += 1
                    default = self._expr()[0]
                items.append(Tree(_RULE["param"], [pname, default], Place(pname.line, pname.column)))
                if self.toks[self.i][0] != ",":
                    break
                self.i += 1
            params = Tree(_RULE["params"], items, items[0].meta)
        self._expect(")")
        self._expect("{")
        body, ret = self._block(until_return=True)
        return Tree(_RULE["funcdef"], [name, params, *body, ret], Place(tok[1], tok[2]))

    def _forloop(self, tok: Tok) -> Tree:
        self.i += 1
        names = self._names()
        self._expect("in")
        iterable = self._expr()[0]
        self._expect("{")
        body, _ = self._block(until_return=False)
        return Tree(_RULE["forloop"], [names, iterable, *body], Place(tok[1], tok[2]))

    def _names(self) -> Tree:
        first = self._name()
        names = [first]
        while self.toks[self.i][0] == ",":
            self.i += 1
            names.append(self._name())
        return Tree(_RULE["names"], names, Place(first.line, first.column))

    def _exprs(self) -> Tree:
        expr, place = self._expr()
        exprs = [expr]
        while self.toks[self.i][0] == ",":
            self.i += 1
            exprs.append(self._expr()[0])
        return Tree(_RULE["exprs"], exprs, place)

    # -- expressions: each returns (tree, place of its first token, parentheses included) --

    def _expr(self) -> tuple[Tree, Place]:
        """``or_expr if or_expr else ...`` chains (right-nested), read in a loop."""
        yes, place = self._binary(1)
        if self.toks[self.i][0] != "if":
            return yes, place
        arms = []
        while self.toks[self.i][0] == "if":
            self.i += 1
            cond = self._binary(1)[0]
            self._expect("else")
            arms.append((yes, place, cond))
            yes, place = self._binary(1)
        result = yes
        for yes_, place_, cond in reversed(arms):
            result = Tree("ifelse", [yes_, cond, result], place_)
        return result, arms[0][1]

    def _binary(self, lowest: int) -> tuple[Tree, Place]:
        """Operators binding at least as tightly as ``lowest`` (:data:`_BINARY`), by
        precedence climbing; ``not`` starts an operand at its level (3) or looser."""
        tok = self.toks[self.i]
        if tok[0] == "not" and lowest <= 3:
            nots = []
            while tok[0] == "not":
                nots.append(Place(tok[1], tok[2]))
                self.i += 1
                tok = self.toks[self.i]
            left, place = self._binary(4)
            for p in reversed(nots):
                left = Tree("not_", [left], p)
            place = nots[0]
        else:
            left, place = self._unary()
        compared = False
        while True:
            tok = self.toks[self.i]
            level = _BINARY.get(tok[0])
            if level is None or level < lowest:
                return left, place
            self.i += 1
            if level == 4:
                if compared:
                    raise self._fail()  # comparisons do not chain
                compared = True
                if tok[0] == "in":
                    left = Tree("member", [left, self._binary(5)[0]], place)
                else:
                    left = Tree("compare", [left, self._token("CMPOP", tok), self._binary(5)[0]],
                                place)
            elif level >= 5:
                op = self._token("ADDOP" if level == 5 else "MULOP", tok)
                left = Tree("binop", [left, op, self._binary(level + 1)[0]], place)
            else:
                left = Tree("or_" if level == 1 else "and_", [left, self._binary(level + 1)[0]],
                            place)

    def _unary(self) -> tuple[Tree, Place]:
        """``- + x`` prefixes and ``a ^ b ^ c`` (right-nested, its right side a unary), in a
        loop."""
        pending: list[tuple[str, Tree | Token, Place]] = []
        while True:
            tok = self.toks[self.i]
            while tok[0] == "+" or tok[0] == "-":
                self.i += 1
                pending.append(("unop", self._token("ADDOP", tok), Place(tok[1], tok[2])))
                tok = self.toks[self.i]
            base, place = self._postfix()
            if self.toks[self.i][0] not in ("^", "**"):
                break
            self.i += 1
            pending.append(("pow", base, place))
        for kind, what, where in reversed(pending):
            base = Tree(kind, [what, base], where)
            place = where
        return base, place

    def _postfix(self) -> tuple[Tree, Place]:
        tree, place = self._atom()
        while True:
            text = self.toks[self.i][0]
            if text == "(":
                self.i += 1
                args = None
                if self.toks[self.i][0] != ")":
                    args = self._args()
                self._expect(")")
                tree = Tree("call", [tree, args], place)
            elif text == "[":
                self.i += 1
                index = self._nested()[0]
                self._expect("]")
                tree = Tree("index", [tree, index], place)
            else:
                return tree, place

    def _args(self) -> Tree:
        items = []
        while True:
            tok = self.toks[self.i]
            text = tok[0]
            if text == _END:
                raise self._fail()
            if text in _CMPOPS and self.toks[self.i + 1][0] in (",", ")"):
                self.i += 1
                op = self._token("CMPOP", tok)
                items.append(Tree("oparg", [op], Place(tok[1], tok[2])))
            elif self.toks[self.i + 1][0] == "=" and (text[0].isalpha() or text[0] == "_"):
                name = self._name()
                self.i += 1
                items.append(Tree("kwarg", [name, self._nested()[0]], Place(tok[1], tok[2])))
            else:
                expr, place = self._nested()
                items.append(Tree("posarg", [expr], place))
            if self.toks[self.i][0] != ",":
                return Tree(_RULE["args"], items, items[0].meta)
            self.i += 1

    def _nested(self) -> tuple[Tree, Place]:
        """An expression inside brackets: one level deeper."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Decline
        got = self._expr()
        self.depth -= 1
        return got

    def _atom(self) -> tuple[Tree, Place]:
        tok = self.toks[self.i]
        text = tok[0]
        c = text[0]
        if c.isdigit():
            self.i += 1
            place = Place(tok[1], tok[2])
            return Tree("number", [self._token("NUMBER", tok)], place), place
        if c == '"' or c == "'":
            self.i += 1
            place = Place(tok[1], tok[2])
            return Tree("string", [self._token("STRING", tok)], place), place
        if c.isalpha() or c == "_":
            name = self._name()
            place = Place(tok[1], tok[2])
            return Tree("var", [name], place), place
        place = Place(tok[1], tok[2])
        if text == "(":
            self.i += 1
            tree = self._nested()[0]
            self._expect(")")
            return tree, place
        if text == "[":
            self.i += 1
            if self.toks[self.i][0] == "]":
                self.i += 1
                return Tree("list", [None], place), place
            first, first_place = self._nested()
            if self.toks[self.i][0] == "for":
                self.i += 1
                names = self._names()
                self._expect("in")
                iterable = self._nested()[0]
                self._expect("]")
                return Tree("listcomp", [first, names, iterable], place), place
            exprs = [first]
            while self.toks[self.i][0] == ",":
                self.i += 1
                exprs.append(self._nested()[0])
            self._expect("]")
            return Tree("list", [Tree(_RULE["exprs"], exprs, first_place)], place), place
        if text == "{":
            self.i += 1
            if self.toks[self.i][0] == "}":
                self.i += 1
                return Tree("dict", [None], place), place
            key, key_place = self._nested()
            self._expect(":")
            value = self._nested()[0]
            if self.toks[self.i][0] == "for":
                self.i += 1
                names = self._names()
                self._expect("in")
                iterable = self._nested()[0]
                self._expect("}")
                return Tree("dictcomp", [key, value, names, iterable], place), place
            pairs = [Tree(_RULE["pair"], [key, value], key_place)]
            while self.toks[self.i][0] == ",":
                self.i += 1
                k, k_place = self._nested()
                self._expect(":")
                pairs.append(Tree(_RULE["pair"], [k, self._nested()[0]], k_place))
            self._expect("}")
            return Tree("dict", [Tree(_RULE["pairs"], pairs, key_place)], place), place
        raise self._fail()
