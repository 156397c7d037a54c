"""Run ``kinduct check --timeout T`` over the Lustre benchmark suites and compare with their
manifests.  Prints one table per suite: parsed, valid proved, falsified, unknown, wrong.

    .venv/bin/python benchmarks/lucent_suite.py [--timeout 10] [--jobs 1] [--limit N]
        [--suite fmcad08,kind2-regression] [--out results.csv]

A verdict is *wrong* when it contradicts the manifest (valid vs falsifiable); an error or an
unknown is not wrong but counts against completeness.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT.parent / "shared" / "benchmarks" / "lustre"
KINDUCT = Path(sys.executable).parent / "kinduct"


def expectations(suite: str) -> dict[str, dict[str, str]]:
    """file → {property name → expected verdict}; '*' stands for every property."""
    out: dict[str, dict[str, str]] = {}
    with open(BENCH / suite / "manifest.csv") as fh:
        for row in csv.DictReader(fh):
            props = {"*": row["expected"]}
            if row.get("properties_json"):
                props = {p["prop"]: p["verdict"] for p in json.loads(row["properties_json"])}
            out[row["file"]] = props
    return out


def match(name: str, expected: dict[str, str]) -> str | None:
    if "*" in expected:
        return expected["*"]
    if name in expected:
        return expected[name]
    short = name.rsplit(".", 1)[-1]
    for key, verdict in expected.items():
        # manifest notes such as "bla: OK (subproperty)" name a called node's property
        if key.split(" (")[0].replace(": ", ".").endswith(short) and key.split(":")[0] in name:
            return verdict
        if key == short:
            return verdict
    return None


def run_one(path: Path, timeout: float) -> tuple[int, list[dict], str, float]:
    start = time.monotonic()
    try:
        proc = subprocess.run([str(KINDUCT), "check", "--timeout", str(timeout), "--json", str(path)],
                              capture_output=True, text=True, timeout=timeout * 4 + 60)
    except subprocess.TimeoutExpired:
        return -1, [], "harness timeout", time.monotonic() - start
    try:
        objs = json.loads(proc.stdout) if proc.stdout.strip() else []
    except json.JSONDecodeError:
        objs = []
    return proc.returncode, objs, proc.stderr.strip()[-300:], time.monotonic() - start


def tabulate(rows: list[list], suites: list[str], expected_files: dict[str, int], timeout: float) -> bool:
    """Print the summary table from per-property rows; True when some verdict is wrong."""
    from rich.console import Console
    from rich.table import Table
    table = Table(title=f"Lucent suites, kinduct check --timeout {timeout:g}")
    cols = ["suite", "files run", "of", "parsed", "valid proved", "falsified", "unknown", "wrong",
            "expected valid", "expected falsifiable"]
    for c in cols:
        table.add_column(c, justify="right")
    any_wrong = False
    for suite in suites:
        mine = [r for r in rows if r[0] == suite]
        files = {r[1] for r in mine}
        not_parsed = {r[1] for r in mine if r[4] == "rc=2"}
        props = [r for r in mine if r[2]]
        c = {k: 0 for k in ("valid", "falsifiable", "unknown", "wrong", "ev", "ef")}
        for r in props:
            c["valid" if r[4] == "valid" else "falsifiable" if r[4] == "falsifiable" else "unknown"] += 1
            c["wrong"] += r[6] == "WRONG"
            c["ev"] += r[3] == "valid"
            c["ef"] += r[3] == "falsifiable"
        any_wrong |= c["wrong"] > 0
        table.add_row(suite, str(len(files)), str(expected_files[suite]), str(len(files - not_parsed)),
                      str(c["valid"]), str(c["falsifiable"]), str(c["unknown"]), str(c["wrong"]),
                      str(c["ev"]), str(c["ef"]))
    Console(width=160).print(table)
    return any_wrong


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None, help="a random sample of this many files per suite")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--suite", default="fmcad08,kind2-regression")
    ap.add_argument("--out", default=None,
                    help="per-property results as CSV, written as they come; with --resume, files "
                         "already in it are not run again")
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args(argv)
    suites = args.suite.split(",")
    header = ["suite", "file", "property", "expected", "answer", "wall_s", "note"]
    rows: list[list] = []
    if args.out and args.resume and Path(args.out).exists():
        with open(args.out) as fh:
            rows = [r for r in csv.reader(fh)][1:]
    done = {(r[0], r[1]) for r in rows}
    out = None
    if args.out:
        fresh = not (args.resume and Path(args.out).exists())
        out = open(args.out, "w" if fresh else "a", newline="")
        writer = csv.writer(out)
        if fresh:
            writer.writerow(header)
    expected_files = {}
    for suite in suites:
        exp = expectations(suite)
        files = sorted(exp)
        expected_files[suite] = len(files)
        # a shuffled order, so that an interrupted run still samples every family
        random.Random(args.seed).shuffle(files)
        if args.limit:
            files = files[:args.limit]
        files = [f for f in files if (suite, f) not in done]

        def task(name: str, suite: str = suite):
            return name, run_one(BENCH / suite / name, args.timeout)

        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for name, (rc, objs, err, wall) in pool.map(task, files):
                new = []
                props = [o for o in objs if o.get("objectType") == "property"]
                for p in props:
                    want = match(p["name"], exp[name])
                    got = p["answer"]["value"]
                    wrong = want is not None and got in ("valid", "falsifiable") and got != want
                    note = "WRONG" if wrong else ""
                    new.append([suite, name, p["name"], want or "", got, round(wall, 2), note])
                    if wrong:
                        print(f"WRONG: {suite}/{name} {p['name']}: {got}, expected {want}", flush=True)
                if rc == 2 or not props:
                    note = err.replace("\n", " ")[:300]
                    new.append([suite, name, "", "", f"rc={rc}", round(wall, 2), note])
                    print(f"no verdict: {suite}/{name} rc={rc} {err[:200]}", flush=True)
                rows.extend(new)
                if out:
                    writer.writerows(new)
                    out.flush()
    if out:
        out.close()
    return 1 if tabulate(rows, suites, expected_files, args.timeout) else 0


if __name__ == "__main__":
    raise SystemExit(main())
