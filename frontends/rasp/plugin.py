"""Plugin registration for the RASP frontend: the ``.rasp`` reader and ``kinduct rasp``."""

from __future__ import annotations

import argparse
from pathlib import Path

from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import Frontend, LoadOptions
from kinduct.kernel.hookspecs import hookimpl
from kinduct.kernel.system import TransitionSystem


class RASPFrontend(Frontend):
    """RASP programs have no properties of their own: the question (equivalence of two s-ops,
    or an s-op that must hold) is given on the command line of ``kinduct rasp check``."""

    name = "rasp"
    extensions = (".rasp",)
    description = "RASP programs (Weiss et al.), checked up to an input length"

    def load(self, path: Path, options: LoadOptions) -> TransitionSystem:
        from kinduct.frontends.rasp.interp import load_program

        load_program(path)  # report syntax and name errors first
        raise InputError(f"{path}: a RASP program states no property by itself; use "
                         f"'kinduct rasp check {path} --equiv SOP1 SOP2 --alphabet ABC' or "
                         f"'--assert SOP'")


@hookimpl
def kinduct_register_frontends() -> list[Frontend]:
    return [RASPFrontend()]


@hookimpl
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    from kinduct.frontends.rasp.cli import add_commands

    add_commands(subparsers)
