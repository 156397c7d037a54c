"""Registration of ``kinduct sample``."""

from __future__ import annotations

import argparse

from kinduct.kernel.hookspecs import hookimpl


@hookimpl
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    from kinduct.plugins.sample.cli import add_command

    add_command(subparsers)
