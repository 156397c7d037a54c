"""Inductive validity cores side by side with Kind 2 v3.0.0: both tools' core sizes and times,
and whether kinduct's elements are elements Kind 2 knows (category, name, line, column), on the
Kind 2 test-suite models that carry contracts or several equations.

    python benchmarks/ivc_vs_kind2.py [--limit N] [--timeout S] [FILE ...]

Without files it takes the smallest ``success/`` models of ``../shared/benchmarks/lustre/
kind2-tests`` whose text has a ``guarantee`` or at least three ``=`` (a cheap filter; the
models both tools answer are the ones compared).  One model at a time: state the machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT.parent / "shared" / "benchmarks" / "lustre" / "kind2-tests" / "success"
KINDUCT = Path(sys.executable).parent / "kinduct"
KIND2 = ROOT / ".kind2" / "bin" / "kind2"


def candidates(limit: int) -> list[Path]:
    out = []
    for path in sorted(SUITE.glob("*.lus"), key=lambda p: p.stat().st_size):
        text = path.read_text(errors="replace")
        if "guarantee" in text or text.count("=") >= 3:
            out.append(path)
        if len(out) >= limit:
            break
    return out


def run(cmd: list[str], timeout: float) -> tuple[list[dict] | None, float]:
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        objects = json.loads(proc.stdout)
    except (subprocess.TimeoutExpired, json.JSONDecodeError):
        return None, time.monotonic() - start
    return objects, time.monotonic() - start


def core(objects: list[dict] | None, cls: str = "ivc") -> set[tuple] | None:
    if objects is None:
        return None
    sets = [o for o in objects if o.get("objectType") == "modelElementSet" and o["class"] == cls]
    if not sets:
        return None
    return {(n["name"], e["category"], e["name"], e["line"], e["column"])
            for s in sets for n in s["nodes"] for e in n["elements"]}


def size(found: set[tuple] | None) -> str:
    return "-" if found is None else str(len(found))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--timeout", type=float, default=120.0, help="per tool and model")
    args = parser.parse_args()
    files = args.files or candidates(args.limit)
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average), {os.cpu_count()} cores")
    print(f"{'model':40} {'kinduct':>8} {'s':>6} {'kind2':>6} {'s':>6}  names")
    larger = 0
    for path in files:
        ours, t_ours = run([str(KINDUCT), str(path), "--ivc", "true", "--json"], args.timeout)
        theirs, t_theirs = run([str(KIND2), "-json", "--ivc", "true", "--print_ivc_complement",
                                "true", "--timeout", str(args.timeout), str(path)],
                               args.timeout + 10)
        a, b = core(ours), core(theirs)
        universe = None if b is None else b | (core(theirs, "ivc complement") or set())
        names = "-" if a is None or universe is None else \
            ("same" if a <= universe else f"unknown to Kind 2: {sorted(a - universe)}")
        if a is not None and b is not None and len(a) > len(b):
            larger += 1
        print(f"{path.name[:40]:40} {size(a):>8} {t_ours:6.1f} {size(b):>6} {t_theirs:6.1f}  {names}")
    print(f"models where kinduct's core is larger than Kind 2's: {larger}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
