"""Reading ``.crasp`` programs: lark grammar (``crasp.lark``), AST building, static checks.

Public API: :func:`parse` (text to :class:`~kinduct.frontends.crasp.ast.Program`) and
:func:`load` (a file).  Every problem is an :class:`~kinduct.kernel.errors.InputError` at a
``file:line:col`` with the source line and a caret: syntax errors, unknown rules, forward and
cyclic references, type errors (a count used as a Boolean and vice versa), letters not in the
alphabet, duplicate rules or letters, bad ``period``/window parameters, a non-Boolean
deciding rule.  :func:`check` runs the static checks on a program built in code (synthesis).

Lines are read by :mod:`~kinduct.frontends.crasp.lines`; a line it does not read (every line
with a syntax error) is parsed by lark alone after the alphabet's line, its places moved back
(:mod:`~kinduct.frontends.lark_window`), so lark's grammar defines the language and words every
syntax error.

Input limits, checked before the names and types: an expression nests at most
:data:`MAX_DEPTH` operators deep (parentheses do not count; a chain ``x + y + z`` counts one
level per operator), an integer literal has at most :data:`MAX_DIGITS` digits, and a window
reaches back at most :data:`MAX_WINDOW` positions.  The
evaluators and the translation walk expressions recursively, and this bound keeps them far
from Python's recursion limit whatever the input.  Syntax errors come first, then the last
statement breaking a limit (at its first node too deep or literal too long, walking it
right to left), then the alphabet, names and types.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from pathlib import Path

from lark import Lark, Token, Transformer_NonRecursive, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.lines import Item, Reader, limit_error
from kinduct.frontends.lark_window import shift, shift_error
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import gc_paused, read_source

_GRAMMAR = Path(__file__).with_name("crasp.lark")

#: Deepest nesting of operators in one expression.
MAX_DEPTH = 200
#: Most digits of an integer literal (values stay below 10**18, inside 64-bit integers).
MAX_DIGITS = 18
#: Largest window end ``re`` in ``#[rs,re]``: the translation keeps ``re`` delayed copies.
MAX_WINDOW = 10_000

#: Words of the language that cannot name rules.
KEYWORDS = frozenset({"alphabet", "accept", "and", "or", "not", "true", "false", "min", "max", "period"})

_UNICODE_CMP = {"≤": "<=", "≥": ">=", "≠": "!=", "\\leq": "<=", "\\geq": ">=", "\\neq": "!=",
                "\\le": "<=", "\\ge": ">=", "\\ne": "!="}

_READABLE = {
    "NAME": "a rule name",
    "INT": "an integer",
    "LETTER": "a quoted letter",
    "BARE": "a letter",
    "HASH_SUB": "'#_{'",
    "CMP": "a comparison",
    "_NL": "end of line",
    "$END": "end of input",
}


@functools.cache
def lark_parser() -> Lark:
    return Lark(_GRAMMAR.read_text(encoding="utf-8"), parser="lalr", propagate_positions=True,
                maybe_placeholders=False)


def position_of(meta_or_tok) -> A.Pos:
    line = getattr(meta_or_tok, "line", None)
    col = getattr(meta_or_tok, "column", None)
    return (line, col) if line is not None else None


def _unquote(tok: Token) -> str:
    """A letter as written: quoted (``'a'``) or, in the alphabet, bare (``a``, ``[``)."""
    return str(tok)[1:-1] if tok.type == "LETTER" else str(tok)


@v_args(meta=True)
class TreeBuilder(Transformer_NonRecursive):
    """Parse tree to statements as :class:`~kinduct.frontends.crasp.lines.Reader` reads them.

    ``params`` remembers where a window's or period's integer parameters are (by node id, for
    error carets), since nodes carry one position only; ``long_ints`` the literals over
    :data:`MAX_DIGITS` digits (their value is not computed: the limit error follows)."""

    def __init__(self, params: dict[int, tuple[A.Pos, A.Pos]],
                 long_ints: dict[int, list[tuple[int, A.Pos]]]) -> None:
        super().__init__()
        self.params = params
        self.long_ints = long_ints

    def _ints(self, node: A.Expr, toks: list[Token]) -> None:
        long = [(len(t), position_of(t)) for t in toks if len(t) > MAX_DIGITS]
        if long:
            self.long_ints[id(node)] = long

    def start(self, meta, items):
        return items

    def alphabet(self, meta, toks):
        return ("alphabet", [(_unquote(t), position_of(t)) for t in toks], position_of(meta))

    def rule(self, meta, items):
        name, expr = items
        return ("rule", str(name), expr, position_of(name))

    def accept(self, meta, items):
        return ("accept", str(items[0]), position_of(items[0]))

    def cond(self, meta, items):
        return A.Cond(items[0], items[1], items[2], pos=position_of(meta))

    def or_(self, meta, items):
        return A.Or(items[0], items[1], pos=position_of(meta))

    def and_(self, meta, items):
        return A.And(items[0], items[1], pos=position_of(meta))

    def not_(self, meta, items):
        return A.Not(items[0], pos=position_of(meta))

    def compare(self, meta, items):
        left, op, right = items
        return A.Compare(_UNICODE_CMP.get(str(op), str(op)), left, right, pos=position_of(meta))

    def add(self, meta, items):
        return A.Add(items[0], items[2], pos=position_of(meta))

    def sub(self, meta, items):
        return A.Sub(items[0], items[2], pos=position_of(meta))

    def int_(self, meta, items):
        node = A.IntConst(_int(items[0]), pos=position_of(items[0]))
        self._ints(node, items)
        return node

    def true(self, meta, items):
        return A.BoolConst(True, pos=position_of(meta))

    def false(self, meta, items):
        return A.BoolConst(False, pos=position_of(meta))

    def letter(self, meta, items):
        return A.Letter(_unquote(items[0]), pos=position_of(items[0]))

    def ref(self, meta, items):
        return A.Ref(str(items[0]), pos=position_of(items[0]))

    def count(self, meta, items):
        return A.Count(items[1], pos=position_of(items[0]))

    def count_open(self, meta, items):
        return A.Count(A.Letter("[", pos=position_of(items[0])), pos=position_of(items[0]))

    def count_close(self, meta, items):
        return A.Count(A.Letter("]", pos=position_of(items[0])), pos=position_of(items[0]))

    def window(self, meta, items):
        hash_, rs, re, arg = items
        node = A.Window(_int(rs), _int(re), arg, pos=position_of(hash_))
        self.params[id(node)] = (position_of(rs), position_of(re))
        self._ints(node, [rs, re])
        return node

    def min_(self, meta, items):
        return A.Min(items[0], items[1], pos=position_of(meta))

    def max_(self, meta, items):
        return A.Max(items[0], items[1], pos=position_of(meta))

    def period(self, meta, items):
        m, o = items
        node = A.Period(_int(m), _int(o), pos=position_of(meta))
        self.params[id(node)] = (position_of(m), position_of(o))
        self._ints(node, [m, o])
        return node


def _int(tok: Token) -> int:
    return int(tok) if len(tok) <= MAX_DIGITS else 0


def _expected(exc: UnexpectedInput, parser: Lark) -> str:
    names = sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or [])
    if {"INT", "NAME", "LETTER"} <= set(names):
        return ", expected an expression"
    out = []
    for name in names:
        if name in _READABLE:
            out.append(_READABLE[name])
            continue
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            out.append(name)
            continue
        out.append(f"'{pattern.value}'" if pattern.type == "str" else name)
    out = sorted(dict.fromkeys(out))
    if not out:
        return ""
    if len(out) == 1:
        return f", expected {out[0]}"
    return ", expected one of " + ", ".join(out)


def _shown(ch: str) -> str:
    """A character as it can be printed in a message (control characters escaped)."""
    return ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")


def syntax_error(exc: UnexpectedInput, text: str, file: str | None) -> InputError:
    parser = lark_parser()
    line, col = exc.line, exc.column
    if isinstance(exc, UnexpectedCharacters):
        msg = ("unterminated or empty quoted letter (letters are written 'a', without spaces)"
               if exc.char in "'\"" else f"unexpected character '{_shown(exc.char)}'")
    elif isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            what = "end of input"
        elif tok.type == "_NL":
            what = "end of line"
        else:
            what = f"'{tok}'"
        if tok.type == "$END" or line in (None, -1):
            lines = text.rstrip("\n").splitlines() or [""]
            line, col = len(lines), len(lines[-1]) + 1
        msg = f"unexpected {what}{_expected(exc, parser)}"
        expected = set(getattr(exc, "expected", None) or ())
        if "PLUS" in expected and "_NL" in expected and tok.type not in ("CMP", "$END"):
            msg = (f"unexpected {what}, expected an operator, the end of the line or another "
                   "rule (`Name := expression`)")
        if tok.type == "CMP" and "'?'" in msg:
            msg = f"comparisons do not chain: write `a < b and b < c` (unexpected '{tok}')"
        if "'alphabet'" in _expected(exc, parser):
            msg = "a program starts with its alphabet, e.g. alphabet 'a', 'b'"
    elif isinstance(exc, UnexpectedEOF):
        lines = text.rstrip("\n").splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        msg = f"unexpected end of input{_expected(exc, parser)}"
    else:  # pragma: no cover - lark has no other kinds
        msg = str(exc)
    return InputError.at(msg, file, text, line, col)


@gc_paused()
def parse(text: str, file: str | Path | None = None) -> A.Program:
    """Parse and check a ``.crasp`` program; raise :class:`InputError` on any problem."""
    file_s = str(file) if file is not None else None
    if not text.endswith("\n"):
        text += "\n"
    reader = Reader(MAX_DEPTH, MAX_DIGITS)

    def reference(lineno: int, line: str, alphabet_line: int | None, alphabet: str) -> list[Item]:
        return _reference(text, file_s, reader, lineno, line, alphabet_line, alphabet)

    reader.read(text, reference)
    _check_limits(reader, text, file_s)
    items = reader.items
    _, letters, _ = items[0]
    alphabet: list[str] = []
    for letter, pos in letters:
        if letter in alphabet:
            raise located_error(f"letter '{letter}' appears twice in the alphabet", pos, text, file_s)
        alphabet.append(letter)
    rules: list[tuple[str, A.Expr, A.Pos]] = []
    accept: tuple[str, A.Pos] | None = None
    for item in items[1:]:
        if item[0] == "rule":
            rules.append((item[1], item[2], item[3]))
        else:
            if accept is not None:
                raise located_error("only one 'accept' declaration is allowed", item[2], text, file_s)
            accept = (item[1], item[2])
    return check_program(tuple(alphabet), rules, accept, text, file_s, reader.params)


def _reference(text: str, file: str | None, reader: Reader, lineno: int, line: str,
               alphabet_line: int | None, alphabet: str) -> list[Item]:
    """The statements of line ``lineno`` (one or more) parsed by lark in a window of two lines,
    the alphabet's and this one (a statement reads the same after any statements), their places
    moved back to the text.  Line 0 stands for a text without an alphabet."""
    if alphabet_line is None:
        window, first = line + "\n", 1
    else:
        window, first = alphabet + "\n" + line + "\n", 2
    try:
        tree = lark_parser().parse(window)
    except UnexpectedInput as exc:
        raise syntax_error(shift_error(exc, max(lineno - first, 0), 0), text, file) from None
    own = 0 if alphabet_line is None else 1  # the window's alphabet is not this line's
    for statement in tree.children[own:]:
        shift(statement, lineno - first, 0)
    return TreeBuilder(reader.params, reader.long_ints).transform(tree)[own:]


def _check_limits(reader: Reader, text: str, file: str | None) -> None:
    """The limit error of the last statement breaking one, if any."""
    for index in reversed(reader.suspect):
        item = reader.items[index]
        if item[0] != "rule":
            continue
        found = limit_error(item[2], reader.long_ints, MAX_DEPTH, MAX_DIGITS)
        if found is not None:
            raise located_error(found[0], found[1], text, file)


def load(path: str | Path) -> A.Program:
    p = Path(path)
    text = read_source(p)
    return parse(text, p)


def located_error(msg: str, pos, text: str | None, file: str | None) -> InputError:
    line, col = pos if pos else (None, None)
    return InputError.at(msg, file, text, line, col)


def check(program: A.Program) -> A.Program:
    """Run the static checks on a program built in code (positions may be missing)."""
    rules = [(r.name, r.expr, r.pos) for r in program.rules]
    acc = (program.accept, None) if program.accept is not None else None
    return check_program(program.alphabet, rules, acc, None, None)


def _bare_letters(expr: A.Expr, rules: dict[str, int], letters: set[str],
                  params: dict[int, tuple[A.Pos, A.Pos]] | None) -> A.Expr:
    """``expr`` with every name that is no rule of the program but a letter of its alphabet
    read as that letter (the paper writes letters bare: ``#a``, ``a and not b``).  A rule of
    the same name as a letter wins.  Rebuilt windows and periods keep their parameter places."""
    if not any(isinstance(e, A.Ref) and e.name not in rules and e.name in letters
               for e in A.walk(expr)):
        return expr

    def rebuild(e: A.Expr) -> A.Expr:
        if isinstance(e, A.Ref):
            if e.name not in rules and e.name in letters:
                return A.Letter(e.name, pos=e.pos)
            return e
        fields = {f: rebuild(getattr(e, f)) for f in ("arg", "left", "right", "cond", "then", "other")
                  if hasattr(e, f)}
        if not fields:
            return e
        new = dataclasses.replace(e, **fields)
        if params is not None and id(e) in params:
            params[id(new)] = params[id(e)]
        return new

    return rebuild(expr)


def _kind_name(kind: A.Kind) -> str:
    return "Boolean" if kind is A.Kind.BOOL else "count"


def check_program(alphabet: tuple[str, ...], rules: list[tuple[str, A.Expr, A.Pos]],
           accept: tuple[str, A.Pos] | None, text: str | None, file: str | None,
           params: dict[int, tuple[A.Pos, A.Pos]] | None = None) -> A.Program:
    """Names, order, types, letters and parameters; returns the typed program."""
    if not alphabet:
        raise InputError("the alphabet is empty")
    where: dict[str, int] = {}
    lines: dict[str, A.Pos] = {}
    for i, (name, _, pos) in enumerate(rules):
        if name in KEYWORDS:
            raise located_error(f"'{name}' is a keyword and cannot name a rule", pos, text, file)
        if name in where:
            first = lines[name]
            at = first[0] if first else "?"
            raise located_error(f"rule '{name}' is defined twice (first at line {at})", pos, text, file)
        where[name] = i
        lines[name] = pos
    kinds: dict[str, A.Kind] = {}
    built: list[A.Rule] = []
    letters = set(alphabet)

    def infer(e: A.Expr, rule_index: int, rule_name: str) -> A.Kind:
        def expect(sub: A.Expr, kind: A.Kind) -> None:
            got = infer(sub, rule_index, rule_name)
            if got is not kind:
                raise located_error(f"type error: `{A.expr_source(sub)}` is a {_kind_name(got)}, "
                           f"but a {_kind_name(kind)} is expected here", sub.pos, text, file)

        if isinstance(e, A.Ref):
            if e.name == rule_name:
                raise located_error(f"rule '{e.name}' refers to itself (cyclic definition)", e.pos,
                                    text, file)
            if e.name not in where:
                close = difflib.get_close_matches(e.name, [*where, *alphabet], 1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise located_error(f"unknown rule '{e.name}'{hint}", e.pos, text, file)
            if where[e.name] > rule_index:
                line = lines[e.name][0] if lines[e.name] else "?"
                raise located_error(f"rule '{e.name}' is used before its definition (line {line}); "
                           "a rule may only read earlier rules", e.pos, text, file)
            return kinds[e.name]
        if isinstance(e, A.BoolConst):
            return A.Kind.BOOL
        if isinstance(e, A.Letter):
            if e.letter not in letters:
                raise located_error(f"letter '{e.letter}' is not in the alphabet "
                           f"({', '.join(A.quote(x) for x in alphabet)})", e.pos, text, file)
            return A.Kind.BOOL
        if isinstance(e, A.Period):
            places = (e.pos, *(params or {}).get(id(e), (e.pos, e.pos)))
            if e.modulus < 1:
                raise located_error("period modulus must be at least 1", places[1], text, file)
            if e.offset >= e.modulus:
                raise located_error(f"period offset {e.offset} must be less than the modulus {e.modulus}",
                           places[2], text, file)
            return A.Kind.BOOL
        if isinstance(e, A.IntConst):
            return A.Kind.COUNT
        if isinstance(e, A.Not):
            expect(e.arg, A.Kind.BOOL)
            return A.Kind.BOOL
        if isinstance(e, (A.And, A.Or)):
            expect(e.left, A.Kind.BOOL)
            expect(e.right, A.Kind.BOOL)
            return A.Kind.BOOL
        if isinstance(e, A.Compare):
            expect(e.left, A.Kind.COUNT)
            expect(e.right, A.Kind.COUNT)
            return A.Kind.BOOL
        if isinstance(e, A.Count):
            expect(e.arg, A.Kind.BOOL)
            return A.Kind.COUNT
        if isinstance(e, A.Window):
            places = (e.pos, *(params or {}).get(id(e), (e.pos, e.pos)))
            if e.start > e.end:
                raise located_error(f"window start {e.start} must not exceed its end {e.end} "
                           "(#[rs,re] counts positions j-re..j-rs)", places[1], text, file)
            if e.end > MAX_WINDOW:
                raise located_error(f"window end {e.end} is too large (at most {MAX_WINDOW}: the "
                           "translation keeps one delayed copy per position)", places[2], text, file)
            expect(e.arg, A.Kind.BOOL)
            return A.Kind.COUNT
        if isinstance(e, (A.Add, A.Sub, A.Min, A.Max)):
            expect(e.left, A.Kind.COUNT)
            expect(e.right, A.Kind.COUNT)
            return A.Kind.COUNT
        if isinstance(e, A.Cond):
            expect(e.cond, A.Kind.BOOL)
            expect(e.then, A.Kind.COUNT)
            expect(e.other, A.Kind.COUNT)
            return A.Kind.COUNT
        raise TypeError(f"not a C-RASP expression: {e!r}")

    for i, (name, expr, pos) in enumerate(rules):
        expr = _bare_letters(expr, where, letters, params)
        kind = infer(expr, i, name)
        kinds[name] = kind
        built.append(A.Rule(name, expr, kind, pos=pos))
    if not built:
        line_count = len(text.splitlines()) if text else None
        raise InputError.at("the program has no rules (expected `Name := expression` lines "
                            "after the alphabet)", file, text, line_count, 1 if line_count else None)
    accept_name = None
    if accept is not None:
        accept_name, apos = accept
        if accept_name not in where:
            raise located_error(f"accept names an unknown rule '{accept_name}'", apos, text, file)
        if kinds[accept_name] is not A.Kind.BOOL:
            raise located_error(f"the accepting rule '{accept_name}' must be Boolean, but it is a count",
                       apos, text, file)
    else:
        last = built[-1]
        if last.kind is not A.Kind.BOOL:
            raise located_error(f"the last rule '{last.name}' decides acceptance and must be Boolean, but it "
                       "is a count (add a Boolean rule or an `accept` line)", last.pos, text, file)
    return A.Program(alphabet, tuple(built), accept_name)
