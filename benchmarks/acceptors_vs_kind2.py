"""The Lucent acceptors against their C-RASP programs (issue 34): ``kinduct crasp equiv
examples/crasp/lucent/X.lus examples/crasp/X.crasp`` with the native engines beside the same
command with ``--solver kind2``, one process at a time, alternating which goes first.

    .venv/bin/python benchmarks/acceptors_vs_kind2.py [--timeout 30] [--engine portfolio]
        [--pairs majority,dyck1]
"""

from __future__ import annotations

import argparse

from sidebyside import KINDUCT, ROOT, engines_used, load, summary, table, timed, verdict


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--engine", default="portfolio")
    ap.add_argument("--pairs", default="majority,dyck1")
    args = ap.parse_args()
    rows = []
    for i, name in enumerate(args.pairs.split(",")):
        lus = ROOT / "examples" / "crasp" / "lucent" / f"{name}.lus"
        crasp = ROOT / "examples" / "crasp" / f"{name}.crasp"
        base = [KINDUCT, "crasp", "equiv", str(lus), str(crasp), "--json",
                "--timeout", str(args.timeout)]
        ours = [*base, "--engine", args.engine]
        theirs = [*base, "--solver", "kind2"]
        row = {"model": name, "expected": "holds", "load": load()}
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
