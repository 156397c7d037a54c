"""kinduct beside Kind 2: ``kinduct bench SUITE --engine portfolio --solver z3,kind2`` on FMCAD08
and on Kind 2's own regression models, with both tables, a cactus and a scatter plot per suite.

    .venv/bin/python benchmarks/kind2_side_by_side.py [--suite fmcad08,kind2-tests]
        [--timeout 30] [--jobs 1] [--sample N --seed S] [--out /tmp/kind2-side-by-side]
        [--resume] [--kind2-path PATH]

Both tools run in the same ``bench`` (same models, same timeout, same machine load, one task
per model and tool, each its own ``kinduct check`` process), so their times include kinduct's
start-up alike.  Per suite it prints the bench's table (per tool: decided, wrong, unknown,
error, PAR-2, median), then the contradictions between the two tools: a property one tool
proves and the other falsifies (must be none).  CSVs and plots go to ``--out`` (not the repo).
"""

from __future__ import annotations

import argparse
import csv
import random
import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "lustre"
SUITES = {"fmcad08": SHARED / "fmcad08", "kind2-tests": SHARED / "kind2-tests"}
DECIDED = {"valid": "holds", "unreachable": "holds", "falsifiable": "fails", "reachable": "fails"}


def sampled_suite(suite: Path, n: int, seed: int, out: Path) -> Path:
    """A list file of ``n`` models drawn at random, in random order (so the rows of a run
    stopped early are a random sample too; the bench reads verdicts from the manifest beside
    each model)."""
    with open(suite / "manifest.csv") as fh:
        files = sorted(row["file"] for row in csv.DictReader(fh) if (suite / row["file"]).is_file())
    chosen = random.Random(seed).sample(files, min(n, len(files)))
    listing = out / f"{suite.name}-sample{n}-seed{seed}.txt"
    listing.write_text("".join(f"{suite / f}\n" for f in chosen))
    return listing


def contradictions(csv_path: Path) -> list[tuple[str, str, dict[str, str]]]:
    """(file, property, {solver: verdict}) where one tool proves what the other falsifies."""
    verdicts: dict[tuple[str, str], dict[str, str]] = {}
    with open(csv_path, newline="") as fh:
        for row in csv.DictReader(fh):
            if row["verdict"] in DECIDED and row["property"]:
                verdicts.setdefault((row["file"], row["property"]), {})[row["solver"]] = row["verdict"]
    return [(f, p, v) for (f, p), v in sorted(verdicts.items())
            if len({DECIDED[x] for x in v.values()}) > 1]


def report(csv_path: Path, cactus: Path, scatter: Path, timeout: float, name: str) -> None:
    """The bench's table, the contradictions and both plots from a CSV."""
    from kinduct.kernel.cli import console
    from kinduct.plugins.bench.plots import cactus_plot, scatter_plot
    from kinduct.plugins.bench.report import print_summary, read_rows, summarise

    rows = read_rows(csv_path)
    solvers: dict[str, set[str]] = {}
    for r in rows:
        solvers.setdefault(r["file"], set()).add(r["solver"])
    complete = {f for f, s in solvers.items() if len(s) == max(map(len, solvers.values()))}
    rows = [r for r in rows if r["file"] in complete]  # a run stopped mid-model: both or none
    models = len(complete)
    title = f"{name}: {models} models (timeout {timeout:g} s)"
    out = console()
    out.width = max(out.width, 120)
    print_summary(out, summarise(rows, timeout), title)
    found = contradictions(csv_path)
    print(f"contradictions between kinduct and Kind 2 on {name}: {len(found)}")
    for file, prop, verdicts in found:
        print(f"  {file} {prop}: {verdicts}")
    cactus_plot(rows, cactus, title, timeout)
    scatter_plot(rows, scatter, title, timeout, external=frozenset({"kind2"}))
    print(f"csv {csv_path}\ncactus {cactus}\nscatter {scatter}\n", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="fmcad08,kind2-tests")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--sample", type=int, default=None,
                    help="N models per suite, at random and in random order (N = all: shuffled)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/kind2-side-by-side")
    ap.add_argument("--resume", action="store_true", help="keep the rows already in the CSVs")
    ap.add_argument("--kind2-path", default=None)
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: tables and plots from the CSVs already in --out (a run "
                         "stopped early; its rows are a random sample with --sample)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    status = 0
    for name in args.suite.split(","):
        suite = SUITES[name]
        target = (sampled_suite(suite, args.sample, args.seed, out)
                  if args.sample and not args.report_only else suite)
        tag = f"{name}-{args.sample or 'all'}-{args.timeout:g}s"
        csv_path, cactus, scatter = (out / f"{tag}.csv", out / f"{tag}-cactus.png",
                                     out / f"{tag}-scatter.png")
        if args.report_only:
            report(csv_path, cactus, scatter, args.timeout, name)
            status |= bool(contradictions(csv_path))
            continue
        cmd = [sys.executable, "-m", "kinduct.kernel.cli", "bench", str(target),
               "--engine", "portfolio", "--solver", "z3,kind2", "--timeout", f"{args.timeout:g}",
               "--jobs", str(args.jobs), "--csv", str(csv_path), "--plot", str(cactus),
               "--scatter", str(scatter)]
        if args.resume:
            cmd.append("--resume")
        if args.kind2_path:
            cmd += ["--kind2-path", args.kind2_path]
        print(f"## {name}: {' '.join(cmd[1:])}", flush=True)
        code = subprocess.run(cmd).returncode
        if code not in (0, 1):  # 1: some verdict was wrong (the table shows it)
            return code
        status |= code
        found = contradictions(csv_path)
        print(f"contradictions between kinduct and Kind 2 on {name}: {len(found)}")
        for file, prop, verdicts in found:
            print(f"  {file} {prop}: {verdicts}")
        print(f"csv {csv_path}\ncactus {cactus}\nscatter {scatter}\n", flush=True)
        status |= bool(found)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
