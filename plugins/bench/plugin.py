"""``kinduct bench SUITE``: every model x engine x solver, each task in its own process, locally
or on a Dask cluster; a CSV, a summary per configuration and a cactus plot."""

from __future__ import annotations

import argparse
import json
import os
import signal
from pathlib import Path

from kinduct.kernel import registry
from kinduct.kernel.backend import ExternalChecker
from kinduct.kernel.cli_blocks import console, csv_list, positive_float, positive_int
from kinduct.kernel.errors import InputError
from kinduct.kernel.hookspecs import hookimpl


def _check_configs(engines: tuple[str, ...], solvers: tuple[str, ...], args: argparse.Namespace) -> None:
    """Fail before the first task on a name that every task would trip over."""
    known_backends = registry.backends()
    for solver in solvers:
        chosen = known_backends.get(solver)
        if isinstance(chosen, ExternalChecker):
            chosen.configure(vars(args))  # e.g. --kind2-path decides whether it is available
        registry.backend(solver)  # unknown or unavailable: a usage error now, not N error rows
        for config in engines:
            if isinstance(chosen, ExternalChecker):
                chosen.validate_engines(config.split("+"))
            else:
                for part in config.split("+"):
                    registry.engine(part)


def _external(solvers: tuple[str, ...]) -> frozenset[str]:
    backends = registry.backends()
    return frozenset(s for s in solvers if isinstance(backends.get(s), ExternalChecker))


def _interrupt(_signum, _frame) -> None:
    raise KeyboardInterrupt


def cmd_bench(args: argparse.Namespace) -> int:
    from kinduct.plugins.bench.executors import run_dask, run_local
    from kinduct.plugins.bench.plots import cactus_plot, scatter_plot
    from kinduct.plugins.bench.report import CsvLog, print_summary, read_rows, summarise
    from kinduct.plugins.bench.suite import load_suite
    from kinduct.plugins.bench.tasks import Task

    # a terminated or hung-up bench unwinds like Ctrl-C: running task process groups are killed
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    if args.retry_errors and not args.resume:
        raise InputError("--retry-errors goes with --resume")
    if args.resume and not args.csv:
        raise InputError("--resume needs --csv OUT (the rows already there are skipped)")
    if args.scheduler and args.executor != "dask":
        raise InputError("--scheduler is for --executor dask")
    if args.kind2_path:
        args.kind2_path = os.path.abspath(args.kind2_path)
    _check_configs(args.engine, args.solver, args)
    models = load_suite(args.suite, args.limit)
    tasks = [Task(m, e, s, args.timeout, args.bound, args.kind2_path)
             for m in models for e in args.engine for s in args.solver]
    csv_path = Path(args.csv) if args.csv else None
    rows: list[dict] = []
    if args.resume and csv_path is not None:
        rows = read_rows(csv_path)
        if args.retry_errors:
            failed = {(r["file"], r["engine"], r["solver"]) for r in rows if r["verdict"] == "error"}
            rows = [r for r in rows if (r["file"], r["engine"], r["solver"]) not in failed]
            rewrite = CsvLog(csv_path, resume=False)  # the CSV without the tasks to run again
            rewrite.write(rows)
            rewrite.close()
        done = {(r["file"], r["engine"], r["solver"]) for r in rows}
        tasks = [t for t in tasks if t.key not in done]
    log = CsvLog(csv_path, args.resume) if csv_path else None
    err = console(stderr=True)
    jobs = args.jobs or os.cpu_count() or 1
    runner = (run_dask(tasks, args.scheduler, jobs) if args.executor == "dask"
              else run_local(tasks, jobs))
    show = err.is_terminal and not args.json
    try:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with Progress(SpinnerColumn(), TextColumn("[bold]bench[/] {task.description}"),
                      BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("ETA"), TimeRemainingColumn(), console=err,
                      disable=not show, transient=False) as progress:
            bar = progress.add_task(Path(args.suite).name, total=len(tasks))
            for task, new_rows in runner:
                rows.extend(new_rows)
                if log:
                    log.write(new_rows)
                for r in new_rows:
                    if r["verdict"] == "error" and r.get("note"):
                        err.print(f"[dim]{task.model.name} ({task.engine}, {task.solver}): "
                                  f"{r['note']}[/]", markup=True, highlight=False)
                    if r["wrong"]:
                        err.print(f"[bold red]wrong[/] {task.model.name} {r['property']}: "
                                  f"{r['verdict']}, expected {r['expected']} "
                                  f"({task.engine}, {task.solver})")
                progress.advance(bar)
    finally:
        if log:
            log.close()
        close = getattr(runner, "close", None)
        if close:
            close()
    summary = summarise(rows, args.timeout)
    title = f"kinduct bench {args.suite} (timeout {args.timeout:g} s)"
    if args.plot:
        cactus_plot(rows, Path(args.plot), title, args.timeout)
    if args.scatter:
        scatter_plot(rows, Path(args.scatter), title, args.timeout, external=_external(args.solver))
    if args.json:
        print(json.dumps({"suite": args.suite, "timeout": args.timeout, "tasks": len(tasks),
                          "summary": summary}, indent=2))
    else:
        out = console()
        if not out.is_terminal:  # a pipe or a file: no need to squeeze into 80 columns
            out.width = max(out.width, 120)
        print_summary(out, summary, title)
    return 1 if any(r["wrong"] for r in rows) else 0


@hookimpl
def kinduct_add_commands(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "bench", help="compare engines and solvers on a suite of models",
        example="kinduct bench ../shared/benchmarks/vmt/ctigar --engine kind,ic3 --solver z3,cvc5 "
                "--timeout 30",
        description="Run every model of SUITE with every engine and solver (their cross "
                    "product), each task in its own process. SUITE is a folder (with an "
                    "optional manifest.csv of expected verdicts) or a text file of paths.")
    p.add_argument("suite", metavar="SUITE")
    p.add_argument("--engine", type=csv_list, default=("portfolio",),
                   help="engine configurations, comma-separated; join engines that run "
                        "together with '+' (e.g. kind,portfolio,bmc+kind)")
    p.add_argument("--solver", type=csv_list, default=("z3",),
                   help="solvers, comma-separated (z3, cvc5, kind2)")
    p.add_argument("--timeout", type=positive_float, default=60.0,
                   help="seconds per task (default 60)")
    p.add_argument("--bound", type=int, default=None, help="largest k to explore")
    p.add_argument("--jobs", type=positive_int, default=None,
                   help="tasks running at once (default: number of cores)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local processes (default) or a Dask distributed cluster")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler address, e.g. tcp://host:8786 (default: a local cluster)")
    p.add_argument("--csv", metavar="OUT", help="write one row per property and task")
    p.add_argument("--plot", metavar="OUT.png", help="draw a cactus plot")
    p.add_argument("--scatter", metavar="OUT.png",
                   help="draw per-model times of two configurations against each other (log "
                        "scale; kinduct on x, an external checker such as kind2 on y)")
    p.add_argument("--resume", action="store_true", help="skip tasks already in the --csv file")
    p.add_argument("--retry-errors", action="store_true",
                   help="with --resume: run the tasks whose rows say error again")
    p.add_argument("--limit", type=positive_int, default=None, help="only the first N models")
    p.add_argument("--kind2-path", metavar="PATH", help="the Kind 2 binary for --solver kind2")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=cmd_bench)
