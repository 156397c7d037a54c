"""The scan of Lucent source text before it is parsed: unterminated comments, over-long
numerals, and the features kinduct does not implement yet, found by keyword so that the user is
told ``unsupported: <feature>`` rather than where the grammar gave up.

Keywords are searched in the text with its comments and string literals blanked (a property
named ``"when ok"`` is not a lazy ``when``); offsets still match the source.
"""

from __future__ import annotations

import re

from kinduct.frontends.lucent.core.limits import LONG_NUMBER, MAX_DIGITS
from kinduct.kernel.errors import InputError, SourceLocation, UnsupportedError

#: Features of the primer that kinduct refuses, found by keyword in comment- and string-free
#: text.
#: Each comes with a text that every match holds (``True``: in lower case), looked for first:
#: a plain search is many times faster than the pattern's on a large model.
UNSUPPORTED = [
    (re.compile(r"(?<!\[)\]\s*@\s*<|(?<!\{)\}\s*@\s*<"), "polymorphism (type instantiation)"),
    (re.compile(r"\brealizable\b", re.I), "realizability checking"),
    (re.compile(r"\b(function|node)\s+rec\b"), "recursive nodes and functions ('rec')"),
]
_NEEDLES = {"polymorphism (type instantiation)": ("@", False), "realizability checking":
            ("realizable", True), "recursive nodes and functions ('rec')": ("rec", False)}

#: A comment (``--`` or ``//`` to the end of the line, or a block; not Kind 2's
#: ``--%PROPERTY``/``(*!MAIN …*)``… annotations, nor a ``(*@contract`` block), or a string
#: literal: whichever starts first, so that ``"a -- b"`` is a string and ``-- say "x"`` a
#: comment.
_NOT_ANNOT = r"(?!@contract|[%!](?:PROPERTY|MAIN)\b)"
_BLANKED = re.compile(rf"--(?![%!]PROPERTY\b|[%!]MAIN\b)[^\n]*|//[^\n]*"
                      rf"|\(\*{_NOT_ANNOT}(?:.|\n)*?\*\)|/\*{_NOT_ANNOT}(?:.|\n)*?\*/|\"[^\"\n]*\"", re.I)

_UNCLOSED = re.compile(rf"\(\*{_NOT_ANNOT}|/\*{_NOT_ANNOT}", re.I)


def blank_comments(text: str) -> str:
    """Comments and string literals replaced by spaces (newlines kept), so offsets still match
    the source."""
    return _BLANKED.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of the character offset ``offset`` of ``text``."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def check_unsupported(text: str, file: str) -> None:
    """Raise :class:`InputError` for an unterminated comment or a numeral over kinduct's limit,
    and :class:`UnsupportedError` at the first feature of :data:`UNSUPPORTED` in ``text``."""
    clean = blank_comments(text)
    m = _UNCLOSED.search(clean)
    if m:
        line, col = line_col(text, m.start())
        raise InputError.at("unterminated comment: expected '*)'" if m.group(0) == "(*" else
                            "unterminated comment: expected '*/'", file, text, line, col)
    m = LONG_NUMBER.search(clean)
    if m:
        line, col = line_col(text, m.start())
        raise InputError.at(f"numeral of {len(m.group(0))} digits: kinduct's limit is "
                            f"{MAX_DIGITS} digits", file, text, line, col)
    hits = []
    # (case folding by lower() is re.I's on ASCII text only)
    lower = clean.lower() if clean.isascii() else None
    for pattern, feature in UNSUPPORTED:
        needle, folded = _NEEDLES.get(feature, ("", False))
        if needle not in (clean if not folded else lower if lower is not None else needle):
            continue
        m = pattern.search(clean)
        if m:
            hits.append((m.start(), feature))
    if hits:
        offset, feature = min(hits)
        line, col = line_col(text, offset)
        err = InputError.at("", file, text, line, col)
        raise UnsupportedError(feature, SourceLocation(file, line, col), err.source_line)
