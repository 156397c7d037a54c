"""Kind 2's own regression and type-checking tests as a conformance suite for the Lucent frontend.

Runs ``kinduct check --json --timeout T`` on every file of
``../shared/benchmarks/lustre/kind2-tests`` (folders ``success/ falsifiable/ error/ typecheck-pass/
typecheck-fail/ syntax-errors/``) and prints, per folder, how many runs are

* **ok**: the outcome the folder expects (success: exit 0, every property valid; falsifiable:
  exit 40; error, typecheck-fail, syntax-errors: refused as an input error, exit 2 or 3, with a
  located message; typecheck-pass: accepted, i.e. not an input error);
* **rejected**: refused as unsupported or as an input error where the folder expects acceptance;
* **unknown**: accepted, but no definitive answer within the limit (exit 30, or a harness timeout);
* **wrong**: a definitive answer contradicting the folder (falsifiable on a success file, all valid
  on a falsifiable file, a model of an error folder accepted);
* **internal**: exit 1 or a Python traceback;
* **primer**: a file where the primer's Lucent deliberately differs from Kind 2 (``PRIMER``).

Kind 2 v3.0.0's exit code on the same file (``manifest.csv``, 30 s limit) is shown beside. The list
of wrong and internal-error files follows the table, then the most common rejection reasons.

    .venv/bin/python benchmarks/kind2_conformance.py [--timeout 30] [--jobs 1]
        [--folder success,falsifiable] [--files 'success/abs*.lus'] [--csv /tmp/out.csv] [--fresh]

Each file runs ``kinduct check`` through its command-line entry point in a child forked from
this script once kinduct is imported (``--fresh``: a new ``kinduct`` process per file).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import fnmatch
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parent.parent


def _suite() -> Path:
    """``../shared/benchmarks/lustre/kind2-tests`` beside the checkout, or beside the folder
    holding it (a git worktree such as ``/work/wt/NAME``); ``KINDUCT_KIND2_TESTS`` overrides."""
    if os.environ.get("KINDUCT_KIND2_TESTS"):
        return Path(os.environ["KINDUCT_KIND2_TESTS"])
    rel = Path("shared") / "benchmarks" / "lustre" / "kind2-tests"
    candidates = [ROOT.parent / rel, ROOT.parent.parent / rel]
    return next((c for c in candidates if c.is_dir()), candidates[0])


SUITE = _suite()
KINDUCT = Path(sys.executable).parent / "kinduct"
FOLDERS = ("success", "falsifiable", "error", "typecheck-pass", "typecheck-fail", "syntax-errors")
REFUSING = {"error", "typecheck-fail", "syntax-errors"}
INPUT_ERROR = {2, 3}
OUTCOMES = ("ok", "rejected", "unknown", "wrong", "internal", "primer")
#: Files where Lucent, as the primer defines it, deliberately differs from Kind 2: counted as
#: ``primer``, never as ok, and listed with the reason.
PRIMER: dict[str, str] = {
    "typecheck-fail/machine_integer_06.lus": "the primer gives machine integers 'lsh', and Kind "
    "2 v3.0.0 accepts this model (exit 0); the newer Kind 2 the folder comes from refuses it",
    "success/frame_last_refinement_type.lus": "the primer makes '=>' eager: 'Some?(y) => "
    "y.value >= 0' reads y.value where y is None (step 0, m false), so its selector's "
    "obligation is falsified; the newer Kind 2 the folder comes from counts the file valid",
    **{f"error/{name}.lus": "'in' names an input, as typecheck-pass (import_01, test_merge, …) "
       "needs: kinduct reads 'in' as membership only after an operand; Kind 2 refuses 'in' as "
       "a name (its only error here: renamed, Kind 2 v3.0.0 accepts the file with kinduct's "
       "verdicts)" for name in ("unguarded_pre_in_contract", "unguarded_pre_in_contract_call",
                                "unguarded_pre_node_call_in_contract")},
}
LOCATED = re.compile(r":\d+(:\d+)?: error:")


@attrs.frozen
class Run:
    """One file's run: what kinduct did and how it reads against the folder."""

    file: str
    folder: str
    exit: int
    outcome: str
    detail: str
    seconds: float
    kind2_exit: str


