"""The Lucent acceptors against their C-RASP programs (issue 34): ``kinduct crasp equiv
examples/crasp/lucent/X.lus examples/crasp/X.crasp`` with the native engines beside the same
command with ``--solver kind2``, one process at a time, alternating which goes first.

    .venv/bin/python benchmarks/acceptors_vs_kind2.py [--timeout 30] [--engine portfolio]
        [--pairs majority,dyck1] [--cores N] [--hogs N] [--rounds N]

``--hogs N`` starts N CPU-bound processes beside the whole run (killed at its end);
``--rounds N`` runs every pair N times (the machine's load is printed before each round).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from sidebyside import KINDUCT, ROOT, run_pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--engine", default="portfolio")
    ap.add_argument("--pairs", default="majority,dyck1")
    ap.add_argument("--cores", type=int, default=None,
                    help="kinduct's --cores (default: its own, from the machine's load)")
    ap.add_argument("--hogs", type=int, default=0,
                    help="CPU-bound processes to run beside the benchmark (default 0)")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    pairs = []
    for name in args.pairs.split(","):
        lus = ROOT / "examples" / "crasp" / "lucent" / f"{name}.lus"
        crasp = ROOT / "examples" / "crasp" / f"{name}.crasp"
        base = [KINDUCT, "crasp", "equiv", str(lus), str(crasp), "--json",
                "--timeout", str(args.timeout)]
        cores = [] if args.cores is None else ["--cores", str(args.cores)]
        pairs.append((name, "holds", [*base, "--engine", args.engine, *cores],
                      [*base, "--solver", "kind2"]))
    hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(args.hogs)]
    try:
        for r in range(args.rounds):
            print(f"\nround {r + 1}, {args.hogs} CPU-bound processes beside, load "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
            run_pairs(pairs, args.timeout + 15, "kind2")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()

if __name__ == "__main__":
    main()
