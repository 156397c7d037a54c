"""Differential fuzzing of kinduct against Kind 2 v3.0.0 on random Lucent models (issue 41).

Generates ``--models`` well-typed models (``benchmarks/lucent_models.py``; model ``k`` of seed
``S`` is ``generate(S * 100_000 + k)``), runs Kind 2 (``.kind2/bin/kind2 -json --timeout T``)
and kinduct (``.venv/bin/kinduct check FILE --json --timeout T``) on each, and compares the
answers property by property (matched by name, else by line and column).  Prints a table:
models, properties, both decide and agree, opposite verdicts (each listed, its model kept under
``--keep``), Kind 2 decides / kinduct unknown, kinduct decides / Kind 2 unknown, both unknown,
properties only one tool names, Kind 2 self-contradictions (one property given two opposite
answers), and models either tool refuses or fails on.

    .venv/bin/python benchmarks/fuzz_vs_kind2.py --seed 41 --models 300 --timeout 5 --jobs 1 \\
        --keep /tmp/fuzz41 [--list-unknown] [--json out.json]
    .venv/bin/python benchmarks/fuzz_vs_kind2.py --files A.lus B.lus --flags compositional,modular
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.lucent_models import generate  # noqa: E402

HOLDS = {"valid": True, "unreachable": True, "falsifiable": False, "reachable": False}


@dataclass
class Side:
    """One tool's answers on one model: name -> answers given, (line, col) -> name."""

    answers: dict[str, set[str]] = field(default_factory=dict)
    where: dict[tuple[int, int], set[str]] = field(default_factory=dict)
    tops: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    traces: dict[str, list[dict]] = field(default_factory=dict)
    broken: bool = False  # the output was not one JSON array (read object by object)

    def final(self, name: str, top: str, answer: str) -> str:
        """The answer of ``name`` after one more analysis (of ``top``) answers ``answer``."""
        before, (earlier,) = self.tops.get(name, ""), self.answers[name]
        if "<<" in top and before.split("<<")[0] == top.split("<<")[0] and before != top:
            for a in (earlier, answer):
                if HOLDS.get(a) is False:
                    return a
            return answer if earlier in HOLDS else earlier
        return answer


@dataclass
class Outcome:
    """The comparison of one model."""

    model: int
    text: str
    kind2: Side
    kinduct: Side
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)  # class, prop, k2, ku


def json_objects(text: str) -> list[dict]:
    """The objects of a JSON array, read one by one: Kind 2 v3.0.0 can break its own output
    (a ``Division_by_zero`` while printing a counterexample leaves ``"counterExample" :``
    followed by a backtrace); from a broken object the property's name, position and answer
    are still read."""
    body = text.strip().removeprefix("[").removesuffix("]")
    objects = []
    for chunk in re.split(r"\n,\n(?=\{)", body):
        chunk = chunk.strip()
        if not chunk:
            continue
        try:
            objects.append(json.loads(chunk, strict=False))
            continue
        except json.JSONDecodeError:
            pass
        name = re.search(r'"name" : "([^"]*)"', chunk)
        answer = re.search(r'"answer" : \{[^}]*"value" : "(\w+)"', chunk)
        if '"objectType" : "property"' in chunk and name and answer:
            obj: dict = {"objectType": "property", "name": name.group(1), "broken": True,
                         "answer": {"value": answer.group(1)}}
            for key in ("line", "column"):
                m = re.search(rf'"{key}" : (\d+)', chunk)
                if m:
                    obj[key] = int(m.group(1))
            cand = re.search(r'"isCandidate" : "(\w+)"', chunk)
            obj["isCandidate"] = cand.group(1) if cand else "false"
            objects.append(obj)
    return objects


#: A polymorphic or constant-parameter instance in a property's name: Kind 2 writes
#: ``size<int>[L3C5]``, kinduct ``size<<int>>[L3C5]``.
INSTANCE = re.compile(r"(?<=\w)<<?[\w, =]*>>?(?=\[)")


def run_tool(cmd: list[str], timeout: float, final: bool = False) -> Side:
    """One tool's answers; ``final``: a property's answer is that of the last analysis naming
    it (a modular or compositional run's refinements), those of one node's instances
    (kinduct's ``N<<n=2>>``) combined: violated in one, violated."""
    side = Side()
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        side.error = f"no answer within {timeout:.0f} s of wall time"
        side.seconds = time.monotonic() - start
        return side
    side.seconds = time.monotonic() - start
    try:
        objects = json.loads(proc.stdout, strict=False)
    except json.JSONDecodeError:
        objects = json_objects(proc.stdout)
        side.broken = True
        if not objects:
            side.error = f"exit {proc.returncode}, no JSON: {(proc.stderr or proc.stdout)[:200]!r}"
            return side
    top = ""
    for obj in objects:
        kind = obj.get("objectType")
        if kind == "analysisStart":
            top = str(obj.get("top", ""))
        if kind == "property" and obj.get("isCandidate") in (True, "true"):
            continue  # Kind 2's candidate invariants (from subrange inputs) are not properties
        if kind == "property":
            name = INSTANCE.sub("", obj["name"])
            answer = obj["answer"]["value"]
            if final and name in side.answers:
                answer = side.final(name, top, answer)
            side.answers[name] = {answer} if final else side.answers.get(name, set()) | {answer}
            side.tops[name] = top
            if "line" in obj and "column" in obj:
                side.where.setdefault((obj["line"], obj["column"]), set()).add(name)
            if "counterExample" in obj:
                side.traces[name] = obj["counterExample"]
        elif kind == "log" and obj.get("level") in ("error", "fatal") and side.error is None:
            side.error = str(obj.get("value"))[:200]
    if side.answers and side.error:
        side.error = None  # an engine's failure beside answers (Kind 2 logs those as errors)
    if side.error is None and proc.returncode not in (0, 10, 20, 30, 40) and not side.answers:
        side.error = f"exit {proc.returncode}: {proc.stderr[-200:]!r}"
    return side


