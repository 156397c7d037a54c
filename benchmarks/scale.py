"""Lucent at scale (issue 35): generated models of growing size loaded in a fresh process each,
and the step-0 counterexample of the 1 MB model.

For each size (MB), :func:`benchmarks.scale_models.gen_model` writes a model of many small nodes
(contracts, records, an enumeration, arrays, node and function calls, a property per node, one
falsifiable property in ``top``); a child process imports kinduct (not timed), then parses,
checks and translates it to the transition system as ``kinduct check`` does (under the kernel's
paused garbage collector) and reports each stage's CPU time, the whole load's CPU and wall time,
and its peak resident memory, with what explains wall time beyond CPU time: how often the process
was preempted (involuntary context switches: other processes on the cores), how often it waited
(voluntary switches: I/O, a lock) and its major page faults (reads from disk).  The table ends
with the least-squares slopes of load time and peak memory against size (s/MB, MB of memory per
MB of source) and, for linearity, the load's CPU seconds per MB at the largest size over that at
the smallest (about 1 when linear).

``--cex MB[,MB...]`` then runs the whole command ``kinduct check --engine bmc --property falsifiable``
on a model of that size and prints its wall time and the verdict's step (want: falsifiable at
step 0 within 10 s at 1 MB).  The load average is printed before and after: on a shared machine
wall time is CPU time times the contention.

``--hogs 0,1,2`` runs it beside that many CPU-bound processes (a busy loop each, started
before and ended after), ``--repeat`` runs it that many times per count, and ``--vs DIR``
alternates each run with one of the ``kinduct`` package in ``DIR`` (``git archive main | tar -x
-C DIR/kinduct``), paired: the figures are the whole process's wall time and CPU time.

    .venv/bin/python benchmarks/scale.py [--sizes 0.1,1,3,10] [--shape tree] [--cex 1]
        [--timeout 600] [--cex-timeout 120] [--hogs 0,1,2] [--repeat 1] [--vs DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scale_models import gen_model  # noqa: E402

_CHILD = r"""
import gc, json, resource, sys, time
from pathlib import Path
path = Path(sys.argv[1])
import kinduct.frontends.lucent.plugin
from kinduct.frontends.lucent import pipeline
from kinduct.frontends.lucent.check.checker import check_program
from kinduct.frontends.lucent.syntax.parser import parse_file, _parser
from kinduct.kernel.frontend import LoadOptions, gc_paused
_parser()  # the grammar's tables (cached on disk): start-up, not load
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out = {}
u0 = resource.getrusage(resource.RUSAGE_SELF)
wall = time.perf_counter()
c0 = time.process_time()
with gc_paused():
    prog = parse_file(path)
    c1 = time.process_time()
    checked = check_program(prog)
    c2 = time.process_time()
    abstract = pipeline.contract_abstract(checked, False)
    systems = [pipeline.build_system(checked, n, abstract)
               for n in pipeline.main_nodes(checked, LoadOptions())]
    c3 = time.process_time()
    w3 = time.perf_counter()
    # as `kinduct check` does after its load (kernel/cli.py): what the load made is frozen,
    # so re-enabling the collector does not start a full pass over it (about 1 s at 1 MB that
    # this figure counted before and the command never spends)
    gc.freeze()
out = {"parse": c1 - c0, "check": c2 - c1, "translate": c3 - c2, "cpu": c3 - c0,
       "wall": w3 - wall, "rss": rss(), "systems": len(systems),
       "preempted": resource.getrusage(resource.RUSAGE_SELF).ru_nivcsw - u0.ru_nivcsw,
       "waits": resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw - u0.ru_nvcsw,
       "majflt": resource.getrusage(resource.RUSAGE_SELF).ru_majflt - u0.ru_majflt,
       "properties": sum(len(s.properties) for s in systems)}
