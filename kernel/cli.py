"""The ``kinduct`` command line.  Subcommands beyond ``check`` and ``plugins`` come from
plugins through the ``kinduct_add_commands`` hook.

Plugins may translate other tools' spellings of options first (``kinduct_rewrite_argv``); exit
codes are those of :mod:`kinduct.kernel.errors`, and under ``--json`` stdout is always one JSON
array: an error becomes a ``log`` object instead of a line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from kinduct.kernel import registry
from kinduct.kernel.cli_blocks import (
    PROCESS_START,
    add_engine_options,
    console,
    csv_list,
    existing_file,
    parse_bool,
    positive_float,
    positive_int,
    print_analyses,
    print_verdicts,
    report_warnings,
    run_options,
    run_start,
    start_run,
    timeout_seconds,
    whole_process,
)
from kinduct.kernel.errors import InputError, KinductError, SourceWarning, UsageError
from kinduct.kernel.frontend import LoadOptions, gc_paused
from kinduct.kernel.output_forms import (
    each_of,
    emit_objects,
    options_of,
    output_form,
    print_results,
    write_objects,
)
from kinduct.kernel.report import log_object

if TYPE_CHECKING:
    from kinduct.kernel.runner import ProgressEvent, RunOptions
    from kinduct.kernel.system import TransitionSystem
    from kinduct.kernel.verdict import Verdict

#: The building blocks that used to live here, re-exported while code written against the old
#: place is moved (frontends/lucent's simcli; other branches): new code imports them from
#: :mod:`kinduct.kernel.cli_blocks`.  ``decide`` is not among them: it takes ``RunOptions`` now
#: (:mod:`kinduct.kernel.decide`).
__all__ = ["add_engine_options", "build_parser", "command_line", "console", "csv_list",
           "existing_file", "main", "parse_bool", "positive_float", "positive_int",
           "print_analyses", "print_verdicts", "report_warnings", "run_start", "timeout_seconds"]


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
    and ends every command's help with the exit codes (the verdict codes unless its epilog
    lists its own) and an example (``example=`` when a
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
        epilog = self.epilog or ""
        tail = [] if "exit codes:" in epilog else [EXIT_CODES]  # a command may have its own
        if example and "example:" not in epilog:
            tail.append(f"example:\n  {example}")
        if tail:
            self.epilog = "\n\n".join(([epilog] if epilog else []) + tail)
        return super().format_help()


def cmd_check(args: argparse.Namespace) -> int:
    # the run's modules (runner, engines' kernel, solvers) load here, not for --help
    from kinduct.kernel import watchdog
    from kinduct.kernel.decide import decide
    from kinduct.kernel.fallback import PartialReport
    from kinduct.kernel.loading import load_systems
    from kinduct.kernel.report_stream import IncrementalJson
    from kinduct.kernel.runner import Interrupted, interrupted, select_properties
    from kinduct.kernel.schedule import decide_in_turn
    from kinduct.kernel.verdict import Answer, Verdict

    start = run_start()
    if args.xml or args.ijson:  # Kind 2's other forms of the JSON objects
        args.json = True
    options = attrs.evolve(run_options(args), certify=args.certify, cone=bool(args.property),
                           checker_options={d: vars(args)[d] for d in args.plugin_options})
    path = existing_file(args.file)
    load = LoadOptions(main=args.main, compositional=args.compositional, modular=args.modular)
    with warnings.catch_warnings(record=True) as caught, gc_paused():
        warnings.simplefilter("always", SourceWarning)
        systems = load_systems(path, args.frontend, load)
        if whole_process():  # what the load made lives to the end (and no cycles were left
            gc.freeze()  # for a collection on the models measured): never scanned (0.007 s)
    found = [w.message for w in caught if isinstance(w.message, SourceWarning)]
    report_warnings(found, args.json)
    if args.only_parse:  # as Kind 2's --only_parse
        if args.json:
            emit_objects(args, [*preamble_of(args, options, found),
                                log_object("note", "parse", "No parse errors found!")])
        else:
            print("No parse errors found!")
        return 0
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
    preamble = preamble_of(args, options, found)
    if args.json and not args.property:  # Kind 2's note for each analysis with no property
        chosen = {s.name for s in selected}
        preamble += [log_object("note", "parse", f"System {s.name} has no property, skipping "
                                "verification step.") for s in systems if s.name not in chosen]
    if not selected and not args.property:
        # as Kind 2: nothing to check is not an error
        note = f"{path}: the model has no property to check"
        sys.stderr.write(f"kinduct: note: {note}\n")
        if args.json:
            emit_objects(args, [*preamble, log_object("note", "parse", note)])
        return 0
    if not selected:
        raise InputError(f"{path}: the model has no property to check")
    partial = None if args.timeout is None else PartialReport(
        selected, preamble, args.json, args.timeout, watchdog.GRACE, watchdog.fallback,
        xml=args.xml, lines=args.ijson)

    modular = None
    if args.modular and args.compositional:  # refinement of a modular run (kernel/refinement.py)
        from kinduct.kernel.refinement import ModularRun

        modular = ModularRun()
    stream = IncrementalJson(selected, preamble, early=modular is None) if args.ijson else None

    #: analysis -> its verdicts so far (what Ctrl-C prints)
    so_far: dict[int, list[Verdict]] = {}
    with _progress(options, args.json, start, each_of(partial, stream)) as options:
        def decide_one(i: int, timeout: float | None, names: Sequence[str] | None) -> list[Verdict]:
            system, timed = selected[i], attrs.evolve(options, timeout=timeout)
            if partial is not None:
                partial.current = i
            if stream is not None:
                stream.start(i)
            try:
                verdicts = decide(system, timed, start, names or [p.name for p in system.properties])
            except Interrupted as stop:
                so_far[i] = _merge(so_far.get(i), stop.verdicts)
                raise
            so_far[i] = _merge(so_far.get(i), verdicts)
            if modular is None:  # Kind 2 refines only under --modular --compositional
                return verdicts
            return modular.after(i, system, verdicts,
                                 lambda s: decide(s, timed, start, [p.name for p in s.properties]))

        try:
            verdict_lists = decide_in_turn(len(selected), args.timeout, start, decide_one)
        except KeyboardInterrupt:  # Ctrl-C: what was decided, the rest unknown; exit 130
            results = [(s, so_far.get(i) or interrupted(
                [Verdict(p.name, Answer.UNKNOWN) for p in s.properties]))
                for i, s in enumerate(selected)]
            print_results(args, results, preamble, stream)
            sys.stderr.write("kinduct: interrupted\n")
            return INTERRUPTED
    results = list(zip(selected, verdict_lists, strict=True)) if modular is None else \
        modular.analyses(selected, verdict_lists)
    code = print_results(args, results, preamble, stream)
    if args.certificates is not None:
        _write_certificates(results, Path(args.certificates or f"{path}.out"))
    return 0 if args.exit_code_mode == "only_errors" and code in (30, 40) else code


def preamble_of(args: argparse.Namespace, options: RunOptions, found: Sequence[SourceWarning]
                ) -> list[dict]:
    """The JSON objects before the analyses: the options of the run, the model's warnings."""
    from kinduct.kernel.report import options_object

    preamble = [options_object(options.engines, args.timeout, args.bound, args.compositional,
                               args.modular)]
    return preamble + [log_object("warn", "parse", w.message, w.location) for w in found]


