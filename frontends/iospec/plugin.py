"""Plugin registration for I/O specifications: the ``kinduct iospec`` command group."""

from __future__ import annotations

import argparse

from kinduct.kernel.hookspecs import hookimpl


@hookimpl
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    from kinduct.frontends.iospec.cli import add_commands

    add_commands(subparsers)