print(json.dumps(out))
"""


def load_in_child(path: Path, timeout: float) -> dict:
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(path)], cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "KINDUCT_LUCENT_MAX_MB": "1000"})
    except subprocess.TimeoutExpired:
        return {"error": f"no answer within {timeout:g} s"}
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"exit {proc.returncode}: {tail[:100]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys against xs."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else float("nan")


def counterexample(path: Path, timeout: float, vs: Path | None = None) -> str:
    """The whole ``kinduct check --engine bmc --property falsifiable --json`` on ``path``:
    the verdict, wall time and the process tree's CPU time (user + system); ``vs``: a
    directory holding another ``kinduct`` package, run instead through ``PYTHONPATH``."""
    cmd = [str(ROOT / ".venv" / "bin" / "kinduct"), "check", str(path), "--engine", "bmc",
           "--property", "falsifiable", "--json"]
    env = {**os.environ, "KINDUCT_LUCENT_MAX_MB": "1000"}
    if vs is not None:
        env["PYTHONPATH"] = str(vs)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return f"no answer within {timeout:g} s"
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    try:
        results = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return f"exit {proc.returncode} after {took:.1f} s: {proc.stderr.strip()[-200:]}"
    found = [r for r in results if isinstance(r, dict) and r.get("objectType") == "property"
             and r.get("name") == "falsifiable"]
    if not found:
        return f"exit {proc.returncode} after {took:.1f} s: no result for 'falsifiable'"
    r = found[0]
    blocks = r.get("counterExample") or []
    streams = blocks[0].get("streams", []) if blocks else []
    steps = len(streams[0].get("instantValues", [])) if streams else 0
    return (f"{r['answer']['value']} at k={r.get('k')} (a counterexample of {steps} step(s)) "
            f"in {took:.2f} s wall, {user:.2f} s user + {system:.2f} s sys, whole process "
            "(want <= 10 s)")


class Hogs:
    """``n`` CPU-bound processes (a busy loop each) beside the runs, ended on exit."""

    def __init__(self, n: int) -> None:
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                      for _ in range(n)]

    def __enter__(self) -> Hogs:
        time.sleep(0.5 if self.procs else 0)  # they are running before the measured run starts
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="0.1,1,3,10", help="model sizes in MB")
    ap.add_argument("--shape", default="tree", choices=["tree", "chain"])
    ap.add_argument("--cex", default="1", help="sizes (MB) of the counterexample runs; 0: none")
    ap.add_argument("--cex-timeout", type=float, default=120, help="limit per counterexample run (s)")
    ap.add_argument("--timeout", type=float, default=600, help="limit per child (s)")
    ap.add_argument("--hogs", default="0", help="counts of CPU-bound processes beside the "
                    "counterexample runs, comma-separated (e.g. 0,1,2)")
    ap.add_argument("--repeat", type=int, default=1, help="counterexample runs per setting")
    ap.add_argument("--vs", type=Path, default=None, help="a directory holding another kinduct "
                    "package (e.g. `git archive` of main into DIR/kinduct): its runs alternate "
                    "with this checkout's, paired")
    args = ap.parse_args()
    print(f"load average before: {_load()}", flush=True)
    head = (f"{'MB':>6} {'nodes':>7} {'parse':>7} {'check':>7} {'transl.':>7} {'CPU s':>7} "
            f"{'wall s':>7} {'RSS MB':>7} {'props':>7} {'preempt':>8} {'waits':>6} {'majflt':>6}")
    rows: list[tuple[float, dict]] = []
    with tempfile.TemporaryDirectory() as tmp:
        print(head, flush=True)
        for mb in (float(s) for s in args.sizes.split(",") if float(s) > 0):
            text = gen_model(int(mb * 1_000_000), args.shape)
            path = Path(tmp) / f"scale_{mb:g}.lus"
            path.write_text(text)
            real = len(text.encode()) / 1e6
            nodes = text.count("\nnode ")
            r = load_in_child(path, args.timeout)
            if "error" in r:
                print(f"{real:>6.2f} {nodes:>7}  {r['error']}", flush=True)
                continue
            rows.append((real, r))
            print(f"{real:>6.2f} {nodes:>7} {r['parse']:>7.2f} {r['check']:>7.2f} {r['translate']:>7.2f} "
                  f"{r['cpu']:>7.2f} {r['wall']:>7.2f} {r['rss']:>7.0f} {r['properties']:>7} "
                  f"{r['preempted']:>8} {r['waits']:>6} {r['majflt']:>6}", flush=True)
        if len(rows) >= 2:
            xs = [mb for mb, _ in rows]
            print(f"slope: {slope(xs, [r['cpu'] for _, r in rows]):.2f} s CPU/MB, "
                  f"{slope(xs, [r['wall'] for _, r in rows]):.2f} s wall/MB, "
                  f"{slope(xs, [r['rss'] for _, r in rows]):.0f} MB RSS/MB")
            (small, rs), (large, rl) = rows[0], rows[-1]
            print(f"linearity: CPU s/MB at {large:.2f} MB over {small:.2f} MB = "
                  f"{(rl['cpu'] / large) / (rs['cpu'] / small):.2f} (1 = linear; the smallest size "
                  "carries fixed costs)")
        for mb in (float(s) for s in args.cex.split(",") if float(s) > 0):
            path = Path(tmp) / "cex.lus"
            path.write_text(gen_model(int(mb * 1_000_000), args.shape))
            for hogs in (int(h) for h in args.hogs.split(",")):
                with Hogs(hogs):
                    for _ in range(args.repeat):
                        for name, vs in [("this", None)] + ([("vs", args.vs)] if args.vs else []):
                            print(f"counterexample, {mb:g} MB, {hogs} hog(s), {name} "
                                  f"(load {_load()}): {counterexample(path, args.cex_timeout, vs)}",
                                  flush=True)
    print(f"load average after: {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
