"""Plugin registration for the ``.regex`` frontend: the reader, its acceptor hook and the
``kinduct regex`` commands."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from kinduct.kernel.frontend import Frontend, LoadOptions
from kinduct.kernel.hookspecs import hookimpl
from kinduct.kernel.system import TransitionSystem

if TYPE_CHECKING:
    from kinduct.kernel.acceptor import Acceptor


class RegexFrontend(Frontend):
    """``kinduct check R.regex`` asks whether some nonempty word matches (a reachability
    property ``accept`` whose witness is the shortest matching word)."""

    name = "regex"
    extensions = (".regex",)
    description = "regular expressions (derivatives and DFAs), as acceptors"

    def load(self, path: Path, options: LoadOptions) -> TransitionSystem:
        from kinduct.frontends.regex.acceptor import checkable_system
        from kinduct.frontends.regex.parser import load

        return checkable_system(load(path), str(path))


@hookimpl
def kinduct_register_frontends() -> list[Frontend]:
    return [RegexFrontend()]


@hookimpl
def kinduct_load_acceptor(path: Path, name: str) -> Acceptor | None:
    if Path(path).suffix.lower() != ".regex":
        return None
    from kinduct.frontends.regex.acceptor import load_acceptor

    return load_acceptor(path, name)


@hookimpl
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    from kinduct.frontends.regex.cli import add_commands

    add_commands(subparsers)
