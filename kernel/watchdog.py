"""The last line of defence for ``--timeout`` in a command-line run.

The run's own deadline (the runner's) counts wall time, but on a starved machine the CPU time
this process gets to finish its work (stop the engines, render the report, tear down the
interpreter) is not the wall time that passes.  So, once armed:

- the report is written once: the first write to ``sys.stdout`` takes a token that the watchdog
  takes too, so a report and the watchdog's answer never both go out (:class:`_Stdout`);
- the command ends with :func:`done` as soon as its report is out (no interpreter teardown);
- ``GRACE`` seconds after ``--timeout`` a timer thread ends a run still busy, writing the
  *fallback* (:func:`fallback`: the command's report with every property unknown, "timeout"),
  or a ``log`` error when there is none yet;
- a forked sentinel does the same ``SENTINEL_MARGIN`` seconds later when the thread cannot run
  (a native solver call that holds the interpreter, as cvc5's check does), killing this process;
- external checkers' process groups (:func:`track`) end with the run.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import signal
import struct
import sys
import threading
import time
from collections.abc import Iterator
from typing import NoReturn, TextIO

from kinduct.kernel.processes import die_with_parent, kill_group
from kinduct.kernel.report import log_object

#: How long after ``--timeout`` the watchdog ends a run that is still busy (seconds); never
#: sooner than this after the command itself started (a loaded machine can spend the whole
#: limit starting Python).
GRACE = 1.2

#: How long after the watchdog's thread the sentinel ends a run stuck in native code
#: (seconds): a run ends by ``--timeout`` + ``GRACE`` + ``SENTINEL_MARGIN`` = T + 1.6 s.
SENTINEL_MARGIN = 0.4

#: How long after ``--timeout`` a report still being written is cut short (seconds).
LAST_CALL = 1.9

_GROUP_ADD, _GROUP_DROP, _FALLBACK = b"G", b"g", b"F"


class _State:
    """What an armed watchdog shares with its thread, its sentinel and :class:`_Stdout`."""

    def __init__(self, token: int, messages: int | None, default: str) -> None:
        self.token = token  # read end of a pipe holding one byte: whoever reads it writes stdout
        self.messages = messages  # write end of the pipe to the sentinel (None: no sentinel)
        self.fallback = default
        self.groups: set[int] = set()
        self.reporting = False  # this process's report took the token
        self.code: int | None = None  # the command's exit code, once it is known


_STATE: _State | None = None


def _take_token(token: int) -> bool:
    """Whether this caller now owns stdout (of this process, its thread and its sentinel, only
    one ever does: the one that reads the token's single byte)."""
    try:
        return os.read(token, 1) == b"x"
    except OSError:  # BlockingIOError: another one has it
        return False


def _send(state: _State, kind: bytes, payload: bytes) -> None:
    if state.messages is None:
        return
    data = kind + struct.pack("<Q", len(payload)) + payload
    with contextlib.suppress(OSError):
        while data:
            data = data[os.write(state.messages, data):]


@contextlib.contextmanager
def track(group: int) -> Iterator[None]:
    """While the block runs, the process group ``group`` (an external checker started in a
    session of its own) is killed if the watchdog ends the run."""
    state = _STATE
    if state is None:
        yield
        return
    state.groups.add(group)
    _send(state, _GROUP_ADD, struct.pack("<q", group))
    try:
        yield
    finally:
        state.groups.discard(group)
        _send(state, _GROUP_DROP, struct.pack("<q", group))


def fallback(text: str) -> None:
    """What the watchdog prints on stdout if it ends the run: the command's report with every
    property unknown ("timeout"), rendered now, while there is time."""
    state = _STATE
    if state is None:
        return
    state.fallback = text
    _send(state, _FALLBACK, text.encode())


def done(code: int) -> int:
    """The command's report is out: end this process at once with ``code`` when the watchdog
    is armed (an interpreter's teardown can take seconds on a loaded machine, and nothing is
    left to do); otherwise return ``code``."""
    state = _STATE
    if state is None:
        return code
    state.code = code
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def arm(process_start: float, timeout: float | None, as_json: bool) -> None:
    """Enforce ``timeout`` (seconds from ``process_start``, a ``time.monotonic`` instant) on
    this whole process; nothing happens when it is None."""
    global _STATE
    if timeout is None or _STATE is not None:
        return
    message = f"timeout: no answer within {timeout:g} s"
    default = json.dumps([log_object("error", "kinduct", message)], indent=2) + "\n" \
        if as_json else ""
    token, token_in = os.pipe()
    os.write(token_in, b"x")
    os.close(token_in)
    fcntl.fcntl(token, fcntl.F_SETFL, fcntl.fcntl(token, fcntl.F_GETFL) | os.O_NONBLOCK)
    now = time.monotonic()
    delay = max(GRACE, process_start + timeout + GRACE - now)
    last = max(now + delay + SENTINEL_MARGIN, process_start + timeout + LAST_CALL)
    messages = _fork_sentinel(delay + SENTINEL_MARGIN, last - now, token, message, default)
    state = _State(token, messages, default)
    _STATE = state
    sys.stdout = _Stdout(sys.stdout, state)

    def expire() -> None:
        if not _take_token(state.token):
            # this process's report is being written (or the sentinel is ending the run)
            time.sleep(max(0.0, last - time.monotonic()))
            _exit(state, state.code if state.code is not None else 30)
        _exit(state, 30, state.fallback, message)

    timer = threading.Timer(delay, expire)
    timer.daemon = True
    timer.start()


def _exit(state: _State, code: int, text: str = "", message: str = "") -> NoReturn:
    for group in list(state.groups):  # external checkers (Kind 2) end with the run
        kill_group(group)
    with contextlib.suppress(Exception):
        _write_all(1, text.encode())
        if message:
            _write_all(2, f"kinduct: {message}\n".encode())
    os._exit(code)  # engines die with this process (PR_SET_PDEATHSIG)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


class _Stdout:
    """``sys.stdout`` of an armed run: the first write takes the token, so the report and the
    watchdog's fallback never both go out; everything else is the real stream's."""

    def __init__(self, stream: TextIO, state: _State) -> None:
        self._stream = stream
        self._state = state

    def write(self, text: str) -> int:
        if not self._state.reporting:
            if not _take_token(self._state.token):  # the watchdog is ending the run
                while True:
                    time.sleep(1.0)
            self._state.reporting = True
        return self._stream.write(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _fork_sentinel(delay: float, last: float, token: int, message: str, default: str) -> int | None:
    """Fork the sentinel: ``delay`` seconds from now it ends this process if the watchdog's
    thread has not (writing the fallback it was last sent, when no report has begun), and
    ``last`` seconds from now it kills a report still being written.  Returns the write end of
    the pipe that carries the fallback and the tracked process groups to it (None: no fork)."""
    parent = os.getpid()
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid:
        os.close(read_end)
        return write_end
    try:
        os.close(write_end)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to report
        die_with_parent(parent)
        _watch(parent, read_end, time.monotonic() + delay, time.monotonic() + last, token,
               message, default)
    finally:
        os._exit(0)


def _watch(parent: int, messages: int, due: float, last: float, token: int, message: str,
           text: str) -> None:
    """The sentinel's loop: read what the parent sends until ``due``, then end it."""
    groups: set[int] = set()
    buffer = b""
    while time.monotonic() < due:
        ready, _, _ = select.select([messages], [], [], max(0.0, due - time.monotonic()))
        if not ready:
            continue
        chunk = os.read(messages, 1 << 16)
        if not chunk:
            return  # the parent ended
        buffer += chunk
        while len(buffer) >= 9 and len(buffer) >= 9 + struct.unpack("<Q", buffer[1:9])[0]:
            size = struct.unpack("<Q", buffer[1:9])[0]
            kind, payload, buffer = buffer[:1], buffer[9:9 + size], buffer[9 + size:]
            if kind == _FALLBACK:
                text = payload.decode()
            elif kind == _GROUP_ADD:
                groups.add(struct.unpack("<q", payload)[0])
            elif kind == _GROUP_DROP:
                groups.discard(struct.unpack("<q", payload)[0])
    if os.getppid() != parent:
        return
    if _take_token(token):
        with contextlib.suppress(OSError):
            _write_all(1, text.encode())
            _write_all(2, f"kinduct: {message} (a solver call did not return; killed)\n".encode())
    else:  # a report is being written: it gets until the last call
        time.sleep(max(0.0, last - time.monotonic()))
        if os.getppid() != parent:
            return
    for group in groups:
        kill_group(group)
    with contextlib.suppress(OSError):
        os.kill(parent, signal.SIGKILL)
