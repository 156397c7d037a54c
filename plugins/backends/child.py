"""Work that may not end in time, run in a forked child process that is killed at its deadline
(cvc5's interpolation and quantifier elimination ignore cvc5's own time limits)."""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable


def text_in_child(work: Callable[[], str | None], seconds: float | None) -> str | None:
    """``work()`` run in a forked child process, killed after ``seconds`` (None: no limit);
    None when it fails, gives None or runs out of time."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        code = 1
        try:
            os.close(read)
            text = work()
            if text is not None:
                os.write(write, text.encode())
                code = 0
        except BaseException:  # noqa: BLE001 - any failure is "no answer"
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    chunks: list[bytes] = []
    deadline = None if seconds is None else time.monotonic() + seconds
    try:
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                os.kill(pid, signal.SIGKILL)
                return None
            ready, _, _ = select.select([read], [], [], left)
            if not ready:
                continue
            chunk = os.read(read, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    return b"".join(chunks).decode()
