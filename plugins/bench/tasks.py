"""One bench task: ``kinduct check --json`` on one model with one engine and one solver, in its
own process.

A separate process per task is what makes the bench robust: a crash, a hang or a kill ends one
task, and its rows say ``error``.  The function here is plain and picklable so the same code runs
in a local thread pool and on Dask workers.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import attrs

from kinduct.plugins.bench.suite import Model

#: Answers that decide a property.
DEFINITIVE = ("valid", "falsifiable", "reachable", "unreachable")

#: Seconds a task gets beyond its timeout before its process group is killed.
GRACE = 10.0

COLUMNS = ("file", "property", "engine", "solver", "verdict", "expected", "wrong", "time", "k")

_RUNNING: set[int] = set()
_LOCK = threading.Lock()


@attrs.frozen
class Task:
    model: Model
    engine: str      # one configuration: an engine name, or several joined by '+'
    solver: str
    timeout: float
    bound: int | None = None
    kind2_path: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.model.name, self.engine, self.solver)

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "kinduct.kernel.cli", "check", self.model.path, "--json",
               "--engine", self.engine.replace("+", ","), "--solver", self.solver,
               "--timeout", f"{self.timeout:g}"]
        if self.bound is not None:
            cmd += ["--bound", str(self.bound)]
        if self.kind2_path:
            cmd += ["--kind2-path", self.kind2_path]
        return cmd


def is_wrong(verdict: str, expected: str) -> bool:
    return verdict in DEFINITIVE and expected in DEFINITIVE and verdict != expected


def make_row(task: Task, prop: str, verdict: str, seconds: float, k: Any, n_props: int) -> dict:
    expected = task.model.expected_for(prop, n_props)
    return {"file": task.model.name, "property": prop, "engine": task.engine,
            "solver": task.solver, "verdict": verdict, "expected": expected,
            "wrong": is_wrong(verdict, expected), "time": round(seconds, 3),
            "k": "" if k is None else k}


def error_rows(task: Task, message: str, seconds: float) -> list[dict]:
    row = make_row(task, "", "error", seconds, None, 1)
    row["note"] = message
    return [row]


def kill_running() -> None:
    """Kill every task process group still running (on Ctrl-C)."""
    with _LOCK:
        pids = list(_RUNNING)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def run_task(task: Task) -> list[dict]:
    """Rows for every property the task reports, or one ``error`` row."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(task.command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    except OSError as exc:
        return error_rows(task, f"cannot start kinduct: {exc}", 0.0)
    with _LOCK:
        _RUNNING.add(proc.pid)
    try:
        out, err = proc.communicate(timeout=task.timeout + GRACE)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return error_rows(task, f"killed: no answer {task.timeout + GRACE:g} s after the start",
                          time.monotonic() - start)
    finally:
        with _LOCK:
            _RUNNING.discard(proc.pid)
        if proc.poll() is None:  # interrupted: never leave the task behind
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    wall = time.monotonic() - start
    if proc.returncode < 0:
        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = str(-proc.returncode)
        return error_rows(task, f"killed by signal {name}", wall)
    try:
        objects = json.loads(out)
    except json.JSONDecodeError:
        detail = (err.strip().splitlines() or ["no output"])[-1]
        return error_rows(task, f"exit code {proc.returncode}: {detail}", wall)
    props = [o for o in objects if isinstance(o, dict) and o.get("objectType") == "property"]
    if not props:
        return error_rows(task, f"exit code {proc.returncode}: no property in the output", wall)
    rows = []
    for obj in props:
        verdict = "error" if "error" in obj else str((obj.get("answer") or {}).get("value", "error"))
        seconds = float((obj.get("runtime") or {}).get("value", wall))
        row = make_row(task, str(obj.get("name", "")), verdict, seconds, obj.get("k"), len(props))
        if "error" in obj:
            row["note"] = str(obj["error"])
        rows.append(row)
    return rows
