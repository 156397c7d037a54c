"""One document's static analysis: its text parsed and checked (nothing translated), the
diagnostics that gives (the command line's messages, with ranges), its outline, and what a
name at a place refers to.

Everything here is plain data (no LSP types): :mod:`.lsp` turns it into the protocol's.
"""

from __future__ import annotations

import bisect
import re
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from kinduct.frontends.lucent.check.checker import check_program
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Checked
from kinduct.frontends.lucent.server.fingerprint import fingerprints
from kinduct.frontends.lucent.syntax.parser import parse_text
from kinduct.kernel.errors import InputError, SourceLocation, SourceWarning
from kinduct.kernel.frontend import gc_paused

#: ``warnings.catch_warnings`` changes process-wide state: one analysis at a time reads it.
_WARNINGS_LOCK = threading.Lock()
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Span:
    """A range of the text, 0-based lines and characters, the end exclusive (LSP's)."""

    line: int
    char: int
    end_line: int
    end_char: int


@dataclass(frozen=True)
class Note:
    """A diagnostic: ``severity`` is error, warning, information or hint."""

    span: Span
    severity: str
    message: str
    #: What says it: ``kinduct`` (parse and type checking) or ``kinduct check``.
    source: str = "kinduct"


@dataclass(frozen=True)
class Symbol:
    """An outline entry: a declaration (``kind``: node, function, contract, type, const) or a
    stream of a node (input, output, local)."""

    name: str
    kind: str
    span: Span
    name_span: Span
    detail: str = ""
    children: tuple[Symbol, ...] = ()


class Lines:
    """Offsets to (line, character) and back for one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]

    def offset(self, line: int, char: int) -> int:
        if line >= len(self.starts):
            return len(self.text)
        return min(self.starts[line] + char, len(self.text))

    def span(self, start: int, end: int) -> Span:
        return Span(*self.position(start), *self.position(end))

    def token_at(self, line: int, column: int) -> Span:
        """The span of the word (or the single character) at 1-based ``line:column``."""
        if line < 1:
            return Span(0, 0, 0, 0)
        start = self.offset(line - 1, max(column - 1, 0))
        word = _WORD.match(self.text, start)
        end = word.end() if word else min(start + 1, len(self.text))
        if end == start:  # at the end of the text
            return Span(*self.position(start), *self.position(start))
        return self.span(start, end)

    def word_at(self, line: int, char: int) -> tuple[str, int] | None:
        """The identifier touching 0-based ``line:char`` and its offset, if any."""
        at = self.offset(line, char)
        lo = at
        while lo > 0 and (self.text[lo - 1].isalnum() or self.text[lo - 1] == "_"):
            lo -= 1
        word = _WORD.match(self.text, lo)
        if word is None or word.end() < at:
            return None
        return word.group(), lo


@dataclass
class Analysis:
    """A document as the server knows it between edits."""

    path: str
    text: str
    lines: Lines
    notes: list[Note] = field(default_factory=list)
    program: A.Program | None = None
    checked: Checked | None = None
    _decls: list[tuple[str, str, A.Pos]] | None = field(default=None, repr=False)
    _prints: dict[str, str] | None = field(default=None, repr=False)

    def fingerprints(self) -> dict[str, str]:
        """Every node's :mod:`.fingerprint` (computed once)."""
        if self._prints is None:
            self._prints = fingerprints(self.program) if self.program is not None else {}
        return self._prints

    def decls(self) -> list[tuple[str, str, A.Pos]]:
        """(name, kind, extent) of the declarations written in this text (not included), in
        order; an extent runs from the start of the line naming the declaration to the end of
        its text before the next declaration (trailing blank lines and comments left out)."""
        if self._decls is None:
            self._decls = []
            if self.program is not None:
                found: list[tuple[str, str, A.Pos]] = []
                for d in self.program.nodes + self.program.contracts:
                    found.append((d.name, d.kind, d.pos))
                found += [(t.name, "type", t.pos) for t in self.program.types]
                found += [(c.name, "const", c.pos) for c in self.program.consts]
                here = sorted((f for f in found if self.here(f[0], f[2])), key=lambda f: f[2].start)
                starts = [self.text.rfind("\n", 0, pos.start) + 1 for _, _, pos in here]
                for i, (name, kind, pos) in enumerate(here):
                    end = starts[i + 1] if i + 1 < len(here) else len(self.text)
                    end = _trailing(self.text, starts[i], end)
                    self._decls.append((name, kind, A.Pos(pos.line, 1, starts[i], max(end, pos.end))))
        return self._decls

    def here(self, name: str, pos: A.Pos) -> bool:
        """Whether the declaration of ``name`` named at ``pos`` is in this text (not an include)."""
        return self.text[pos.start:pos.end] == name

    def node_decl(self, name: str) -> A.NodeDecl | None:
        if self.program is None:
            return None
        for d in self.program.nodes + self.program.contracts:
            if d.name == name and self.here(d.name, d.pos):
                return d
        return None

    def extent(self, name: str) -> A.Pos | None:
        for n, _, pos in self.decls():
            if n == name:
                return pos
        return None

    def name_span(self, name: str, pos: A.Pos) -> Span:
        """Where ``name`` is written in the declaration at ``pos`` (its first occurrence)."""
        found = re.compile(rf"\b{re.escape(name)}\b").search(self.text, pos.start, max(pos.end, pos.start))
        if found is None:
            return self.lines.span(pos.start, pos.start)
        return self.lines.span(found.start(), found.end())

    def enclosing(self, offset: int) -> A.NodeDecl | None:
        """The node, function or contract whose text holds ``offset``."""
        for name, kind, pos in self.decls():
            if kind in ("node", "function", "contract") and pos.start <= offset <= pos.end:
                return self.node_decl(name)
        return None


