"""Start-up and the easy end (issue 35): whole processes, kinduct beside Kind 2, one run.

Prints markdown tables, every figure from this one run:

1. ``python -c pass`` (the interpreter's floor), ``kinduct --version``, ``kinduct --help``;
2. ``kinduct check M`` and ``kind2 M`` on the easiest FMCAD08 models, run in turn (kinduct,
   Kind 2, kinduct, ...) so that the ratio of each pair holds while the machine's speed
   drifts; medians of wall time and CPU time (user + system of the process and everything it
   waited for), and the median of the per-pair ratios;
3. where kinduct's own start-up goes: the costliest top-level imports of a check
   (``python -X importtime``, median per module over the runs), and the Lucent parser's
   construction (a first parse of a one-line node minus a second one, in one process);
4. the machine's load before and after.

The children run with Python's bytecode cache on (``PYTHONDONTWRITEBYTECODE`` removed), as
an installed kinduct runs; ``--no-bytecode`` keeps the environment as it is.

    .venv/bin/python benchmarks/startup.py [--runs 5] [--models a.lus,b.lus] [--kind2 PATH]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDUCT = Path(sys.executable).parent / "kinduct"
FMCAD08 = ROOT.parent / "shared" / "benchmarks" / "lustre" / "fmcad08"
#: The FMCAD08 models both tools decide fastest (docs/results/fmcad08-native-kind2-idle-models.csv).
EASIEST = ("stalmark_e8_48.lus", "stalmark.lus", "stalmark_e7_27.lus",
           "stalmark_e8_64_e7_80.lus", "ex8_e8_220_e7_249.lus")


def default_kind2() -> str | None:
    built = ROOT / ".kind2" / "bin" / "kind2"
    return str(built) if built.exists() else shutil.which("kind2")


def timed(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the process and its waited-for children, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env=env, cwd=ROOT, timeout=120)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min), {os.cpu_count()} cores"


def alone(label: str, argv: Sequence[str], runs: int, warmup: int, env: dict[str, str]) -> str:
    for _ in range(warmup):
        timed(argv, env)
    got = [timed(argv, env) for _ in range(runs)]
    walls, cpus = [g[0] for g in got], [g[1] for g in got]
    return (f"| {label} | {runs} | {statistics.median(walls):.3f} | {statistics.median(cpus):.3f} "
            f"| {min(walls):.3f}–{max(walls):.3f} | {got[-1][2]} |")


def paired(model: Path, kind2: str, runs: int, warmup: int, env: dict[str, str]) -> str:
    ours = [str(KINDUCT), "check", str(model)]
    theirs = [kind2, str(model)]
    for _ in range(warmup):
        timed(ours, env)
        timed(theirs, env)
    a, b = [], []
    for _ in range(runs):
        a.append(timed(ours, env))
        b.append(timed(theirs, env))
    wall_ratio = statistics.median(x[0] / y[0] for x, y in zip(a, b, strict=True))
    cpu_ratio = statistics.median(x[1] / max(y[1], 1e-3) for x, y in zip(a, b, strict=True))
    med = statistics.median
    return (f"| {model.name} | {med(x[0] for x in a):.3f} | {med(x[1] for x in a):.3f} | "
            f"{med(y[0] for y in b):.3f} | {med(y[1] for y in b):.3f} | **{wall_ratio:.2f}** | "
            f"{cpu_ratio:.2f} | {a[-1][2]} / {b[-1][2]} |")


def import_costs(model: Path, env: dict[str, str], top: int, runs: int) -> list[str]:
    """The ``top`` costliest top-level imports of ``kinduct check model`` (milliseconds,
    cumulative, as ``-X importtime`` reports them; the median of ``runs`` runs per module)."""
    seen: list[dict[str, int]] = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "kinduct.kernel.cli",
                               "check", str(model)], capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=120)
        got: dict[str, int] = {}
        for line in proc.stderr.splitlines():
            m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
            if m:  # depth 0: imported by kinduct's code itself, not by another import
                got[m.group(2)] = got.get(m.group(2), 0) + int(m.group(1))
        seen.append(got)
    names = {name for got in seen for name in got}
    med = {name: statistics.median(got.get(name, 0) for got in seen) for name in names}
    total = statistics.median(sum(got.values()) for got in seen)
    out = [f"| all top-level imports | {total / 1000:.0f} |"]
    out += [f"| {name} | {us / 1000:.0f} |"
            for name, us in sorted(med.items(), key=lambda kv: -kv[1])[:top]]
    return out


PARSER_PROBE = """
import time
from kinduct.frontends.lucent.pipeline import load_checked
text = "node N(x: int) returns (y: int); let y = x; tel"
t0 = time.perf_counter(); load_checked(text=text); t1 = time.perf_counter()
load_checked(text=text); t2 = time.perf_counter()
print(f"{t1 - t0:.4f} {t2 - t1:.4f}")
"""


def parser_cost(env: dict[str, str], runs: int) -> str:
    firsts, seconds = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", PARSER_PROBE], capture_output=True, text=True,
                             env=env, cwd=ROOT, timeout=120).stdout.split()
        firsts.append(float(out[0]))
        seconds.append(float(out[1]))
    first, second = statistics.median(firsts), statistics.median(seconds)
    return (f"| Lucent: first parse of a one-line node (parser built, lark's cached tables "
            f"loaded, lexer compiled) | {first:.3f} |\n| Lucent: the same parse again | "
            f"{second:.3f} |\n| the parser's construction (difference) | {first - second:.3f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="counted runs per command (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="uncounted runs first (default 1)")
    parser.add_argument("--models", default=",".join(EASIEST),
                        help="FMCAD08 model names, comma-separated (default: the 5 easiest)")
    parser.add_argument("--kind2", default=default_kind2(), help="the Kind 2 binary")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE if set (default: remove it)")
    args = parser.parse_args()
    env = dict(os.environ)
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    models = [FMCAD08 / name for name in args.models.split(",") if name]
    missing = [str(m) for m in models if not m.is_file()]
    if missing:
        sys.stderr.write(f"startup.py: no such model: {', '.join(missing)}\n")
        return 2
    print(f"load before: {load()}; bytecode cache {'as set' if args.no_bytecode else 'on'}; "
          f"{args.runs} runs after {args.warmup} warm-up\n")
    print("| command | runs | median wall (s) | median CPU (s) | wall min–max | exit |")
    print("|---|---|---|---|---|---|")
    print(alone("python -c pass", [sys.executable, "-c", "pass"], args.runs, args.warmup, env))
    print(alone("kinduct --version", [str(KINDUCT), "--version"], args.runs, args.warmup, env))
    print(alone("kinduct --help", [str(KINDUCT), "--help"], args.runs, args.warmup, env))
    if args.kind2:
        print("\n| model | kinduct wall | kinduct CPU | Kind 2 wall | Kind 2 CPU | wall ratio "
              "(median of pairs) | CPU ratio | exit kinduct / Kind 2 |")
        print("|---|---|---|---|---|---|---|---|")
        for model in models:
            print(paired(model, args.kind2, args.runs, args.warmup, env), flush=True)
    else:
        print("\n(no Kind 2 binary: `make kind2`, or --kind2 PATH)")
    print("\n| where kinduct's check of the first model spends its imports | ms |")
    print("|---|---|")
    print("\n".join(import_costs(models[0], env, 12, args.runs)))
    print("\n| Lucent parser (in one process, median) | s |\n|---|---|")
    print(parser_cost(env, args.runs))
    print(f"\nload after: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
