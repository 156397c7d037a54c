"""The ``kinduct`` command line.  Subcommands beyond ``check`` and ``plugins`` come from
plugins through the ``kinduct_add_commands`` hook.

Plugins may translate other tools' spellings of options first (``kinduct_rewrite_argv``); exit
codes are those of :mod:`kinduct.kernel.errors`, and under ``--json`` stdout is always one JSON
array: an error becomes a ``log`` object instead of a line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

from kinduct.kernel import refinement, registry, watchdog
from kinduct.kernel.backend import ExternalChecker
from kinduct.kernel.errors import InputError, KinductError, SourceWarning, UsageError
from kinduct.kernel.frontend import LoadOptions, check_input_file
from kinduct.kernel.loading import load_systems
from kinduct.kernel.report import human_report, json_objects, log_object, options_object
from kinduct.kernel.runner import RunOptions, run, select_properties
from kinduct.kernel.schedule import decide_in_turn
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict, exit_code


def _process_start() -> float:
    """When this process started, on the ``time.monotonic`` clock: ``--timeout`` counts from
    there, so interpreter start-up, imports and plugin loading are inside the limit too."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # seconds after boot
        return now - min(max(0.0, uptime - started), 60.0)
    except (OSError, ValueError, IndexError):
        return now


#: When this process started working: ``--timeout`` counts from here, start-up included.
PROCESS_START = _process_start()

_RUN_START = PROCESS_START


def run_start() -> float:
    """When the current command started, on the ``time.monotonic`` clock: the start of the
    process for the console script, the call of :func:`main` when called in-process."""
    return _RUN_START

EXIT_CODES = """exit codes:
  0    every property holds (reachable ones reached)
  30   some property unknown (timeout, bound reached, or incomplete engines)
  40   some property falsified (or a reachable property proved unreachable)
  1    internal error        2  bad command line
  3    input error (missing, unreadable or malformed file)
  4    the chosen solver is not available
  130  interrupted (Ctrl-C)"""