def _trailing(text: str, start: int, end: int) -> int:
    """``end`` moved back over the blank lines and whole-line comments that end
    ``text[start:end]``."""
    while True:
        stripped = len(text[start:end].rstrip())
        end = start + stripped
        # the declaration's last line (a one-line declaration: its own text, never what
        # precedes ``start``, which looped forever on a comment line before it)
        line_start = max(text.rfind("\n", start, end) + 1, start)
        line = text[line_start:end].lstrip()
        if line.startswith(("--", "//")) and "--%" not in line and "--@" not in line:
            end = line_start
            continue
        if line.endswith(("*)", "*/")) and not line.endswith(("@*)",)):
            opener = "(*" if line.endswith("*)") else "/*"
            begin = text.rfind(opener, start, end)
            if begin > start and text[begin:begin + 3] not in ("(*@", "/*@") and \
                    not text[max(text.rfind("\n", start, begin) + 1, start):begin].strip():
                end = begin
                continue
        return end


def analyse(text: str, path: str) -> Analysis:
    """Parse and check ``text`` (the file at ``path``: includes are read beside it)."""
    result = Analysis(path, text, Lines(text))
    with _WARNINGS_LOCK, gc_paused(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result.program = parse_text(text, path)
            result.checked = check_program(result.program)
        except InputError as exc:
            result.notes.append(located(result, "error", exc.message, exc.location))
        except RecursionError:
            result.notes.append(Note(Span(0, 0, 0, 0), "error", "the model nests too deeply"))
    if result.checked is not None:
        for w in result.checked.warnings:
            result.notes.append(located(result, "warning", w.message,
                                        SourceLocation(w.file, w.line, w.col)))
    for w in caught:
        if isinstance(w.message, SourceWarning):
            result.notes.append(located(result, "warning", w.message.message, w.message.location))
    return result


def located(result: Analysis, severity: str, message: str, loc: SourceLocation | None) -> Note:
    """A note at ``loc``: on the word there; at the top, naming the place, when ``loc`` is in
    another file (an included one) or unknown."""
    if loc is None or loc.line is None:
        return Note(Span(0, 0, 0, 0), severity, message)
    if loc.file and not _same_file(loc.file, result.path):
        return Note(Span(0, 0, 0, 0), severity, f"{loc}: {message}")
    return Note(result.lines.token_at(loc.line, loc.column or 1), severity, message)


def _same_file(a: str, b: str) -> bool:
    return a == b or Path(a).resolve() == Path(b).resolve()


# ---- outline, definitions, types ----

_STREAM_KINDS = (("inputs", "input"), ("outputs", "output"), ("locals", "local"))


def symbols(doc: Analysis) -> list[Symbol]:
    """The outline: the declarations of the text in order, a node's streams below it."""
    out: list[Symbol] = []
    for name, kind, pos in doc.decls():
        children: list[Symbol] = []
        decl = doc.node_decl(name) if kind in ("node", "function", "contract") else None
        if decl is not None:
            for attr, stream_kind in _STREAM_KINDS:
                for p in getattr(decl, attr):
                    children.append(_param_symbol(doc, p, stream_kind, decl))
            for item in decl.contract:
                if item.kind == "mode" and item.name:
                    children.append(Symbol(item.name, "mode", doc.lines.span(item.pos.start, item.pos.end),
                                           doc.name_span(item.name, item.pos)))
        detail = "imported " + kind if decl is not None and decl.imported else ""
        out.append(Symbol(name, kind, doc.lines.span(pos.start, pos.end), doc.name_span(name, pos),
                          detail, tuple(children)))
    return out


def _param_symbol(doc: Analysis, p: A.Param, kind: str, decl: A.NodeDecl) -> Symbol:
    t = stream_type(doc, decl.name, p.name)
    span = doc.lines.span(p.pos.start, max(p.pos.end, p.pos.start + len(p.name)))
    name_span = doc.lines.span(p.pos.start, p.pos.start + len(p.name))
    return Symbol(p.name, kind, span, name_span, t or "")


def stream_type(doc: Analysis, node: str, name: str) -> str | None:
    """The checked type of stream ``name`` of ``node`` (None before a successful check)."""
    if doc.checked is None or node not in doc.checked.nodes:
        return None
    t = doc.checked.nodes[node].types.get(name)
    return None if t is None else str(t)


def definition(doc: Analysis, line: int, char: int) -> Span | None:
    """Where the name at ``line:char`` is declared: a stream of the enclosing node, else a
    declaration of the text."""
    found = doc.lines.word_at(line, char)
    if found is None:
        return None
    word, offset = found
    decl = doc.enclosing(offset)
    if decl is not None:
        for p in decl.inputs + decl.outputs + decl.locals:
            if p.name == word:
                return doc.lines.span(p.pos.start, p.pos.start + len(p.name))
    for name, _, pos in doc.decls():
        if name == word:
            return doc.name_span(name, pos)
    return None


def word_in_node(doc: Analysis, line: int, char: int) -> tuple[str, str | None, Span] | None:
    """The word at ``line:char``, the node enclosing it (None: none) and its span."""
    found = doc.lines.word_at(line, char)
    if found is None:
        return None
    word, offset = found
    decl = doc.enclosing(offset)
    return word, decl.name if decl else None, doc.lines.span(offset, offset + len(word))
