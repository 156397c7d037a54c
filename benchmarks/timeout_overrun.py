"""How far past ``--timeout T`` runs end: within T + 2 s, with their JSON printed.

Default (issue 41): beside ``--load`` CPU-bound processes (4), ``kinduct check --timeout T
--json`` runs ``--runs`` times (20) on FMCAD08's hardest models (those that neither kinduct nor
Kind 2 decides within 5 s on an idle machine, docs/results/fmcad08-native-kind2-idle-models.csv),
one after the other.  Each run passes when it ends within T + 2 s of wall time (from process
start to exit, as a harness sees it) and its stdout is one JSON array with an ``analysisStart``
and a ``property`` object for every property of the model.  Prints a markdown table and the
load; exits 1 when a run fails.  ``--hogs-session shared`` starts the CPU-bound processes in
kinduct's own session (with the kernel's autogroup scheduling they then share its CPU share:
the harshest case for the kinduct process itself); ``own`` (default) gives each its session,
as separate jobs have.

``--kinds`` (issue 21): undecidable-in-time problems, once per engine and for C-RASP and RASP
queries, on an unloaded machine; a table of the wall time minus T.

    .venv/bin/python benchmarks/timeout_overrun.py [--timeout 5] [--runs 20] [--load 4]
    .venv/bin/python benchmarks/timeout_overrun.py --kinds [--timeout 5]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDUCT = Path(sys.executable).parent / "kinduct"
EX = ROOT / "examples"
KIND2_TESTS = ROOT.parent / "shared" / "benchmarks" / "lustre" / "kind2-tests"
FMCAD08 = ROOT.parent / "shared" / "benchmarks" / "lustre" / "fmcad08"
#: FMCAD08's hardest models: neither kinduct (z3) nor Kind 2 decides them within 5 s, idle.
HARDEST = ["durationThm_1.lus", "durationThm_3.lus", "metros_2.lus", "metros_2_e1_190.lus"]

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


def json_problem(stdout: str) -> tuple[str | None, str]:
    """Why ``stdout`` is not a complete report (None: it is one JSON array with an analysis
    and its properties), and who wrote it: the run's ``report``, the watchdog's ``fallback``
    (every property unknown) or the watchdog's ``log`` alone (the model was not loaded yet)."""
    try:
        objects = json.loads(stdout)
    except ValueError as exc:
        return f"not one JSON array ({exc})", "?"
    kinds = [o.get("objectType") for o in objects if isinstance(o, dict)]
    logs = " ".join(str(o.get("value")) for o in objects if o.get("objectType") == "log")
    if "analysisStart" not in kinds or "property" not in kinds:
        return "no analysis with properties", "log"
    return None, "fallback" if "the run was ended" in logs else "report"


def load() -> str:
    return "load average " + " / ".join(f"{x:.1f}" for x in os.getloadavg())


@contextlib.contextmanager
def hogs(count: int, own_session: bool):
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                              start_new_session=own_session) for _ in range(count)]
    try:
        time.sleep(1.0)
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def starved(args: argparse.Namespace) -> int:
    limit = args.timeout + 2.0
    print(f"{args.load} CPU-bound processes beside ({args.hogs_session} session), "
          f"--timeout {args.timeout:g}, limit {limit:g} s; {load()} before")
    print("| # | model | exit | wall (s) | JSON | printed by |")
    print("|---|---|---|---|---|---|")
    failures, walls, complete = 0, [], 0
    with hogs(args.load, args.hogs_session == "own"):
        for i in range(args.runs):
            model = FMCAD08 / HARDEST[i % len(HARDEST)]
            start = time.monotonic()
            proc = subprocess.run([str(KINDUCT), "check", str(model), "--timeout",
                                   f"{args.timeout:g}", "--json"],
                                  capture_output=True, text=True, cwd=ROOT)
            wall = time.monotonic() - start
            walls.append(wall)
            problem, source = json_problem(proc.stdout)
            ok = problem is None and wall <= limit and proc.returncode in (0, 30, 40)
            failures += not ok
            complete += problem is None
            print(f"| {i + 1} | {model.name} | {proc.returncode} | {wall:.2f} | "
                  f"{problem or 'ok'} | {source} |", flush=True)
        after = load()
    print(f"\nmax wall {max(walls):.2f} s, mean {sum(walls) / len(walls):.2f} s; "
          f"{args.runs - failures}/{args.runs} within {limit:g} s with a complete JSON report "
          f"({complete} listing every property); {after} at the end")
    return 1 if failures else 0


def kinds(args: argparse.Namespace) -> int:
    print(f"| run | exit | wall (s) | over T = {args.timeout:g} (s) |")
    print("|---|---|---|---|")
    for label, argv in RUNS:
        start = time.monotonic()
        proc = subprocess.run([str(KINDUCT), *map(str, argv), "--timeout", f"{args.timeout:g}"],
                              capture_output=True, text=True, cwd=ROOT)
        wall = time.monotonic() - start
        print(f"| {label} | {proc.returncode} | {wall:.2f} | {wall - args.timeout:+.2f} |", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--load", type=int, default=4, help="CPU-bound processes beside")
    parser.add_argument("--hogs-session", choices=("own", "shared"), default="own")
    parser.add_argument("--kinds", action="store_true", help="issue 21's table instead")
    args = parser.parse_args()
    return kinds(args) if args.kinds else starved(args)


if __name__ == "__main__":
    sys.exit(main())
