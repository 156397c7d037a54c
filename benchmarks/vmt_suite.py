"""VMT-LIB suite: verdicts per engine and solver against the manifest's expected verdicts.

    .venv/bin/python benchmarks/vmt_suite.py [--suite DIR] [--engine portfolio] [--solver z3,cvc5]
        [--timeout 5] [--sample N --seed S] [--csv OUT]

Prints, per (engine, solver): models, decided valid, decided falsifiable, unknown, errors,
wrong (must be 0), median and p90 time.  Each model runs through the same path as
``kinduct check`` (frontend, runner with child processes and hard timeouts).
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from kinduct.kernel import registry
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.verdict import Answer

DEFAULT_SUITE = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "vmt" / "lustre"


def load_manifest(suite: Path) -> dict[str, str]:
    with open(suite / "manifest.csv") as fh:
        return {row["file"]: row["expected"] for row in csv.DictReader(fh)}


def check_one(path: Path, engine: str, solver: str, timeout: float) -> tuple[str, float, str]:
    start = time.monotonic()
    try:
        system = registry.frontend_for(path).load(path, LoadOptions())
        verdicts = run(system, RunOptions(engines=(engine,), solver=solver, timeout=timeout), start)
        answer = verdicts[0].answer
        note = verdicts[0].message or ""
    except Exception as exc:  # a benchmark row, never an abort
        answer, note = Answer.ERROR, f"{type(exc).__name__}: {exc}"
    return answer.value, time.monotonic() - start, note


def summarise(rows: list[dict]) -> Table:
    table = Table(title="VMT suite", title_justify="left")
    for col in ("engine", "solver", "models", "valid", "falsifiable", "unknown", "error", "wrong",
                "median s", "p90 s"):
        table.add_column(col, justify="right" if col not in ("engine", "solver") else "left")
    configs = sorted({(r["engine"], r["solver"]) for r in rows})
    for engine, solver in configs:
        mine = [r for r in rows if r["engine"] == engine and r["solver"] == solver]
        times = sorted(r["time"] for r in mine)
        count = {a: sum(1 for r in mine if r["verdict"] == a)
                 for a in ("valid", "falsifiable", "unknown", "error")}
        wrong = sum(1 for r in mine if r["wrong"])
        p90 = times[min(len(times) - 1, int(0.9 * len(times)))] if times else 0.0
        table.add_row(engine, solver, str(len(mine)), str(count["valid"]), str(count["falsifiable"]),
                      str(count["unknown"]), str(count["error"]), str(wrong),
                      f"{statistics.median(times):.2f}" if times else "-", f"{p90:.2f}")
    return table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", type=Path, default=DEFAULT_SUITE)
    ap.add_argument("--engine", default="portfolio", help="comma-separated engines (each its own run)")
    ap.add_argument("--solver", default="z3,cvc5")
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--sample", type=int, default=None, help="a fixed random sample of N models")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--csv", type=Path, default=None)
    args = ap.parse_args(argv)

    manifest = load_manifest(args.suite)
    files = sorted(manifest)
    if args.sample:
        files = sorted(random.Random(args.seed).sample(files, min(args.sample, len(files))))
    console = Console(stderr=True)
    rows: list[dict] = []
    writer = None
    if args.csv:
        fh = open(args.csv, "w", newline="")
        writer = csv.DictWriter(fh, fieldnames=["file", "engine", "solver", "verdict", "expected",
                                                "wrong", "time", "note"])
        writer.writeheader()
    for engine in args.engine.split(","):
        for solver in args.solver.split(","):
            for i, name in enumerate(files):
                verdict, elapsed, note = check_one(args.suite / name, engine, solver, args.timeout)
                expected = manifest[name]
                wrong = verdict in ("valid", "falsifiable") and expected in ("valid", "falsifiable") \
                    and verdict != expected
                row = {"file": name, "engine": engine, "solver": solver, "verdict": verdict,
                       "expected": expected, "wrong": wrong, "time": round(elapsed, 3), "note": note}
                rows.append(row)
                if writer:
                    writer.writerow(row)
                    fh.flush()
                if wrong or verdict == "error":
                    console.print(f"[red]{verdict} on {name} (expected {expected}) {note}[/]")
                if (i + 1) % 50 == 0:
                    console.print(f"{engine}/{solver}: {i + 1}/{len(files)}")
    Console(width=150).print(summarise(rows))
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
