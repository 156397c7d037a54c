"""Errors that reach the user as one clear message, with Kind 2's exit codes.

======  =====================================================================
code    meaning
======  =====================================================================
1       internal error (a bug: reported as one line, ``--debug`` shows it all)
2       :class:`UsageError`: a bad command line (unknown option, engine, solver name)
3       :class:`InputError`: a missing or unreadable file, a parse or type error
4       :class:`SolverUnavailable`: the chosen solver is not installed here
======  =====================================================================
"""

from __future__ import annotations

from pathlib import Path

import attrs


@attrs.frozen
class SourceLocation:
    """A place in a source file; line and column are 1-based, as editors count."""

    file: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


class KinductError(Exception):
    """Base of every error kinduct reports deliberately."""

    exit_code = 1


class InputError(KinductError):
    """Bad input: a missing or unreadable file, a parse or type error.

    Rendered as ``file:line:col: error: message`` followed, when the source text is known, by the
    offending line and a caret under the column.
    """

    exit_code = 3

    def __init__(
        self,
        message: str,
        location: SourceLocation | None = None,
        source_line: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.location = location
        self.source_line = source_line

    @classmethod
    def at(cls, message: str, file: str | Path | None, text: str | None, line: int | None,
           column: int | None) -> InputError:
        """Build an error at ``line:column`` of ``file``, quoting the line from ``text``."""
        source_line = None
        if text is not None and line is not None:
            lines = text.splitlines()
            if 1 <= line <= len(lines):
                source_line = lines[line - 1]
        return cls(message, SourceLocation(str(file) if file else None, line, column), source_line)

    def render(self) -> str:
        head = f"{self.location}: error: {self.message}" if self.location else f"error: {self.message}"
        if self.source_line is None:
            return head
        line, column = _excerpt(self.source_line, self.location.column if self.location else None)
        caret = ""
        if column:
            caret = "\n  " + "".join(c if c == "\t" else " " for c in line[: column - 1]) + "^"
        return f"{head}\n  {line}{caret}"

    def __str__(self) -> str:
        return self.render()


#: The widest source excerpt an error shows; a longer line is cut around the column.
EXCERPT_WIDTH = 120


def _excerpt(line: str, column: int | None) -> tuple[str, int | None]:
    """``line`` cut to :data:`EXCERPT_WIDTH` characters around ``column`` (marked with ``...``
    where cut), and the column within the excerpt."""
    if len(line) <= EXCERPT_WIDTH:
        return line, column
    at = min(max((column or 1) - 1, 0), len(line))
    start = max(0, min(at - EXCERPT_WIDTH // 2, len(line) - EXCERPT_WIDTH))
    end = start + EXCERPT_WIDTH
    head = "..." if start > 0 else ""
    tail = "..." if end < len(line) else ""
    return head + line[start:end] + tail, None if column is None else at - start + len(head) + 1


class UsageError(InputError):
    """A bad command line: an unknown engine, solver or property name, a bad option value.

    A subclass of :class:`InputError` so code that reports input errors reports these too; only
    the exit code differs (2, as argparse and Kind 2)."""

    exit_code = 2


class SolverUnavailable(InputError):
    """The chosen solver is known but cannot run here (Kind 2's exit code 4)."""

    exit_code = 4


class UnsupportedError(InputError):
    """A language feature kinduct recognises but does not implement yet."""

    def __init__(self, feature: str, location: SourceLocation | None = None,
                 source_line: str | None = None) -> None:
        super().__init__(f"unsupported: {feature}", location, source_line)


class SourceWarning(UserWarning):
    """A warning about the input, with its place: frontends raise it with
    ``warnings.warn(SourceWarning(message, location))``; the command line collects them and
    prints them (or, under ``--json``, turns them into Kind 2 ``log`` objects)."""

    def __init__(self, message: str, location: SourceLocation | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        return f"{self.location}: warning: {self.message}" if self.location else f"warning: {self.message}"


def warn(message: str, location: SourceLocation | None = None) -> None:
    """Report a :class:`SourceWarning` (collected by the command line, or by the caller)."""
    import warnings

    warnings.warn(SourceWarning(message, location), stacklevel=2)


class EngineRefusal(KinductError):
    """An engine cannot handle this problem (e.g. a bounded-only problem given to k-induction)."""

    exit_code = 2
