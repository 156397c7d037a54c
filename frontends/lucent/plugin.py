"""Plugin registration for the Lucent (Kind 2 Lustre) frontend and ``kinduct simulate``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from kinduct.kernel.frontend import Frontend, LoadOptions, SourceFormula
from kinduct.kernel.hookspecs import hookimpl
from kinduct.kernel.system import TransitionSystem

if TYPE_CHECKING:
    from pysmt.fnode import FNode

    from kinduct.kernel.contracts import ContractSystem


class LucentFrontend(Frontend):
    name = "lucent"
    extensions = (".lus", ".lucent")
    description = "Lucent / Kind 2 Lustre models"

    def load(self, path: Path, options: LoadOptions) -> TransitionSystem:
        return self.load_analyses(path, options)[0]

    def load_analyses(self, path: Path, options: LoadOptions) -> list[TransitionSystem]:
        from kinduct.frontends.lucent.pipeline import load_systems
        return load_systems(path, options)

    def source_formula(self, system: TransitionSystem, formula: FNode) -> SourceFormula | None:
        from kinduct.frontends.lucent.trace.invariants import source_formula
        return source_formula(system, formula)


@hookimpl
def kinduct_register_frontends() -> list[Frontend]:
    return [LucentFrontend()]


@hookimpl
def kinduct_contract_systems(path: Path, options: LoadOptions) -> list[ContractSystem] | None:
    if not LucentFrontend().claims(path):
        return None
    from kinduct.frontends.lucent.realizability import contract_systems
    return contract_systems(path, options)


#: ``kinduct simulate --help``: the input formats (kinduct/frontends/lucent/sim/inputs.py).
SIMULATE_DESCRIPTION = """\
Run a Lucent node on given inputs and print every stream at every step.

