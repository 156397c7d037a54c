"""Run a real program on an input sequence and record its trace, within a time limit.

The program reads standard input and writes standard output, one value per line.  To record
*when* it reads (the trace interleaves inputs and outputs), inputs are not written ahead: the
runner gives the next line only once the program waits for input, that is, once every thread
of its processes sleeps and one of them sits in ``read`` on its standard input (Linux's
``/proc/PID/task/TID/syscall``); a group whose threads sleep in an event loop's wait (``poll``,
``select``, ``epoll``: Node, GHC's I/O manager), or whose system calls cannot be read, counts as
waiting once it has been quiet, with nothing left to read, for :data:`QUIET` seconds.
Whatever the program wrote before it waited is read first, so the trace is
``outputs ?v outputs ?v ... stop``.  Standard
output is a pipe, whose writes are visible at once; so that programs do not keep their output in
a buffer while they wait, the child gets ``PYTHONUNBUFFERED=1`` and, where ``stdbuf`` exists,
runs under ``stdbuf -oL`` (line-buffered C stdio).  A program that asks for more values than
there are gets end of input, recorded as ``?⊥`` when it was seen to read.  Blank output lines
carry no value and are not recorded; a line the program leaves without its newline when it
waits for input counts as one output.

The program runs in its own session and process group; at the end of the run (it exited, the
time limit passed, or it wrote more than :data:`MAX_OUTPUT` bytes) the whole group is killed.
"""

from __future__ import annotations

import fcntl
import os
import platform
import shutil
import signal
import subprocess
import tempfile
import termios
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import attrs

from kinduct.frontends.iospec.traces import Event, In, Print, Trace, output_value
from kinduct.kernel.errors import UsageError

MAX_OUTPUT = 1 << 20
QUIET = 0.05
#: System calls that read a file descriptor given as their first argument.
_READS = {"x86_64": {0, 17, 19, 295}, "aarch64": {63, 65, 67, 69}}.get(platform.machine(), set())
#: System calls that wait on several descriptors (event loops: Node, GHC's I/O manager, ...).
_POLLS = {"x86_64": {7, 23, 232, 270, 271, 281, 441},
          "aarch64": {22, 72, 73, 441}}.get(platform.machine(), set())

RunStatus = Literal["exited", "timeout", "output-limit"]


@attrs.frozen
class RunResult:
    """A program's run: its trace (up to where it was stopped), how it ended, its exit status
    (``None`` when it was killed) and the end of what it wrote to standard error."""

    trace: Trace
    status: RunStatus
    returncode: int | None
    stderr: str
    seconds: float


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            text = Path(f"/proc/{pid}/task/{tid}/children").read_text()
        except OSError:
            continue
        out.extend(int(c) for c in text.split())
    return out


def _group(pid: int) -> list[int]:
    """The program's process and its descendants."""
    found, stack = [], [pid]
    while stack:
        p = stack.pop()
        found.append(p)
        stack.extend(_children(p))
    return found


def _tasks(pid: int) -> list[str]:
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


def _state(path: str) -> str:
    """The one-letter state in ``path/stat`` (``X`` when it is gone)."""
    try:
        text = Path(f"{path}/stat").read_text()
    except OSError:
        return "X"
    return text[text.rfind(")") + 2:][:1]


def _wait(path: str) -> str:
    """What the task at ``path`` waits in: ``read0`` (a read of descriptor 0), ``poll`` (an
    event loop's wait), ``other``, or ``unknown`` (``/proc/.../syscall`` cannot be read)."""
    if not _READS:
        return "unknown"
    try:
        fields = Path(f"{path}/syscall").read_text().split()
    except OSError:
        return "unknown"
    if not fields or not fields[0].isdigit():
        return "other" if fields[:1] == ["running"] else "unknown"
    number = int(fields[0])
    if number in _READS and len(fields) > 1 and int(fields[1], 16) == 0:
        return "read0"
    return "poll" if number in _POLLS else "other"


class _Waiting:
    """Decides whether the program waits for input."""

    def __init__(self, pid: int, probe: int) -> None:
        self.pid = pid
        self.probe = probe
        self.quiet_since: float | None = None

    def unread(self) -> int:
        buf = bytearray(4)
        fcntl.ioctl(self.probe, termios.FIONREAD, buf)
        return int.from_bytes(buf, "little")

    def __call__(self, now: float) -> Literal["read", "quiet"] | None:
        """``read``: a thread reads standard input; ``quiet``: the program may be waiting for
        input (an event loop, or no way to tell); ``None``: it is busy or waits for something
        else."""
        tasks = [f"/proc/{p}/task/{t}" for p in _group(self.pid) for t in _tasks(p)]
        states = {t: _state(t) for t in tasks}
        live = [t for t, s in states.items() if s not in ("Z", "X")]
        if not live or any(states[t] == "R" for t in live) or self.unread():
            self.quiet_since = None
            return None
        waits = {_wait(t) for t in live}
        if "read0" in waits:
            return "read"
        if waits & {"poll", "unknown"}:
            if self.quiet_since is None:
                self.quiet_since = now
            return "quiet" if now - self.quiet_since >= QUIET else None
        self.quiet_since = None
        return None


