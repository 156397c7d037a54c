"""``kinduct monitor`` beside Kind 2 v3.0.0's contract monitor (``--enable contract_monitor
--monitor_trace_file``): on random traces of inputs and outputs, the truth of every assumption,
guarantee, mode requires and ensures at every step, element by element (matched by Kind 2's
names).

    .venv/bin/python benchmarks/monitor_kind2.py [--models 10] [--traces 5] [--steps 4] [--seed 0]

The models: the Kind 2 suite's and kinduct's examples whose main node (or last node with a
contract) has a contract and scalar inputs and outputs (bool, int, enumerations).  Prints one
row per model (elements compared, values compared, values that differ, names only one tool
gives) and the machine load; exits 1 when some value differs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = Path("/work/shared/benchmarks/lustre/kind2-tests")
KIND2 = ROOT / ".kind2" / "bin" / "kind2"
KINDUCT = ROOT / ".venv" / "bin" / "kinduct"
FOLDERS = ("success", "typecheck-pass", "falsifiable")


def candidates() -> list[Path]:
    files = sorted((ROOT / "examples" / "lucent").glob("modes*.lus"))  # modes over a history
    files += [p for f in FOLDERS for p in sorted((SUITE / f).glob("*.lus"))]
    return [p for p in files if any(w in p.read_text(errors="replace") for w in ("guarantee", "mode "))]


def interface(path: Path) -> tuple[str, dict[str, object], list[str]] | None:
    """The monitored node, its streams' value choices, its output names (None: not usable)."""
    from kinduct.frontends.lucent.monitor import contracted
    from kinduct.frontends.lucent.pipeline import load_checked, main_nodes
    from kinduct.kernel.frontend import LoadOptions
    try:
        checked = load_checked(path)
        mains = main_nodes(checked, LoadOptions()) or contracted(checked)
    except Exception:
        return None
    if len(mains) != 1:
        return None
    node = checked.nodes[mains[0]]
    if not node.has_contract or not (node.assumes or node.guarantees or node.modes):
        return None
    choices: dict[str, object] = {}
    for n in node.inputs + node.outputs:
        t = node.types[n]
        if t.kind == "bool":
            choices[n] = [False, True]
        elif t.kind == "int":
            choices[n] = list(range(-3, 6))
        elif t.kind == "enum":
            choices[n] = list(t.items)
        else:
            return None
    return node.name, choices, list(node.outputs)


def kinduct_elements(model: Path, node: str, trace: Path) -> dict[str, list[bool]]:
    proc = subprocess.run([str(KINDUCT), "monitor", str(model), "--main", node, "--trace", str(trace),
                           "--json"], capture_output=True, text=True, timeout=120)
    if proc.returncode not in (10, 20):
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "no output")
    (result,) = json.loads(proc.stdout)
    return {e["name"]: [v for _, v in e["instantValues"]] for e in result["elements"]}


def kind2_elements(model: Path, node: str, trace: Path) -> dict[str, list[bool]]:
    proc = subprocess.run([str(KIND2), "-json", "--enable", "contract_monitor", "--monitor_trace_file",
                           str(trace), "--lus_main", node, str(model)],
                          capture_output=True, text=True, timeout=120)
    try:
        objects = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise RuntimeError("Kind 2 printed no JSON") from None
    for o in objects:
        if o.get("objectType") == "execution":
            block = o["trace"][0]
            return {e["name"]: [v for _, v in e["instantValues"]]
                    for key in ("assumptionsTrace", "guaranteesTrace", "modesTrace")
                    for e in block.get(key, [])}
    errors = [o.get("value", "") for o in objects if o.get("level") in ("error", "fatal")]
    raise RuntimeError(f"Kind 2: {errors[0] if errors else 'no execution'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--traces", type=int, default=5)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"load before: {os.getloadavg()}")
    start = time.monotonic()
    rows, total_differ, compared = [], 0, 0
    for model in candidates():
        if compared >= args.models:
            break
        found = interface(model)
        if found is None:
            continue
        node, choices, _ = found
        elements = values = differ = 0
        only: set[str] = set()
        error = ""
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(args.traces):
                trace = [{n: rng.choice(c) for n, c in choices.items()} for _ in range(args.steps)]
                path = Path(tmp) / "trace.json"
                path.write_text(json.dumps(trace))
                try:
                    ours = kinduct_elements(model, node, path)
                    theirs = kind2_elements(model, node, path)
                except (RuntimeError, subprocess.TimeoutExpired) as exc:
                    error = str(exc)[:60]
                    break
                only |= set(ours) ^ set(theirs)
                for name in set(ours) & set(theirs):
                    elements += 1
                    for a, b in zip(ours[name], theirs[name], strict=True):
                        values += 1
                        differ += a != b
        if error and not values:
            rows.append((model.name, node, "-", "-", "-", "-", error))
            continue
        compared += 1
        total_differ += differ
        rows.append((model.name, node, str(elements), str(values), str(differ),
                     ", ".join(sorted(only))[:50] or "-", error or ("yes" if not differ else "NO")))
    heads = ("model", "node", "elements", "values", "differ", "names one tool only", "agree")
    widths = [max(len(r[i]) for r in [heads, *rows]) for i in range(len(heads))]
    for r in [heads, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    print(f"\n{compared} models compared ({args.traces} traces of {args.steps} steps each), "
          f"{total_differ} values differ; {time.monotonic() - start:.0f} s; load after: {os.getloadavg()}")
    return 1 if total_differ else 0


if __name__ == "__main__":
    sys.exit(main())
