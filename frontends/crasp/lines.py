"""The fast path of the C-RASP parser: one statement per line, read without lark.

A program is a sequence of lines, each blank, a comment, the alphabet or one statement
(``crasp.lark``: statements are separated by line ends, and nothing spans two lines).  This
module reads the lines of a *valid* program in one pass and builds the same statements as
lark's parse tree followed by :class:`~kinduct.frontends.crasp.parser.TreeBuilder` would: the same
nodes, positions and window/period parameter places (a binary node is placed at the first
token of its left operand, parentheses included, as lark's ``propagate_positions`` does).

It never judges a line wrong: a line it cannot read (a syntax error, or one of the lexer's
quirks it does not reproduce, or two rules on one line) is handed to the
``reference`` callback, which parses that line with lark in a window that keeps its line and
column and either returns the statement or raises lark's located error.  So lark stays the
definition of the language and the author of every syntax error message, and this module only
has to accept nothing that lark rejects and to build what lark builds (checked against lark by
``tests/frontends/crasp/test_crasp_fastpath.py``).

Expressions are parsed with explicit operator and operand stacks, so any nesting of
parentheses is read without recursion.  :func:`limit_error` walks a statement in the order of
the old parse-tree walk to find the first node beyond the depth limit or literal beyond the digit
limit; it only runs on lines long enough (or with literals long enough) to break a limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kinduct.frontends.crasp import ast as A

#: ``(ws, token)`` pairs of one line (without its line end): words, integers, quoted letters,
#: operators and a trailing comment.  Anything else ends the matches early.
_TOKEN = re.compile(r"""([ \t]*)(--.*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|'[^'\s]+'|"[^"\s]+"|:=|<=|>=|!=|\|\||&&"""
                    r"""|[-+#()\[\],?:=<>≤≥≠∨∧¬!⊤⊥])""")

# Operator frames: (precedence, kind, ...).  Boundaries ("(", "min", "?") have precedence -1
# and are never reduced by an operator; a cond whose else branch is being read has 0.
_GROUP, _CALL, _THEN, _ELSE, _NOT, _COUNT, _WINDOW, _BINARY, _COMPARE = range(9)

_BINARY_OPS = {"or": (1, A.Or), "∨": (1, A.Or), "||": (1, A.Or),
               "and": (2, A.And), "∧": (2, A.And), "&&": (2, A.And),
               "+": (5, A.Add), "-": (5, A.Sub)}
_COMPARISONS = {"<=": "<=", ">=": ">=", "!=": "!=", "=": "=", "<": "<", ">": ">",
                "≤": "<=", "≥": ">=", "≠": "!="}
_NOTS = frozenset({"not", "¬", "!"})
_BOOLS = {"true": True, "⊤": True, "false": False, "⊥": False}
#: Words that lark's contextual lexer reads in a way this module does not reproduce here.
_ODD_OPERANDS = frozenset({"and", "or", "alphabet", "accept"})


class Decline(Exception):
    """This line is not read here: ask the reference parser."""


#: A statement as :class:`~kinduct.frontends.crasp.parser.TreeBuilder` returns it.
Item = tuple
#: ``reference(line_number, line, alphabet_line_number, alphabet_line)``: lark's statements on
#: that line (or lark's error, raised); the alphabet's line is None until it is read.
Reference = Callable[[int, str, int | None, str], list[Item]]


