"""Engines suite: how many models each engine decides, per solver, on the VMT benchmark sets.

    .venv/bin/python benchmarks/engines_suite.py [--suite lustre,ctigar] [--expected valid]
        [--engine portfolio,ic3] [--solver z3,cvc5] [--timeout 30] [--sample N --seed S]
        [--files A.vmt,B.vmt | --files @LIST] [--certify] [--csv OUT]

Prints, per (suite, engine, solver): models, decided, wrong (must be 0), unknown, errors,
certified (with ``--certify``: valid verdicts whose certificate the other backend re-checked),
median and 90th-percentile wall time over all models (a timeout counts as the limit).  Every
model runs through the same path as ``kinduct check`` (frontend, runner with child processes and
hard timeouts).  Sweeps are long on a shared box: use ``--sample`` while iterating.
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

VMT = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "vmt"
SUITES = {"lustre": VMT / "lustre", "ctigar": VMT / "ctigar",
          "fmcad08": VMT.parent / "lustre" / "fmcad08"}
FIELDS = ["suite", "file", "engine", "solver", "verdict", "expected", "wrong", "certified", "time",
          "engine_used", "note"]


def load_manifest(suite: Path) -> dict[str, str]:
    with open(suite / "manifest.csv") as fh:
        return {row["file"]: row["expected"] for row in csv.DictReader(fh)}


def check_one(path: Path, engine: str, solver: str, timeout: float, certify: bool) -> dict:
    start = time.monotonic()
    try:
        system = registry.frontend_for(path).load(path, LoadOptions())
        opts = RunOptions(engines=(engine,), solver=solver, timeout=timeout, certify=certify)
        v = run(system, opts, start)[0]
        certified = v.extra.get("certified")
        return {"verdict": v.answer.value, "time": time.monotonic() - start,
                "engine_used": v.engine or "", "certified": "" if certified is None else certified,
                "note": (v.message or "")[:200]}
    except Exception as exc:  # a benchmark row, never an abort
        return {"verdict": Answer.ERROR.value, "time": time.monotonic() - start, "engine_used": "",
                "certified": "", "note": f"{type(exc).__name__}: {exc}"}


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def summarise(rows: list[dict], certify: bool) -> Table:
    table = Table(title="Engines suite", title_justify="left")
    cols = ["suite", "engine", "solver", "models", "decided", "%", "wrong", "unknown", "error"]
    if certify:
        cols.append("certified")
    cols += ["median s", "p90 s"]
    for col in cols:
        table.add_column(col, justify="left" if col in ("suite", "engine", "solver") else "right")
    for suite, engine, solver in sorted({(r["suite"], r["engine"], r["solver"]) for r in rows}):
        mine = [r for r in rows if (r["suite"], r["engine"], r["solver"]) == (suite, engine, solver)]
        decided = sum(1 for r in mine if r["verdict"] in ("valid", "falsifiable"))
        times = [r["time"] for r in mine]
        cells = [suite, engine, solver, str(len(mine)), str(decided),
                 f"{100.0 * decided / len(mine):.1f}", str(sum(1 for r in mine if r["wrong"])),
                 str(sum(1 for r in mine if r["verdict"] == "unknown")),
                 str(sum(1 for r in mine if r["verdict"] == "error"))]
        if certify:
            proofs = [r for r in mine if r["verdict"] == "valid" and r["certified"] != ""]
            cells.append(f"{sum(1 for r in proofs if r['certified'] is True)}/{len(proofs)}")
        cells += [f"{statistics.median(times):.2f}", f"{percentile(times, 0.9):.2f}"]
        table.add_row(*cells)
    return table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="lustre,ctigar",
                    help=f"comma-separated, of {', '.join(SUITES)} (fmcad08: the Lustre originals)")
    ap.add_argument("--expected", default="valid",
                    help="only models with this manifest verdict (valid, falsifiable, unknown, all)")
    ap.add_argument("--engine", default="portfolio,ic3", help="comma-separated engines (each its own run)")
    ap.add_argument("--solver", default="z3,cvc5")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--sample", type=int, default=None, help="a fixed random sample of N models per suite")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--files", default=None,
                    help="only these models: comma-separated names, or @FILE with one name a line")
    ap.add_argument("--certify", action="store_true", help="re-check certificates with the other backend")
    ap.add_argument("--csv", type=Path, default=None)
    args = ap.parse_args(argv)

    console = Console(stderr=True)
    rows: list[dict] = []
    fh = open(args.csv, "w", newline="") if args.csv else None  # noqa: SIM115 - closed below
    writer = csv.DictWriter(fh, fieldnames=FIELDS) if fh else None
    if writer:
        writer.writeheader()
    for suite_name in args.suite.split(","):
        suite = SUITES[suite_name]
        manifest = load_manifest(suite)
        files = sorted(f for f, e in manifest.items() if args.expected in ("all", e))
        if args.files:
            names = (Path(args.files[1:]).read_text().split() if args.files.startswith("@")
                     else args.files.split(","))
            files = [f for f in files if f in set(names)]
        if args.sample:
            files = sorted(random.Random(args.seed).sample(files, min(args.sample, len(files))))
        for engine in args.engine.split(","):
            for solver in args.solver.split(","):
                for i, name in enumerate(files):
                    res = check_one(suite / name, engine, solver, args.timeout, args.certify)
                    expected = manifest[name]
                    wrong = res["verdict"] in ("valid", "falsifiable") \
                        and expected in ("valid", "falsifiable") and res["verdict"] != expected
                    row = {"suite": suite_name, "file": name, "engine": engine, "solver": solver,
                           "expected": expected, "wrong": wrong, **res}
                    row["time"] = round(row["time"], 3)
                    rows.append(row)
                    if writer:
                        writer.writerow(row)
                        fh.flush()
                    if wrong or res["verdict"] == "error" or res["certified"] is False:
                        console.print(f"[red]{res['verdict']} on {name} (expected {expected}) "
                                      f"certified={res['certified']} {res['note']}[/]")
                    if (i + 1) % 25 == 0:
                        console.print(f"{suite_name} {engine}/{solver}: {i + 1}/{len(files)}")
    if fh:
        fh.close()
    Console(width=160).print(summarise(rows, args.certify))
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
