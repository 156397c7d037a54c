"""Plugin registration for the Lucent (Kind 2 Lustre) frontend and ``kinduct simulate``."""

from __future__ import annotations

import argparse
from pathlib import Path

from kinduct.kernel.contracts import ContractSystem
from kinduct.kernel.frontend import Frontend, LoadOptions
from kinduct.kernel.hookspecs import hookimpl
from kinduct.kernel.system import TransitionSystem


class LucentFrontend(Frontend):
    name = "lucent"
    extensions = (".lus", ".lucent")
    description = "Lucent / Kind 2 Lustre models"

    def load(self, path: Path, options: LoadOptions) -> TransitionSystem:
        return self.load_analyses(path, options)[0]

    def load_analyses(self, path: Path, options: LoadOptions) -> list[TransitionSystem]:
        from kinduct.frontends.lucent.pipeline import load_systems
        return load_systems(path, options)


@hookimpl
def kinduct_register_frontends() -> list[Frontend]:
    return [LucentFrontend()]


@hookimpl
def kinduct_contract_systems(path: Path, options: LoadOptions) -> list[ContractSystem] | None:
    if not LucentFrontend().claims(path):
        return None
    from kinduct.frontends.lucent.realizability import contract_systems
    return contract_systems(path, options)


@hookimpl
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    sim = subparsers.add_parser("simulate", help="run a Lucent node on given inputs and print every stream",
                                example="kinduct simulate examples/lucent/combine.lus "
                                        "--input examples/lucent/combine_inputs.csv")
    sim.add_argument("file")
    sim.add_argument("--input", required=True, help="inputs: CSV (one column per input) or JSON")
    sim.add_argument("--main", help="node to simulate")
    sim.add_argument("--json", action="store_true", help="Kind 2-style JSON node blocks")

    def handler(args: argparse.Namespace) -> int:
        from kinduct.frontends.lucent.simcli import run_simulate
        return run_simulate(args)
    sim.set_defaults(handler=handler)
