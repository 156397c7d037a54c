"""Parsing speed per frontend on generated models of growing size (issue 21: "parsing scales").

For each frontend and size (MB), a model of about that size is generated, then loaded in a fresh
child process (so memory is returned and a run is bounded by ``--timeout``); the child reports
the CPU and wall time of the load alone.  The table gives MB/s on CPU time (the machine may be
shared: wall time is printed too) and, per frontend, the CPU seconds per MB at the largest size
over that at the smallest: about 1 when parsing is linear.

- ``vmt``: n counters with a big ``:trans`` conjunction (``read_vmt``: tokens, terms, checks);
- ``crasp``: a chain of counting and Boolean rules, one per line (``parser.load``: parse, limits,
  names and types);
- ``rasp``: assignments one per line (``syntax.parse``: the lark tree and nesting check; running
  a program is bounded separately by the interpreter's step limit);
- ``lucent``: one node with a long list of equations (the frontend's ``load``: parse, checks and
  translation), measured only: Lucent is another helper's.

    .venv/bin/python benchmarks/parse_speed.py [--sizes 1,5,25,50] [--frontends vmt,crasp,rasp,lucent]
                                               [--timeout 600]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]


def gen_vmt(target: int) -> str:
    head = ["(declare-fun inp () Int)"]
    body_init, body_trans = [], []
    size, i = 0, 0
    while size < target:
        decl = (f"(declare-fun x{i} () Int)\n(declare-fun x{i}n () Int)\n"
                f"(define-fun sv.x{i} () Int (! x{i} :next x{i}n))")
        init = f"(= x{i} 0)"
        trans = f"(= x{i}n (ite (> inp {i % 97}) (+ x{i} 1) x{max(i - 1, 0)}))"
        head.append(decl)
        body_init.append(init)
        body_trans.append(trans)
        size += len(decl) + len(init) + len(trans) + 3
        i += 1
    return "\n".join(head + [
        "(define-fun init () Bool (! (and " + " ".join(body_init) + ") :init true))",
        "(define-fun trans () Bool (! (and " + " ".join(body_trans) + ") :trans true))",
        "(define-fun p () Bool (! (>= x0 0) :invar-property 0))", ""])


def gen_crasp(target: int) -> str:
    lines = ["alphabet 'a', 'b'", "B0 := 'a'"]
    size, i = 0, 1
    while size < target:
        c = f"C{i} := #('a' and not B{i - 1}) - #[0,{i % 5}]('b') + {i % 13}"
        b = f"B{i} := C{i} > {i % 7} or B{i - 1} and 'b'"
        lines += [c, b]
        size += len(c) + len(b) + 2
        i += 1
    return "\n".join(lines) + "\n"


def gen_rasp(target: int) -> str:
    lines = ["x0 = indices;"]
    size, i = 0, 1
    while size < target:
        line = f"x{i} = x{i - 1} + indices * {i % 9} if tokens == \"a\" else x{i - 1} - 1;"
        lines.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(lines) + "\n"


def gen_lucent(target: int) -> str:
    eqs, decls = [], []
    size, i = 0, 1
    while size < target:
        eq = f"  x{i} = (x{i - 1} + {i % 9}) -> (if a then pre x{i} + 1 else x{i - 1});"
        eqs.append(eq)
        decls.append(f"x{i}")
        size += len(eq) + len(f"x{i}, ") + 1
        i += 1
    return ("node top(a: bool) returns (ok: bool);\nvar x0, " + ", ".join(decls) + ": int;\nlet\n"
            "  x0 = 0;\n" + "\n".join(eqs) + "\n  ok = x0 >= 0;\n  --%PROPERTY ok;\ntel\n")


GENERATORS = {"vmt": (gen_vmt, ".vmt"), "crasp": (gen_crasp, ".crasp"), "rasp": (gen_rasp, ".rasp"),
              "lucent": (gen_lucent, ".lus")}

_CHILD = r"""
import json, sys, time
from pathlib import Path
sys.setrecursionlimit(10000)
frontend, path = sys.argv[1], Path(sys.argv[2])
def load():
    if frontend == "vmt":
        from kinduct.frontends.vmt.reader import read_vmt
        return read_vmt(path)
    if frontend == "crasp":
        from kinduct.frontends.crasp.parser import load as crasp_load
        return crasp_load(path)
    if frontend == "rasp":
        from kinduct.frontends.rasp.syntax import parse
        return parse(path.read_text(), str(path))
    from kinduct.kernel import registry
    from kinduct.kernel.frontend import LoadOptions
    return registry.frontend_for(path).load(path, LoadOptions())
import kinduct.kernel.registry  # imports outside the timing
cpu, wall = time.process_time(), time.perf_counter()
try:
    load()
    error = None
except Exception as exc:
    error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, "error": error}))
"""


def measure(frontend: str, path: Path, timeout: float) -> dict:
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, frontend, str(path)], cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"cpu": None, "wall": None, "error": f"no answer within {timeout:g}s"}
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"cpu": None, "wall": None, "error": f"exit {proc.returncode}: {tail[:120]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1,5,25,50", help="model sizes in MB")
    ap.add_argument("--frontends", default="vmt,crasp,rasp,lucent")
    ap.add_argument("--timeout", type=float, default=600, help="limit per load (s)")
    args = ap.parse_args()
    sizes = [float(s) for s in args.sizes.split(",")]
    table = Table(title="parsing speed (load of a generated model in a fresh process)")
    for col in ("frontend", "size (MB)", "CPU (s)", "wall (s)", "MB/s (CPU)", "MB/s (wall)", "note"):
        table.add_column(col, justify="left" if col in ("frontend", "note") else "right")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for fe in args.frontends.split(","):
            gen, ext = GENERATORS[fe]
            per_mb = []
            for mb in sizes:
                text = gen(int(mb * 1_000_000))
                path = Path(tmp) / f"model_{fe}_{mb:g}{ext}"
                path.write_text(text)
                real_mb = os.path.getsize(path) / 1e6
                r = measure(fe, path, args.timeout)
                path.unlink()
                if r["cpu"] is None or r["error"]:
                    table.add_row(fe, f"{real_mb:.1f}", "-", "-", "-", "-", r["error"] or "")
                    continue
                per_mb.append((real_mb, r["cpu"] / real_mb))
                table.add_row(fe, f"{real_mb:.1f}", f"{r['cpu']:.1f}", f"{r['wall']:.1f}",
                              f"{real_mb / r['cpu']:.2f}", f"{real_mb / r['wall']:.2f}", "")
            if len(per_mb) >= 2:
                ratios.append((fe, per_mb[0][0], per_mb[-1][0], per_mb[-1][1] / per_mb[0][1]))
    console = Console()
    console.print(table)
    for fe, small, large, ratio in ratios:
        console.print(f"{fe}: CPU s/MB at {large:.1f} MB over {small:.1f} MB = {ratio:.2f} "
                      "(1 = linear)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
