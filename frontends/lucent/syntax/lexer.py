"""The fast path's lexer: Lucent source text to parallel lists of tokens, with one master regular
expression and the keywords by table.

The terminals and their order follow ``lucent.lark`` and lark's own order (higher priority
first, then the longer patterns), so that wherever the fast parser accepts a token, lark's
contextual lexer would have read the same token there.  Words are keywords by table: those of
the grammar that are also Kind 2's reserved words (:data:`~..core.limits.KEYWORDS`) always, so a
name is never one of them; the grammar's other words (``mode``, ``assume``, ``in``, ``set``, ...)
stay names (:data:`SOFT`): the parser reads them as keywords where lark's contextual lexer
would, and declines them as names where lark would read a keyword.

Anything the lexer cannot read raises :class:`Decline`: the file then goes to lark, which
reports the error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kinduct.frontends.lucent.core.limits import KEYWORDS


class Decline(Exception):
    """The fast path does not take this input (a construct it does not handle, or a syntax
    error): the caller parses it with lark instead.  The message names the reason."""


#: The grammar's words that Kind 2 does not reserve: lark reads them as keywords only where
#: the grammar accepts the keyword, and as names elsewhere.
SOFT = frozenset("datatype set map weakly mode assume guarantee require ensure in match".split()) - KEYWORDS

_GRAMMAR_WORDS = frozenset("""
    include type subrange of int subtype enum struct bool real uint sint int8 int16 int32 int64
    uint8 uint16 uint32 uint64 node function transparent opaque imported returns let tel const
    var con noc contract import assert check provided reachable from within at if then elsif
    else fi frame when end cond otherwise any choose not pre last current or xor and div mod lsh
    rsh true false merge activate every initial default restart condact forall exists with
""".split())

#: Words read as keyword tokens (their kind is the word itself).
HARD = (_GRAMMAR_WORDS | KEYWORDS) - SOFT

_NUM = "[0-9]"
_EXP = f"(?:[eE][+-]?{_NUM}+)"
# Groups, by number (lark's order where two can match at one place: priority, then length).
_MASTER = re.compile(
    r"[ \t\f\r]*(?:"
    r"([A-Za-z_][A-Za-z0-9_]*)"                                              # 1 word
    r"|(0x(?:[0-9a-fA-F]*\.[0-9a-fA-F]*(?:p[+-]?[0-9]+)?|[0-9a-fA-F]+p[+-]?[0-9]+))"  # 2 HEXREAL
    rf"|({_NUM}+\.(?!\.){_NUM}*{_EXP}?|\.{_NUM}+{_EXP}?|{_NUM}+{_EXP})"         # 3 DECIMAL
    r"|(0x[0-9a-fA-F]+)"                                                     # 4 HEXINT
    rf"|({_NUM}+)"                                                           # 5 NUMBER
    r"|((?i:--[%!]PROPERTY\b))"                                              # 6 PROPERTY
    r"|((?i:--[%!]MAIN\b))"                                                  # 7 MAIN
    r"|((?i:(?:\(\*|/\*)[%!]PROPERTY\b))"                                    # 8 BLOCK_PROPERTY
    r"|((?i:(?:\(\*|/\*)[%!]MAIN\b))"                                        # 9 BLOCK_MAIN
    r"|((?i:--(?![%!]PROPERTY\b|[%!]MAIN\b)[^\n]*)|//[^\n]*"                 # 10 comment
    r"|\(\*(?!@contract|[%!](?i:PROPERTY|MAIN)\b)(?:.|\n)*?\*\)"
    r"|/\*(?!@contract|[%!](?i:PROPERTY|MAIN)\b)(?:.|\n)*?\*/)"
    r'|("[^"]*")'                                                            # 11 STRING
    r"|(\(\*@contract|/\*@contract)"                                         # 12 CONTRACT_OPEN
    r"|(\*\)|\*/)"                                                           # 13 CONTRACT_CLOSE
    r"|(==>|::|:=|\.\.|'\(|<=|>=|<>|=>|->|\+\+|\|\||&&"                       # 14 punctuation
    r"|[-+*/=<>()\[\]{},;:.^@?!|])"
    r"|(\n[ \t\f\r\n]*)"                                                      # 15 line ends
    r")")

_KINDS = (None, "NAME", "HEXREAL", "DECIMAL", "HEXINT", "NUMBER", "PROPERTY", "MAIN",
          "BLOCK_PROPERTY", "BLOCK_MAIN", None, "STRING", "CONTRACT_OPEN", "CONTRACT_CLOSE", None,
          None)
_WORD, _COMMENT, _STRING, _PUNCT, _NEWLINE = 1, 10, 11, 14, 15
_TRAILING = re.compile(r"[ \t\f\r\n]*\Z")

#: The kind of the tokens past the end (several, so that the parser may look two ahead).
EOF = "$END"


@dataclass
class Tokens:
    """The tokens of a text, as parallel lists: ``kinds`` (``NAME``, ``NUMBER``, ..., a keyword
    or a punctuation mark itself), ``values`` (the text), the character offsets ``starts`` and
    ``ends``, and the 1-based ``lines`` and ``cols`` of each token's first character.  Three
    ``$END`` tokens follow the last one."""

    kinds: list[str]
    values: list[str]
    starts: list[int]
    ends: list[int]
    lines: list[int]
    cols: list[int]


def tokenize(text: str) -> Tokens:
    """The tokens of ``text``, comments and white space dropped; :class:`Decline` on a
    character that starts no token."""
    kinds: list[str] = []
    values: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    lines: list[int] = []
    cols: list[int] = []
    add_kind, add_value, add_start = kinds.append, values.append, starts.append
    add_end, add_line, add_col = ends.append, lines.append, cols.append
    hard = HARD
    kind_of = _KINDS
    rfind = text.rfind
    line, line_start, pos = 1, 0, 0
    for m in _MASTER.finditer(text):
        group = m.lastindex
        value = m.group(group)
        begin, end = m.span()
        if begin != pos:
            raise Decline(f"unreadable character at offset {pos}")
        pos = end
        if group == _WORD:
            add_kind(value if value in hard else "NAME")
        elif group == _PUNCT:
            add_kind(value)
        elif group == _NEWLINE or group == _COMMENT:
            if "\n" in value:
                line += value.count("\n")
                line_start = rfind("\n", 0, end) + 1
            continue
        else:
            add_kind(kind_of[group])
        start = end - len(value)
        add_value(value)
        add_start(start)
        add_end(end)
        add_line(line)
        add_col(start - line_start + 1)
        if group == _STRING and "\n" in value:
            line += value.count("\n")
            line_start = rfind("\n", 0, end) + 1
    if not _TRAILING.match(text, pos):
        raise Decline(f"unreadable character at offset {pos}")
    end = len(text)
    for _ in range(3):
        kinds.append(EOF)
        values.append("")
        starts.append(end)
        ends.append(end)
        lines.append(line)
        cols.append(end - line_start + 1)
    return Tokens(kinds, values, starts, ends, lines, cols)