def subrange_values(trace: list[dict]) -> list[tuple[int, int | None, int | None]]:
    """Every value of a local or output stream of a subrange type in a Kind 2 counterexample
    (its blocks and their sub-nodes), with the type's bounds."""
    values = []
    for block in trace:
        for stream in block.get("streams", []):
            info = stream.get("typeInfo") or {}
            if stream.get("type") == "subrange" and stream.get("class") in ("local", "output"):
                values += [(v, info.get("min"), info.get("max"))
                           for _step, v in stream.get("instantValues", [])]
        values += subrange_values(block.get("subnodes", []))
    return values


def within_subranges(trace: list[dict]) -> bool:
    """Whether a Kind 2 counterexample shows subrange-typed locals or outputs, all within
    their ranges at every step (so it violates no subrange)."""
    values = subrange_values(trace)
    return bool(values) and all((lo is None or v >= lo) and (hi is None or v <= hi)
                                for v, lo, hi in values)


def one_answer(answers: set[str]) -> str:
    decided = {a for a in answers if a in HOLDS}
    if not decided:
        return "unknown"
    if len({HOLDS[a] for a in decided}) > 1:
        return "contradiction"
    return sorted(decided)[0]


CALLEE = re.compile(r"^(.*\[L\d+C\d+\])\.(guarantee|[^.]+\.ensure)\[")


def opposite(name: str, theirs: str, ours: str, k2: Side, ku: Side) -> str:
    """The class of an opposite verdict: one of the differences explained by rule (Kind 2's
    counterexample shows it wrong, or kinduct's chosen semantics of callee guarantees), else
    ``OPPOSITE``, to be decided by hand."""
    if theirs == "falsifiable" and ours == "valid":
        callee = CALLEE.match(name)
        if callee and any(n.startswith(callee.group(1) + ".assume") and
                          one_answer(v) == "falsifiable" for n, v in ku.answers.items()):
            return "chosen: callee's guarantee after its assumption failed"
        if name.startswith(("SubRange", "SubType")) and name in k2.traces and \
                within_subranges(k2.traces[name]):
            return "Kind 2 wrong: its counterexample is within every subrange"
    return "OPPOSITE"


def compare(outcome: Outcome) -> None:
    k2, ku = outcome.kind2, outcome.kinduct
    if k2.error or ku.error:
        cls = "error: both" if k2.error and ku.error else (
            "error: Kind 2" if k2.error else "error: kinduct")
        outcome.rows.append((cls, "-", k2.error or "", ku.error or ""))
        return
    matched: set[str] = set()
    for name, theirs in k2.answers.items():
        ours_name = name if name in ku.answers else None
        if ours_name is None:  # by position, where one property on each side has it
            for pos, names in k2.where.items():
                if names == {name} and len(ku.where.get(pos, ())) == 1:
                    (ours_name,) = ku.where[pos]
        if ours_name is None:
            outcome.rows.append(("only Kind 2 names it", name, one_answer(theirs), ""))
            continue
        matched.add(ours_name)
        a, b = one_answer(theirs), one_answer(ku.answers[ours_name])
        if a == "contradiction":
            cls = "Kind 2 contradicts itself"
        elif b == "contradiction":
            cls = "kinduct contradicts itself"
        elif a in HOLDS and b in HOLDS:
            cls = "agree" if HOLDS[a] == HOLDS[b] else opposite(name, a, b, k2, ku)
        elif a in HOLDS:
            cls = "Kind 2 decides, kinduct unknown"
        elif b in HOLDS:
            cls = "kinduct decides, Kind 2 unknown"
        else:
            cls = "both unknown"
        outcome.rows.append((cls, name, "/".join(sorted(theirs)), b))
    for name, ours in ku.answers.items():
        if name not in matched:
            outcome.rows.append(("only kinduct names it", name, "", one_answer(ours)))


