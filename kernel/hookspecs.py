"""Hook specifications: the only way plugins extend kinduct (entry-point group ``kinduct``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from kinduct.kernel.acceptor import Acceptor
    from kinduct.kernel.backend import Backend
    from kinduct.kernel.contracts import ContractSystem
    from kinduct.kernel.engine import Engine
    from kinduct.kernel.frontend import Frontend, LoadOptions

hookspec = pluggy.HookspecMarker("kinduct")
hookimpl = pluggy.HookimplMarker("kinduct")


@hookspec
def kinduct_register_frontends() -> list[Frontend]:
    """Return frontends: readers from source files to transition systems."""


@hookspec
def kinduct_register_engines() -> list[Engine]:
    """Return engines that decide properties."""


@hookspec
def kinduct_register_backends() -> list[Backend]:
    """Return SMT or external backends."""


@hookspec
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Add CLI subcommands.  Each parser must ``set_defaults(handler=fn)`` where
    ``fn(args) -> int`` returns the exit code."""


@hookspec
def kinduct_add_check_options(parser: argparse.ArgumentParser) -> None:
    """Add options to ``kinduct check`` (a backend's or frontend's own settings).  The parsed
    namespace reaches external checkers through ``ExternalChecker.configure``."""


@hookspec
def kinduct_rewrite_argv(argv: list[str]) -> list[str]:
    """Return the command line with this plugin's spellings of options (another tool's, say)
    replaced by kinduct's; the kernel applies every plugin's rewriting in turn before parsing.
    Raise :class:`~kinduct.kernel.errors.UsageError` for a spelling that has no translation."""


@hookspec(firstresult=True)
def kinduct_load_acceptor(path: Path, name: str) -> Acceptor | None:
    """Return ``path`` as a language acceptor named ``name`` when this plugin reads that kind
    of file (by its extension), else None; the first answer wins."""


@hookspec(firstresult=True)
def kinduct_contract_systems(path: Path, options: LoadOptions) -> list[ContractSystem] | None:
    """Return the realizability questions of the model at ``path`` (its components' contracts
    and environments, in the order they are checked) when this plugin reads that kind of
    file, else None; the first answer wins."""
