"""The long fuzz run (issue 21): mutated example models of every frontend through the CLI.

Each case applies one to three random mutations (byte flips, truncation, duplicated or deleted
lines, deep nesting, huge literals, stray syntax characters; see ``tests/fuzz/mutate.py``) to an
example model and runs ``kinduct`` on it in this process.  A case fails on a traceback, an
internal error, an exit code outside {0, 20, 30, 40, 2, 3}, or an input error without
``file:line:col``.  Prints a table per frontend and every distinct failure (first line of
stderr, with the command to reproduce it: the mutant is kept under ``--keep``).

    .venv/bin/python benchmarks/fuzz.py [--cases 300] [--seed 0] [--frontends vmt,crasp,rasp,lucent]
                                        [--keep /tmp/fuzz] [--per-case-timeout 20]
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from tests.fuzz.mutate import KINDS, Mutation, Outcome, examples, run_case  # noqa: E402


def _random_mutation(rng: random.Random) -> Mutation:
    size = rng.randint(1, 5) if rng.random() < 0.6 else rng.randint(100, 5000)
    return Mutation(rng.choice(KINDS), rng.random(), size, rng.randint(0, 255))


class _Hang(BaseException):  # not caught by the CLI's last line of defence
    pass


def _alarm(_signum, _frame):
    raise _Hang


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=300, help="cases per frontend")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--frontends", default="vmt,crasp,rasp,lucent")
    ap.add_argument("--keep", help="directory to keep failing mutants in")
    ap.add_argument("--per-case-timeout", type=int, default=60)
    args = ap.parse_args()
    console = Console()
    keep = Path(args.keep) if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGALRM, _alarm)
    table = Table(title=f"fuzz: {args.cases} cases per frontend, seed {args.seed}")
    for col in ("frontend", "cases", "ok", "failures", "distinct", "time (s)"):
        table.add_column(col, justify="right" if col != "frontend" else "left")
    failures: dict[str, list[tuple[str, Outcome, Path]]] = {}
    for fe in args.frontends.split(","):
        rng = random.Random(f"{args.seed}/{fe}")
        files = examples([fe])
        seen: dict[str, tuple[Outcome, Path]] = {}
        bad = 0
        start = time.monotonic()
        for i in range(args.cases):
            original = rng.choice(files)
            mutants = [_random_mutation(rng) for _ in range(rng.randint(1, 3))]
            with tempfile.TemporaryDirectory() as tmp:
                signal.alarm(args.per_case_timeout)
                try:
                    outcome = run_case(original, mutants, Path(tmp))
                except _Hang:
                    outcome = Outcome(("?",), "hang", f"no answer within {args.per_case_timeout}s")
                finally:
                    signal.alarm(0)
                problem = outcome.problem() if outcome.code != "hang" else "a hang"
                if problem is None:
                    continue
                bad += 1
                first = next((ln for ln in outcome.stderr.splitlines() if ln.strip()), "")
                key = f"{problem}: {_shape(first)}"
                if key not in seen:
                    kept = Path(tmp) / original.name
                    if keep:
                        kept = keep / f"{fe}-{i}-{original.name}"
                        kept.write_bytes((Path(tmp) / original.name).read_bytes())
                    seen[key] = (outcome, kept)
        elapsed = time.monotonic() - start
        table.add_row(fe, str(args.cases), str(args.cases - bad), str(bad), str(len(seen)),
                      f"{elapsed:.1f}")
        failures[fe] = [(k, o, p) for k, (o, p) in seen.items()]
    console.print(table)
    for fe, items in failures.items():
        for key, outcome, path in items:
            console.print(f"[bold]{fe}[/]: {key}\n    {' '.join(outcome.command)}  (mutant: {path})",
                          markup=True, highlight=False, soft_wrap=True)
    return 1 if any(failures.values()) else 0


def _shape(line: str) -> str:
    """A failure's first stderr line without file names and numbers, to group duplicates."""
    import re

    line = re.sub(r"\S+\.(vmt|crasp|rasp|lus)(:\d+)*", "FILE", line)
    line = re.sub(r"0x[0-9a-f]{2}", "0xNN", line)
    return re.sub(r"\d+", "N", line)[:160]


if __name__ == "__main__":
    raise SystemExit(main())
