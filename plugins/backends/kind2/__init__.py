"""The external Kind 2 backend plugin (``--solver kind2``).

Registers the backend and adds ``--kind2-path`` to ``kinduct check``: the option sets the
``KINDUCT_KIND2`` environment variable that the backend reads, so the kernel's option handling
needs no knowledge of Kind 2 and child processes (bench tasks) inherit the choice.
"""

from __future__ import annotations

import argparse
import os

from kinduct.kernel.backend import Backend
from kinduct.kernel.hookspecs import hookimpl
from kinduct.plugins.backends.kind2.backend import PATH_VARIABLE, Kind2Backend, enable_flags

__all__ = ["Kind2Backend", "enable_flags", "PATH_VARIABLE"]


class SetKind2Path(argparse.Action):
    """Store the path and export it for the backend (and for processes started later)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[override]
        setattr(namespace, self.dest, values)
        os.environ[PATH_VARIABLE] = os.path.abspath(values) if os.sep in str(values) else str(values)


def add_kind2_path_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind2-path", action=SetKind2Path, metavar="PATH",
                        help="the Kind 2 binary for --solver kind2 (default: kind2 on PATH)")


@hookimpl
def kinduct_register_backends() -> list[Backend]:
    return [Kind2Backend()]


@hookimpl
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    check = subparsers.choices.get("check")
    if check is not None and "--kind2-path" not in check._option_string_actions:
        add_kind2_path_option(check)
