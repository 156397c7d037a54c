"""Parsing speed per frontend on generated models of growing size (issue 21: "parsing scales").

For each frontend, size (MB) and stage, a model of about that size is generated, then read in
a fresh child process (so memory is returned and a run is bounded by ``--timeout``); the child
reports the CPU and wall time of that stage alone, imports excluded.  Two stages:

- ``parse``: the text to the frontend's syntax (positions, limits, names and types where the
  frontend checks them while reading);
- ``load``: the whole load, as ``kinduct check`` does it (parse, checks and translation to a
  transition system; for RASP, running the program).

The table gives MB/s on CPU time (the machine may be shared: wall time is printed too), the
child's peak memory, and, per frontend and stage, the CPU seconds per MB at the largest size
over that at the smallest: about 1 when the stage is linear.  A stage that times out is not run
at larger sizes.

- ``vmt``: n counters with a big ``:trans`` conjunction (parse: PySMT's script from
  ``lexer.Tokens``; load: ``read_vmt``, the checks and the system);
- ``crasp``: a chain of counting and Boolean rules, one per line (parse: ``parser.load``, with
  limits, names and types; load: the translation too);
- ``rasp``: assignments one per line (parse: ``syntax.parse``, the located tree and nesting
  check; load: ``interp.load_program``, which runs the program and stops at the interpreter's
  step limit beyond about 10 MB);
- ``regex``: a union of words over lines (parse: ``parser.load``; load: the minimal DFA and the
  system, whose size grows with the words);
- ``lucent``: one node with a long list of equations, or with ``--lucent-model scale`` the
  many-node models of ``scale_models.gen_model`` (parse: ``parser.parse_file``; load: the
  frontend's checks and translation); sizes over Lucent's source limit are skipped.
  ``--lucent-parser fast,lark`` measures both parsers (``KINDUCT_LUCENT_PARSER``): the fast path
  with lark behind it, and lark alone (its grammar's tables are loaded before timing).

    .venv/bin/python benchmarks/parse_speed.py [--sizes 1,5,25,50] [--stages parse,load]
        [--frontends vmt,crasp,rasp,regex,lucent] [--timeout 600]
        [--lucent-model equations|scale] [--lucent-parser fast,lark]
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


def gen_regex(target: int) -> str:
    lines = ["alphabet 'a', 'b'", "( abba"]
    size, i = 0, 1
    while size < target:
        word = format(i, "b").replace("0", "a").replace("1", "b")
        line = f"| {word} {word[::-1]}* (a|b)?"
        lines.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(lines) + "\n)\n"


GENERATORS = {"vmt": (gen_vmt, ".vmt"), "crasp": (gen_crasp, ".crasp"), "rasp": (gen_rasp, ".rasp"),
              "regex": (gen_regex, ".regex"), "lucent": (gen_lucent, ".lus")}

_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
frontend, stage, path = sys.argv[1], sys.argv[2], Path(sys.argv[3])
from kinduct.kernel import registry
from kinduct.kernel.frontend import LoadOptions, read_source
def parse():
    if frontend == "vmt":
        from pysmt.environment import Environment
        from kinduct.frontends.vmt.reader import _parse_script
        return _parse_script(read_source(path), str(path), Environment())
    if frontend == "crasp":
        from kinduct.frontends.crasp.parser import load
        return load(path)
    if frontend == "rasp":
        from kinduct.frontends.rasp.syntax import parse
        return parse(read_source(path), str(path))
    if frontend == "regex":
        from kinduct.frontends.regex.parser import load
        return load(path)
    from kinduct.frontends.lucent.syntax.parser import parse_file
    return parse_file(path)
def load():
    if frontend == "rasp":
        from kinduct.frontends.rasp.interp import load_program
        return load_program(path)
    return registry.frontend_for(path).load(path, LoadOptions())
import kinduct.frontends.vmt.reader, kinduct.frontends.crasp.translate  # imports not timed
import kinduct.frontends.rasp.interp, kinduct.frontends.regex.acceptor
import kinduct.frontends.lucent.plugin, kinduct.frontends.lucent.syntax.parser
if frontend == "lucent" and not kinduct.frontends.lucent.syntax.parser.fast_path_enabled():
    from kinduct.frontends.lucent.syntax.larkparse import lark_parser
    lark_parser()  # lark's import and tables: start-up
registry.frontend_for(path)
cpu, wall = time.process_time(), time.perf_counter()
try:
    (parse if stage == "parse" else load)()
    error = None
except Exception as exc:
    error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, "error": error,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(frontend: str, stage: str, path: Path, timeout: float, parser: str = "fast") -> dict:
    env = dict(os.environ, KINDUCT_LUCENT_PARSER=parser)
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, frontend, stage, str(path)], cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"cpu": None, "wall": None, "error": f"no answer within {timeout:g}s"}
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"cpu": None, "wall": None, "error": f"exit {proc.returncode}: {tail[:120]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _lucent_limit_mb() -> float:
    from kinduct.frontends.lucent.core.limits import MAX_SOURCE_MB
    return float(os.environ.get("KINDUCT_LUCENT_MAX_MB", MAX_SOURCE_MB))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1,5,25,50", help="model sizes in MB")
    ap.add_argument("--stages", default="parse,load", help="parse, load or both")
    ap.add_argument("--frontends", default="vmt,crasp,rasp,regex,lucent")
    ap.add_argument("--timeout", type=float, default=600, help="limit per run (s)")
    ap.add_argument("--lucent-model", default="equations", choices=["equations", "scale"],
                    help="Lucent: one node of many equations, or scale_models' many nodes")
    ap.add_argument("--lucent-parser", default="fast", help="Lucent: fast, lark or both (fast,lark)")
    args = ap.parse_args()
    if args.lucent_model == "scale":
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from scale_models import gen_model
        GENERATORS["lucent"] = (lambda target: gen_model(target, "tree"), ".lus")
    parsers = args.lucent_parser.split(",")
    sizes = [float(s) for s in args.sizes.split(",")]
    stages = args.stages.split(",")
    table = Table(title="parsing speed (a generated model, each stage in a fresh process)")
    for col in ("frontend", "stage", "size (MB)", "CPU (s)", "wall (s)", "MB/s (CPU)", "MB/s (wall)",
                "peak RSS (MB)", "note"):
        table.add_column(col, justify="left" if col in ("frontend", "stage", "note") else "right")
    ratios = []
    console = Console(width=150)
    with tempfile.TemporaryDirectory() as tmp:
        runs = [(fe, p) for fe in args.frontends.split(",") for p in (parsers if fe == "lucent" else [""])]
        for fe, parser in runs:
            gen, ext = GENERATORS[fe]
            label = f"{fe} ({parser})" if parser else fe
            per_mb: dict[str, list[tuple[float, float]]] = {st: [] for st in stages}
            stopped: set[str] = set()
            for mb in sizes:
                path = Path(tmp) / f"model_{fe}_{mb:g}{ext}"
                path.write_text(gen(int(mb * 1_000_000)))
                real_mb = os.path.getsize(path) / 1e6
                for st in stages:
                    if fe == "lucent" and real_mb > _lucent_limit_mb():
                        table.add_row(label, st, f"{real_mb:.1f}", "-", "-", "-", "-", "-",
                                      f"over Lucent's {_lucent_limit_mb():g} MB source limit")
                        continue
                    if st in stopped:
                        table.add_row(label, st, f"{real_mb:.1f}", "-", "-", "-", "-", "-",
                                      "not run (timed out at a smaller size)")
                        continue
                    r = measure(fe, st, path, args.timeout, parser or "fast")
                    if r["cpu"] is None or r["error"]:
                        if r["cpu"] is None and "no answer" in (r["error"] or ""):
                            stopped.add(st)
                        table.add_row(label, st, f"{real_mb:.1f}", "-", "-", "-", "-", "-",
                                      (r["error"] or "")[:60])
                        continue
                    per_mb[st].append((real_mb, r["cpu"] / real_mb))
                    table.add_row(label, st, f"{real_mb:.1f}", f"{r['cpu']:.2f}", f"{r['wall']:.2f}",
                                  f"{real_mb / r['cpu']:.2f}", f"{real_mb / r['wall']:.2f}",
                                  f"{r['rss']:.0f}", "")
                    console.print(f"{label} {st} {real_mb:.1f} MB: {r['cpu']:.1f} s CPU", style="dim")
                path.unlink()
            for st in stages:
                if len(per_mb[st]) >= 2:
                    first, last = per_mb[st][0], per_mb[st][-1]
                    ratios.append((label, st, first[0], last[0], last[1] / first[1]))
    console.print(table)
    for fe, st, small, large, ratio in ratios:
        console.print(f"{fe} {st}: CPU s/MB at {large:.1f} MB over {small:.1f} MB = {ratio:.2f} "
                      "(1 = linear)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
