"""The ``kinduct`` command line.  Subcommands beyond ``check`` and ``plugins`` come from
plugins through the ``kinduct_add_commands`` hook."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from kinduct.kernel import registry
from kinduct.kernel.errors import InputError, KinductError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.report import human_report, json_objects
from kinduct.kernel.runner import RunOptions, run, select_properties
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict, exit_code

#: When this process started working: ``--timeout`` counts from here, plugin loading included.
PROCESS_START = time.monotonic()


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit code 2."""

    def error(self, message: str):  # type: ignore[override]
        sys.stderr.write(f"kinduct: error: {message}\n")
        raise SystemExit(2)


def console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def existing_file(path: str) -> Path:
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file")
    if p.is_dir():
        raise InputError(f"{path}: is a directory, not a model file")
    return p


def csv_list(text: str) -> tuple[str, ...]:
    items = tuple(x.strip() for x in text.split(",") if x.strip())
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return items


def _positive(cast: type, what: str):
    """An argparse type for positive numbers of the given kind."""
    def parse(text: str):
        try:
            value = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'") from None
        if value <= 0:
            raise argparse.ArgumentTypeError("must be positive")
        return value

    return parse


positive_float = _positive(float, "a number of seconds")
positive_int = _positive(int, "a whole number")


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by every command that runs engines."""
    parser.add_argument("--engine", type=csv_list, default=("portfolio",),
                        help="engines to run in parallel, comma-separated (default: portfolio)")
    parser.add_argument("--solver", default="z3", help="SMT backend (z3, cvc5, kind2)")
    parser.add_argument("--timeout", type=positive_float, default=None,
                        help="wall-clock limit in seconds for the whole analysis")
    parser.add_argument("--bound", type=int, default=None, help="largest k to explore")
    parser.add_argument("--json", action="store_true", help="Kind 2-compatible JSON output")


def run_options(args: argparse.Namespace, properties: Sequence[str] = ()) -> RunOptions:
    extra = {}
    if getattr(args, "certify", False):
        extra["certify"] = True
    return RunOptions(engines=tuple(args.engine), solver=args.solver, timeout=args.timeout,
                      max_k=args.bound, properties=tuple(properties), engine_options=extra)


def load_systems(path: Path, frontend: str | None, options: LoadOptions) -> list[TransitionSystem]:
    """Every analysis the frontend asks for; each system remembers the file it came from
    (``metadata["source_path"]``) so external backends can pass the file through."""
    chosen = registry.frontend_for(path, frontend)
    systems = chosen.load_analyses(path, options)
    for system in systems:
        system.metadata.setdefault("source_path", str(path))
        system.metadata.setdefault("frontend", chosen.name)
    return systems


def load_system(path: Path, frontend: str | None = None, main: str | None = None) -> TransitionSystem:
    return load_systems(path, frontend, LoadOptions(main=main))[0]


def decide(system: TransitionSystem, args: argparse.Namespace, start: float,
           properties: Sequence[str] = ()) -> list[Verdict]:
    """Run the chosen engines, or hand the whole problem to an external backend."""
    opts = run_options(args, properties)
    backend = registry.backend(opts.solver)
    if not backend.smt:
        return backend.check_system(system, opts, start)  # type: ignore[attr-defined]
    verdicts = run(system, opts, start)
    open_props = [v.property for v in verdicts if v.answer is Answer.UNKNOWN and not v.timeout]
    if system.refine is not None and open_props:
        # the abstraction left these open: decide them again with the callees' bodies
        refined = system.refine()
        known = {p.name for p in refined.properties}
        open_props = [p for p in open_props if p in known]
        again = {v.property: v for v in run(refined, run_options(args, open_props), start)} \
            if open_props else {}
        verdicts = [again.get(v.property, v) if v.property in open_props else v for v in verdicts]
    return verdicts


def print_verdicts(system: TransitionSystem, verdicts: Sequence[Verdict], as_json: bool) -> int:
    return print_analyses([(system, list(verdicts))], as_json)


def print_analyses(results: Sequence[tuple[TransitionSystem, list[Verdict]]], as_json: bool) -> int:
    """Print one or several analyses (Kind 2 prints one analysisStart..Stop block each)."""
    if as_json:
        objects: list = []
        for system, verdicts in results:
            objects.extend(json_objects(system, list(system.properties), verdicts))
        print(json.dumps(objects, indent=2))
    else:
        out = console()
        for system, verdicts in results:
            human_report(out, system, list(system.properties), verdicts)
    return exit_code([v for _, verdicts in results for v in verdicts])


def cmd_check(args: argparse.Namespace) -> int:
    start = PROCESS_START
    path = existing_file(args.file)
    options = LoadOptions(main=args.main, compositional=args.compositional, modular=args.modular)
    systems = load_systems(path, args.frontend, options)
    results = []
    for system in systems:
        props = select_properties(system, args.property or ()) if len(systems) == 1 else [
            p for p in system.properties if not args.property or p.name in args.property]
        if not props:
            continue
        verdicts = decide(system, args, start, [p.name for p in props])
        results.append((system.with_properties(props), verdicts))
    if not results and not args.property:
        # as Kind 2: nothing to check is not an error
        sys.stderr.write(f"kinduct: note: {path}: the model has no property to check\n")
        if args.json:
            print("[]")
        return 0
    if not results:
        raise InputError(f"{path}: the model has no property to check")
    return print_analyses(results, args.json)


def cmd_plugins(args: argparse.Namespace) -> int:
    from rich.table import Table

    out = console()
    table = Table(title="kinduct plugins", title_justify="left")
    for col in ("kind", "name", "details", "status"):
        table.add_column(col)
    for f in registry.frontends().values():
        table.add_row("frontend", f.name, " ".join(f.extensions), "available")
    for e in registry.engines().values():
        detail = f"= {', '.join(e.members)}" if e.members else e.description
        table.add_row("engine", e.name, detail, "available")
    for b in registry.backends().values():
        status = "available" if b.available() else f"unavailable ({b.unavailable_reason()})"
        table.add_row("backend", b.name, b.description, status)
    for name, reason in registry.BROKEN.items():
        table.add_row("plugin", name, reason, "[red]failed to load[/]")
    out.print(table)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kinduct", description="A plugin-based model checker.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    sub.required = True

    check = sub.add_parser("check", help="check the properties of a model")
    check.add_argument("file")
    add_engine_options(check)
    check.add_argument("--property", action="append", help="check only this property")
    check.add_argument("--main", help="top node (Lustre)")
    check.add_argument("--frontend", help="frontend to read FILE with (default: by extension)")
    check.add_argument("--compositional", action="store_true",
                       help="abstract called nodes by their contracts (Lucent)")
    check.add_argument("--modular", action="store_true",
                       help="analyse every node bottom-up (Lucent)")
    check.add_argument("--certify", action="store_true",
                       help="re-check certificates of valid verdicts with the other backend")
    check.set_defaults(handler=cmd_check)

    plugins = sub.add_parser("plugins", help="list frontends, engines and backends")
    plugins.set_defaults(handler=cmd_plugins)

    registry.plugin_manager().hook.kinduct_add_commands(subparsers=sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        code = args.handler(args)
        sys.stdout.flush()
        return code
    except KinductError as exc:
        sys.stderr.write(f"kinduct: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("kinduct: interrupted\n")
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # the last line of defence: never a traceback by default
        if debug:
            raise
        sys.stderr.write(f"kinduct: internal error: {type(exc).__name__}: {exc} "
                         "(run with --debug for details)\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
