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
- a sentinel process (:mod:`kinduct.kernel.sentinel`) does the same ``SENTINEL_MARGIN``
  seconds later when the thread cannot run (a native solver call that holds the interpreter,
  as cvc5's check does), killing this process;
- external checkers' process groups (:func:`track`) end with the run.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import struct
import sys
import threading
import time
from collections.abc import Iterator
from typing import NoReturn, TextIO

from kinduct.kernel import sentinel
from kinduct.kernel.report import log_object

#: How long after ``--timeout`` the watchdog ends a run that is still busy (seconds); never
#: sooner than this after the command itself started (a loaded machine can spend the whole
#: limit starting Python).
GRACE = 1.2

#: How long after the watchdog's thread the sentinel ends a run stuck in native code
#: (seconds): a run ends by ``--timeout`` + ``GRACE`` + ``SENTINEL_MARGIN`` = T + 1.6 s.
SENTINEL_MARGIN = 0.4

#: How long after ``--timeout`` a report still being written is cut short (seconds; by the
#: sentinel ``SENTINEL_MARGIN`` later when the watchdog's thread is stuck).
LAST_CALL = 1.9



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


def _send(state: _State, kind: bytes, payload: bytes) -> None:
    if state.messages is None:
        return
    data = memoryview(kind + struct.pack("<Q", len(payload)) + payload)  # slices copy nothing
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
    _send(state, sentinel.GROUP_ADD, struct.pack("<q", group))
    try:
        yield
    finally:
        state.groups.discard(group)
        _send(state, sentinel.GROUP_DROP, struct.pack("<q", group))


def fallback(text: str) -> None:
    """What the watchdog prints on stdout if it ends the run: the command's report with every
    property unknown ("timeout"), rendered now, while there is time."""
    state = _STATE
    if state is None:
        return
    state.fallback = text
    _send(state, sentinel.FALLBACK, text.encode())


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
    # the sentinel acts SENTINEL_MARGIN after this process's own thread, at both instants: a
    # report cut short at ``last`` then ends with the run's code, not the sentinel's kill
    messages = _start_sentinel(delay + SENTINEL_MARGIN, last + SENTINEL_MARGIN - now, token,
                               message, default)
    state = _State(token, messages, default)
    _STATE = state
    sys.stdout = _Stdout(sys.stdout, state)

    def expire() -> None:
        if not sentinel.take_token(state.token):
            # this process's report is being written (or the sentinel is ending the run)
            time.sleep(max(0.0, last - time.monotonic()))
            _exit(state, state.code if state.code is not None else 30)
        _exit(state, 30, state.fallback, message)

    timer = threading.Timer(delay, expire)
    timer.daemon = True
    timer.start()


def _exit(state: _State, code: int, text: str = "", message: str = "") -> NoReturn:
    for group in list(state.groups):  # external checkers (Kind 2) end with the run
        sentinel.kill_group(group)
    with contextlib.suppress(Exception):
        sentinel.write_all(1, text.encode())
        if message:
            sentinel.write_all(2, f"kinduct: {message}\n".encode())
    os._exit(code)  # engines die with this process (PR_SET_PDEATHSIG)


class _Stdout:
    """``sys.stdout`` of an armed run: the first write takes the token, so the report and the
    watchdog's fallback never both go out; everything else is the real stream's."""

    def __init__(self, stream: TextIO, state: _State) -> None:
        self._stream = stream
        self._state = state

    def write(self, text: str) -> int:
        if not self._state.reporting:
            if not sentinel.take_token(self._state.token):  # the watchdog is ending the run
                while True:
                    time.sleep(1.0)
            self._state.reporting = True
        return self._stream.write(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _start_sentinel(delay: float, last: float, token: int, message: str, default: str) -> int | None:
    """Start the sentinel (:mod:`kinduct.kernel.sentinel`): ``delay`` seconds from now it ends
    this process if the watchdog's thread has not (writing the fallback it was last sent, when
    no report has begun), and ``last`` seconds from now it kills a report still being written.
    It is spawned as a script of its own (a fork of this process would cost the run the copy
    of every page it writes afterwards), else forked.  Returns the write end of the pipe that
    carries the fallback and the tracked process groups to it (None: no sentinel)."""
    parent = os.getpid()
    read_end, write_end = os.pipe()
    now = time.monotonic()
    args = (parent, read_end, now + delay, now + last, token, message, default)
    if os.path.isfile(sentinel.__file__):
        try:
            os.set_inheritable(read_end, True)
            os.set_inheritable(token, True)
            os.posix_spawn(sys.executable, sentinel.spawn_arguments(*args), os.environ)
            os.close(read_end)
            return write_end
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                os.set_inheritable(token, False)
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
        sentinel.die_with_parent(parent)
        sentinel.watch(*args)
    finally:
        os._exit(0)
