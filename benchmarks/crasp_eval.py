"""Speed of the vectorised C-RASP evaluator (issue 5, Done-when 4).

A 6-rule program (counts, a window, comparisons, a count of a Boolean rule) on 1,000 random
words of lengths 1..100: the median time of one full evaluation (every rule plus acceptance)
over repeated runs, words·positions per second, and the speed-up over the per-word reference
evaluator (timed on a subset and scaled per position).  Batch encoding is reported apart: a
synthesis loop encodes its sample once and re-scores it many times.

    .venv/bin/python benchmarks/crasp_eval.py [--words 1000] [--max-len 100] [--repeat 200]

With ``--pairs`` it instead decides every pair of ``examples/crasp/pairs/`` with the default
portfolio (10 s each) and prints the table of issue 5's Done-when 2: pair, expected, verdict,
engine that decided, time, and the word of inequivalent pairs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from kinduct.frontends.crasp.evaluate import accepts, evaluate
from kinduct.frontends.crasp.parser import parse
from kinduct.frontends.crasp.vectorized import Batch, accepted, evaluate_rules

PROGRAM = """\
alphabet '[', ']'
Cl := #('[')
Cr := #(']')
W  := #[1,3](']')
V  := Cl < Cr or W > 2
N  := #(V)
D  := N = 0 and Cl = Cr
"""


def pairs(timeout: float) -> None:
    from pathlib import Path

    from kinduct.frontends.crasp.parser import load
    from kinduct.frontends.crasp.queries import decide_query
    from kinduct.kernel.runner import RunOptions

    root = Path(__file__).resolve().parent.parent / "examples" / "crasp" / "pairs"
    table = Table(title=f"C-RASP pairs, default portfolio, timeout {timeout:g} s", title_justify="left")
    for col in ("pair", "expected", "verdict", "engine", "time (s)", "word"):
        table.add_column(col)
    for kind in ("equiv", "inequiv"):
        for a in sorted((root / kind).glob("*.a.crasp")):
            b = a.with_name(a.name.replace(".a.crasp", ".b.crasp"))
            t0 = time.monotonic()
            verdict, word = decide_query("equiv", load(a), load(b), RunOptions(timeout=timeout))
            elapsed = time.monotonic() - t0
            table.add_row(a.name.removesuffix(".a.crasp"), "equivalent" if kind == "equiv" else "different",
                          verdict.answer.value, verdict.engine or "-", f"{elapsed:.2f}",
                          "".join(word) if word else "")
    Console().print(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=1000)
    ap.add_argument("--max-len", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--reference-words", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs", action="store_true", help="decide the example pairs instead")
    ap.add_argument("--timeout", type=float, default=10.0)
    args = ap.parse_args()
    if args.pairs:
        pairs(args.timeout)
        return

    program = parse(PROGRAM)
    rng = np.random.default_rng(args.seed)
    lengths = rng.integers(1, args.max_len + 1, size=args.words)
    words = [list(rng.choice(list(program.alphabet), size=n)) for n in lengths]
    positions = int(lengths.sum())

    t0 = time.perf_counter()
    batch = Batch.from_words(words, program.alphabet)
    encode = time.perf_counter() - t0

    accepted(program, batch, evaluate_rules(program, batch))  # warm caches (letters)
    times, cpu = [], []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = accepted(program, batch, evaluate_rules(program, batch))
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    median = statistics.median(times)

    subset = words[: args.reference_words]
    sub_positions = sum(len(w) for w in subset)
    t0 = time.perf_counter()
    ref = [accepts(program, w) for w in subset]
    for w in subset:
        evaluate(program, w)
    ref_time = (time.perf_counter() - t0) / 2  # accepts + evaluate: count one full evaluation
    ref_per_position = ref_time / sub_positions
    assert ref == result[: len(subset)].tolist(), "the evaluators disagree"

    table = Table(title=f"C-RASP vectorised evaluator: {len(program.rules)} rules, {args.words} words "
                        f"of length 1..{args.max_len} ({positions} positions)", title_justify="left")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("median time per evaluation (ms)", f"{median * 1e3:.3f}")
    table.add_row("min / max (ms)", f"{min(times) * 1e3:.3f} / {max(times) * 1e3:.3f}")
    table.add_row("median CPU time per evaluation (ms)", f"{statistics.median(cpu) * 1e3:.3f}")
    table.add_row("machine load (1 min)", f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    table.add_row("goal (ms)", "< 2")
    table.add_row("words·positions per second", f"{positions / median:,.0f}")
    table.add_row("reference evaluator, positions per second", f"{1 / ref_per_position:,.0f}")
    table.add_row("speed-up over the reference", f"{ref_per_position * positions / median:,.0f}x")
    table.add_row("batch encoding, once (ms)", f"{encode * 1e3:.2f}")
    table.add_row("accepted words", f"{int(result.sum())} / {args.words}")
    Console().print(table)


if __name__ == "__main__":
    main()
