"""FMCAD08's hard end (issue 34): the timer models and the models only Kind 2 decided, kinduct
(``kinduct check M.lus --json``) beside native Kind 2 (``kind2 -json M.lus``), one process at a
time, alternating which goes first, with the ratio kinduct / Kind 2 (target: at most 1.5 on
the timer models).

    .venv/bin/python benchmarks/timers_vs_kind2.py [--timeout 30] [--engine portfolio]
        [--models microwave19,FIREFLY_luke_3_e1_2217_e3_1200] [--cores 2]

``--cores N`` is handed to kinduct: the run then takes ``N`` cores as free whatever the load
(on a busy shared machine, what an idle one would decide: the quick phase, ``invgen``'s head
start).
"""

from __future__ import annotations

import argparse
import csv

from sidebyside import KIND2, KINDUCT, SHARED, run_pairs

TIMERS = ["microwave19", "microwave22", "microwave29", "FIREFLY_luke_3_e1_2217_e3_1200"]
KIND2_ALONE = ["microwave27", "SYNAPSE_5_e2_1525", "SYNAPSE_6_e3_1666_e5_1558",
               "SYNAPSE_6_e7_938_e2_1012", "metros_2_e1_190"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--engine", default="portfolio")
    ap.add_argument("--models", default=",".join(TIMERS + KIND2_ALONE))
    ap.add_argument("--cores", type=int, default=None)
    args = ap.parse_args()
    folder = SHARED / "lustre" / "fmcad08"
    with open(folder / "manifest.csv") as fh:
        expected = {r["file"]: r["expected"] for r in csv.DictReader(fh)}
    pairs = []
    for name in args.models.split(","):
        model = folder / f"{name}.lus"
        ours = [KINDUCT, "check", str(model), "--json", "--timeout", str(args.timeout),
                "--engine", args.engine, *(["--cores", str(args.cores)] if args.cores else [])]
        theirs = [KIND2, "-json", "--timeout", str(args.timeout), str(model)]
        exp = {"valid": "holds", "falsifiable": "fails"}.get(expected.get(model.name, ""), "?")
        pairs.append((name, exp, ours, theirs))
    run_pairs(pairs, args.timeout + 15, "kind2")

if __name__ == "__main__":
    main()
