"""Parsing RASP source text (grammar in ``rasp.lark``) into lark's located parse tree.

The interpreter walks lark trees directly: every node keeps ``meta.line``/``meta.column`` so
that errors found while running the program point at the offending expression.  It walks them
recursively, so :func:`parse` refuses (at the place) expressions nested deeper than
:data:`MAX_NESTING` levels, a chain ``a + b + c`` counting one level per operator.

:class:`~kinduct.frontends.rasp.reader.Reader` builds the tree lark would build; a statement
it does not read (every statement with a syntax error) is parsed by lark from its first token
to the end of a statement, with the places moved back (:mod:`~kinduct.frontends.lark_window`),
so lark's grammar defines the language and lark's errors are the ones reported.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from pathlib import Path

import lark
from lark import Lark, Tree

from kinduct.frontends.lark_window import shift, shift_error
from kinduct.frontends.rasp.reader import Reader
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import gc_paused

_GRAMMAR = Path(__file__).with_name("rasp.lark")

#: Deepest nesting of expressions and blocks in a program.
MAX_NESTING = 100

# How terminals are called in "expected ..." messages.
_READABLE = {
    "SEMICOLON": "';'", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'",
    "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','", "COLON": "':'", "EQUAL": "'='",
    "NAME": "a name", "NUMBER": "a number", "STRING": "a string", "CMPOP": "a comparison",
    "ADDOP": "'+' or '-'", "MULOP": "'*', '/' or '%'", "CIRCUMFLEX": "'^'", "$END": "end of file",
}


@lru_cache(maxsize=1)
def parser() -> Lark:
    return Lark(_GRAMMAR.read_text(), parser="lalr", propagate_positions=True,
                maybe_placeholders=True)


_FIRST = ["SEMICOLON", "RPAR", "RSQB", "RBRACE", "COMMA"]


def _missing_semicolon(text: str, line: int) -> tuple[int, int] | None:
    """Where a ';' is probably missing: the end of the last code line before ``line``."""
    lines = text.splitlines()
    for i in range(line - 2, -1, -1):
        code = lines[i].split("#", 1)[0].rstrip()
        if code:
            return i + 1, len(code) + 1
    return None


def _accepts(exc: lark.UnexpectedToken) -> set[str]:
    """The terminals the parser really accepts where ``exc`` happened (lark's ``expected`` is
    the shared LALR state's, wider), or ``expected`` when that cannot be computed."""
    try:
        return set(exc.interactive_parser.accepts())
    except Exception:  # noqa: BLE001 - any failure: fall back to lark's set
        return set(exc.expected)


def _function_at(text: str, pos: int) -> str:
    """`` 'name' (line N)`` of the last ``def`` before ``pos``, or nothing."""
    found = None
    for match in re.finditer(r"\bdef\s+([A-Za-z_][A-Za-z_0-9]*)", text[:pos]):
        found = match
    if found is None:
        return ""
    return f" '{found.group(1)}' (line {text.count(chr(10), 0, found.start()) + 1})"


def _expected(names: set[str]) -> str:
    words = []
    for name in sorted(names, key=lambda n: (_FIRST.index(n) if n in _FIRST else len(_FIRST), n)):
        if name.startswith("__ANON"):
            continue
        words.append(_READABLE.get(name, f"'{name.lower()}'" if name.isalpha() else name))
    if not words:
        return ""
    if len(words) > 6:
        words = words[:6] + ["..."]
    return "; expected " + ", ".join(words)


_NUMBERED = re.compile(r"[ \t]*([0-9]+)(?=[ \t]|$)")


def unnumbered(text: str) -> str:
    """``text`` without the line numbers a paper prints beside a figure (``1 def f(x) {``):
    when every non-blank line starts with its number, 1, 2, 3, ... (blank lines may be numbered
    or not), the numbers become spaces, so columns stay where they were.  Any other text is
    returned unchanged (no RASP statement starts with a number and then a word or nothing)."""
    lines = text.split("\n")
    out: list[str] = []
    expected = 1
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        m = _NUMBERED.match(line)
        if m is None or int(m.group(1)) != expected:
            return text
        expected += 1
        out.append(" " * m.end() + line[m.end():])
    return "\n".join(out) if expected > 2 else text


@gc_paused()
def parse(text: str, file: str | Path | None) -> Tree:
    """Parse a whole program; syntax errors become ``file:line:col: error: ...`` (exit 2).
    A figure pasted with its printed line numbers is read without them (:func:`unnumbered`)."""
    # A node's enclosing nodes take a token each, but for an argument list and its argument
    # (`f(x)`: call, args, posarg over `f`, `(` and `)`): a statement nests about as deep as
    # it has tokens, and one of fewer than half the limit is not walked.
    text = unnumbered(text)
    reader = Reader(text, MAX_NESTING // 2)
    tree = reader.read(lambda r, start: _reference(r, start, file))
    check_nesting(tree, reader.suspect, text, file)
    return tree


def _reference(reader: Reader, start: int, file: str | Path | None) -> list[Tree]:
    """lark's statements from token ``start`` of ``reader`` to one of the reader's statement
    ends (the first lark reads to the end of, trying twice as many each time), or lark's
    error; resumes ``reader`` after them."""
    text = reader.text
    _, line, col, offset = reader.toks[start]
    # lark's lexer reads a statement's first word by the state after the token before it: a
    # `;` on the line before the window stands for it (`return` is a keyword after a statement,
    # a name at the start of the text).
    first = reader.first is not None and (reader.first.line, reader.first.column) == (line, col)
    head = "" if first else ";\n"
    lines, offsets = line - 1 - head.count("\n"), offset - (col - 1) - len(head)
    ends = reader.ends(start)
    seen: list[tuple[int, int]] = []
    wanted = 1
    while True:
        seen.extend(itertools.islice(ends, wanted - len(seen)))
        resume, end = seen[-1]
        try:
            tree = parser().parse(head + " " * (col - 1) + text[offset:end])
        except lark.UnexpectedInput as exc:
            at_end = isinstance(exc, lark.UnexpectedEOF) or (
                isinstance(exc, lark.UnexpectedToken) and exc.token.type == "$END")
            if at_end and end < len(text):
                wanted = len(seen) * 2
                continue
            raise syntax_error(shift_error(exc, lines, offsets), text, file) from None
        for statement in tree.children:
            shift(statement, lines, offsets)
        reader.i = resume
        return tree.children


def syntax_error(exc: lark.UnexpectedInput, text: str, file: str | Path | None) -> InputError:
    """lark's error as the user reads it, at its place in ``text``."""
    if isinstance(exc, lark.UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            lines = text.splitlines() or [""]
            return InputError.at("unexpected end of file" + _expected(exc.expected), file, text,
                                 len(lines), len(lines[-1]) + 1)
        accepts = _accepts(exc)
        if tok.type == "RBRACE" and "RETURN" in accepts:
            name = _function_at(text, tok.start_pos)
            return InputError.at(f"function{name} has no 'return': its body must end with "
                                 "'return EXPRESSION;'", file, text, tok.line, tok.column)
        first_on_line = (tok.line is not None and tok.line > 1 and text[:tok.start_pos][
            text.rfind("\n", 0, tok.start_pos) + 1:].strip() == "")
        starts_operand = tok.type in ("NAME", "NUMBER", "STRING", "LPAR", "LSQB", "LBRACE")
        comma = "COMMA" in accepts and "SEMICOLON" not in accepts and starts_operand
        if ("SEMICOLON" in accepts or comma) and first_on_line:
            where = _missing_semicolon(text, tok.line)
            if where is not None:
                mark = "','" if comma else "';'"
                return InputError.at(f"missing {mark} at the end of this line (before '{tok}' on "
                                     f"line {tok.line})", file, text, *where)
        if comma:
            return InputError.at(f"missing ',' before '{tok}' (arguments and list items are "
                                 "separated by commas)", file, text, tok.line, tok.column)
        if "SEMICOLON" in accepts and tok.type == "NAME":
            return InputError.at(f"missing ';' before '{tok}' (statements end with ';')", file,
                                 text, tok.line, tok.column)
        kind = {"NAME": "name ", "NUMBER": "number ", "STRING": "string "}.get(tok.type, "")
        what = f"unexpected {kind}'{tok}'"
        hint = ""
        if tok.type == "RBRACE" and "RETURN" in exc.expected:
            hint = " (a function body must end with 'return ...;')"
        return InputError.at(what + _expected(exc.expected) + hint, file, text, tok.line,
                             tok.column)
    if isinstance(exc, lark.UnexpectedCharacters):
        ch = text[exc.pos_in_stream]
        shown = ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
        return InputError.at(f"unexpected character '{shown}'" + _expected(set(exc.allowed or ())),
                             file, text, exc.line, exc.column)
    lines = text.splitlines() or [""]
    return InputError.at("unexpected end of file" + _expected(set(getattr(exc, "expected", None) or ())),
                         file, text, len(lines), len(lines[-1]) + 1)


def check_nesting(tree: Tree, suspect: list[int], text: str, file: str | Path | None) -> None:
    """Refuse programs nested deeper than :data:`MAX_NESTING`, walking without recursion the
    statements long enough to (the last one first, as a walk of the whole tree would)."""
    for index in reversed(suspect):
        stack = [(tree.children[index], 1)]
        while stack:
            node, depth = stack.pop()
            if depth > MAX_NESTING:
                meta = node.meta
                raise InputError.at(f"the program nests deeper than {MAX_NESTING} levels (split "
                                    "the expression with intermediate names)", file, text,
                                    getattr(meta, "line", None), getattr(meta, "column", None))
            stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