def _write_certificates(results: Sequence[tuple[TransitionSystem, Sequence[Verdict]]],
                        directory: Path) -> None:
    """``--certificates``: the SMT-LIB scripts of every valid verdict (kernel/certificates.py)."""
    from kinduct.kernel import certificates

    try:
        written = certificates.write(results, directory)
    except OSError as exc:
        raise UsageError(f"--certificates: cannot write {directory}: {exc.strerror}") from exc
    missing = sum(w.missing is not None for w in written)
    sys.stderr.write(f"kinduct: {len(written) - missing} certificate(s) written to "
                     f"{directory / 'certif'}" + (f", {missing} without a proof to certify (see "
                                                  "its README)" if missing else "") + "\n")


#: The exit code after Ctrl-C (SIGINT), as Kind 2's.
INTERRUPTED = 130


def _merge(before: list[Verdict] | None, after: list[Verdict]) -> list[Verdict]:
    """An analysis's verdicts after another turn (``after``, on some of its properties): a
    definitive verdict of either turn, else the later one."""
    if before is None:
        return after
    again = {v.property: v for v in after}
    return [v if v.answer.definitive or v.property not in again else again[v.property]
            for v in before]


@contextlib.contextmanager
def _progress(options: RunOptions, as_json: bool, start: float,
              partial: Callable[[ProgressEvent], None] | None = None) -> Iterator[RunOptions]:
    """``options`` with live progress on stderr while engines run (a terminal, not
    ``--json``); every event goes to ``partial`` too (the watchdog's fallback report)."""
    from kinduct.kernel.progress import LiveProgress

    if not LiveProgress.wanted(as_json):
        yield options if partial is None else attrs.evolve(options, progress=partial)
        return
    with LiveProgress(start) as live:
        def both(event: ProgressEvent) -> None:
            live(event)
            if partial is not None:
                partial(event)

        yield attrs.evolve(options, progress=both)


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


