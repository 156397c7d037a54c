"""CTIGAR (issue 34): ``kinduct check M.vmt --json --certify`` beside z3's Spacer on the same
transition system, one process at a time, alternating which goes first.

Spacer runs in a child process of this script (``--spacer-one M.vmt``): the VMT file is read by
kinduct's frontend and given to Spacer as Horn clauses over one relation ``Inv`` (the encoding of
``crasp_vs_spacer.py``); its time is the whole child process, start-up included, as kinduct's
is.  ``--sample N --seed S`` draws N models at random (never run the whole set on a shared
machine).  A kinduct proof counts only when certified (``--certify``: the other backend
re-checks the invariant; a refused certificate turns the verdict into an error).

    .venv/bin/python benchmarks/ctigar_vs_spacer.py [--timeout 60] [--sample 5 --seed 1]
        [--engine portfolio] [--models a.c.vmt,b.c.vmt]
"""

from __future__ import annotations

import argparse
import csv
import random
import sys

from sidebyside import KINDUCT, SHARED, run_pairs

FOLDER = SHARED / "vmt" / "ctigar"


def spacer_one(path: str, timeout: float) -> None:
    """Print Spacer's answer on ``path`` as a one-property Kind 2-format JSON array."""
    import json

    import z3
    from pysmt.solvers.z3 import Z3Converter

    from kinduct.kernel.frontend import LoadOptions
    from kinduct.kernel.loading import load_systems

    system = load_systems(path, None, LoadOptions())[0]
    env = system.env
    conv = Z3Converter(env, z3.main_ctx())
    cur = [conv.convert(v) for v in system.state_vars]
    nxt = [conv.convert(v) for v in system.next_vars]
    inputs = [conv.convert(v) for v in system.input_vars]
    inv = z3.Function("Inv", *[c.sort() for c in cur], z3.BoolSort())
    assume = conv.convert(env.formula_manager.And(system.assumptions))
    goal = conv.convert(env.formula_manager.And(p.obligation(env) for p in system.properties))
    solver = z3.SolverFor("HORN")
    solver.set("timeout", int(timeout * 1000))
    solver.add(z3.ForAll(cur, z3.Implies(conv.convert(system.init), inv(*cur))))
    solver.add(z3.ForAll(cur + inputs + nxt, z3.Implies(
        z3.And(inv(*cur), assume, conv.convert(system.trans)), inv(*nxt))))
    solver.add(z3.ForAll(cur + inputs, z3.Implies(z3.And(inv(*cur), assume, z3.Not(goal)),
                                                  z3.BoolVal(False))))
    result = solver.check()
    answer = "valid" if result == z3.sat else "falsifiable" if result == z3.unsat else "unknown"
    print(json.dumps([{"objectType": "property", "name": "all",
                       "answer": {"source": "spacer", "value": answer}}]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--engine", default="portfolio")
    ap.add_argument("--sample", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--models", default="")
    ap.add_argument("--spacer-one", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.spacer_one:
        spacer_one(args.spacer_one, args.timeout)
        return
    with open(FOLDER / "manifest.csv") as fh:
        expected = {r["file"]: r["expected"] for r in csv.DictReader(fh)}
    names = args.models.split(",") if args.models else \
        random.Random(args.seed).sample(sorted(expected), min(args.sample, len(expected)))
    pairs = []
    for name in names:
        model = FOLDER / name
        ours = [KINDUCT, "check", str(model), "--json", "--certify", "--timeout",
                str(args.timeout), "--engine", args.engine]
        theirs = [sys.executable, __file__, "--spacer-one", str(model),
                  "--timeout", str(args.timeout)]
        pairs.append((name, {"valid": "holds"}.get(expected.get(name, ""), "?"), ours, theirs))
    run_pairs(pairs, args.timeout + 15, "spacer")

if __name__ == "__main__":
    main()
