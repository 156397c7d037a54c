"""Before/after: two kinduct commands, model by model, on the engines suites.

    .venv/bin/python benchmarks/before_after.py --baseline OLD/.venv/bin/kinduct \\
        [--candidate .venv/bin/kinduct] [--suite lustre,ctigar] [--timeout 30]
        [--sample N --seed S] [--csv OUT]
    .venv/bin/python benchmarks/before_after.py --report OUT.csv   # tables of a (partial) run

Each model runs as a whole ``kinduct check FILE --json --timeout T`` of the baseline and of the
candidate, one right after the other and in alternating order (so that a change in the
machine's load hits both alike).  Prints, per suite and tool: models, decided, wrong (an answer
against the manifest: must be 0), PAR-2 (a model not decided counts twice the limit), median
and total wall time; then the per-model time ratio (candidate / baseline: median and geometric
mean over models both decided) and the models only one of them decided.  Rows are written to
the CSV as they come, so ``--report`` summarises a run that was stopped.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

VMT = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "vmt"
SUITES = {"lustre": VMT / "lustre", "ctigar": VMT / "ctigar"}
TOOLS = ("baseline", "candidate")
FIELDS = ["suite", "file", "expected", "tool", "verdict", "time"]
DECIDED = {"valid", "falsifiable"}


def manifest(suite: Path) -> dict[str, str]:
    with open(suite / "manifest.csv") as fh:
        return {row["file"]: row["expected"] for row in csv.DictReader(fh)}


def verdict_of(stdout: str) -> str:
    """The answer of the model's (single) property from ``--json`` output."""
    try:
        objects = json.loads(stdout, strict=False)
    except json.JSONDecodeError:
        return "error"
    answers = [o.get("answer", {}).get("value") for o in objects if o.get("objectType") == "property"]
    if not answers:
        return "error"
    if "falsifiable" in answers:
        return "falsifiable"
    return "valid" if all(a == "valid" for a in answers) else answers[0] or "unknown"


def run_one(command: str, model: Path, timeout: float) -> tuple[str, float]:
    start = time.monotonic()
    try:
        proc = subprocess.run([command, "check", str(model), "--json", "--timeout", str(timeout)],
                              capture_output=True, text=True, timeout=timeout + 60)
        verdict = verdict_of(proc.stdout)
    except subprocess.TimeoutExpired:
        verdict = "hang"
    return verdict, time.monotonic() - start


def par2(rows: list[dict], timeout: float) -> float:
    return sum(float(r["time"]) if r["verdict"] in DECIDED else 2 * timeout for r in rows)


def report(rows: list[dict], timeout: float, console: Console) -> None:
    table = Table(title=f"before/after at {timeout:g} s (per suite and tool)")
    for col in ("suite", "tool", "models", "decided", "wrong", "PAR-2 (s)", "median (s)", "total (s)"):
        table.add_column(col, justify="right" if col not in ("suite", "tool") else "left")
    suites = sorted({r["suite"] for r in rows})
    for suite in suites:
        for tool in TOOLS:
            mine = [r for r in rows if r["suite"] == suite and r["tool"] == tool]
            if not mine:
                continue
            decided = [r for r in mine if r["verdict"] in DECIDED]
            wrong = [r for r in decided if r["expected"] in DECIDED and r["verdict"] != r["expected"]]
            times = [float(r["time"]) for r in mine]
            table.add_row(suite, tool, str(len(mine)), str(len(decided)), str(len(wrong)),
                          f"{par2(mine, timeout):.0f}", f"{statistics.median(times):.2f}",
                          f"{sum(times):.0f}")
    console.print(table)
    pairs: dict[tuple[str, str], dict[str, dict]] = {}
    for r in rows:
        pairs.setdefault((r["suite"], r["file"]), {})[r["tool"]] = r
    both = [p for p in pairs.values() if len(p) == 2]
    ratios = [float(p["candidate"]["time"]) / max(float(p["baseline"]["time"]), 1e-3) for p in both
              if p["candidate"]["verdict"] in DECIDED and p["baseline"]["verdict"] in DECIDED]
    if ratios:
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        console.print(f"time ratio candidate/baseline over {len(ratios)} models both decided: "
                      f"median {statistics.median(ratios):.2f}, geometric mean {geo:.2f}")
    for tool in TOOLS:
        other = TOOLS[1 - TOOLS.index(tool)]
        only = sorted(f"{s}/{f}" for (s, f), p in pairs.items() if len(p) == 2
                      and p[tool]["verdict"] in DECIDED and p[other]["verdict"] not in DECIDED)
        console.print(f"decided by the {tool} only ({len(only)}): {', '.join(only) or '-'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", help="the kinduct command before the change")
    ap.add_argument("--candidate", default=str(Path(sys.executable).with_name("kinduct")),
                    help="the kinduct command after the change (default: this venv's)")
    ap.add_argument("--suite", default="lustre,ctigar")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--sample", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv", default=None, help="write the rows here as they come")
    ap.add_argument("--report", default=None, help="only print the tables of this CSV")
    args = ap.parse_args(argv)
    console = Console()
    if args.report:
        with open(args.report) as fh:
            report(list(csv.DictReader(fh)), args.timeout, console)
        return 0
    if not args.baseline:
        ap.error("--baseline is required (or --report)")
    work = []
    for name in args.suite.split(","):
        expected = manifest(SUITES[name])
        work.extend((name, SUITES[name] / f, e) for f, e in sorted(expected.items()))
    if args.sample is not None:
        work = random.Random(args.seed).sample(work, min(args.sample, len(work)))
    commands = {"baseline": args.baseline, "candidate": args.candidate}
    out = open(args.csv, "w", newline="") if args.csv else None  # noqa: SIM115 - rows as they come
    writer = csv.DictWriter(out, FIELDS) if out else None
    if writer:
        writer.writeheader()
    rows = []
    for i, (suite, model, expected) in enumerate(work):
        order = TOOLS if i % 2 == 0 else TOOLS[::-1]
        for tool in order:
            verdict, seconds = run_one(commands[tool], model, args.timeout)
            row = {"suite": suite, "file": model.name, "expected": expected, "tool": tool,
                   "verdict": verdict, "time": f"{seconds:.3f}"}
            rows.append(row)
            if writer and out:
                writer.writerow(row)
                out.flush()
    if out:
        out.close()
    report(rows, args.timeout, console)
    return 0


if __name__ == "__main__":
    sys.exit(main())