def classify(folder: str, code: int, stderr: str, answers: list[str]) -> tuple[str, str]:
    """The outcome of one run against its folder's expectation, and a one-line detail."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    first = next((ln for ln in lines if "error" in ln or "note:" in ln), lines[0] if lines else "")
    if "Traceback (most recent call last)" in stderr or code == 1:
        return "internal", first[:200]
    if code == -1:
        return "unknown", "harness timeout"
    if code in INPUT_ERROR:
        if folder in REFUSING:
            if LOCATED.search(stderr):
                return "ok", first[:200]
            return "wrong", "refused without a location: " + first[:160]
        return "rejected", first[:200]
    if folder in REFUSING:
        return "wrong", f"accepted (exit {code}) a model Kind 2 refuses"
    if folder == "typecheck-pass":
        return ("ok", f"exit {code}") if code in (0, 30, 40) else ("internal", f"exit {code}")
    if folder == "success":
        if code == 0:  # every property valid (or its target reachable)
            return "ok", ""
        if code == 40 or "falsifiable" in answers:
            bad = answers.count("falsifiable")
            return "wrong", f"{bad} propert{'y' if bad == 1 else 'ies'} falsified"
        if code == 30:
            return "unknown", f"{answers.count('unknown')} unknown"
        return "internal", f"exit {code}"
    if folder == "falsifiable":
        if code == 40:
            return "ok", ""
        if code == 0:
            return "wrong", "every property valid"
        if code == 30:
            return "unknown", f"{answers.count('unknown')} unknown"
        return "internal", f"exit {code}"
    return "internal", f"unexpected folder {folder}"


def outcome_of(rel: str, code: int, out: str, err: str, seconds: float, kind2: dict[str, str]) -> Run:
    folder = rel.split("/", 1)[0]
    answers: list[str] = []
    try:
        objs = json.loads(out, strict=False) if out.strip() else []
        answers = [o["answer"]["value"] for o in objs if o.get("objectType") == "property"]
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
        pass
    outcome, detail = classify(folder, code, err, answers)
    if rel in PRIMER and outcome != "internal":
        outcome, detail = "primer", f"{PRIMER[rel]} ({detail})"
    return Run(rel, folder, code, outcome, detail, seconds, kind2.get(rel, "?"))


class Forker:
    """Runs ``kinduct check`` as the command line does (``kinduct.kernel.cli.main``), each file
    in a child forked from this process after kinduct is imported once: on a loaded machine the
    imports alone take seconds a file.  Children are reaped from the main thread only."""

    def __init__(self, timeout: float, jobs: int, tmp: Path, extra: Sequence[str] = ()) -> None:
        from kinduct.kernel import cli, registry
        registry.frontends()
        registry.engines()
        registry.backends()
        from kinduct.frontends.lucent.pipeline import load_checked
        load_checked(text="node N(x: int) returns (y: int); let y = x; tel")  # builds the parser
        self.cli = cli
        self.timeout = timeout
        self.jobs = max(1, jobs)
        self.tmp = tmp
        #: Further ``kinduct check`` options (``--solver cvc5``).
        self.extra = list(extra)

    def _start(self, rel: str) -> tuple[int, float]:
        out, err = self.tmp / f"{os.getpid()}.{abs(hash(rel))}.out", self.tmp / f"{abs(hash(rel))}.err"
        pid = os.fork()
        if pid == 0:  # child: become a process group, redirect, run the command line
            code = 1
            try:
                os.setpgid(0, 0)
                for fd, path in ((1, out), (2, err)):
                    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                    os.dup2(handle, fd)
                    os.close(handle)
                sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
                self.cli.PROCESS_START = time.monotonic()
                code = self.cli.main(["check", "--json", "--timeout", str(self.timeout),
                                      *self.extra, str(SUITE / rel)])
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
        return pid, time.monotonic()

    def run(self, files: list[str], kind2: dict[str, str], done) -> list[Run]:
        todo = list(files)
        running: dict[int, tuple[str, float]] = {}
        runs: list[Run] = []
        limit = self.timeout * 2 + 30
        while todo or running:
            while todo and len(running) < self.jobs:
                rel = todo.pop(0)
                pid, start = self._start(rel)
                running[pid] = (rel, start)
            time.sleep(0.05)
            for pid, (rel, start) in list(running.items()):
                got, status = os.waitpid(pid, os.WNOHANG)
                late = got == 0 and time.monotonic() - start > limit
                if got == 0 and not late:
                    continue
                if late:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    code = -1
                else:
                    code = os.waitstatus_to_exitcode(status)
                    code = 1 if code < 0 else code  # killed by a signal: an internal error
                del running[pid]
                paths = [self.tmp / f"{os.getpid()}.{abs(hash(rel))}.out", self.tmp / f"{abs(hash(rel))}.err"]
                out, err = (p.read_text(errors="replace") if p.exists() else "" for p in paths)
                for p in paths:
                    p.unlink(missing_ok=True)
                run = outcome_of(rel, code, out, err, time.monotonic() - start, kind2)
                done(run)
                runs.append(run)
        order = {rel: i for i, rel in enumerate(files)}
        return sorted(runs, key=lambda r: order[r.file])


def run_one(rel: str, timeout: float, kind2: dict[str, str], extra: Sequence[str] = ()) -> Run:
    """One file in a fresh ``kinduct`` process (``--fresh``)."""
    start = time.monotonic()
    try:
        proc = subprocess.run([str(KINDUCT), "check", "--json", "--timeout", str(timeout),
                               *extra, str(SUITE / rel)], capture_output=True, text=True,
                              timeout=timeout * 2 + 30)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        code, out, err = -1, "", ""
    return outcome_of(rel, code, out, err, time.monotonic() - start, kind2)


def kind2_exits() -> dict[str, str]:
    with open(SUITE / "manifest.csv") as fh:
        return {row["file"]: row["kind2_v3_exit"] for row in csv.DictReader(fh)}


def select(folders: list[str], patterns: list[str]) -> list[str]:
    files = []
    for folder in folders:
        for path in sorted((SUITE / folder).glob("*.lus")):
            rel = f"{folder}/{path.name}"
            if not patterns or any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(path.name, p)
                                   for p in patterns):
                files.append(rel)
    return files


def kind2_agrees(folder: str, code: str) -> bool:
    """Whether Kind 2 v3.0.0's exit code is the outcome the folder expects."""
    if folder == "success":
        return code == "0"
    if folder == "falsifiable":
        return code == "40"
    if folder in REFUSING:
        return code in ("2", "3")
    return code in ("0", "30", "40")


