"""Issue 42: the six set/map checks of tests/data/lucent/sets_maps_together.lus decided
together (goal: under 10 s), beside Kind 2's time and the machine's load.

    .venv/bin/python benchmarks/sets_together.py [--kind2 PATH]
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
MODEL = ROOT / "tests" / "data" / "lucent" / "sets_maps_together.lus"
KINDUCT = Path(sys.executable).parent / "kinduct"


def _timed(cmd: list[str]) -> tuple[float, dict[str, str]]:
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    try:
        objects = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return elapsed, {}
    return elapsed, {o["name"]: o["answer"]["value"] for o in objects
                     if o.get("objectType") == "property"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind2", default=str(ROOT / ".kind2" / "bin" / "kind2"))
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f} (1 min)")
    print(f"{'node':14} {'tool':8} {'time (s)':>8}  answers")
    for main_node in ("SetsMaps", "SetsMapsWrong"):
        rows = [("kinduct", [str(KINDUCT), "check", str(MODEL), "--main", main_node,
                             "--timeout", "60", "--json"])]
        if Path(args.kind2).exists():
            rows.append(("kind2", [args.kind2, "-json", "--timeout", "60", "--lus_main",
                                   main_node, str(MODEL)]))
        for tool, cmd in rows:
            elapsed, answers = _timed(cmd)
            counts: dict[str, int] = {}
            for answer in answers.values():
                counts[answer] = counts.get(answer, 0) + 1
            print(f"{main_node:14} {tool:8} {elapsed:8.2f}  {counts}")


if __name__ == "__main__":
    main()
