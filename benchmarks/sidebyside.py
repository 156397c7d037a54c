"""What the hard-end scripts share (``acceptors_vs_kind2.py``, ``timers_vs_kind2.py``,
``ctigar_vs_spacer.py``): running one command under a time limit, reading Kind 2-format JSON
verdicts (kinduct's ``--json`` and Kind 2's ``-json`` alike), the machine's load, and the
markdown table with kinduct beside its anchor and their ratio."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "benchmarks"
KINDUCT = str(Path(sys.executable).parent / "kinduct")
KIND2 = str(ROOT / ".kind2" / "bin" / "kind2")
#: Kind 2's and kinduct's answers, as holds / fails.
DECIDED = {"valid": "holds", "unreachable": "holds", "falsifiable": "fails", "reachable": "fails"}


def load() -> str:
    """The 1-minute load average and the number of cores, e.g. ``load 7.9 on 2 cores``."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def timed(cmd: Sequence[str], limit: float) -> tuple[float, str]:
    """Wall time and standard output of ``cmd``, killed after ``limit`` seconds."""
    t0 = time.monotonic()
    try:
        done = subprocess.run(list(cmd), capture_output=True, text=True, timeout=limit)
        out = done.stdout
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
    return time.monotonic() - t0, out


def properties(out: str) -> list[dict] | None:
    """The property objects of a JSON answer (Kind 2's candidate properties, which it generates
    itself, left out); None for output that is no JSON array (Kind 2 writes raw newlines in
    its strings, hence ``strict=False``)."""
    try:
        objects = json.loads(out, strict=False)
    except json.JSONDecodeError:
        return None
    return [o for o in objects if isinstance(o, dict) and o.get("objectType") == "property"
            and str(o.get("isCandidate", "false")).lower() != "true"]


def verdict(out: str) -> str:
    """``holds`` / ``fails`` when every property of the JSON answer is decided alike, else
    ``unknown`` (or ``error`` for output that is no JSON array)."""
    props = properties(out)
    if props is None:
        return "error"
    answers = {DECIDED.get(o.get("answer", {}).get("value", ""), "unknown") for o in props}
    if len(answers) == 1:
        return answers.pop()
    return "fails" if "fails" in answers else "unknown"


def engines_used(out: str) -> str:
    """The engines that answered, from kinduct's JSON (``answer.source``)."""
    found = {o.get("answer", {}).get("source", "") for o in properties(out) or []}
    return ",".join(sorted(f for f in found if f)) or "-"


def table(rows: list[dict], anchor: str) -> str:
    """Markdown: model, expected, kinduct (answer, engine, s), anchor (answer, s), ratio."""
    lines = [f"| model | expected | kinduct | engine | kinduct s | {anchor} | {anchor} s | ratio | load |",
             "|---|---|---|---|---:|---|---:|---:|---|"]
    for r in rows:
        ratio = r["kinduct_s"] / r["anchor_s"] if r["anchor_s"] > 0 else float("inf")
        lines.append(f"| {r['model']} | {r['expected']} | {r['kinduct']} | {r['engine']} | "
                     f"{r['kinduct_s']:.2f} | {r['anchor']} | {r['anchor_s']:.2f} | "
                     f"{ratio:.2f} | {r['load']} |")
    return "\n".join(lines)


def summary(rows: list[dict]) -> str:
    """Decided and wrong counts of both sides."""
    def count(side: str) -> tuple[int, int]:
        decided = [r for r in rows if r[side] in ("holds", "fails")]
        wrong = [r for r in decided if r["expected"] in ("holds", "fails") and r[side] != r["expected"]]
        return len(decided), len(wrong)
    kd, kw = count("kinduct")
    ad, aw = count("anchor")
    return f"kinduct decided {kd}/{len(rows)} ({kw} wrong); anchor decided {ad}/{len(rows)} ({aw} wrong)"


def paired_row(model: str, expected: str, ours: Sequence[str], theirs: Sequence[str],
               limit: float, ours_first: bool) -> dict:
    """Run kinduct's command and the anchor's one after the other (``ours_first`` says which
    starts: callers alternate it so that neither side always meets a warm or a cold machine)
    and give the row :func:`table` prints."""
    row = {"model": model, "expected": expected, "load": load()}
    for side, cmd in (("kinduct", ours), ("anchor", theirs))[::1 if ours_first else -1]:
        wall, out = timed(cmd, limit)
        row[side], row[f"{side}_s"] = verdict(out), wall
        if side == "kinduct":
            row["engine"] = engines_used(out)
    return row


def run_pairs(pairs: Sequence[tuple[str, str, Sequence[str], Sequence[str]]], limit: float,
              anchor: str) -> None:
    """Each (model, expected, kinduct command, anchor command) as a :func:`paired_row`, printed
    as it ends, then the whole table and the :func:`summary`."""
    rows = []
    for i, (model, expected, ours, theirs) in enumerate(pairs):
        rows.append(paired_row(model, expected, ours, theirs, limit, i % 2 == 0))
        print(table(rows[-1:], anchor), flush=True)
    print()
    print(table(rows, anchor))
    print(summary(rows))
