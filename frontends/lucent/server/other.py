"""Diagnostics for the other frontends' files (``.vmt``, ``.crasp``, ``.rasp``, ``.regex``):
the text is loaded by the frontend the kernel's registry names for its extension (never
imported from here), and a load error becomes one diagnostic.  Only errors: these frontends
have no outline or checks in the server."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

from kinduct.frontends.lucent.server.document import Lines, Note, Span
from kinduct.kernel import registry
from kinduct.kernel.errors import InputError, KinductError, SourceWarning
from kinduct.kernel.frontend import LoadOptions

LUCENT_SUFFIXES = (".lus", ".lucent")


def is_lucent(path: str) -> bool:
    return Path(path).suffix.lower() in LUCENT_SUFFIXES


def analyse_other(text: str, path: str) -> list[Note]:
    """The load errors and warnings of ``text`` (a file at ``path``) by its frontend; no notes
    when no frontend claims the extension."""
    name = Path(path).name
    try:
        frontend = registry.frontend_for(Path(path))
    except KinductError:
        return []
    lines = Lines(text)
    notes: list[Note] = []
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copy = Path(tmp) / name
        copy.write_text(text)
        try:
            frontend.load(copy, LoadOptions())
        except InputError as exc:
            loc = exc.location
            span = lines.token_at(loc.line, loc.column or 1) if loc and loc.line else Span(0, 0, 0, 0)
            notes.append(Note(span, "error", exc.message))
        except Exception as exc:  # noqa: BLE001 - a frontend's failure is shown, never raised
            notes.append(Note(Span(0, 0, 0, 0), "error", f"internal error: {type(exc).__name__}: {exc}"))
    for w in caught:
        if isinstance(w.message, SourceWarning):
            loc = w.message.location
            span = lines.token_at(loc.line, loc.column or 1) if loc and loc.line else Span(0, 0, 0, 0)
            notes.append(Note(span, "warning", w.message.message))
    return notes
