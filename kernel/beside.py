"""Work beside this process: a computation forked off to use a second core while this process
does something else, its (picklable) result read back when it is needed.

The fork shares the parent's memory as it is (a loaded model is not copied, only the pages
the child writes), so a computation over a large model starts at once.  Wherever the child
cannot give its result (the fork fails, it raises, it dies), :meth:`Beside.result` computes
it in this process instead: the result is always the function's own, never a substitute.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable
from typing import Generic, TypeVar

from kinduct.kernel.sentinel import die_with_parent
from kinduct.kernel.verdict import Trace

T = TypeVar("T")

_OK = b"o"

#: Values in a trace (over all its steps) from which work on it goes beside (:func:`worth_a_fork`):
#: each of the replays and the contract simulation of a 1 MB Lucent model's step-0
#: counterexample (55,000 values) took about half a second; a fork costs a few hundredths.
FORK_FROM_VALUES = 20_000


def worth_a_fork(trace: Trace) -> bool:
    """Whether work on ``trace`` is large enough to go beside (:data:`FORK_FROM_VALUES`)."""
    return sum(len(step) for step in trace.steps) >= FORK_FROM_VALUES


class Beside(Generic[T]):
    """``compute()`` running in a forked child from the moment this is made."""

    def __init__(self, compute: Callable[[], T]) -> None:
        self._compute = compute
        self._pid: int | None = None
        self._read: int | None = None
        parent = os.getpid()
        try:
            read, write = os.pipe()
            pid = os.fork()
        except OSError:
            return
        if pid == 0:  # the child: compute, send, and end without any of the parent's cleanup
            os.close(read)
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
                die_with_parent(parent)
                payload = _OK + pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as out:
                    out.write(payload)
                code = 0
            except BaseException:  # noqa: BLE001, S110 - the parent computes it instead
                pass
            os._exit(code)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> T:
        """The computation's result: the child's, or where it gave none, computed here."""
        if self._pid is None or self._read is None:
            return self._compute()
        data = b""
        with os.fdopen(self._read, "rb") as src:
            data = src.read()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self._pid, 0)
        self._pid = self._read = None
        if data[:1] == _OK:
            try:
                return pickle.loads(data[1:])  # noqa: S301 - our own child's bytes
            except Exception:  # noqa: BLE001, S110 - computed here instead
                pass
        return self._compute()
