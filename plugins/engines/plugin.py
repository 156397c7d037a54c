"""Registers kinduct's built-in engines through the same hook a third-party plugin uses; the
engine modules (and PySMT with them) are imported when the engines are first asked for, not
when the plugin is loaded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.kernel.hookspecs import hookimpl

if TYPE_CHECKING:
    from kinduct.kernel.engine import Engine


@hookimpl
def kinduct_register_engines() -> list[Engine]:
    from kinduct.plugins.engines.bmc import BMC
    from kinduct.plugins.engines.chc import CHC
    from kinduct.plugins.engines.ic3 import IC3
    from kinduct.plugins.engines.ic3ia import IC3IAEngine
    from kinduct.plugins.engines.ic3mbp import IC3MBP
    from kinduct.plugins.engines.invgen import InvGen
    from kinduct.plugins.engines.kind import KInduction
    from kinduct.plugins.engines.portfolio import Portfolio

    return [BMC(), KInduction(), IC3(), IC3IAEngine(), IC3MBP(), CHC(), InvGen(), Portfolio()]
