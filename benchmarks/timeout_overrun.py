"""How far past ``--timeout T`` each kind of run ends (issue 21: within T + 2 s).

Runs undecidable-in-time problems with ``--timeout T`` through the installed ``kinduct``
script, once per engine and for C-RASP and RASP queries, and prints a markdown table of the
wall time (from process start to exit, as a user or a harness sees it) minus T.

    .venv/bin/python benchmarks/timeout_overrun.py [--timeout 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDUCT = Path(sys.executable).parent / "kinduct"
EX = ROOT / "examples"
KIND2_TESTS = ROOT.parent / "shared" / "benchmarks" / "lustre" / "kind2-tests"

RUNS = [
    ("check vmt, portfolio", ["check", EX / "vmt" / "undecided.vmt"]),
    ("check vmt, bmc", ["check", EX / "vmt" / "undecided.vmt", "--engine", "bmc"]),
    ("check vmt, kind", ["check", EX / "vmt" / "undecided.vmt", "--engine", "kind"]),
    ("check vmt, ic3", ["check", EX / "vmt" / "undecided.vmt", "--engine", "ic3"]),
    ("check vmt, invgen", ["check", EX / "vmt" / "undecided.vmt", "--engine", "invgen"]),
    ("check vmt, portfolio --json", ["check", EX / "vmt" / "undecided.vmt", "--json"]),
    ("crasp equiv d3 d4", ["crasp", "equiv", EX / "crasp" / "d3.crasp", EX / "crasp" / "d4.crasp"]),
    ("crasp include pt3 pt2", ["crasp", "include", EX / "crasp" / "pt3.crasp",
                               EX / "crasp" / "pt2.crasp"]),
    ("crasp equiv tomita7 (checker)", ["crasp", "equiv", EX / "crasp" / "tomita7.crasp",
                                       EX / "regex" / "tomita7.regex", "--via", "checker"]),
    ("crasp learn --spec tomita4", ["crasp", "learn", "--spec", EX / "regex" / "tomita4.regex",
                                    "--seed", "2"]),
    ("crasp minimize tomita7", ["crasp", "minimize", EX / "crasp" / "tomita7.crasp"]),
    ("rasp check sort, length 12", ["rasp", "check", EX / "rasp" / "sort.rasp", "--equiv",
                                    "sort_nobos", "sort_counts", "--alphabet", "abcd",
                                    "--max-length", "12"]),
    ("check lucent, portfolio", ["check", KIND2_TESTS / "falsifiable" / "test-issue-123.lus"]),
    ("check lucent, --solver kind2", ["check", KIND2_TESTS / "falsifiable" / "test-issue-123.lus",
                                      "--solver", "kind2"]),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--timeout", type=float, default=5.0)
    args = parser.parse_args()
    print(f"| run | exit | wall (s) | over T = {args.timeout:g} (s) |")
    print("|---|---|---|---|")
    for label, argv in RUNS:
        start = time.monotonic()
        proc = subprocess.run([str(KINDUCT), *map(str, argv), "--timeout", f"{args.timeout:g}"],
                              capture_output=True, text=True, cwd=ROOT)
        wall = time.monotonic() - start
        print(f"| {label} | {proc.returncode} | {wall:.2f} | {wall - args.timeout:+.2f} |", flush=True)


if __name__ == "__main__":
    main()
