"""Parsing RASP source text with lark (grammar in ``rasp.lark``) into a located parse tree.

The interpreter walks lark trees directly: every node keeps ``meta.line``/``meta.column`` so
that errors found while running the program point at the offending expression.  It walks them
recursively, so :func:`parse` refuses (at the place) expressions nested deeper than
:data:`MAX_NESTING` levels, a chain ``a + b + c`` counting one level per operator.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import lark
from lark import Lark, Tree

from kinduct.kernel.errors import InputError

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


def parse(text: str, file: str | Path | None) -> Tree:
    """Parse a whole program; syntax errors become ``file:line:col: error: ...`` (exit 2)."""
    try:
        tree = parser().parse(text)
    except lark.UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END":
            lines = text.splitlines() or [""]
            raise InputError.at("unexpected end of file" + _expected(exc.expected), file, text,
                                len(lines), len(lines[-1]) + 1) from None
        if "SEMICOLON" in exc.expected and tok.line is not None and tok.line > 1:
            where = _missing_semicolon(text, tok.line)
            prev_end = text.rfind("\n", 0, tok.start_pos)
            if where is not None and text[:tok.start_pos][prev_end + 1:].strip() == "":
                raise InputError.at(f"missing ';' at the end of this line (before '{tok}' on line "
                                    f"{tok.line})", file, text, *where) from None
        kind = {"NAME": "name ", "NUMBER": "number ", "STRING": "string "}.get(tok.type, "")
        what = f"unexpected {kind}'{tok}'"
        hint = ""
        if tok.type == "RBRACE" and "RETURN" in exc.expected:
            hint = " (a function body must end with 'return ...;')"
        raise InputError.at(what + _expected(exc.expected) + hint, file, text, tok.line,
                            tok.column) from None
    except lark.UnexpectedCharacters as exc:
        ch = text[exc.pos_in_stream]
        shown = ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
        raise InputError.at(f"unexpected character '{shown}'"
                            + _expected(set(exc.allowed or ())), file, text, exc.line,
                            exc.column) from None
    except lark.UnexpectedEOF as exc:
        lines = text.splitlines() or [""]
        raise InputError.at("unexpected end of file" + _expected(set(exc.expected or ())), file,
                            text, len(lines), len(lines[-1]) + 1) from None
    _check_nesting(tree, text, file)
    return tree


def _check_nesting(tree: Tree, text: str, file: str | Path | None) -> None:
    """Refuse programs nested deeper than :data:`MAX_NESTING`, walking without recursion."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            raise InputError.at(f"the program nests deeper than {MAX_NESTING} levels (split the "
                                "expression with intermediate names)", file, text,
                                getattr(meta, "line", None), getattr(meta, "column", None))
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
