"""C-RASP language queries: kinduct against z3's Spacer on the same transition system (issue 18).

For every pair of ``examples/crasp/pairs/{equiv,inequiv}`` the equivalence query's product
system as built (``language_query(..., merge=False)``: the two acceptors side by side) is given
to Spacer as constrained Horn clauses over one relation ``Inv(state)``:

    init ∧ assume → Inv(s);   Inv(s) ∧ assume ∧ trans → Inv(s');   Inv(s) ∧ assume ∧ ¬P → false

Both sides start from the same product in this process; kinduct decides it as ``kinduct crasp
equiv`` does, reduced first (``kernel/acceptor.reduced_product``: equal registers merged,
counters saturated, register ranges assumed; the reduction is part of kinduct's time). For the
record, the row also gives kinduct without the reduction ("before") and Spacer on the reduced
product (the comparison is of the tools, each from the product as built). Spacer's time is given
twice: its ``query`` call alone, and with its encoding (the system's formulas converted to z3
terms and the three rules added), which is the same footing as kinduct's ``run`` on the system
(its engines convert the formulas to their solver's terms too; processes included, and the
acceptance of the verdict). "faster" compares kinduct's run with Spacer's encoding and query;
the summary also counts it against the query alone. The whole ``kinduct crasp equiv --via
checker`` process, start-up included, is given beside. Every row has the machine's load at its
start; ``--hogs 2`` starts two CPU-bound processes beside the whole run (killed at its end).
Prints a markdown table.

    .venv/bin/python benchmarks/crasp_vs_spacer.py [--timeout 60] [--pairs DIR] [--cores N]
        [--hogs N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import z3
from pysmt.solvers.z3 import Z3Converter

from kinduct.frontends.crasp.queries import acceptors
from kinduct.kernel.acceptor import Query, language_query, reduced_product
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.shortest import shortest

ROOT = Path(__file__).resolve().parent.parent
KINDUCT = Path(sys.executable).parent / "kinduct"


def spacer(system, timeout: float) -> tuple[str, float, float]:
    """Spacer's answer (``holds``/``fails``/``unknown``) on the system's single property, the
    seconds of its query and those of its encoding and query."""
    encoding = time.perf_counter()
    conv = Z3Converter(system.env, z3.main_ctx())
    cur = [conv.convert(v) for v in system.state_vars]
    nxt = [conv.convert(v) for v in system.next_vars]
    inputs = [conv.convert(v) for v in system.input_vars]
    inv = z3.Function("Inv", *[c.sort() for c in cur], z3.BoolSort())
    err = z3.Function("Err", z3.BoolSort())
    assume = z3.And([conv.convert(a) for a in system.assumptions] or [z3.BoolVal(True)])
    (prop,) = system.properties
    fp = z3.Fixedpoint()
    fp.set(engine="spacer")
    fp.set("timeout", int(timeout * 1000))
    fp.register_relation(inv, err)
    for v in cur + nxt + inputs:
        fp.declare_var(v)
    fp.rule(inv(*cur), z3.And(conv.convert(system.init), assume))
    fp.rule(inv(*nxt), z3.And(inv(*cur), assume, conv.convert(system.trans)))
    fp.rule(err(), z3.And(inv(*cur), assume, z3.Not(conv.convert(prop.formula))))
    start = time.perf_counter()
    try:
        answer = fp.query(err())
    except z3.Z3Exception:  # "canceled": the timeout
        answer = z3.unknown
    elapsed = time.perf_counter() - start
    whole = time.perf_counter() - encoding
    if answer == z3.unsat:
        return "holds", elapsed, whole
    return ("fails" if answer == z3.sat else "unknown"), elapsed, whole


def kinduct_run(system, timeout: float, cores: int | None, reduce: bool = True
                ) -> tuple[str, float]:
    """kinduct's answer on the product as built, deciding in this process as ``crasp equiv``
    does (with ``reduce``, the product reduced first, within the time; a counterexample from an
    engine that does not promise the shortest is checked below its length, as the query's
    answering word is: :func:`~kinduct.kernel.shortest.shortest`)."""
    start = time.perf_counter()
    if reduce:
        system = reduced_product(system)
    options = RunOptions(timeout=timeout, cores=cores)
    (verdict,) = run(system, options)
    verdict = shortest(system, verdict, options)
    elapsed = time.perf_counter() - start
    return {"valid": "holds", "falsifiable": "fails"}.get(verdict.answer.value, "unknown"), elapsed


def kinduct(a: Path, b: Path, timeout: float, cores: int | None) -> tuple[str, float]:
    start = time.perf_counter()
    extra = [] if cores is None else ["--cores", str(cores)]
    proc = subprocess.run([str(KINDUCT), "crasp", "equiv", str(a), str(b), "--via", "checker",
                           "--timeout", f"{timeout:g}", *extra], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    return {0: "holds", 40: "fails"}.get(proc.returncode, "unknown"), elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--pairs", type=Path, default=ROOT / "examples" / "crasp" / "pairs")
    ap.add_argument("--cores", type=int, default=None,
                    help="kinduct's --cores (default: its own, from the machine's load)")
    ap.add_argument("--hogs", type=int, default=0,
                    help="CPU-bound processes to run beside the benchmark (default 0)")
    args = ap.parse_args()
    hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(args.hogs)]
    try:
        compare(args)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def compare(args: argparse.Namespace) -> None:
    print("| pair | kinduct | kinduct run s | kinduct before s | kinduct process s | Spacer "
          "| Spacer query s | Spacer encoding+query s | Spacer on reduced s | faster | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    wins = query_wins = process_wins = before_wins = merged_wins = total = 0
    warm_up = sorted(args.pairs.glob("*/*.a.crasp"))[:1]  # imports and first-use costs, once
    for a in warm_up:
        system = language_query(Query.EQUIV, *acceptors([str(a), str(a)], None), merge=False)
        kinduct_run(system, args.timeout, args.cores)
        spacer(system, args.timeout)
    for a in sorted(args.pairs.glob("*/*.a.crasp")):
        b = a.with_name(a.name.replace(".a.crasp", ".b.crasp"))
        load = f"{os.getloadavg()[0]:.1f}"
        system = language_query(Query.EQUIV, *acceptors([str(a), str(b)], None), merge=False)
        s_answer, s_query, s_time = spacer(system, args.timeout)
        r_answer, r_time = kinduct_run(system, args.timeout, args.cores)
        b_answer, b_time = kinduct_run(system, args.timeout, args.cores, reduce=False)
        m_answer, _, m_time = spacer(reduced_product(system), args.timeout)
        before_wins += b_answer != "unknown" and (s_answer == "unknown" or b_time <= s_time)
        merged_wins += r_answer != "unknown" and (m_answer == "unknown" or r_time <= m_time)
        k_answer, k_time = kinduct(a, b, args.timeout, args.cores)
        total += 1
        won = r_answer != "unknown" and (s_answer == "unknown" or r_time <= s_time)
        wins += won
        query_wins += r_answer != "unknown" and (s_answer == "unknown" or r_time <= s_query)
        process_wins += k_answer != "unknown" and (s_answer == "unknown" or k_time <= s_time)
        faster = "kinduct" if won else "Spacer"
        name = f"{a.parent.name}/{a.name.removesuffix('.a.crasp')}"
        answer = r_answer if r_answer == k_answer else f"{r_answer} / {k_answer}"
        before = f"{b_time:.3f}" + ("" if b_answer == r_answer else f" ({b_answer})")
        on_merged = f"{m_time:.3f}" + ("" if m_answer == s_answer else f" ({m_answer})")
        print(f"| {name} | {answer} | {r_time:.3f} | {before} | {k_time:.2f} | {s_answer} "
              f"| {s_query:.3f} | {s_time:.3f} | {on_merged} | {faster} | {load} |", flush=True)
    print(f"\nkinduct's run at least as fast as Spacer's encoding and query on {wins} of {total}, "
          f"as its query alone on {query_wins} of {total}; its whole process (start-up "
          f"included) on {process_wins} of {total} ({args.hogs} CPU-bound processes beside, "
          f"{os.cpu_count()} cores); without the reduction (before) on {before_wins} of {total}; "
          f"against Spacer on the reduced product on {merged_wins} of {total}")


if __name__ == "__main__":
    main()
