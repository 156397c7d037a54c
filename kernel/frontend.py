"""What a frontend is: a named reader from source files to transition systems, the one place
where input files are read (:func:`read_source`), and :func:`gc_paused` for reading them."""

from __future__ import annotations

import abc
import contextlib
import gc
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from kinduct.kernel.errors import InputError, SourceLocation
from kinduct.kernel.system import TransitionSystem

if TYPE_CHECKING:
    from pysmt.fnode import FNode


@attrs.frozen
class LoadOptions:
    """Options from the command line that frontends may honour."""

    main: str | None = None
    compositional: bool = False
    modular: bool = False
    #: Guard each model element by an activation literal (``TransitionSystem.elements``), for
    #: inductive validity cores and minimal cut sets; frontends without elements ignore it.
    elements: bool = False


@attrs.frozen
class SourceFormula:
    """A formula printed in a frontend's source syntax: ``text`` (None when the frontend cannot
    print it; ``notes`` say why), ``readable``: every name in ``text`` is one the analysed
    component reads as written (so it can be stated there, e.g. as a property), and ``notes``
    (what the names that are not mean)."""

    text: str | None
    readable: bool = True
    notes: tuple[str, ...] = ()


class Frontend(abc.ABC):
    name: str
    extensions: tuple[str, ...] = ()
    description: str = ""

    @abc.abstractmethod
    def load(self, path: Path, options: LoadOptions) -> TransitionSystem:
        """Read ``path``; raise :class:`~kinduct.kernel.errors.InputError` on bad input."""

    def load_analyses(self, path: Path, options: LoadOptions) -> list[TransitionSystem]:
        """The systems to analyse, in order.  One by default; a frontend with modular or
        compositional analyses returns one system per analysis."""
        return [self.load(path, options)]

    def source_formula(self, system: TransitionSystem, formula: FNode) -> SourceFormula | None:
        """``formula`` (over ``system``'s variables) in this frontend's source syntax, from
        ``system.source_terms``; None: the frontend has no printer."""
        return None

    def claims(self, path: Path) -> bool:
        return path.suffix.lower() in self.extensions


def check_input_file(path: str | Path) -> Path:
    """An input file named by the user: it must exist and be a regular file (a directory, a
    named pipe or ``/dev/zero`` would hang or mislead a reader), refused with exit code 3."""
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{path}: is a directory, not a model file")
    if not stat.S_ISREG(mode):
        raise InputError(f"{path}: not a regular file (a pipe, device or socket cannot be read "
                         "as a model)")
    return p


#: Inputs larger than this are refused before they are read (bytes); ``KINDUCT_MAX_INPUT_MB``
#: overrides it.
MAX_INPUT_BYTES = 256 * 1024 * 1024


def read_source(path: str | Path) -> str:
    """The text of an input file: the one place where kinduct reads model and data files.

    Refuses non-regular files and files over the size limit; bytes that are not UTF-8 are a
    located error naming the line, column and byte offset."""
    p = check_input_file(path)
    limit = int(os.environ.get("KINDUCT_MAX_INPUT_MB", MAX_INPUT_BYTES // (1024 * 1024))) * 1024 * 1024
    size = p.stat().st_size
    if size > limit:
        raise InputError(f"{path}: {size} bytes is over the input limit of {limit} bytes "
                         "(set KINDUCT_MAX_INPUT_MB)")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", errors="replace")) + 1
        raise InputError(f"not UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}",
                         SourceLocation(str(path), line, column)) from None


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, then as it was.

    Reading a model allocates millions of objects that all stay alive (tokens, trees, terms),
    and the collector's passes over them took most of the time of a big parse (a 1 MB RASP
    program: 1.5 s with it, 0.3 s without); readers build no reference cycles worth collecting
    early.  The frontends' parse functions and :func:`~kinduct.kernel.loading.load_systems`
    run under it; nesting is harmless."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
