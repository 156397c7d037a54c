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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None, help="a random sample of this many files per suite")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--suite", default="fmcad08,kind2-regression")
    ap.add_argument("--out", default=None, help="write per-file results as CSV")
    args = ap.parse_args(argv)
    rows = []
    summary = []
    for suite in args.suite.split(","):
        exp = expectations(suite)
        files = sorted(exp)
        if args.limit:
            files = sorted(random.Random(args.seed).sample(files, min(args.limit, len(files))))
        counts = {"files": len(files), "parsed": 0, "valid": 0, "falsified": 0, "unknown": 0, "wrong": 0,
                  "expected valid": 0, "expected falsifiable": 0, "errors": 0}

        def task(name: str, suite: str = suite):
            return name, run_one(BENCH / suite / name, args.timeout)

        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for name, (rc, objs, err, wall) in pool.map(task, files):
                props = [o for o in objs if o.get("objectType") == "property"]
                if rc != 2:
                    counts["parsed"] += 1
                else:
                    counts["errors"] += 1
                for p in props:
                    want = match(p["name"], exp[name])
                    got = p["answer"]["value"]
                    if want:
                        counts[f"expected {want}"] += 1
                    if got == "valid":
                        counts["valid"] += 1
                    elif got == "falsifiable":
                        counts["falsified"] += 1
                    else:
                        counts["unknown"] += 1
                    wrong = want is not None and got in ("valid", "falsifiable") and got != want
                    counts["wrong"] += wrong
                    rows.append([suite, name, p["name"], want, got, round(wall, 2), "WRONG" if wrong else ""])
                    if wrong:
                        print(f"WRONG: {suite}/{name} {p['name']}: {got}, expected {want}", flush=True)
                if rc == 2 or not props:
                    rows.append([suite, name, "", "", f"rc={rc}", round(wall, 2), err])
                    print(f"no verdict: {suite}/{name} rc={rc} {err[:200]}", flush=True)
        summary.append((suite, counts))
    if args.out:
        with open(args.out, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["suite", "file", "property", "expected", "answer", "wall_s", "note"])
            w.writerows(rows)
    from rich.console import Console
    from rich.table import Table
    table = Table(title=f"Lucent suites, kinduct check --timeout {args.timeout:g}")
    cols = ["suite", "files", "parsed", "valid proved", "falsified", "unknown", "wrong",
            "expected valid", "expected falsifiable"]
    for c in cols:
        table.add_column(c, justify="right")
    for suite, c in summary:
        table.add_row(suite, str(c["files"]), str(c["parsed"]), str(c["valid"]), str(c["falsified"]),
                      str(c["unknown"]), str(c["wrong"]), str(c["expected valid"]),
                      str(c["expected falsifiable"]))
    Console().print(table)
    return 1 if any(c["wrong"] for _, c in summary) else 0


if __name__ == "__main__":
    raise SystemExit(main())