input formats (--input FILE; JSON by content, CSV by the .csv extension):
  [{"x": 1, "r": "1.0/2.0"}, {"x": 2, "r": 0.5}]   one object per step (Kind 2's interpreter
                                                  input); numbers may be strings, a record is
                                                  an object, an array or tuple a list, an
                                                  enumeration value its constant's name
  {"x": [1, 2], "r": ["1/2", 0.5]}                 an object of columns
  the output of 'kinduct simulate --json'          node blocks (the main node's)
  the output of 'kinduct check --json'             the first counterexample (or kind2 -json's;
                                                  of Kind 2's interpreter, its execution;
                                                  records may come field by field: "p.x")
  x,r / 1,1/2 / 2,0.5                              CSV: a header row, one row per step
a node without inputs needs no file: --steps N. A malformed file is an input error (exit 3)."""


#: ``kinduct monitor``'s exit codes: Kind 2 v3.0.0's codes of a safe (0) and an unsafe (40)
#: result; Kind 2's own monitor exits 0 either way (``--exit-code-mode only_errors``).
MONITOR_EXIT_CODES = """exit codes:
  0    every guarantee and mode held (or --exit-code-mode only_errors)
  40   a guarantee, or a mode's ensures while its requires hold, was violated
  1    internal error        2  bad command line
  3    input error (missing, unreadable or malformed model or trace)"""

#: ``kinduct simulate``'s exit codes.
SIMULATE_EXIT_CODES = """exit codes:
  0    simulated
  1    internal error        2  bad command line (no --input, no --steps)
  3    input error (missing, unreadable or malformed model or input file)"""


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


@hookimpl
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    sim = subparsers.add_parser("simulate", help="run a Lucent node on given inputs and print every stream",
                                description=SIMULATE_DESCRIPTION,
                                example="kinduct simulate examples/lucent/combine.lus "
                                        "--input examples/lucent/combine_inputs.csv")
    sim.add_argument("file")
    sim.add_argument("--input", help="the inputs: JSON or CSV (formats below); Kind 2's "
                                     "--interpreter_input_file")
    sim.add_argument("--steps", type=positive_int, metavar="N",
                     help="simulate N steps: the first N of the input file, or N steps of a "
                          "node without inputs (Kind 2's --interpreter_steps)")
    sim.add_argument("--main", help="node to simulate")
    sim.epilog = SIMULATE_EXIT_CODES
    sim.add_argument("--json", action="store_true", help="Kind 2-style JSON node blocks")

    def handler(args: argparse.Namespace) -> int:
        from kinduct.frontends.lucent.simcli import run_simulate
        return run_simulate(args)
    sim.set_defaults(handler=handler)

    lsp = subparsers.add_parser("lsp", help="a Language Server Protocol server over stdio for Lucent files "
                                            "(diagnostics, outline, checks as you edit)",
                                example="kinduct lsp --timeout 30")
    lsp.add_argument("--timeout", type=float, default=20.0,
                     help="seconds per node analysis of a check (default 20)")
    lsp.add_argument("--debounce", type=float, default=0.3,
                     help="seconds of quiet after an edit before the text is analysed again (default 0.3)")
    lsp.add_argument("--kind2-extension", action="store_true",
                     help="send kind2/updateComponents after each analysis, as Kind 2's language server "
                          "does for its VS Code extension")

    def serve(args: argparse.Namespace) -> int:
        from kinduct.frontends.lucent.server.checking import CheckOptions
        from kinduct.frontends.lucent.server.features import serve as run_server
        return run_server(CheckOptions(timeout=args.timeout), args.debounce, args.kind2_extension)
    lsp.set_defaults(handler=serve)

    add_contract_commands(subparsers)


def add_contract_commands(subparsers: argparse._SubParsersAction) -> None:
    """``kinduct testgen`` and ``kinduct monitor`` (the modules load when they run)."""
    from kinduct.kernel.cli_blocks import parse_bool, timeout_seconds
    tg = subparsers.add_parser("testgen", help="tests from a Lucent node's contract: diverse traces "
                               "for every reachable mode path",
                               example="kinduct testgen examples/lucent/accumulator_modes.lus --depth 3",
                               epilog="exit codes:\n  0    the exploration ended (see the summary: "
                               "paths, deadlocks, undecided, traces)\n  1    internal error        "
                               "2  bad command line\n  3    input error (missing or malformed file, "
                               "no contract with modes, a stream of a structured type)")
    tg.add_argument("file")
    tg.add_argument("--main", help="node to generate tests for")
    tg.add_argument("--depth", type=int, default=5,
                    help="explore steps 0..K (Kind 2's --testgen_len; default 5)")
    tg.add_argument("--per-path", type=int, default=3, help="traces per mode path (default 3)")
    tg.add_argument("--seed", type=int, default=0, help="random seed of the suggestions")
    tg.add_argument("--out", default="testgen", help="output directory (default ./testgen)")
    tg.add_argument("--graph-only", action="store_true", help="only the summary and the graph")
    tg.add_argument("--compositional", type=parse_bool, nargs="?", const=True, default=False,
                    help="read called nodes by their contracts (Kind 2's --testgen does)")
    tg.add_argument("--timeout", type=timeout_seconds, default=None, help="seconds (default none)")
    tg.add_argument("--solver", default=None, help="SMT backend (default: the preferred one)")
    tg.add_argument("--json", action="store_true", help="the summary as JSON")

    def testgen(args: argparse.Namespace) -> int:
        from kinduct.frontends.lucent.testgen import run_testgen
        return run_testgen(args)
    tg.set_defaults(handler=testgen)

    mon = subparsers.add_parser("monitor", help="check a recorded run of a Lucent node against its "
                                "contract, step by step",
                                example="kinduct monitor examples/lucent/accumulator_modes.lus --trace "
                                        "examples/lucent/accumulator_modes_run.json")
    mon.add_argument("file")
    mon.add_argument("--trace", required=True, help="inputs and outputs: JSON (steps, columns, "
                     "node blocks, a counterexample) or CSV")
    mon.add_argument("--main", help="node whose contract to monitor")
    mon.add_argument("--json", action="store_true", help="JSON output")
    mon.add_argument("--exit-code-mode", choices=("results_and_errors", "only_errors"),
                     default="results_and_errors",
                     help="only_errors: exit 0 also when the contract is violated (Kind 2's "
                          "monitor does; its spelling --enable contract_monitor sets it)")
    mon.epilog = MONITOR_EXIT_CODES

    def monitor(args: argparse.Namespace) -> int:
        from kinduct.frontends.lucent.monitor import run_monitor
        return run_monitor(args)
    mon.set_defaults(handler=monitor)
