"""Limits that keep hostile Lucent input from exhausting the interpreter, and the names no
model may use: checked on the source text and on the parse tree, before anything is built."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from kinduct.kernel.errors import InputError

if TYPE_CHECKING:
    import lark

#: Limits that keep hostile input from exhausting the interpreter: the digits of one numeral,
#: and how deeply expressions and statements may nest (each level costs a few Python frames).
#: The largest Lucent source read (MB; ``KINDUCT_LUCENT_MAX_MB`` overrides it).  Parsing,
#: checking and translating take about 0.3 GB of memory per MB of source (generated models of
#: many nodes: 1 MB 335 MB, 10 MB 3.0 GB resident, ``benchmarks/scale.py``), so a larger model
#: is refused before it is read rather than exhausting the machine.
MAX_SOURCE_MB = 16

MAX_DIGITS = 1000
MAX_NESTING = 500
#: How deeply node calls may nest below an analysed node: the translation inlines a call by
#: recursion, about 7 Python frames per level (a chain of 850 nodes exhausted the frames the
#: parser allows: an internal error before this limit).
MAX_CALL_DEPTH = 500
LONG_NUMBER = re.compile(r"(?<![\w.])[0-9][0-9A-Fa-fx.]{" + str(MAX_DIGITS) + ",}")


#: Kind 2's keywords: none may name a variable, node, type or constant.  The contract words
#: (mode, assume, guarantee, require, ensure, weakly) are not among them: Kind 2's grammar takes
#: them as identifiers outside contracts (FMCAD08's steam boiler has an output ``mode``).
KEYWORDS = frozenset("""
    type int uint sint real bool subrange of subtype struct enum history map const param
    transparent opaque imported node function returns var let tel con noc assert check reachable
    invariant provided from at within contract import true false not and xor forall exists or
    if then else elsif fi when cond otherwise end frame div mod any choose current condact
    activate initial default every restart merge pre fby assumption_vars with include last
    int8 int16 int32 int64 uint8 uint16 uint32 uint64 lsh rsh
""".split())


def check_tree(tree: lark.Tree, text: str, file: str) -> None:
    """Refuse a parse tree deeper than ``MAX_NESTING`` (walked without recursion), at the
    first subtree that is too deep, and a keyword used as a name."""
    import lark  # noqa: PLC0415 - only the lark parser's path needs it
    from lark import Token  # noqa: PLC0415
    stack: list[tuple[lark.Tree, int]] = [(tree, 0)]
    keywords = []
    while stack:
        node, depth = stack.pop()
        keywords += [t for t in node.children
                     if isinstance(t, Token) and t.type == "NAME" and t.value in KEYWORDS]
        if depth > MAX_NESTING:
            meta = node.meta
            line = getattr(meta, "line", 1) if not meta.empty else 1
            col = getattr(meta, "column", 1) if not meta.empty else 1
            raise InputError.at(f"expressions nest more than {MAX_NESTING} levels deep "
                                "(kinduct's limit)", file, text, line, col)
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, lark.Tree))
    if keywords:
        tok = min(keywords, key=lambda t: (t.line, t.column))
        raise InputError.at(f"'{tok.value}' is a keyword and cannot be used as a name",
                            file, text, tok.line, tok.column)


def check_source_size(path: Path) -> None:
    """Refuse a source file over :data:`MAX_SOURCE_MB` before reading it."""
    limit_mb = float(os.environ.get("KINDUCT_LUCENT_MAX_MB", MAX_SOURCE_MB))
    size = path.stat().st_size
    if size > limit_mb * 1024 * 1024:
        raise InputError(f"{path}: {size / 2**20:.1f} MB is over the Lucent frontend's limit of "
                         f"{limit_mb:g} MB (about 0.3 GB of memory per MB of source; set "
                         "KINDUCT_LUCENT_MAX_MB to raise it)")
