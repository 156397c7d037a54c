"""FMCAD08's hard end (issue 34): the timer models and the models only Kind 2 decided, kinduct
(``kinduct check M.lus --json``) beside native Kind 2 (``kind2 -json M.lus``), one process at a
time, alternating which goes first, with the ratio kinduct / Kind 2 (target: at most 1.5 on
the timer models).

    .venv/bin/python benchmarks/timers_vs_kind2.py [--timeout 30] [--engine portfolio]
        [--models microwave19,FIREFLY_luke_3_e1_2217_e3_1200]
"""

from __future__ import annotations

import argparse
import csv

from sidebyside import KIND2, KINDUCT, SHARED, engines_used, load, summary, table, timed, verdict

TIMERS = ["microwave19", "microwave22", "microwave29", "FIREFLY_luke_3_e1_2217_e3_1200"]
KIND2_ALONE = ["microwave27", "SYNAPSE_5_e2_1525", "SYNAPSE_6_e3_1666_e5_1558",
               "SYNAPSE_6_e7_938_e2_1012", "metros_2_e1_190"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--engine", default="portfolio")
    ap.add_argument("--models", default=",".join(TIMERS + KIND2_ALONE))
    args = ap.parse_args()
    folder = SHARED / "lustre" / "fmcad08"
    with open(folder / "manifest.csv") as fh:
        expected = {r["file"]: r["expected"] for r in csv.DictReader(fh)}
    rows = []
    for i, name in enumerate(args.models.split(",")):
        model = folder / f"{name}.lus"
        ours = [KINDUCT, "check", str(model), "--json", "--timeout", str(args.timeout),
                "--engine", args.engine]
        theirs = [KIND2, "-json", "--timeout", str(args.timeout), str(model)]
        exp = {"valid": "holds", "falsifiable": "fails"}.get(expected.get(model.name, ""), "?")
        row = {"model": name, "expected": exp, "load": load()}
        for which in ((ours, theirs) if i % 2 == 0 else (theirs, ours)):
            wall, out = timed(which, args.timeout + 15)
            side = "kinduct" if which is ours else "anchor"
            row[side], row[f"{side}_s"] = verdict(out), wall
            if which is ours:
                row["engine"] = engines_used(out)
        rows.append(row)
        print(table(rows[-1:], "kind2"), flush=True)
    print()
    print(table(rows, "kind2"))
    print(summary(rows))


if __name__ == "__main__":
    main()