def build_parser(every_command: bool = True) -> argparse.ArgumentParser:
    """The command line's parser; ``every_command=False`` builds ``check`` alone (with what
    plugins add to it), for a command line that is a check (:func:`_a_check`): building the
    other commands' parsers took 0.007 s of an easy model's run."""
    parser = _Parser(prog="kinduct", description="A plugin-based model checker.  "
                     "'kinduct FILE' means 'kinduct check FILE'.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--version", action="version", version=f"kinduct {_version()}")
    # True for commands that run engines (add_engine_options): --timeout then bounds the process
    parser.set_defaults(whole_run_timeout=False)
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
    check.add_argument("--only-parse", action="store_true",
                       help="only read and check the model, no analysis (exit 0: well-formed)")
    check.add_argument("--exit-code-mode", choices=("results_and_errors", "only_errors"),
                       default="results_and_errors",
                       help="only_errors: exit 0 whatever the verdicts (errors keep their codes)")
    check.add_argument("--print-invariants", action="store_true",
                       help="print the invariant that certifies each valid property (in the "
                            "source's syntax where the frontend can, else SMT-LIB)")
    check.add_argument("--xml", action="store_true",
                       help="Kind 2's XML output (the --json objects as Kind 2's -xml elements)")
    check.add_argument("--ijson", action="store_true",
                       help="JSON objects one per line, each as soon as it is known")
    check.add_argument("--certificates", nargs="?", const="", metavar="DIR",
                       help="write SMT-LIB 2 certificates of the valid properties to DIR/certif "
                            "(default DIR: FILE.out), scripts any solver checks: all unsat")
    check.set_defaults(handler=cmd_check)
    own = {action.dest for action in check._actions}
    registry.plugin_manager().hook.kinduct_add_check_options(parser=check)
    # what plugins added reaches external checkers as RunOptions.checker_options
    check.set_defaults(plugin_options=tuple(a.dest for a in check._actions if a.dest not in own))

    if not every_command:
        return parser
    plugins = sub.add_parser("plugins", help="list frontends, engines and backends")
    plugins.set_defaults(handler=cmd_plugins)
    from kinduct.kernel.cores_cli import add_cores_command

    add_cores_command(sub)  # IVC and MCS (kernel/cores_cli.py)

    registry.plugin_manager().hook.kinduct_add_commands(subparsers=sub)
    return parser