def _examples() -> dict[str, str]:
    """One example per built-in command, shown at the end of its ``--help`` (the model's
    extension is the first registered frontend's)."""
    extensions = [ext for f in registry.frontends().values() for ext in f.extensions]
    model = "model" + (extensions[0] if extensions else "")
    return {"kinduct": f"kinduct {model} --timeout 10",
            "kinduct check": f"kinduct check {model} --engine bmc,kind --timeout 10",
            "kinduct plugins": "kinduct plugins"}


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Defaults shown after every option's help (unless it names its default itself); epilogs
    (exit codes, example) kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("default" in text or not action.option_strings or default is None
                or default is False or default is argparse.SUPPRESS):
            return text
        shown = ",".join(map(str, default)) if isinstance(default, tuple | list) else str(default)
        return f"{text} (default: {shown.replace('%', '%%')})"


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as :class:`UsageError` (exit code 2), shows defaults,
    and ends every command's help with the exit codes and an example (``example=`` when a
    plugin adds a command: ``subparsers.add_parser("eval", example="kinduct ...")``)."""

    def __init__(self, *args, example: str | None = None, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)
        self.example = example

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(message)

    def format_help(self) -> str:
        example = self.example or _examples().get(self.prog)
        if example is None:
            commands = _commands(self)
            example = f"{self.prog} {commands[0]} --help" if commands else f"{self.prog} --help"
        tail = [EXIT_CODES]
        if example and "example:" not in (self.epilog or ""):
            tail.append(f"example:\n  {example}")
        if EXIT_CODES not in (self.epilog or ""):
            self.epilog = "\n\n".join(([self.epilog] if self.epilog else []) + tail)
        return super().format_help()


def console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def existing_file(path: str) -> Path:
    """A model file named on the command line: it must exist and be a regular file."""
    return check_input_file(path)


def csv_list(text: str) -> tuple[str, ...]:
    items = tuple(x.strip() for x in text.split(",") if x.strip())
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return items


def _positive(cast: type, what: str):
    """An argparse type for positive, finite numbers of the given kind."""
    def parse(text: str):
        try:
            value = cast(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"expected {what} above 0, got '{text}'")
        return value

    return parse


positive_float = _positive(float, "a number of seconds")
positive_int = _positive(int, "a whole number")


def timeout_seconds(text: str) -> float | None:
    """``--timeout``: a positive, finite number of seconds; ``0`` means no limit (as Kind 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'") from None
    if value == 0:
        return None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds (or 0 for no "
                                         f"limit), got '{text}'")
    return value


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by every command that runs engines."""
    parser.add_argument("--engine", type=csv_list, default=("portfolio",),
                        help="engines to run in parallel, comma-separated")
    parser.add_argument("--solver", type=str.lower, default=None,
                        help="backend: " + ", ".join(registry.backends()) +
                             " (default: the preferred available SMT backend)")
    parser.add_argument("--timeout", type=timeout_seconds, default=None,
                        help="wall-clock limit in seconds for the whole run, parsing included; "
                             "0: no limit (default: no limit)")
    parser.add_argument("--bound", type=int, default=None,
                        help="largest k to explore (default: no bound)")
    parser.add_argument("--json", action="store_true", help="JSON output (one array of objects)")
    parser.add_argument("--engine-opt", action="append", type=engine_setting, default=[],
                        metavar="ENGINE.SETTING=VALUE",
                        help="an engine's own setting, e.g. ic3.invgen=false or invgen.rounds=2 "
                             "(repeatable; `kinduct plugins` lists the engines)")
    parser.set_defaults(whole_run_timeout=True)


def engine_setting(text: str) -> tuple[str, str, str]:
    """``ENGINE.SETTING=VALUE`` as (engine, setting, value)."""
    head, eq, value = text.partition("=")
    engine, dot, setting = head.partition(".")
    if not (eq and dot and engine and setting):
        raise argparse.ArgumentTypeError(f"expected ENGINE.SETTING=VALUE, not '{text}'")
    return engine.strip(), setting.strip(), value.strip()


def run_options(args: argparse.Namespace, properties: Sequence[str] = (),
                timeout: float | None = None) -> RunOptions:
    """The runner's options from the command line; ``timeout``: seconds from the run's start
    for this analysis (None: ``--timeout``)."""
    settings: dict[str, dict[str, object]] = {}
    for engine, setting, value in getattr(args, "engine_opt", []):
        settings.setdefault(engine, {})[setting] = value
    return RunOptions(engines=engine_names(args), solver=args.solver,
                      timeout=args.timeout if timeout is None else timeout,
                      max_k=args.bound, properties=tuple(properties), engine_settings=settings,
                      certify=bool(getattr(args, "certify", False)),
                      diversify=bool(getattr(args, "solver_by_default", False)),
                      progress=getattr(args, "progress", None))


def engine_names(args: argparse.Namespace) -> tuple[str, ...]:
    """The engines ``--engine`` names."""
    return tuple(args.engine)


def load_system(path: Path, frontend: str | None = None, main: str | None = None) -> TransitionSystem:
    return load_systems(path, frontend, LoadOptions(main=main))[0]


def configure_checkers(args: argparse.Namespace) -> None:
    """Hand the parsed options to every external checker (they read their own)."""
    for backend in registry.backends().values():
        if isinstance(backend, ExternalChecker):
            backend.configure(args)


def decide(system: TransitionSystem, args: argparse.Namespace, start: float,
           properties: Sequence[str] = (), timeout: float | None = None) -> list[Verdict]:
    """Decide the properties through the runner (its engines, or an external checker).
    ``timeout``: seconds from ``start`` for this analysis (None: ``--timeout``)."""
    configure_checkers(args)
    return run(system, run_options(args, properties, timeout), start)


def print_verdicts(system: TransitionSystem, verdicts: Sequence[Verdict], as_json: bool) -> int:
    return print_analyses([(system, list(verdicts))], as_json)


def print_analyses(results: Sequence[tuple[TransitionSystem, list[Verdict]]], as_json: bool,
                   preamble: Sequence[dict] = ()) -> int:
    """Print one or several analyses (Kind 2 prints one analysisStart..Stop block each);
    ``preamble``: JSON objects (options, warnings) printed before them."""
    if as_json:
        objects: list = list(preamble)
        for system, verdicts in results:
            objects.extend(json_objects(system, list(system.properties), verdicts))
        print(json.dumps(objects, indent=2))
    else:
        out = console()
        for system, verdicts in results:
            human_report(out, system, list(system.properties), verdicts)
    return exit_code([v for _, verdicts in results for v in verdicts])


def cmd_check(args: argparse.Namespace) -> int:
    start = run_start()
    path = existing_file(args.file)
    options = LoadOptions(main=args.main, compositional=args.compositional, modular=args.modular)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SourceWarning)
        systems = load_systems(path, args.frontend, options)
    found = [w.message for w in caught if isinstance(w.message, SourceWarning)]
    report_warnings(found, args.json)
    if args.property:
        known = {p.name for s in systems for p in s.properties}
        for name in args.property:
            if name not in known:
                raise UsageError(f"no property named '{name}' (known: {', '.join(sorted(known)) or 'none'})")
    selected = []
    for system in systems:
        props = select_properties(system, args.property or ()) if len(systems) == 1 else [
            p for p in system.properties if not args.property or p.name in args.property]
        if props:
            selected.append(system.with_properties(props))

    watchdog.fallback(_timeout_report(selected, found, args))

    refinements: dict[int, tuple[refinement.Refined, list[Verdict]]] = {}
    proved: set[str] = set()

    def decide_one(i: int, timeout: float | None, names: Sequence[str] | None) -> list[Verdict]:
        system = selected[i]
        verdicts = decide(system, args, start, names or [p.name for p in system.properties], timeout)
        if args.modular and args.compositional:  # Kind 2 refines only there
            refined = refinement.refine(
                system, verdicts, frozenset(proved),
                lambda s: decide(s, args, start, [p.name for p in s.properties], timeout))
            if refined.analyses:
                refinements[i] = (refined, verdicts)
            verdicts = refined.verdicts
            if system.origin.top and refinement.proves(system, verdicts):
                proved.add(system.origin.top)
        return verdicts

    with _progress(args, start):
        verdict_lists = decide_in_turn(len(selected), args.timeout, start, decide_one)
    results = []
    for i, (system, verdicts) in enumerate(zip(selected, verdict_lists, strict=True)):
        if i not in refinements:
            results.append((system, verdicts))
            continue
        refined, abstract = refinements[i]  # as Kind 2: the abstraction, then each refinement
        results.append((system, refined.first(verdicts, abstract)))
        results.extend(refined.analyses)
    if not results and not args.property:
        # as Kind 2: nothing to check is not an error
        note = f"{path}: the model has no property to check"
        sys.stderr.write(f"kinduct: note: {note}\n")
        if args.json:
            preamble = [options_object(engine_names(args), args.timeout, args.bound,
                                       args.compositional, args.modular)]
            preamble += [log_object("warn", "parse", w.message, w.location) for w in found]
            preamble.append(log_object("info", "parse", note))
            print(json.dumps(preamble, indent=2))
        return 0
    if not results:
        raise InputError(f"{path}: the model has no property to check")
    preamble = [options_object(engine_names(args), args.timeout, args.bound, args.compositional,
                               args.modular)]
    preamble += [log_object("warn", "parse", w.message, w.location) for w in found]
    return print_analyses(results, args.json, preamble)


def _timeout_report(systems: Sequence[TransitionSystem], found: Sequence[SourceWarning],
                    args: argparse.Namespace) -> str:
    """What the watchdog prints if it ends the run (:func:`watchdog.fallback`): the report with
    every property unknown ("timeout")."""
    if args.timeout is None:
        return ""
    message = f"timeout: the run was ended {watchdog.GRACE:g} s after --timeout {args.timeout:g}"
    results = [(s, [Verdict(p.name, Answer.UNKNOWN, runtime=args.timeout, message="timeout",
                            timeout=True) for p in s.properties]) for s in systems]
    if args.json:
        objects = [options_object(engine_names(args), args.timeout, args.bound,
                                  args.compositional, args.modular)]
        objects += [log_object("warn", "parse", w.message, w.location) for w in found]
        for system, verdicts in results:
            objects.extend(json_objects(system, list(system.properties), verdicts))
        objects.append(log_object("warn", "kinduct", message))
        return json.dumps(objects, indent=2) + "\n"
    from rich.console import Console

    out = Console(file=io.StringIO(), highlight=False, soft_wrap=True, width=100)
    for system, verdicts in results:
        human_report(out, system, list(system.properties), verdicts)
    return out.file.getvalue()


@contextlib.contextmanager
def _progress(args: argparse.Namespace, start: float) -> Iterator[None]:
    """Live progress on stderr while engines run (a terminal, not ``--json``)."""
    from kinduct.kernel.progress import LiveProgress

    if not LiveProgress.wanted(args.json):
        args.progress = None
        yield
        return
    with LiveProgress(start) as live:
        args.progress = live
        yield
    args.progress = None


#: At most this many warnings are printed for people (all of them go into ``--json``).
MAX_WARNINGS = 5


def report_warnings(found: Sequence[SourceWarning], as_json: bool) -> None:
    """Warnings go to stderr (as errors do); under ``--json`` they are also ``log`` objects."""
    for w in found[:MAX_WARNINGS]:
        sys.stderr.write(f"kinduct: {w}\n")
    if len(found) > MAX_WARNINGS:
        sys.stderr.write(f"kinduct: {len(found) - MAX_WARNINGS} more warnings\n")


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings outside ``check`` (e.g. ``simulate``): one located line on stderr each."""
    if isinstance(message, SourceWarning):
        sys.stderr.write(f"kinduct: {message}\n")
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def cmd_plugins(args: argparse.Namespace) -> int:
    from rich.table import Table

    out = console()
    table = Table(title="kinduct plugins", title_justify="left")
    for col in ("kind", "name", "details", "status"):
        table.add_column(col, overflow="fold")
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
    parser = _Parser(prog="kinduct", description="A plugin-based model checker.  "
                     "'kinduct FILE' means 'kinduct check FILE'.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--version", action="version", version=f"kinduct {_version()}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    sub.required = True

    check = sub.add_parser("check", help="check the properties of a model",
                           description="Check the properties of a model; engines run in parallel "
                                       "and the first definitive answer wins.")
    check.add_argument("file", help="the model: " + ", ".join(
        ext for f in registry.frontends().values() for ext in f.extensions))
    add_engine_options(check)
    check.add_argument("--property", action="append", help="check only this property (repeatable)")
    check.add_argument("--main", metavar="NODE",
                       help="the component to analyse (default: the frontend's choice, e.g. the "
                            "components nobody calls)")
    check.add_argument("--frontend", help="frontend to read FILE with: "
                                          + ", ".join(registry.frontends()) + " (default: by extension)")
    check.add_argument("--compositional", type=parse_bool, nargs="?", const=True, default=False,
                       metavar="BOOL", help="abstract called components by their contracts "
                                            "(frontends with contracts)")
    check.add_argument("--modular", type=parse_bool, nargs="?", const=True, default=False,
                       metavar="BOOL", help="analyse every component bottom-up (frontends with "
                                            "components)")
    check.add_argument("--certify", action="store_true",
                       help="re-check certificates of valid verdicts with the other backend")
    check.set_defaults(handler=cmd_check)
    registry.plugin_manager().hook.kinduct_add_check_options(parser=check)

    plugins = sub.add_parser("plugins", help="list frontends, engines and backends")
    plugins.set_defaults(handler=cmd_plugins)

    registry.plugin_manager().hook.kinduct_add_commands(subparsers=sub)
    return parser


def _version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("kinduct")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; ``argv=None`` means this process's arguments, and then (only then)
    a watchdog enforces ``--timeout`` on the whole process."""
    global _RUN_START
    as_script = argv is None
    _RUN_START = PROCESS_START if as_script else time.monotonic()
    raw = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in raw
    as_json = "--json" in raw
    warnings.showwarning = _show_warning
    try:
        parser = build_parser()
        spelled = command_line(raw, parser)
        as_json = "--json" in spelled  # errors go out as JSON in any plugin's spelling
        args = parser.parse_args(spelled)
        if getattr(args, "solver", "") is None:
            args.solver = registry.default_solver()
            args.solver_by_default = True  # the runner may diversify (RunOptions.diversify)
        if as_script and getattr(args, "whole_run_timeout", False):
            watchdog.arm(PROCESS_START, args.timeout, as_json)
        code = args.handler(args)
        sys.stdout.flush()
        return watchdog.done(code)  # armed: the process ends here, with no teardown
    except KinductError as exc:
        return watchdog.done(_report_error(exc, as_json))
    except KeyboardInterrupt:
        sys.stderr.write("kinduct: interrupted\n")
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # the last line of defence: never a traceback by default
        if debug:
            raise
        return _report_error(KinductError(f"internal error: {type(exc).__name__}: {exc} "
                                          "(run with --debug for details)"), as_json)


def parse_bool(text: str) -> bool:
    """A Boolean option's value: ``true``/``false`` (also ``on``/``off``, ``yes``/``no``,
    ``1``/``0``)."""
    lowered = text.strip().lower()
    if lowered in ("true", "on", "yes", "1"):
        return True
    if lowered in ("false", "off", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got '{text}'")


#: Options of the top-level parser that take no value (they may precede the command).
GLOBAL_FLAGS = {"--debug", "-h", "--help", "--version"}


def command_line(argv: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """``argv`` as the parser reads it: every plugin's spellings translated
    (``kinduct_rewrite_argv``), a Boolean option's value joined to it (``--modular=true``; a
    bare flag means true, so ``--modular FILE`` never reads the file as its value), and
    ``check`` inserted when the first word is a file rather than a command (``kinduct FILE``)."""
    out = _bool_values(_plugin_spellings(argv), _bool_options(parser))
    commands = set(_commands(parser))
    first = next((i for i, arg in enumerate(out) if arg not in GLOBAL_FLAGS), None)
    if first is None or out[first] in commands:
        return out
    word = out[first]
    options_first = word.startswith("-") and not any(a in commands for a in out)
    a_file = not word.startswith("-") and ("." in word or "/" in word or os.path.exists(word))
    if options_first or a_file:
        return [*out[:first], "check", *out[first:]]
    return out  # argparse names the unknown command


def _plugin_spellings(argv: Sequence[str]) -> list[str]:
    """``argv`` rewritten by every plugin's ``kinduct_rewrite_argv`` in turn."""
    out = list(argv)
    for impl in registry.plugin_manager().hook.kinduct_rewrite_argv.get_hookimpls():
        out = impl.function(argv=out)
    return out


