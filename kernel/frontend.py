"""What a frontend is: a named reader from source files to transition systems."""

from __future__ import annotations

import abc
from pathlib import Path
from typing import Any

import attrs

from kinduct.kernel.system import TransitionSystem


@attrs.frozen
class LoadOptions:
    """Options from the command line that frontends may honour."""

    main: str | None = None
    compositional: bool = False
    modular: bool = False
    extra: dict[str, Any] = attrs.field(factory=dict)


class Frontend(abc.ABC):
    name: str
    extensions: tuple[str, ...] = ()
    description: str = ""

    @abc.abstractmethod
    def load(self, path: Path, options: LoadOptions) -> TransitionSystem:
        """Read ``path``; raise :class:`~kinduct.kernel.errors.InputError` on bad input."""

    def load_analyses(self, path: Path, options: LoadOptions) -> list[TransitionSystem]:
        """The systems to analyse, in order.  One by default; a frontend with modular or
        compositional analyses (Lucent) returns one system per analysis."""
        return [self.load(path, options)]

    def claims(self, path: Path) -> bool:
        return path.suffix.lower() in self.extensions
