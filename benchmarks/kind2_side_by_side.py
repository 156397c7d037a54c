"""kinduct beside Kind 2 on FMCAD08 and on Kind 2's own regression models, with both tables, a
cactus and a scatter plot per suite.

    .venv/bin/python benchmarks/kind2_side_by_side.py [--suite fmcad08,kind2-tests]
        [--timeout 30] [--kind2 native|wrapped] [--sample N --seed S]
        [--out /tmp/kind2-side-by-side] [--resume] [--kind2-path PATH] [--jobs 1]

``--kind2 native`` (the default) runs Kind 2 itself (``kind2 -json --timeout T MODEL``) beside
``kinduct check --json --timeout T MODEL`` (its default portfolio, solver z3), model by model,
in alternating order (even models kinduct first, odd ones Kind 2 first), one process at a time,
so both see the same machine.  A property's time is what its tool reports (both count from their
own process start: kinduct's includes starting Python); each model's whole-process wall time is
kept too, and the second table compares tools per model: a model is decided when every property
of it is, its PAR-2 charges twice the timeout otherwise.

``--kind2 wrapped`` is the older run: ``kinduct bench SUITE --solver z3,kind2``, where the Kind 2
column is ``kinduct check --solver kind2`` (kinduct's start-up and parse, then Kind 2), so both
columns carry kinduct's start-up.

Per suite it prints the tables (per tool: decided, wrong, unknown, error, PAR-2, median) and the
contradictions between the two tools: a property one tool proves and the other falsifies (must be
none).  CSVs and plots go to ``--out`` (not the repo).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "lustre"
SUITES = {"fmcad08": SHARED / "fmcad08", "kind2-tests": SHARED / "kind2-tests"}
DECIDED = {"valid": "holds", "unreachable": "holds", "falsifiable": "fails", "reachable": "fails"}


def default_kind2() -> str:
    """The Kind 2 that ``make kind2`` builds, else the one on PATH."""
    built = Path(__file__).resolve().parents[1] / ".kind2" / "bin" / "kind2"
    return str(built) if built.exists() else "kind2"


def sampled_suite(suite: Path, n: int, seed: int, out: Path) -> Path:
    """A list file of ``n`` models drawn at random, in random order (so the rows of a run
    stopped early are a random sample too; the bench reads verdicts from the manifest beside
    each model)."""
    with open(suite / "manifest.csv") as fh:
        files = sorted(row["file"] for row in csv.DictReader(fh) if (suite / row["file"]).is_file())
    chosen = random.Random(seed).sample(files, min(n, len(files)))
    listing = out / f"{suite.name}-sample{n}-seed{seed}.txt"
    listing.write_text("".join(f"{suite / f}\n" for f in chosen))
    return listing


def contradictions(csv_path: Path) -> list[tuple[str, str, dict[str, str]]]:
    """(file, property, {solver: verdict}) where one tool proves what the other falsifies."""
    verdicts: dict[tuple[str, str], dict[str, str]] = {}
    with open(csv_path, newline="") as fh:
        for row in csv.DictReader(fh):
            if row["verdict"] in DECIDED and row["property"]:
                verdicts.setdefault((row["file"], row["property"]), {})[row["solver"]] = row["verdict"]
    return [(f, p, v) for (f, p), v in sorted(verdicts.items())
            if len({DECIDED[x] for x in v.values()}) > 1]


def kind2_rows(model, timeout: float, kind2: str) -> tuple[list[dict], float]:
    """Kind 2 on one model in its own process group: its property rows (as the bench makes them,
    solver ``kind2``) and the process's wall time."""
    from kinduct.plugins.backends.kind2.output import parse_objects, property_objects
    from kinduct.plugins.bench.tasks import GRACE, Task, error_rows, make_row, wait_exit

    task = Task(model, "kind2", "kind2", timeout)
    # timed as kinduct's run is (run_task): output to a file, the exit waited for without polling
    with tempfile.TemporaryFile("w+") as out_file:
        start = time.monotonic()
        proc = subprocess.Popen([kind2, "-json", "--timeout", f"{timeout:g}", model.path],
                                stdout=out_file, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            wait_exit(proc, timeout + GRACE)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            wall = time.monotonic() - start
            return error_rows(task, "killed: no answer in time", wall), wall
        wall = time.monotonic() - start
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # what it left running in its group
        out_file.seek(0)
        out = out_file.read()
    # candidates are Kind 2's own guesses (inferred ranges), not properties of the model
    props = [o for o in property_objects(parse_objects(out)) if o.get("isCandidate") != "true"]
    if not props:
        return error_rows(task, f"exit code {proc.returncode}: no property", wall), wall
    rows = []
    for obj in props:
        verdict = str((obj.get("answer") or {}).get("value", "error"))
        seconds = float((obj.get("runtime") or {}).get("value", wall))
        rows.append(make_row(task, _kinduct_name(obj), verdict, seconds, obj.get("k"),
                             len(props)))
    return rows, wall


def _kinduct_name(obj: dict) -> str:
    """The name kinduct gives a property of Kind 2's: ``--%PROPERTY e;`` is ``InvProp[LlCc]`` to
    Kind 2 and ``e`` to kinduct (FMCAD08's manifests name it so)."""
    name = str(obj.get("name", ""))
    if obj.get("source") == "PropAnnot" and name.startswith("InvProp[") and obj.get("expr"):
        return str(obj["expr"])
    return name


def run_native(target: Path, timeout: float, kind2: str, csv_path: Path, walls_path: Path,
               resume: bool) -> None:
    """kinduct and Kind 2 model by model, alternating which goes first; property rows to
    ``csv_path``, per-model wall times to ``walls_path``."""
    from kinduct.plugins.bench.report import CsvLog
    from kinduct.plugins.bench.suite import load_suite
    from kinduct.plugins.bench.tasks import Task, run_task

    done: set[str] = set()
    if resume and walls_path.exists():
        with open(walls_path, newline="") as fh:
            done = {r["file"] for r in csv.DictReader(fh) if r["solver"] == "kind2"}
    fresh = not (resume and walls_path.exists())
    log = CsvLog(csv_path, resume)
    with open(walls_path, "w" if fresh else "a", newline="") as fh:
        walls = csv.writer(fh)
        if fresh:
            walls.writerow(["file", "solver", "wall", "decided"])
        models = [m for m in load_suite(str(target)) if m.name not in done]
        for i, model in enumerate(models):
            results = {}
            for tool in (("kinduct", "kind2") if i % 2 == 0 else ("kind2", "kinduct")):
                if tool == "kind2":
                    results[tool] = kind2_rows(model, timeout, kind2)
                else:
                    begin = time.monotonic()
                    rows = run_task(Task(model, "portfolio", "z3", timeout))
                    results[tool] = (rows, time.monotonic() - begin)
            for tool in ("kinduct", "kind2"):
                rows, wall = results[tool]
                log.write(rows)
                decided = all(r["verdict"] in DECIDED and not r["wrong"] for r in rows)
                walls.writerow([model.name, rows[0]["solver"], f"{wall:.3f}", decided])
            fh.flush()
            print(f"[{i + 1}/{len(models)}] {model.name}: "
                  + "  ".join(f"{t} {results[t][1]:.2f}s "
                              f"{','.join(r['verdict'] for r in results[t][0])}"
                              for t in ("kinduct", "kind2")), flush=True)
    log.close()


def model_table(walls_path: Path, timeout: float) -> None:
    """Per tool over the models both ran: decided models, PAR-2 and median of the models' wall
    times, and the median of kinduct's time over Kind 2's on the models both decided."""
    per: dict[str, dict[str, tuple[float, bool]]] = {}
    with open(walls_path, newline="") as fh:
        for r in csv.DictReader(fh):
            per.setdefault(r["solver"], {})[r["file"]] = (float(r["wall"]), r["decided"] == "True")
    common = set.intersection(*(set(v) for v in per.values())) if per else set()
    print(f"per model, whole-process wall time ({len(common)} models):")
    print(f"  {'tool':8} {'decided':>7} {'PAR-2 s':>9} {'median s':>9} {'median decided s':>17}")
    for tool, table in sorted(per.items()):
        rows = [table[f] for f in common]
        par2 = sum(w if ok else 2 * timeout for w, ok in rows)
        med = statistics.median(w for w, _ in rows) if rows else 0.0
        good = [w for w, ok in rows if ok]
        med_ok = statistics.median(good) if good else 0.0
        print(f"  {tool:8} {len(good):7d} {par2:9.1f} {med:9.3f} {med_ok:17.3f}")
    if len(per) == 2 and "kind2" in per:
        (other,) = set(per) - {"kind2"}
        both = [f for f in common if per[other][f][1] and per["kind2"][f][1]]
        ratios = sorted(per[other][f][0] / max(per["kind2"][f][0], 1e-3) for f in both)
        if ratios:
            geo = statistics.geometric_mean(ratios)
            faster = sum(per[other][f][0] < per["kind2"][f][0] for f in both)
            print(f"  {other}/kind2 wall on the {len(both)} models both decided: median "
                  f"{statistics.median(ratios):.2f}, geometric mean {geo:.2f}; {other} faster "
                  f"on {faster} ({100 * faster / len(both):.1f} %)")


def report(csv_path: Path, cactus: Path, scatter: Path, timeout: float, name: str) -> None:
    """The bench's table, the contradictions and both plots from a CSV."""
    from kinduct.kernel.cli import console
    from kinduct.plugins.bench.plots import cactus_plot, scatter_plot
    from kinduct.plugins.bench.report import print_summary, read_rows, summarise

    rows = read_rows(csv_path)
    solvers: dict[str, set[str]] = {}
    for r in rows:
        solvers.setdefault(r["file"], set()).add(r["solver"])
    complete = {f for f, s in solvers.items() if len(s) == max(map(len, solvers.values()))}
    rows = [r for r in rows if r["file"] in complete]  # a run stopped mid-model: both or none
    models = len(complete)
    title = f"{name}: {models} models (timeout {timeout:g} s)"
    out = console()
    out.width = max(out.width, 120)
    print_summary(out, summarise(rows, timeout), title)
    found = contradictions(csv_path)
    print(f"contradictions between kinduct and Kind 2 on {name}: {len(found)}")
    for file, prop, verdicts in found:
        print(f"  {file} {prop}: {verdicts}")
    cactus_plot(rows, cactus, title, timeout)
    scatter_plot(rows, scatter, title, timeout, external=frozenset({"kind2"}))
    print(f"csv {csv_path}\ncactus {cactus}\nscatter {scatter}\n", flush=True)


def compile_sources() -> None:
    """Bytecode for every kinduct module before the first run: where ``PYTHONDONTWRITEBYTECODE``
    is set, a module changed since its bytecode was written would be compiled again in every
    kinduct process (a tenth of a second and more of each run's start-up)."""
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-m", "compileall", "-q",
                    *(str(root / d) for d in ("api", "kernel", "frontends", "plugins"))],
                   stdout=subprocess.DEVNULL, check=False, timeout=600)
    print("kinduct's sources compiled (python -m compileall) before the runs", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="fmcad08,kind2-tests")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--sample", type=int, default=None,
                    help="N models per suite, at random and in random order (N = all: shuffled)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/kind2-side-by-side")
    ap.add_argument("--resume", action="store_true", help="keep the rows already in the CSVs")
    ap.add_argument("--kind2-path", default=None)
    ap.add_argument("--kind2", choices=("native", "wrapped"), default="native",
                    help="native: Kind 2 itself beside kinduct; wrapped: kinduct check --solver "
                         "kind2 (see the module's docstring)")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: tables and plots from the CSVs already in --out (a run "
                         "stopped early; its rows are a random sample with --sample)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        compile_sources()
    status = 0
    for name in args.suite.split(","):
        suite = SUITES[name]
        target = (sampled_suite(suite, args.sample, args.seed, out)
                  if args.sample and not args.report_only else suite)
        tag = f"{name}-{args.sample or 'all'}-{args.timeout:g}s"
        csv_path, cactus, scatter = (out / f"{tag}.csv", out / f"{tag}-cactus.png",
                                     out / f"{tag}-scatter.png")
        walls = out / f"{tag}-models.csv"
        if args.kind2 == "native" and not args.report_only:
            run_native(target, args.timeout, args.kind2_path or default_kind2(), csv_path, walls,
                       args.resume)
        if args.report_only or args.kind2 == "native":
            report(csv_path, cactus, scatter, args.timeout, name)
            if walls.exists():
                model_table(walls, args.timeout)
            status |= bool(contradictions(csv_path))
            continue
        cmd = [sys.executable, "-m", "kinduct.kernel.cli", "bench", str(target),
               "--engine", "portfolio", "--solver", "z3,kind2", "--timeout", f"{args.timeout:g}",
               "--jobs", str(args.jobs), "--csv", str(csv_path), "--plot", str(cactus),
               "--scatter", str(scatter)]
        if args.resume:
            cmd.append("--resume")
        if args.kind2_path:
            cmd += ["--kind2-path", args.kind2_path]
        print(f"## {name}: {' '.join(cmd[1:])}", flush=True)
        code = subprocess.run(cmd).returncode
        if code not in (0, 1):  # 1: some verdict was wrong (the table shows it)
            return code
        status |= code
        found = contradictions(csv_path)
        print(f"contradictions between kinduct and Kind 2 on {name}: {len(found)}")
        for file, prop, verdicts in found:
            print(f"  {file} {prop}: {verdicts}")
        print(f"csv {csv_path}\ncactus {cactus}\nscatter {scatter}\n", flush=True)
        status |= bool(found)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
