"""The last line of defence for ``--timeout`` in a command-line run: a timer thread that ends
a run still busy after its limit, and a forked sentinel for a run stuck where no thread can
run (a native solver call that holds the interpreter, as cvc5's check does)."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

from kinduct.kernel.report import log_object

#: How long after ``--timeout`` the watchdog ends a run that is still busy (seconds); never
#: sooner than this after the command itself started (a loaded machine can spend the whole
#: limit starting Python).
GRACE = 1.5

#: How long after the watchdog the sentinel kills a run stuck in native code (seconds): the
#: whole limit is then ``--timeout`` + 1.9 s.
SENTINEL_MARGIN = 0.4


#: Process groups of external checkers running now (:func:`track`): killed when the watchdog
#: ends the run, so none outlives it.
_GROUPS: set[int] = set()


@contextlib.contextmanager
def track(group: int) -> Iterator[None]:
    """While the block runs, the process group ``group`` (an external checker started in a
    session of its own) is killed if the watchdog ends the run."""
    _GROUPS.add(group)
    try:
        yield
    finally:
        _GROUPS.discard(group)


def arm(process_start: float, timeout: float | None, as_json: bool) -> None:
    """The last line of defence for ``--timeout``: a run still busy ``GRACE`` seconds after
    its limit (a long solver call, a frontend loop) ends at once, with unknown's exit code."""
    if timeout is None:
        return

    def expire() -> None:
        for group in list(_GROUPS):  # external checkers (Kind 2) end with the run
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)
        message = f"timeout: no answer within {timeout:g} s"
        if as_json:
            sys.stdout.write(json.dumps([log_object("error", "kinduct", message)], indent=2) + "\n")
        sys.stderr.write(f"kinduct: {message}\n")
        with _quiet():
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(30)  # engines die with this process (PR_SET_PDEATHSIG)

    now = time.monotonic()
    delay = max(GRACE, process_start + timeout + GRACE - now)
    fork_sentinel(delay + SENTINEL_MARGIN)
    timer = threading.Timer(delay, expire)
    timer.daemon = True
    timer.start()


def fork_sentinel(delay: float) -> None:
    """A native solver call that holds the interpreter (cvc5's does) keeps the watchdog's
    thread from running: a forked sentinel, which dies with this process, kills it ``delay``
    seconds from now if it is still there (exit status: killed, not Kind 2's 30)."""
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        atexit.register(_stop_sentinel, pid)
        return
    try:
        from kinduct.kernel.runner import die_with_parent

        die_with_parent(parent)
        time.sleep(delay)
        if os.getppid() == parent:
            os.write(2, f"kinduct: timeout: still busy {delay:.1f} s after the watchdog was "
                        "due (a solver call did not return); killed\n".encode())
            os.kill(parent, signal.SIGKILL)
    finally:
        os._exit(0)


def _stop_sentinel(pid: int) -> None:
    """A run that ends normally takes its sentinel with it, so nothing of it outlives the
    command (the sentinel would die with it anyway, a moment later)."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)



class _quiet:
    """Swallow any error (a closed pipe) while flushing on the way out."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return True