def _command(command: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    stdbuf = shutil.which("stdbuf")
    prefix = [stdbuf, "-oL"] if stdbuf else []
    return [*prefix, *command], env


class _Fds:
    """The pipe ends the runner holds, each closed exactly once."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}

    def close(self, name: str) -> None:
        fd = self.open.pop(name, None)
        if fd is not None:
            os.close(fd)

    def close_all(self) -> None:
        for name in list(self.open):
            self.close(name)


def run_program(command: Sequence[str], inputs: Sequence[int], time_limit: float) -> RunResult:
    """Run ``command`` on ``inputs`` (one per line) and record its trace."""
    argv, env = _command(command)
    start = time.monotonic()
    fds = _Fds()
    fds.open["stdin_r"], fds.open["stdin_w"] = os.pipe()
    fds.open["out_r"], fds.open["out_w"] = os.pipe()
    fds.open["probe"] = os.dup(fds.open["stdin_r"])
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(argv, stdin=fds.open["stdin_r"], stdout=fds.open["out_w"],
                                    stderr=err, env=env, start_new_session=True, close_fds=True)
        except OSError as exc:
            fds.close_all()
            raise UsageError(f"cannot run {command[0]!r}: {exc.strerror or exc}") from None
        fds.close("stdin_r")
        fds.close("out_w")
        os.set_blocking(fds.open["out_r"], False)
        try:
            events, status = _interact(proc, inputs, fds, start + time_limit)
        finally:
            fds.close_all()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
        err.seek(0)
        stderr = err.read()[-2000:].decode("utf-8", "replace")
    returncode = proc.returncode if status == "exited" else None
    return RunResult(Trace(tuple(events)), status, returncode, stderr, time.monotonic() - start)


def _interact(proc: subprocess.Popen, inputs: Sequence[int], fds: _Fds,
              deadline: float) -> tuple[list[Event], RunStatus]:
    events: list[Event] = []
    pending = b""
    total = 0
    fed = 0
    out_r = fds.open["out_r"]
    waiting = _Waiting(proc.pid, fds.open["probe"])
    pause = 0.0002
    at_end = False

    def drain() -> bool:
        """Read what the program wrote; True when something came."""
        nonlocal pending, total, at_end
        got = False
        while not at_end:
            try:
                chunk = os.read(out_r, 65536)
            except BlockingIOError:
                return got
            if not chunk:
                at_end = True
                return got
            got = True
            total += len(chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            events.extend(Print(output_value(x.decode("utf-8", "replace")))
                          for x in lines if x.strip())
        return got

    status: RunStatus = "exited"
    while True:
        activity = drain()
        if total > MAX_OUTPUT:
            status = "output-limit"
            break
        if proc.poll() is not None:
            break
        now = time.monotonic()
        if now > deadline:
            status = "timeout"
            break
        wait = waiting(now) if "stdin_w" in fds.open else None
        if wait is not None:
            drain()
            if pending.strip():  # a line without its newline, written before the read
                events.append(Print(output_value(pending.decode("utf-8", "replace"))))
            pending = b""
            if fed < len(inputs):
                try:
                    os.write(fds.open["stdin_w"], f"{inputs[fed]}\n".encode())
                except BrokenPipeError:
                    fds.close("stdin_w")
                events.append(In(inputs[fed]))
                fed += 1
            else:
                fds.close("stdin_w")
                if wait == "read":  # it asked for a value there is not (an event loop
                    events.append(In(None))  # that merely waits just sees the end)
            activity = True
        pause = 0.0002 if activity else min(pause * 2, 0.005)
        time.sleep(pause)
    if status == "exited":
        # What the program wrote just before it exited; a descendant that keeps standard
        # output open is not waited for beyond a moment.
        end = time.monotonic() + 0.05
        while not at_end and time.monotonic() < end and total <= MAX_OUTPUT:
            if not drain():
                time.sleep(0.001)
    if pending.strip():
        events.append(Print(output_value(pending.decode("utf-8", "replace"))))
    return events, status