def _bool_options(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings, in any command, whose value is a Boolean (:func:`parse_bool`)."""
    parsers = [parser, *(p for a in parser._actions if isinstance(a, argparse._SubParsersAction)
                         for p in a.choices.values())]
    return {o for p in parsers for a in p._actions if a.type is parse_bool for o in a.option_strings}


def _bool_values(argv: list[str], options: set[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg not in options:
            out.append(arg)
            continue
        value = True  # a bare flag
        if i < len(argv) and (word := _bool_word(argv[i])) is not None:
            value = word
            i += 1
        out.append(f"{arg}={str(value).lower()}")
    return out


def _bool_word(text: str) -> bool | None:
    try:
        return parse_bool(text)
    except argparse.ArgumentTypeError:
        return None


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def _report_error(exc: KinductError, as_json: bool) -> int:
    """One line (plus source line and caret) on stderr; under ``--json`` also a ``log`` object,
    so stdout is still one JSON array."""
    sys.stderr.write(f"kinduct: {exc}\n")
    if as_json:
        location = getattr(exc, "location", None)
        source = "parse" if isinstance(exc, InputError) and not isinstance(exc, UsageError) else "kinduct"
        level = "error" if isinstance(exc, InputError) else "fatal"
        message = getattr(exc, "message", str(exc))
        print(json.dumps([log_object(level, source, message, location)], indent=2))
    return exc.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