class Reader:
    """Reads a program's lines; the results are :attr:`items`, :attr:`params` (window and
    period parameter places by node id, as ``TreeBuilder`` keeps them), :attr:`long_ints` (integer
    literals over ``max_digits``, by node id) and :attr:`suspect` (indices in :attr:`items`, in
    order, of the statements that may break a limit)."""

    def __init__(self, max_depth: int, max_digits: int) -> None:
        self.max_depth = max_depth
        self.max_digits = max_digits
        self.items: list[Item] = []
        self.params: dict[int, tuple[A.Pos, A.Pos]] = {}
        self.long_ints: dict[int, list[tuple[int, A.Pos]]] = {}
        self.suspect: list[int] = []
        self.alphabet_line: int | None = None
        self.alphabet_text = ""

    def read(self, text: str, reference: Reference) -> None:
        """Read every line of ``text`` (which ends with a line end), calling ``reference`` for
        each line this module does not read, and with line 0 for a program without an
        alphabet."""
        lines = text.split("\n")
        lines.pop()  # after the final line end
        findall = _TOKEN.findall
        max_depth, max_digits = self.max_depth, self.max_digits
        for index, raw in enumerate(lines):
            line = raw[:-1] if raw.endswith("\r") else raw
            pairs = findall(line)
            lineno = index + 1
            toks: list[tuple[str, int]] = []
            col = 1
            long_int = False
            for ws, tok in pairs:
                col += len(ws)
                if tok[0] == "-" and tok.startswith("--"):
                    col = len(line) + 1
                    break
                if tok[0] in "0123456789" and len(tok) > max_digits:
                    long_int = True
                toks.append((tok, col))
                col += len(tok)
            if col - 1 < len(line.rstrip(" \t")):  # a character no token starts with
                self._refer(lineno, raw, reference)
                continue
            if not toks:
                continue
            try:
                if self.alphabet_line is None:
                    item = _alphabet(toks, lineno)
                    self.alphabet_line, self.alphabet_text = lineno, raw
                else:
                    item = self._statement(toks, lineno)
            except Decline:
                self._refer(lineno, raw, reference)
                continue
            self.items.append(item)
            if long_int or len(toks) > max_depth:
                self.suspect.append(len(self.items) - 1)
        if self.alphabet_line is None:
            self.items.extend(reference(0, "", None, ""))

    def _refer(self, lineno: int, raw: str, reference: Reference) -> None:
        for item in reference(lineno, raw, self.alphabet_line, self.alphabet_text):
            self.items.append(item)
            self.suspect.append(len(self.items) - 1)  # lark's tree is checked like the others
        if self.alphabet_line is None:
            self.alphabet_line, self.alphabet_text = lineno, raw

    # -- statements -----------------------------------------------------------------------

    def _statement(self, toks: list[tuple[str, int]], lineno: int) -> Item:
        first, col = toks[0]
        if first == "accept":
            if len(toks) != 2 or not _is_word(toks[1][0]) or toks[1][0] in _RESERVED:
                raise Decline
            return ("accept", toks[1][0], (lineno, toks[1][1]))
        if not _is_word(first) or first in _RESERVED or len(toks) < 3 or toks[1][0] != ":=":
            raise Decline
        return ("rule", first, self._expression(toks, 2, lineno), (lineno, col))

    def _expression(self, toks: list[tuple[str, int]], i: int, lineno: int) -> A.Expr:
        """The expression ``toks[i:]`` (to the end of the line)."""
        operands: list[A.Expr] = []
        starts: list[A.Pos] = []  # where each operand's text starts, its parentheses included
        frames: list[tuple] = []
        n = len(toks)
        atom_only = False  # after + - comparison #: `not` cannot start the operand
        while True:
            # -- an operand: prefixes, then an atom --------------------------------------
            if i >= n:
                raise Decline
            tok, col = toks[i]
            i += 1
            pos = (lineno, col)
            c = tok[0]
            if c.isdigit():
                node = A.IntConst(int(tok) if len(tok) <= self.max_digits else 0, pos=pos)
                if len(tok) > self.max_digits:
                    self.long_ints[id(node)] = [(len(tok), pos)]
            elif c == "'" or c == '"':
                node = A.Letter(tok[1:-1], pos=pos)
            elif c.isalpha() or c == "_":
                if tok in _NOTS:
                    if atom_only:
                        raise Decline
                    frames.append((3, _NOT, pos))
                    continue
                if tok in _BOOLS:
                    node = A.BoolConst(_BOOLS[tok], pos=pos)
                elif tok == "min" or tok == "max":
                    if i >= n or toks[i][0] != "(":
                        raise Decline
                    i += 1
                    frames.append((-1, _CALL, pos, A.Min if tok == "min" else A.Max, 0))
                    atom_only = False
                    continue
                elif tok == "period":
                    node, i = self._period(toks, i, pos)
                elif tok in _ODD_OPERANDS:
                    raise Decline
                else:
                    node = A.Ref(tok, pos=pos)
            elif tok == "#":
                if i < n and toks[i][0] == "[":
                    frames.append((6, _WINDOW, pos, *self._window_bounds(toks, i + 1, lineno)))
                    i += 5
                else:
                    frames.append((6, _COUNT, pos))
                atom_only = True
                continue
            elif tok == "(":
                frames.append((-1, _GROUP, pos))
                atom_only = False
                continue
            elif tok in _NOTS:  # ¬ and !
                if atom_only:
                    raise Decline
                frames.append((3, _NOT, pos))
                continue
            elif tok in _BOOLS:  # ⊤ and ⊥
                node = A.BoolConst(_BOOLS[tok], pos=pos)
            else:
                raise Decline
            operands.append(node)
            starts.append(pos)
            # -- operators after a complete operand --------------------------------------
            while True:
                while frames and frames[-1][0] == 6:  # # and #[rs,re] take one atom
                    self._reduce(frames, operands, starts)
                if i >= n:
                    self._reduce_to(0, frames, operands, starts)
                    if frames or len(operands) != 1:
                        raise Decline
                    return operands[0]
                tok, col = toks[i]
                i += 1
                binary = _BINARY_OPS.get(tok)
                if binary is not None:
                    prec, cls = binary
                    self._reduce_to(prec, frames, operands, starts)
                    frames.append((prec, _BINARY, cls))
                    atom_only = prec == 5
                    break
                op = _COMPARISONS.get(tok)
                if op is not None:
                    self._reduce_to(5, frames, operands, starts)
                    if frames and frames[-1][1] == _COMPARE:
                        raise Decline  # comparisons do not chain
                    frames.append((4, _COMPARE, op))
                    atom_only = True
                    break
                if tok == "?":
                    self._reduce_to(1, frames, operands, starts)
                    frames.append((-1, _THEN))
                    atom_only = False
                    break
                self._reduce_to(0, frames, operands, starts)
                if not frames:
                    raise Decline
                top = frames[-1]
                if tok == ":" and top[1] == _THEN:
                    frames[-1] = (0, _ELSE)
                    atom_only = False
                    break
                if tok == "," and top[1] == _CALL and top[4] == 0:
                    frames[-1] = (*top[:4], 1)
                    atom_only = False
                    break
                if tok == ")" and top[1] == _GROUP:
                    frames.pop()
                    starts[-1] = top[2]
                    continue
                if tok == ")" and top[1] == _CALL and top[4] == 1:
                    frames.pop()
                    right = operands.pop()
                    starts.pop()
                    operands[-1] = top[3](operands[-1], right, pos=top[2])
                    starts[-1] = top[2]
                    continue
                raise Decline

    def _period(self, toks: list[tuple[str, int]], i: int, pos: A.Pos) -> tuple[A.Expr, int]:
        """``period ( INT , INT )`` from ``toks[i]`` (the ``(``)."""
        shape = [t for t, _ in toks[i:i + 5]]
        if len(shape) < 5 or shape[0] != "(" or shape[2] != "," or shape[4] != ")" \
                or not shape[1].isdigit() or not shape[3].isdigit():
            raise Decline
        m, o = shape[1], shape[3]
        places = ((pos[0], toks[i + 1][1]), (pos[0], toks[i + 3][1]))
        node = A.Period(self._int(m), self._int(o), pos=pos)
        self.params[id(node)] = places
        self._note_long(node, ((m, places[0]), (o, places[1])))
        return node, i + 5

    def _window_bounds(self, toks: list[tuple[str, int]], i: int, lineno: int) -> tuple:
        """``rs , re ]`` from ``toks[i]`` (after ``#[``): the bounds and their places."""
        shape = [t for t, _ in toks[i:i + 4]]
        if len(shape) < 4 or shape[1] != "," or shape[3] != "]" \
                or not shape[0].isdigit() or not shape[2].isdigit():
            raise Decline
        return (shape[0], (lineno, toks[i][1]), shape[2], (lineno, toks[i + 2][1]))

    def _int(self, digits: str) -> int:
        return int(digits) if len(digits) <= self.max_digits else 0

    def _note_long(self, node: A.Expr, literals) -> None:
        long = [(len(d), p) for d, p in literals if len(d) > self.max_digits]
        if long:
            self.long_ints[id(node)] = long

    def _reduce_to(self, prec: int, frames: list, operands: list, starts: list) -> None:
        while frames and frames[-1][0] >= prec:
            self._reduce(frames, operands, starts)

    def _reduce(self, frames: list, operands: list, starts: list) -> None:
        frame = frames.pop()
        kind = frame[1]
        if kind == _BINARY or kind == _COMPARE:
            right = operands.pop()
            starts.pop()
            left = operands[-1]
            where = starts[-1]
            operands[-1] = (frame[2](left, right, pos=where) if kind == _BINARY
                            else A.Compare(frame[2], left, right, pos=where))
        elif kind == _NOT:
            operands[-1] = A.Not(operands[-1], pos=frame[2])
            starts[-1] = frame[2]
        elif kind == _COUNT:
            operands[-1] = A.Count(operands[-1], pos=frame[2])
            starts[-1] = frame[2]
        elif kind == _WINDOW:
            _, _, pos, rs, rs_at, re_, re_at = frame
            node = A.Window(self._int(rs), self._int(re_), operands[-1], pos=pos)
            self.params[id(node)] = (rs_at, re_at)
            self._note_long(node, ((rs, rs_at), (re_, re_at)))
            operands[-1] = node
            starts[-1] = pos
        elif kind == _ELSE:
            other = operands.pop()
            starts.pop()
            then = operands.pop()
            starts.pop()
            operands[-1] = A.Cond(operands[-1], then, other, pos=starts[-1])
        else:  # pragma: no cover - boundaries are never reduced by precedence
            raise AssertionError(frame)


