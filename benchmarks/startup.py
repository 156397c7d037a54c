"""Start-up and the easy end (issue 35): whole processes, kinduct beside Kind 2, one run.

Prints markdown tables, every figure from this one run:

1. ``python -c pass`` (the interpreter's floor), ``kinduct --version``, ``kinduct --help``;
2. the easy-model ratio table: ``kinduct check M`` and ``kind2 M`` on the easiest FMCAD08
   models, run in turn (kinduct, Kind 2, kinduct, ...) so that the ratio of each pair holds
   while the machine's speed drifts; medians of wall time and CPU time (user + system of the
   process and everything it waited for), the median of the per-pair ratios, and whether
   issue 35's target (kinduct's wall at most 0.7x Kind 2's) holds on each model.  Two forms:
   ``plain`` (``kinduct check M`` against ``kind2 M``, as a user runs them) and ``suite``
   (``kinduct check M --json --timeout 30 --solver z3`` against ``kind2 -json --timeout 30
   M``, as ``benchmarks/kind2_side_by_side.py --kind2 native`` runs them);
3. where kinduct's own start-up goes: the costliest top-level imports of a check
   (``python -X importtime``, median per module over the runs), and the Lucent parser's
   set-up (a first parse of a one-line node minus a second one, in one process);
4. the machine's load before and after.

The children run with Python's bytecode cache on (``PYTHONDONTWRITEBYTECODE`` removed), as
an installed kinduct runs, after ``python -m compileall`` of kinduct's sources (so no run
compiles a stale module); ``--no-bytecode`` keeps the environment as it is and compiles
nothing.  Every figure depends on the load: read it beside them (the machine is idle when the
load is well under its number of cores).

    .venv/bin/python benchmarks/startup.py [--runs 5] [--models a.lus,b.lus] [--kind2 PATH]
        [--forms plain,suite]
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


#: The target of issue 35 on the easiest models: kinduct's whole process at most this times
#: Kind 2's (wall time, median of the per-pair ratios).
TARGET = 0.7

#: The command lines of each form: (kinduct's arguments after the model, Kind 2's before it).
FORMS = {"plain": ((), ()),
         "suite": (("--json", "--timeout", "30", "--solver", "z3"), ("-json", "--timeout", "30"))}


def paired(model: Path, kind2: str, form: str, runs: int, warmup: int, env: dict[str, str]) -> str:
    ours_extra, theirs_extra = FORMS[form]
    ours = [str(KINDUCT), "check", str(model), *ours_extra]
    theirs = [kind2, *theirs_extra, str(model)]
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
    held = "yes" if wall_ratio <= TARGET else "no"
    return (f"| {model.name} | {form} | {med(x[0] for x in a):.3f} | {med(x[1] for x in a):.3f} | "
            f"{med(y[0] for y in b):.3f} | {med(y[1] for y in b):.3f} | **{wall_ratio:.2f}** | "
            f"{cpu_ratio:.2f} | {held} | {a[-1][2]} / {b[-1][2]} |")


def compile_sources() -> None:
    """Bytecode for every kinduct module, so that no timed run compiles one."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(ROOT / d) for d in
                    ("api", "kernel", "frontends", "plugins"))], stdout=subprocess.DEVNULL,
                   check=False, timeout=600)


def import_costs(model: Path, env: dict[str, str], top: int, runs: int) -> list[str]:
    """The ``top`` costliest top-level imports of ``kinduct check model`` (milliseconds,
    cumulative, as ``-X importtime`` reports them; the median of ``runs`` runs per module)."""
    seen: list[dict[str, int]] = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "kinduct.script",
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
    return (f"| Lucent: first parse and check of a one-line node (whatever the parser sets up "
            f"once per process included) | {first:.3f} |\n| Lucent: the same again | "
            f"{second:.3f} |\n| the parser's set-up (difference) | {first - second:.3f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="counted runs per command (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="uncounted runs first (default 1)")
    parser.add_argument("--models", default=",".join(EASIEST),
                        help="FMCAD08 model names, comma-separated (default: the 5 easiest)")
    parser.add_argument("--kind2", default=default_kind2(), help="the Kind 2 binary")
    parser.add_argument("--forms", default="plain,suite",
                        help="the command forms to time beside Kind 2: plain (as a user runs "
                             "them), suite (as the FMCAD08 side-by-side runs them)")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE if set and compile nothing (default: "
                             "compile kinduct's sources, remove the variable)")
    args = parser.parse_args()
    forms = [f for f in args.forms.split(",") if f]
    if not forms or any(f not in FORMS for f in forms):
        sys.stderr.write(f"startup.py: --forms takes {', '.join(FORMS)}\n")
        return 2
    env = dict(os.environ)
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        compile_sources()
    models = [FMCAD08 / name for name in args.models.split(",") if name]
    missing = [str(m) for m in models if not m.is_file()]
    if missing:
        sys.stderr.write(f"startup.py: no such model: {', '.join(missing)}\n")
        return 2
    print(f"load before: {load()}; bytecode cache "
          f"{'as set' if args.no_bytecode else 'on, sources compiled first'}; "
          f"{args.runs} runs after {args.warmup} warm-up\n")
    print("| command | runs | median wall (s) | median CPU (s) | wall min–max | exit |")
    print("|---|---|---|---|---|---|")
    print(alone("python -c pass", [sys.executable, "-c", "pass"], args.runs, args.warmup, env))
    print(alone("kinduct --version", [str(KINDUCT), "--version"], args.runs, args.warmup, env))
    print(alone("kinduct --help", [str(KINDUCT), "--help"], args.runs, args.warmup, env))
    if args.kind2:
        print(f"\n| model | form | kinduct wall | kinduct CPU | Kind 2 wall | Kind 2 CPU | wall ratio "
              f"(median of pairs) | CPU ratio | <= {TARGET} | exit kinduct / Kind 2 |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for form in forms:
            for model in models:
                print(paired(model, args.kind2, form, args.runs, args.warmup, env), flush=True)
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