def _a_check(argv: Sequence[str]) -> bool:
    """Whether ``argv`` (in any plugin's spelling) surely runs ``check``: its first word (after
    global flags) is ``check`` or names a file by a dot or a slash (``kinduct FILE``), and it
    asks for no help (which lists every command)."""
    words = _plugin_spellings(argv)
    if "-h" in words or "--help" in words:
        return False
    first = next((w for w in words if w not in GLOBAL_FLAGS), None)
    return first is not None and (first == "check" or (
        not first.startswith("-") and ("." in first or "/" in first)))


def _version() -> str:
    from kinduct.kernel.distributions import version

    return version("kinduct") or "0+unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; ``argv=None`` means this process's arguments, and then (only then)
    a watchdog enforces ``--timeout`` on the whole process."""
    as_script = argv is None
    if as_script:  # start-up allocates only what lives to the end: collections would be wasted
        gc.disable()
    start_run(as_script)
    raw = list(sys.argv[1:] if argv is None else argv)
    if [a for a in raw if a != "--debug"] == ["--version"]:  # no plugin needed to answer
        print(f"kinduct {_version()}")
        return 0
    debug = "--debug" in raw
    form = output_form(raw)
    args = None
    warnings.showwarning = _show_warning
    try:
        parser = build_parser(every_command=not _a_check(raw))
        spelled = command_line(raw, parser)
        form = output_form(spelled)  # errors go out as JSON (XML) in any plugin's spelling
        args = parser.parse_args(spelled)
        if as_script and args.whole_run_timeout:
            from kinduct.kernel import watchdog

            watchdog.arm(PROCESS_START, args.timeout, form is not None)
        if as_script:  # what start-up made (modules, classes, plugins) is never scanned again
            gc.freeze()
            gc.enable()
        code = args.handler(args)
        sys.stdout.flush()
        return _finished(code, as_script)
    except KinductError as exc:
        return _finished(_report_error(exc, form, args), as_script)
    except KeyboardInterrupt:
        sys.stderr.write("kinduct: interrupted\n")
        return INTERRUPTED
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # the last line of defence: never a traceback by default
        if debug:
            raise
        return _report_error(KinductError(f"internal error: {type(exc).__name__}: {exc} "
                                          "(run with --debug for details)"), form, args)


def _finished(code: int, as_script: bool) -> int:
    """The command's report is out: where the watchdog was armed (it was imported then), it
    ends the process at once, with no interpreter teardown (seconds on a loaded machine); so
    does any console-script run (``as_script``): the teardown would only free, one by one,
    every object of the run (0.04 s of an easy model's 0.3 s).  Engines' processes die with
    this one (PR_SET_PDEATHSIG); an in-process call gets ``code`` back."""
    watchdog = sys.modules.get("kinduct.kernel.watchdog")
    if watchdog is not None:
        code = watchdog.done(code)
    if not as_script:
        return code
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0 if code is None else code)  # a handler that returns nothing: as SystemExit(None)


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


def _report_error(exc: KinductError, form: str | None, args: argparse.Namespace | None = None) -> int:
    """One line (plus source line and caret) on stderr; under ``--json`` also a ``log`` object,
    so stdout is still one JSON array (after the run's ``kind2Options``, as Kind 2's, once the
    command line is read); under ``--xml`` the same as Kind 2's XML, under ``--ijson`` one
    object per line."""
    sys.stderr.write(f"kinduct: {exc}\n")
    if form is not None:
        location = getattr(exc, "location", None)
        source = "parse" if isinstance(exc, InputError) and not isinstance(exc, UsageError) else "kinduct"
        level = "error" if isinstance(exc, InputError) else "fatal"
        message = getattr(exc, "message", str(exc))
        objects = [*options_of(args), log_object(level, source, message, location)]
        write_objects(form, objects)
    return exc.exit_code




if __name__ == "__main__":
    raise SystemExit(main())
