"""Parsing Lucent source text into the AST of :mod:`ast`: the entry points.

The text is first scanned (:mod:`.prescan`: unterminated comments, over-long numerals, features
kinduct does not implement, reported as ``unsupported: <feature>``), then parsed by the fast
path (:mod:`.fastparse`, a hand-written lexer and recursive descent).  When the fast path
declines the text (a construct it does not handle, or any syntax error), lark parses it
(:mod:`.larkparse`, the reference grammar ``lucent.lark``), which reports errors at
``file:line:col`` naming what was expected.  Both give the same AST, positions included
(``tests/frontends/lucent/test_lucent_fastparse.py``).  ``KINDUCT_LUCENT_PARSER=lark`` turns the
fast path off.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import limits
from kinduct.frontends.lucent.core.limits import MAX_NESTING
from kinduct.frontends.lucent.syntax.fastparse import parse_decls
from kinduct.frontends.lucent.syntax.lexer import Decline
from kinduct.frontends.lucent.syntax.prescan import check_unsupported
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import check_input_file, gc_paused, read_source


def fast_path_enabled() -> bool:
    """Whether the fast path is tried first (``KINDUCT_LUCENT_PARSER`` is not ``lark``)."""
    return os.environ.get("KINDUCT_LUCENT_PARSER", "") != "lark"


def parse_text(text: str, file: str = "<input>") -> A.Program:
    check_unsupported(text, file)
    if sys.getrecursionlimit() < 8 * MAX_NESTING + 2000:
        sys.setrecursionlimit(8 * MAX_NESTING + 2000)
    decls: list[Any] | None = None
    if fast_path_enabled():
        try:
            decls = parse_decls(text, file)
        except (Decline, RecursionError):  # nesting beyond the frames: lark reports it
            decls = None
    if decls is None:
        from kinduct.frontends.lucent.syntax.larkparse import lark_decls  # noqa: PLC0415 - lark only when needed
        decls = lark_decls(text, file)
    prog = A.Program([], [], [], [], file, text)
    base = Path(file).parent
    for decl in decls:
        _add(prog, decl, base, file, text)
    return prog


def _add(prog: A.Program, decl, base: Path, file: str, text: str) -> None:
    if isinstance(decl, list):
        for d in decl:
            _add(prog, d, base, file, text)
    elif isinstance(decl, A.TypeDecl):
        prog.types.append(decl)
    elif isinstance(decl, A.ConstDecl):
        prog.consts.append(decl)
    elif isinstance(decl, A.NodeDecl):
        (prog.contracts if decl.kind == "contract" else prog.nodes).append(decl)
    elif isinstance(decl, tuple) and decl[0] == "include":
        _, name, pos = decl
        path = base / name
        if not path.exists():
            raise InputError.at(f"included file '{name}' not found", file, text, pos.line, pos.col)
        sub = parse_text(read_source(path), str(path))
        prog.types.extend(sub.types)
        prog.consts.extend(sub.consts)
        prog.nodes.extend(sub.nodes)
        prog.contracts.extend(sub.contracts)


@gc_paused()
def parse_file(path: str | Path) -> A.Program:
    p = check_input_file(path)
    limits.check_source_size(p)
    return parse_text(read_source(p), str(path))


def _parser() -> Any:
    """lark's parser of ``lucent.lark`` (built once; ``larkparse.lark_parser``, kept under this
    name for ``benchmarks/scale.py``)."""
    from kinduct.frontends.lucent.syntax.larkparse import lark_parser  # noqa: PLC0415 - lark only when needed
    return lark_parser()
