"""The VMT-LIB frontend plugin."""

from __future__ import annotations

from pathlib import Path

from kinduct.kernel.frontend import Frontend, LoadOptions
from kinduct.kernel.hookspecs import hookimpl
from kinduct.kernel.system import TransitionSystem


class VMTFrontend(Frontend):
    name = "vmt"
    extensions = (".vmt",)
    description = "VMT-LIB transition systems (nuXmv, ic3ia, Pono)"

    def load(self, path: Path, options: LoadOptions) -> TransitionSystem:
        from kinduct.frontends.vmt.reader import read_vmt

        return read_vmt(path)


@hookimpl
def kinduct_register_frontends() -> list[Frontend]:
    return [VMTFrontend()]