def reason(detail: str) -> str:
    """A rejection message with its location, names and numbers taken out, to group by."""
    text = detail.split(" error: ", 1)[-1]
    text = re.sub(r"\S+\.lus:\s*", "", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'…'", text)
    return re.sub(r"\d+", "N", text)[:90]


def report(runs: list[Run], timeout: float) -> None:
    print(f"## kinduct check --timeout {timeout:g} on kind2-tests\n")
    print("| folder | files | " + " | ".join(OUTCOMES) + " | Kind 2 v3.0.0 as expected |")
    print("|---" * (len(OUTCOMES) + 3) + "|")
    total: Counter[str] = Counter()
    for folder in FOLDERS:
        mine = [r for r in runs if r.folder == folder]
        if not mine:
            continue
        counts = Counter(r.outcome for r in mine)
        total.update(counts)
        k2 = sum(kind2_agrees(folder, r.kind2_exit) for r in mine)
        print(f"| {folder} | {len(mine)} | " + " | ".join(str(counts[o]) for o in OUTCOMES)
              + f" | {k2} |")
    k2_all = sum(kind2_agrees(r.folder, r.kind2_exit) for r in runs)
    print(f"| **all** | {len(runs)} | " + " | ".join(str(total[o]) for o in OUTCOMES)
          + f" | {k2_all} |\n")
    for outcome in ("wrong", "internal", "primer", "unknown"):
        bad = [r for r in runs if r.outcome == outcome]
        if bad:
            print(f"### {outcome} ({len(bad)})")
            for r in bad:
                print(f"- {r.file}: exit {r.exit}, Kind 2 exit {r.kind2_exit}: {r.detail}")
            print()
    rejected = Counter(reason(r.detail) for r in runs if r.outcome == "rejected")
    if rejected:
        print(f"### rejection reasons ({sum(rejected.values())} files)")
        for text, n in rejected.most_common(40):
            print(f"- {n} × {text}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per file (30)")
    parser.add_argument("--jobs", type=int, default=1, help="files run at once (1)")
    parser.add_argument("--folder", default=",".join(FOLDERS), help="comma-separated folders")
    parser.add_argument("--files", action="append", default=[],
                        help="globs on 'folder/name.lus' or 'name.lus', comma-separated (repeatable)")
    parser.add_argument("--solver", help="kinduct's --solver (default: kinduct's default)")
    parser.add_argument("--csv", type=Path, help="write one row per file here (outside the repo)")
    parser.add_argument("--fresh", action="store_true",
                        help="start a fresh kinduct process per file (default: fork one that has "
                             "imported kinduct already; same command line, less start-up time)")
    args = parser.parse_args(argv)
    folders = [f for f in args.folder.split(",") if f]
    unknown = set(folders) - set(FOLDERS)
    if unknown:
        parser.error(f"unknown folder(s): {', '.join(sorted(unknown))}")
    if args.csv and ROOT in args.csv.resolve().parents:
        parser.error("keep the CSV outside the repository")
    kind2 = kind2_exits()
    files = select(folders, [p for arg in args.files for p in arg.split(",") if p])
    sink = open(args.csv, "w", newline="") if args.csv else None  # noqa: SIM115 - written as runs end
    writer = csv.writer(sink) if sink else None
    if writer:
        writer.writerow([f.name for f in attrs.fields(Run)])

    lock = threading.Lock()
    extra = ["--solver", args.solver] if args.solver else []

    def record(r: Run) -> None:
        with lock:
            print(f"{r.file}: {r.outcome} (exit {r.exit}, {r.seconds:.1f} s)", file=sys.stderr,
                  flush=True)
            if writer and sink:
                writer.writerow(attrs.astuple(r))
                sink.flush()

    def one(rel: str) -> Run:
        r = run_one(rel, args.timeout, kind2, extra)
        record(r)
        return r
    if args.fresh:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            runs = list(pool.map(one, files))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            runs = Forker(args.timeout, args.jobs, Path(tmp), extra).run(files, kind2, record)
    if sink:
        sink.close()
    report(runs, args.timeout)
    return 1 if any(r.outcome in ("wrong", "internal") for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