def run_model(k: int, seed: int, timeout: float, workdir: Path, files: list[Path],
              flags: list[str], arraydefs: bool = False) -> Outcome:
    """Model ``k``: generated, or the ``k``-th of ``files``; ``flags`` (``compositional``,
    ``modular``) are given to both tools."""
    if files:
        path = files[k]
        text = path.read_text()
    else:
        text = generate(seed * 100_000 + k, arraydefs)
        path = workdir / f"m{k:04d}.lus"
        path.write_text(text)
    wall = timeout + 15
    theirs = [a for f in flags for a in (f"--{f}", "true")]
    ours = [f"--{f}" for f in flags]
    kind2 = run_tool([str(ROOT / ".kind2/bin/kind2"), "-json", "--timeout", str(timeout),
                      *theirs, str(path)], wall, final=bool(flags))
    kinduct = run_tool([str(ROOT / ".venv/bin/kinduct"), "check", str(path), "--json",
                        "--timeout", str(timeout), *ours], wall, final=bool(flags))
    outcome = Outcome(k, text, kind2, kinduct)
    compare(outcome)
    return outcome


CLASSES = ["agree", "OPPOSITE", "Kind 2 wrong: its counterexample is within every subrange",
           "chosen: callee's guarantee after its assumption failed", "Kind 2 decides, kinduct unknown",
           "kinduct decides, Kind 2 unknown", "both unknown", "only Kind 2 names it",
           "only kinduct names it", "Kind 2 contradicts itself", "kinduct contradicts itself"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--models", type=int, default=300)
    ap.add_argument("--first", type=int, default=0, help="number of the first model")
    ap.add_argument("--timeout", type=float, default=5.0, help="each tool's --timeout (s)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--keep", type=Path, help="folder for models with an opposite verdict, a "
                    "contradiction or an error")
    ap.add_argument("--list-unknown", action="store_true",
                    help="also list the properties Kind 2 decides and kinduct leaves unknown")
    ap.add_argument("--list-unmatched", action="store_true",
                    help="also list the properties only one tool names")
    ap.add_argument("--json", type=Path, help="write every row as JSON")
    ap.add_argument("--arraydefs", action="store_true", help="generated models also define "
                    "an array element by element by node calls")
    ap.add_argument("--files", type=Path, nargs="+", default=[],
                    help="compare on these models instead of generated ones")
    ap.add_argument("--flags", default="", help="comma-separated: compositional, modular "
                    "(given to both tools)")
    args = ap.parse_args()
    flags = [f for f in args.flags.split(",") if f]
    if args.files:
        args.first, args.models = 0, len(args.files)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            outcomes = list(pool.map(
                lambda k: run_model(k, args.seed, args.timeout, Path(tmp), args.files, flags,
                                    args.arraydefs),
                range(args.first, args.first + args.models)))
    elapsed = time.monotonic() - start
    counts: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    keep_classes = {"OPPOSITE", "Kind 2 contradicts itself", "kinduct contradicts itself",
                    "Kind 2 wrong: its counterexample is within every subrange",
                    "chosen: callee's guarantee after its assumption failed"}
    listed: list[tuple[str, int, str, str, str]] = []
    for out in outcomes:
        for cls, name, theirs, ours in out.rows:
            if cls.startswith("error"):
                errors[cls] += 1
            else:
                counts[cls] += 1
            unknown = args.list_unknown and cls == "Kind 2 decides, kinduct unknown"
            unmatched = args.list_unmatched and cls.startswith("only")
            if cls in keep_classes or cls.startswith("error") or unknown or unmatched:
                listed.append((cls, out.model, name, theirs, ours))
                if args.keep and (cls in keep_classes or cls.startswith("error")):
                    args.keep.mkdir(parents=True, exist_ok=True)
                    (args.keep / f"s{args.seed}_m{out.model:04d}.lus").write_text(out.text)
    props = sum(counts.values())
    what = (f"{len(args.files)} given models" if args.files else
            f"seed {args.seed}, models {args.first}..{args.first + args.models - 1}")
    print(f"fuzz vs Kind 2: {what}, flags [{args.flags}], --timeout {args.timeout:g}, "
          f"--jobs {args.jobs}, {elapsed:.0f} s wall")
    print(f"| models | {len(outcomes)} |\n|---|---|\n| properties compared | {props} |")
    for cls in CLASSES:
        print(f"| {cls} | {counts[cls]} |")
    for cls in ("error: Kind 2", "error: kinduct", "error: both"):
        print(f"| models with {cls} | {errors[cls]} |")
    broken = sum(o.kind2.broken and not o.kind2.error for o in outcomes)
    print(f"| models where Kind 2's JSON is broken (answers read object by object) | {broken} |")
    k2 = sum(o.kind2.seconds for o in outcomes)
    ku = sum(o.kinduct.seconds for o in outcomes)
    print(f"| wall time, Kind 2 / kinduct (s) | {k2:.0f} / {ku:.0f} |")
    for cls, model, name, theirs, ours in listed:
        where = f" (kept: {args.keep}/s{args.seed}_m{model:04d}.lus)" if args.keep and not (
            cls == "Kind 2 decides, kinduct unknown" or cls.startswith("only")) else ""
        label = args.files[model].name if args.files else model
        print(f"{cls}: model {label} property {name}: Kind 2 {theirs}, kinduct {ours}{where}")
    if args.json:
        args.json.write_text(json.dumps(
            [{"class": c, "model": m, "property": n, "kind2": t, "kinduct": o}
             for out in outcomes for (c, n, t, o) in out.rows
             for m in [out.model]], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
