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
    .venv/bin/python benchmarks/ctigar_vs_spacer.py --all --anchor manifest [--jobs 2]

``--all`` takes the whole set; ``--anchor manifest`` does not run Spacer but prints its answer
and time from ``manifest.csv`` (Spacer's 60 s run on this machine, idle), so that the whole set
costs kinduct's time only; ``--jobs N`` runs N kinduct processes at once (say so with the
figures: they share the cores).  ``--csv F`` writes the rows.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys

from sidebyside import KINDUCT, SHARED, engines_used, load, run_pairs, summary, table, timed, verdict

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
    ap.add_argument("--all", action="store_true", help="every model of the set")
    ap.add_argument("--anchor", choices=("spacer", "manifest"), default="spacer")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--csv", default="")
    ap.add_argument("--spacer-one", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.spacer_one:
        spacer_one(args.spacer_one, args.timeout)
        return
    with open(FOLDER / "manifest.csv") as fh:
        manifest = {r["file"]: r for r in csv.DictReader(fh)}
    expected = {name: r["expected"] for name, r in manifest.items()}
    names = sorted(expected) if args.all else args.models.split(",") if args.models else \
        random.Random(args.seed).sample(sorted(expected), min(args.sample, len(expected)))
    if args.anchor == "manifest":
        against_manifest(names, manifest, args)
        return
    pairs = []
    for name in names:
        model = FOLDER / name
        ours = [KINDUCT, "check", str(model), "--json", "--certify", "--timeout",
                str(args.timeout), "--engine", args.engine]
        theirs = [sys.executable, __file__, "--spacer-one", str(model),
                  "--timeout", str(args.timeout)]
        pairs.append((name, {"valid": "holds"}.get(expected.get(name, ""), "?"), ours, theirs))
    run_pairs(pairs, args.timeout + 15, "spacer")

def against_manifest(names: list[str], manifest: dict[str, dict], args: argparse.Namespace) -> None:
    """kinduct on each model (``args.jobs`` at once) beside Spacer's recorded answer."""
    from concurrent.futures import ThreadPoolExecutor

    def one(name: str) -> dict:
        cmd = [KINDUCT, "check", str(FOLDER / name), "--json", "--certify", "--timeout",
               str(args.timeout), "--engine", args.engine]
        row = {"model": name, "expected": {"valid": "holds"}.get(manifest[name]["expected"], "?"),
               "load": load()}
        wall, out = timed(cmd, args.timeout + 15)
        row.update(kinduct=verdict(out), kinduct_s=wall, engine=engines_used(out),
                   anchor={"safe": "holds"}.get(manifest[name]["spacer_60s_verdict"], "unknown"),
                   anchor_s=float(manifest[name]["spacer_s"]))
        print(table([row], "spacer (manifest)"), flush=True)
        return row

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(one, names))
    print()
    print(table(rows, "spacer (manifest)"))
    print(summary(rows))
    ours = {r["model"] for r in rows if r["kinduct"] == "holds"}
    theirs = {r["model"] for r in rows if r["anchor"] == "holds"}
    print(f"proved by kinduct alone: {len(ours - theirs)}; by Spacer alone: {len(theirs - ours)}"
          f" {sorted(theirs - ours)}")
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
