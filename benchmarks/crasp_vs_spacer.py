"""C-RASP language queries: kinduct against z3's Spacer on the same transition system (issue 18).

For every pair of ``examples/crasp/pairs/{equiv,inequiv}`` the equivalence query's transition
system (``queries.query_system``, the one ``kinduct crasp equiv`` decides) is also given to
Spacer as constrained Horn clauses over one relation ``Inv(state)``:

    init ∧ assume → Inv(s);   Inv(s) ∧ assume ∧ trans → Inv(s');   Inv(s) ∧ assume ∧ ¬P → false

Spacer's time is its ``query`` call alone (the encoding is not counted).  kinduct's is given
twice: its ``run`` on the same system in this process (the engines, processes included, and the
acceptance of the verdict: the same footing as Spacer's query), and the whole
``kinduct crasp equiv --via checker`` process, start-up included.  Prints a markdown table.

    .venv/bin/python benchmarks/crasp_vs_spacer.py [--timeout 60] [--pairs DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import z3
from pysmt.solvers.z3 import Z3Converter

from kinduct.frontends.crasp.queries import acceptors, query_system
from kinduct.kernel.runner import RunOptions, run

ROOT = Path(__file__).resolve().parent.parent
KINDUCT = Path(sys.executable).parent / "kinduct"


def spacer(system, timeout: float) -> tuple[str, float]:
    """Spacer's answer (``holds``/``fails``/``unknown``) on the system's single property."""
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
    if answer == z3.unsat:
        return "holds", elapsed
    return ("fails" if answer == z3.sat else "unknown"), elapsed


def kinduct_run(system, timeout: float) -> tuple[str, float]:
    """kinduct's answer on the system, deciding in this process as ``crasp equiv`` does."""
    start = time.perf_counter()
    (verdict,) = run(system, RunOptions(timeout=timeout))
    elapsed = time.perf_counter() - start
    return {"valid": "holds", "falsifiable": "fails"}.get(verdict.answer.value, "unknown"), elapsed


def kinduct(a: Path, b: Path, timeout: float) -> tuple[str, float]:
    start = time.perf_counter()
    proc = subprocess.run([str(KINDUCT), "crasp", "equiv", str(a), str(b), "--via", "checker",
                           "--timeout", f"{timeout:g}"], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    return {0: "holds", 40: "fails"}.get(proc.returncode, "unknown"), elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--pairs", type=Path, default=ROOT / "examples" / "crasp" / "pairs")
    args = ap.parse_args()
    print("| pair | kinduct | kinduct run s | kinduct process s | Spacer | Spacer query s | faster |")
    print("|---|---|---|---|---|---|---|")
    wins = process_wins = total = 0
    warm_up = sorted(args.pairs.glob("*/*.a.crasp"))[:1]  # imports and first-use costs, once
    for a in warm_up:
        kinduct_run(query_system("equiv", acceptors([str(a), str(a)], None)), args.timeout)
    for a in sorted(args.pairs.glob("*/*.a.crasp")):
        b = a.with_name(a.name.replace(".a.crasp", ".b.crasp"))
        system = query_system("equiv", acceptors([str(a), str(b)], None))
        s_answer, s_time = spacer(system, args.timeout)
        r_answer, r_time = kinduct_run(system, args.timeout)
        k_answer, k_time = kinduct(a, b, args.timeout)
        total += 1
        won = r_answer != "unknown" and (s_answer == "unknown" or r_time < s_time)
        wins += won
        process_wins += k_answer != "unknown" and (s_answer == "unknown" or k_time < s_time)
        faster = "kinduct" if won else "Spacer"
        name = f"{a.parent.name}/{a.name.removesuffix('.a.crasp')}"
        answer = r_answer if r_answer == k_answer else f"{r_answer} / {k_answer}"
        print(f"| {name} | {answer} | {r_time:.3f} | {k_time:.2f} | {s_answer} | {s_time:.3f} "
              f"| {faster} |")
    print(f"\nkinduct's run faster than Spacer's query on {wins} of {total}; its whole process "
          f"(start-up included) on {process_wins} of {total}")


if __name__ == "__main__":
    main()
