"""Plugin registration for the C-RASP frontend: the ``.crasp`` reader, its acceptor hook and
``kinduct crasp``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from kinduct.kernel.frontend import Frontend, LoadOptions
from kinduct.kernel.hookspecs import hookimpl
from kinduct.kernel.system import TransitionSystem

if TYPE_CHECKING:
    from kinduct.kernel.acceptor import Acceptor


class CRASPFrontend(Frontend):
    """``kinduct check P.crasp`` asks whether some nonempty word is accepted (a reachability
    property ``accept``; its witness is the shortest accepted word)."""

    name = "crasp"
    extensions = (".crasp",)
    description = "C-RASP programs (counting RASP), as acceptors"

    def load(self, path: Path, options: LoadOptions) -> TransitionSystem:
        from kinduct.frontends.crasp.parser import load
        from kinduct.frontends.crasp.translate import checkable_system

        return checkable_system(load(path), str(path))


@hookimpl
def kinduct_register_frontends() -> list[Frontend]:
    return [CRASPFrontend()]


@hookimpl
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    from kinduct.frontends.crasp.cli import add_commands

    add_commands(subparsers)


@hookimpl
def kinduct_load_acceptor(path: Path, name: str) -> Acceptor | None:
    if Path(path).suffix.lower() != ".crasp":
        return None
    from kinduct.frontends.crasp.parser import load
    from kinduct.frontends.crasp.translate import to_acceptor

    return to_acceptor(load(path), name)
