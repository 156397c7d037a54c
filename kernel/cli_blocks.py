"""Building blocks for command lines: what the ``kinduct`` program and the commands plugins
add (``crasp``, ``rasp``, ``bench``, ...) share.

- argparse types: :func:`existing_file`, :func:`csv_list`, :func:`positive_float`,
  :func:`positive_int`, :func:`timeout_seconds`, :func:`engine_setting`, :func:`parse_bool`;
- the engine options of every command that runs engines (:func:`add_engine_options`) and the
  one function that turns them into the runner's typed options (:func:`run_options`);
- the clock ``--timeout`` counts from (:func:`run_start`, :func:`start_run`);
- output: :func:`console`, :func:`report_console`, :func:`print_verdicts`, :func:`print_analyses`,
  :func:`report_warnings`.

Deciding is not here: commands call :func:`kinduct.kernel.decide.decide` with the
:class:`~kinduct.kernel.runner.RunOptions` that :func:`run_options` builds.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kinduct.kernel import registry
from kinduct.kernel.errors import SourceWarning
from kinduct.kernel.frontend import check_input_file

if TYPE_CHECKING:
    from rich.console import Console

    from kinduct.kernel.runner import RunOptions
    from kinduct.kernel.system import TransitionSystem
    from kinduct.kernel.text_tables import PlainConsole
    from kinduct.kernel.verdict import Verdict


# --- the clock of a run ------------------------------------------------------------------------


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
_WHOLE_PROCESS = False


def start_run(as_script: bool) -> float:
    """Start the clock of a command: the process's start for the console script, now for a
    call in-process (tests, a host program).  Returns the start."""
    global _RUN_START, _WHOLE_PROCESS
    _RUN_START = PROCESS_START if as_script else time.monotonic()
    _WHOLE_PROCESS = as_script
    return _RUN_START


def whole_process() -> bool:
    """Whether the current command is this process's whole work (the console script), not a
    call in-process: only then may it tune the process itself (its garbage collector)."""
    return _WHOLE_PROCESS


def run_start() -> float:
    """When the current command started, on the ``time.monotonic`` clock (:func:`start_run`)."""
    return _RUN_START


# --- argparse types ------------------------------------------------------------------------------


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


def engine_setting(text: str) -> tuple[str, str, str]:
    """``ENGINE.SETTING=VALUE`` as (engine, setting, value)."""
    head, eq, value = text.partition("=")
    engine, dot, setting = head.partition(".")
    if not (eq and dot and engine and setting):
        raise argparse.ArgumentTypeError(f"expected ENGINE.SETTING=VALUE, not '{text}'")
    return engine.strip(), setting.strip(), value.strip()


def parse_bool(text: str) -> bool:
    """A Boolean option's value: ``true``/``false`` (also ``on``/``off``, ``yes``/``no``,
    ``1``/``0``)."""
    lowered = text.strip().lower()
    if lowered in ("true", "on", "yes", "1"):
        return True
    if lowered in ("false", "off", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got '{text}'")


# --- engine options --------------------------------------------------------------------------------


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by every command that runs engines (read back by
    :func:`run_options`); ``--timeout`` also arms the whole-process watchdog."""
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
    parser.add_argument("--cores", type=positive_int, default=None,
                        help="cores the engines may use as free ones (default: the cores the "
                             "machine has free now, from its load)")
    parser.add_argument("--engine-opt", action="append", type=engine_setting, default=[],
                        metavar="ENGINE.SETTING=VALUE",
                        help="an engine's own setting, e.g. ic3.invgen=false or invgen.rounds=2 "
                             "(repeatable; `kinduct plugins` lists the engines)")
    parser.set_defaults(whole_run_timeout=True)


def run_options(args: argparse.Namespace) -> RunOptions:
    """The runner's options from what :func:`add_engine_options` parsed.  Without ``--solver``
    the preferred available SMT backend is chosen (raising
    :class:`~kinduct.kernel.errors.SolverUnavailable` when there is none), and the runner may
    then diversify (:attr:`RunOptions.diversify`).  Commands add what is theirs with
    ``attrs.evolve`` (``certify``, ``checker_options``, ``progress``)."""
    from kinduct.kernel.runner import RunOptions

    settings: dict[str, dict[str, object]] = {}
    for engine, setting, value in args.engine_opt:
        settings.setdefault(engine, {})[setting] = value
    solver = args.solver if args.solver is not None else registry.default_solver()
    return RunOptions(engines=tuple(args.engine), solver=solver, timeout=args.timeout,
                      max_k=args.bound, engine_settings=settings,
                      diversify=args.solver is None, cores=args.cores)


# --- output -------------------------------------------------------------------------------------------


def console(stderr: bool = False) -> Console:
    """A rich console for tables (no highlighting, long lines wrapped, never cut)."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def report_console() -> Console | PlainConsole:
    """The console the verdict reports go to on stdout: :func:`console` where it shows
    styles, else a :class:`~kinduct.kernel.text_tables.PlainConsole` that writes the same
    text without importing rich (0.04 s of an easy model's run)."""
    from kinduct.kernel.text_tables import PlainConsole, plain_console_fits, rich_width

    return PlainConsole(rich_width(os.environ)) if plain_console_fits() else console()


def print_verdicts(system: TransitionSystem, verdicts: Sequence[Verdict], as_json: bool) -> int:
    """Print one analysis; return Kind 2's exit code for its verdicts."""
    return print_analyses([(system, list(verdicts))], as_json)


def print_analyses(results: Sequence[tuple[TransitionSystem, list[Verdict]]], as_json: bool,
                   preamble: Sequence[dict] = (), invariants: bool = False,
                   closing: Sequence[dict] = ()) -> int:
    """Print one or several analyses (Kind 2 prints one analysisStart..Stop block each);
    ``preamble``: JSON objects (options, warnings) printed before them, ``closing``: after
    them; ``invariants``: the tables are followed by the invariant of each valid property
    (the JSON always has them)."""
    from kinduct.kernel.report import human_report
    from kinduct.kernel.verdict import exit_code

    if as_json:
        from kinduct.kernel.report_json import dumps_indented

        print(dumps_indented(analyses_objects(results, preamble) + list(closing)))
    else:
        out = report_console()
        for system, verdicts in results:
            human_report(out, system, list(system.properties), verdicts, invariants)
    return exit_code([v for _, verdicts in results for v in verdicts])


def analyses_objects(results: Sequence[tuple[TransitionSystem, list[Verdict]]],
                     preamble: Sequence[dict] = ()) -> list[dict]:
    """The JSON objects of one or several analyses, after ``preamble``: what ``--json`` prints
    as one array (and ``--xml`` as Kind 2's XML)."""
    from kinduct.kernel.report import json_objects

    objects: list = list(preamble)
    for system, verdicts in results:
        objects.extend(json_objects(system, list(system.properties), verdicts))
    return objects


#: At most this many warnings are printed for people (all of them go into ``--json``).
MAX_WARNINGS = 5


def report_warnings(found: Sequence[SourceWarning], as_json: bool) -> None:
    """Warnings go to stderr (as errors do); under ``--json`` they are also ``log`` objects."""
    for w in found[:MAX_WARNINGS]:
        sys.stderr.write(f"kinduct: {w}\n")
    if len(found) > MAX_WARNINGS:
        sys.stderr.write(f"kinduct: {len(found) - MAX_WARNINGS} more warnings\n")
