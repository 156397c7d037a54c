"""``kinduct check --realizability FILE``: the realizability of every contract (and of every
component's environment) of a model, as Kind 2's ``--enable CONTRACTCK`` checks it.

The option is added to ``check`` through ``kinduct_add_check_options``; with it, ``check``
runs this plugin's handler instead of the engines (the handler ``check`` had before is kept for
runs without the option).  The frontend supplies the questions through the
``kinduct_contract_systems`` hook; :mod:`.game` answers them.
"""

from __future__ import annotations

import argparse
import time
import warnings

from kinduct.kernel import registry
from kinduct.kernel.errors import SourceWarning, UsageError
from kinduct.kernel.frontend import LoadOptions, check_input_file
from kinduct.kernel.hookspecs import hookimpl
from kinduct.kernel.report import log_object

HELP = ("check the realizability of every contract and environment instead of the properties "
        "(Kind 2: --enable CONTRACTCK)")


@hookimpl
def kinduct_add_check_options(parser: argparse.ArgumentParser) -> None:
    from kinduct.kernel.cli_blocks import parse_bool

    group = parser.add_argument_group("realizability")
    group.add_argument("--realizability", action="store_true", help=HELP)
    group.add_argument("--check-environment", type=parse_bool, default=True, metavar="BOOL",
                       help="with --realizability, also check every environment (Kind 2: "
                            "--check_environment)")
    group.add_argument("--check-contract-is-sat", type=parse_bool, default=True, metavar="BOOL",
                       help="with --realizability, check an unrealizable contract's "
                            "satisfiability (Kind 2: --check_contract_is_sat)")
    previous = parser.get_default("handler")

    def handler(args: argparse.Namespace) -> int:
        if args.realizability:
            return run(args)
        return previous(args)
    parser.set_defaults(handler=handler)


def run(args: argparse.Namespace) -> int:
    """Check every contract system of ``args.file``; print Kind 2's objects (``--json``) or
    tables; return Kind 2's exit code (40 when one is unrealizable, 30 when one is unknown)."""
    from kinduct.kernel.cli_blocks import console, report_warnings, run_start
    from kinduct.kernel.report import options_object
    from kinduct.plugins.realizability import game
    from kinduct.plugins.realizability.report import Analysis, human_report, json_objects

    start = run_start()
    deadline = None if args.timeout is None else start + args.timeout
    path = check_input_file(args.file)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SourceWarning)
        systems = registry.plugin_manager().hook.kinduct_contract_systems(
            path=path, options=LoadOptions(main=args.main))
    found = [w.message for w in caught if isinstance(w.message, SourceWarning)]
    report_warnings(found, args.json)
    if systems is None:
        raise UsageError(f"{path}: no frontend offers realizability checks for this file")
    if not args.check_environment:
        systems = [s for s in systems if s.context != "environment"]
    analyses: list[Analysis] = []
    for system in systems:
        if deadline is not None and time.monotonic() >= deadline:
            analyses.append(Analysis(system, game.Outcome("unknown", 0.0, reason="timeout"), timeout=True))
            continue
        outcome = game.check(system, deadline, args.bound)
        sat = None
        if outcome.result == "unrealizable" and args.check_contract_is_sat:
            sat = game.check(system, deadline, args.bound, satisfiability=True)
        analyses.append(Analysis(system, outcome, sat, timeout=outcome.reason == "timeout"))
    form = "xml" if getattr(args, "xml", False) else "ijson" if getattr(args, "ijson", False) \
        else "json" if args.json else None
    if form is not None:  # -json, -xml (Kind 2's XML of the same objects), -ijson
        from kinduct.kernel.output_forms import write_objects

        options = options_object(["contractck"], args.timeout, args.bound)
        objects = [options] + [log_object("warn", "parse", w.message, w.location) for w in found]
        for a in analyses:
            objects.extend(json_objects(a))
        write_objects(form, objects)
    else:
        human_report(console(), analyses)
    results = {a.outcome.result for a in analyses}
    if "unrealizable" in results:
        return 40
    if "unknown" in results:
        return 30
    return 0