#: Words a statement cannot start with here (lark reads some of them as keywords).
_RESERVED = frozenset({"alphabet", "accept", "and", "or", "not", "true", "false", "min", "max",
                       "period"})


def _is_word(tok: str) -> bool:
    return tok[0].isalpha() or tok[0] == "_"


def _alphabet(toks: list[tuple[str, int]], lineno: int) -> Item:
    """``alphabet 'a', 'b'``: the letters with their places."""
    if toks[0][0] != "alphabet" or len(toks) % 2:
        raise Decline
    letters = []
    for k in range(1, len(toks), 2):
        tok, col = toks[k]
        if tok[0] not in "'\"" or (k + 1 < len(toks) and toks[k + 1][0] != ","):
            raise Decline
        letters.append((tok[1:-1], (lineno, col)))
    return ("alphabet", letters, (lineno, toks[0][1]))


def limit_error(expr: A.Expr, long_ints: dict[int, list[tuple[int, A.Pos]]], max_depth: int,
                max_digits: int) -> tuple[str, A.Pos] | None:
    """The first node of ``expr`` nested deeper than ``max_depth`` operators or integer literal
    of more than ``max_digits`` digits, as the parse-tree walk meets them (last child first, a
    node's literals before its subexpressions): the message and its place."""
    stack: list[tuple[A.Expr, int]] = [(expr, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth + 1:
            return (f"the expression nests deeper than {max_depth} operators (split it into "
                    "several rules)", node.pos)
        for digits, pos in long_ints.get(id(node), ()):
            return (f"integer literal of {digits} digits (at most {max_digits} digits are "
                    "accepted)", pos)
        stack.extend((child, depth + 1) for child in A.children(node))
    return None
