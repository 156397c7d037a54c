"""``kinduct testgen`` beside Kind 2 v3.0.0's ``--testgen`` on the Kind 2 suite's models with
modes (and kinduct's examples with modes): the number of reachable mode paths at the same
depth, per node Kind 2 generates tests for (Kind 2 does so only for a node it proved safe).
kinduct runs with ``--compositional`` (Kind 2's maximal abstraction: callees with contracts
read by their contracts), writes one trace per path (``--per-path``) and counts the traces the
simulator (with the callees' bodies) rejected: paths only the abstraction reaches.

    .venv/bin/python benchmarks/testgen_kind2.py [--depth 2] [--per-path 1] [--timeout 120]

Prints a table (file, node, Kind 2's paths, kinduct's paths, traces, rejected, agree) and the
machine load; exits 1 when some count differs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT.parent.parent / "shared" / "benchmarks" / "lustre" / "kind2-tests"
if not SUITE.exists():
    SUITE = Path("/work/shared/benchmarks/lustre/kind2-tests")
KIND2 = ROOT / ".kind2" / "bin" / "kind2"
KINDUCT = ROOT / ".venv" / "bin" / "kinduct"
SKIP = ("syntax-errors", "typecheck-fail", "error")


def models() -> list[Path]:
    """The suite's models that declare a mode, and kinduct's examples that do."""
    found = []
    for path in [*sorted(SUITE.rglob("*.lus")), *sorted((ROOT / "examples" / "lucent").glob("*.lus"))]:
        if path.is_relative_to(SUITE) and any(part in SKIP for part in path.relative_to(SUITE).parts):
            continue
        if re.search(r"\bmode\b", path.read_text(errors="replace")):
            found.append(path)
    return found


def kind2_paths(path: Path, depth: int, timeout: float, out: Path) -> dict[str, int]:
    """Node -> the number of test cases Kind 2 wrote (one per reachable mode path)."""
    try:
        subprocess.run([str(KIND2), "--testgen", "true", "--testgen_len", str(depth),
                        "--output_dir", str(out), "--timeout", str(timeout), str(path)],
                       capture_output=True, text=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        return {}
    return {unit.parent.parent.name: len(list(unit.glob("testcase_*.json")))
            for unit in out.glob("*/tests/unit")}


def kinduct_paths(path: Path, node: str, depth: int, per_path: int, timeout: float,
                  out: Path) -> dict | str:
    proc = subprocess.run([str(KINDUCT), "testgen", str(path), "--main", node, "--depth", str(depth),
                           "--per-path", str(per_path), "--out", str(out), "--json", "--compositional",
                           "--timeout", str(timeout)],
                          capture_output=True, text=True, timeout=timeout + 60)
    if proc.returncode != 0:
        return proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
    return json.loads(proc.stdout)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--per-path", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()}")
    rows, differ = [], 0
    start = time.monotonic()
    for path in models():
        name = str(path.relative_to(SUITE) if path.is_relative_to(SUITE) else path.relative_to(ROOT))
        with tempfile.TemporaryDirectory() as tmp:
            theirs = kind2_paths(path, args.depth, args.timeout, Path(tmp) / "kind2")
            if not theirs:
                rows.append((name, "-", "-", "-", "-", "-", "Kind 2 wrote no tests"))
                continue
            for node, count in sorted(theirs.items()):
                ours = kinduct_paths(path, node, args.depth, args.per_path, args.timeout,
                                     Path(tmp) / "kinduct")
                if isinstance(ours, str):
                    rows.append((name, node, str(count), "error", "-", "-", ours))
                    differ += 1
                    continue
                same = ours["paths"] == count
                differ += not same
                rows.append((name, node, str(count), str(ours["paths"]), str(ours["traces"]),
                             str(ours["rejected"]), "yes" if same else "NO"))
    heads = ("model", "node", "Kind 2 paths", "kinduct paths", "traces", "rejected", "agree")
    widths = [max(len(r[i]) for r in [heads, *rows]) for i in range(len(heads))]
    for r in [heads, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    compared = sum(r[1] != "-" for r in rows)
    print(f"\ndepth {args.depth} (steps 0..{args.depth}): {compared} nodes compared, {differ} differ; "
          f"{time.monotonic() - start:.0f} s; load after: {os.getloadavg()}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
