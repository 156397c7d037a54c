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
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from typing import Any

import attrs

from kinduct.plugins.bench.suite import Model

#: Answers that decide a property.
DEFINITIVE = ("valid", "falsifiable", "reachable", "unreachable")

#: Seconds a task gets beyond its timeout before its process group is killed.
GRACE = 10.0

#: Environment variable marking every process of one task (see :func:`kill_marked`).
MARKER = "KINDUCT_BENCH_TASK"

COLUMNS = ("file", "property", "engine", "solver", "verdict", "expected", "wrong", "time", "k")

_RUNNING: dict[int, str] = {}  # task pid -> its environment marker
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
        cmd = [sys.executable, "-m", "kinduct.script", "check", self.model.path, "--json",
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


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc (empty where there is no /proc)."""
    out: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        out.setdefault(ppid, []).append(int(entry))
    return out


def kill_tree(pid: int) -> None:
    """SIGKILL a task process and everything it started.  The kernel's runner puts each engine
    in its own session, so killing the task's process group alone would orphan the engines
    (and they would hold the task's stdout open); the tree is read before anything dies."""
    for _ in range(2):  # a second sweep catches processes forked during the first
        tree, children = [pid], _children()
        i = 0
        while i < len(tree):
            tree.extend(children.get(tree[i], []))
            i += 1
        for p in tree:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(p, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, signal.SIGKILL)


def kill_marked(marker: str) -> None:
    """SIGKILL every process whose environment carries this task's marker: engines that a
    crashed or killed task left behind (they run in sessions of their own and are orphaned
    by then, so no process tree leads to them)."""
    needle = f"{MARKER}={marker}".encode()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
        except OSError:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(int(entry), signal.SIGKILL)


def kill_running() -> None:
    """Kill every task still running (on Ctrl-C or SIGTERM)."""
    with _LOCK:
        running = list(_RUNNING.items())
    for pid, marker in running:
        kill_tree(pid)
        kill_marked(marker)


def wait_exit(proc: subprocess.Popen, timeout: float) -> int:
    """``proc.wait(timeout)`` that returns as soon as the process ends (its exit code), or
    raises :class:`subprocess.TimeoutExpired`.  ``Popen.wait`` with a timeout polls, sleeping up
    to 0.05 s between looks, so the wall times of short runs came out up to 0.05 s long (by
    0.025 s on average); where Linux gives a process file descriptor (``pidfd_open``), this
    waits on it instead."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # no pidfd here, or the process is already reaped
        return proc.wait(timeout=timeout)
    try:
        ready, _, _ = select.select([pidfd], [], [], timeout)
    finally:
        os.close(pidfd)
    if not ready:
        raise subprocess.TimeoutExpired(proc.args, timeout)
    return proc.wait()


def run_task(task: Task) -> list[dict]:
    """Rows for every property the task reports, or one ``error`` row."""
    start = time.monotonic()
    marker = f"{os.getpid()}-{uuid.uuid4().hex}"
    env = {**os.environ, MARKER: marker}
    # output goes to files, not pipes: a stray engine holding a pipe open cannot stall us
    with tempfile.TemporaryFile("w+") as out_file, tempfile.TemporaryFile("w+") as err_file:
        try:
            proc = subprocess.Popen(task.command(), stdout=out_file, stderr=err_file,
                                    stdin=subprocess.DEVNULL, text=True, start_new_session=True,
                                    env=env)
        except OSError as exc:
            return error_rows(task, f"cannot start kinduct: {exc}", 0.0)
        with _LOCK:
            _RUNNING[proc.pid] = marker
        timed_out = False
        try:
            wait_exit(proc, task.timeout + GRACE)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            with _LOCK:
                _RUNNING.pop(proc.pid, None)
            if proc.poll() is None:  # overran, or the bench is interrupted
                kill_tree(proc.pid)
            kill_marked(marker)
            proc.wait()
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    if timed_out:
        return error_rows(task, f"killed: no answer {task.timeout + GRACE:g} s after the start",
                          time.monotonic() - start)
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
        # k: the depth of a verdict, or for an unknown the bound it reached (Kind 2's trueFor)
        k = obj.get("k", obj.get("trueFor", obj.get("unreachableFor")))
        row = make_row(task, str(obj.get("name", "")), verdict, seconds, k, len(props))
        if "error" in obj:
            row["note"] = str(obj["error"])
        rows.append(row)
    return rows
