"""The watchdog's sentinel (:mod:`kinduct.kernel.watchdog`): a small process that ends a run
stuck in native code, and the process helpers it shares with the engines' processes.

It imports only Python's standard library, so it also runs as a script of its own in a fresh
interpreter (``python -I -S sentinel.py ARGS``, :func:`spawn_arguments`): spawning it costs the
kinduct process about a millisecond, where forking it cost 0.01 s of an easy model's run (the
fork shares every page of a large process, and each page the run writes afterwards is copied).

Its protocol: it reads messages from a pipe (``kind`` byte, little-endian length, payload:
:data:`FALLBACK` the report to print, :data:`GROUP_ADD`/:data:`GROUP_DROP` a process group
to kill with the run) until its due time; an empty read means the run ended.  Then, when the
run is still there, it takes the token (a pipe holding one byte: whoever reads it writes
stdout) and writes the fallback, or lets a report being written finish until the last call,
and kills the run and its groups.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import struct
import sys
import time

GROUP_ADD, GROUP_DROP, FALLBACK = b"G", b"g", b"F"


def die_with_parent(parent: int) -> None:
    """Engines lead their own process groups (so timeouts can kill whole trees); ask Linux to
    kill this one if the kinduct process that started it dies, however it dies."""
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def kill_group(pid: int) -> None:
    """Kill the process group led by ``pid`` and ``pid`` itself (it may have left the group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def take_token(token: int) -> bool:
    """Whether this caller now owns stdout (of the run, its watchdog thread and its sentinel,
    only one ever does: the one that reads the token's single byte)."""
    try:
        return os.read(token, 1) == b"x"
    except OSError:  # BlockingIOError: another one has it
        return False


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)  # a slice of it copies nothing: a 44 MB report is written once
    while view:
        view = view[os.write(fd, view):]


def watch(parent: int, messages: int, due: float, last: float, token: int, message: str,
          text: str) -> None:
    """The sentinel's loop: read what the parent sends until ``due`` (a ``time.monotonic``
    instant), then end it (``last``: when a report still being written is cut short)."""
    groups: set[int] = set()
    buffer = bytearray()  # grows in place: a large report (a 1 MB model's: 44 MB) is read in
    start = 0  # linear time; ``start``: where the first message not yet taken begins
    while time.monotonic() < due:
        ready, _, _ = select.select([messages], [], [], max(0.0, due - time.monotonic()))
        if not ready:
            continue
        chunk = os.read(messages, 1 << 20)
        if not chunk:
            return  # the parent ended
        buffer += chunk
        while len(buffer) - start >= 9 and \
                len(buffer) - start >= 9 + struct.unpack_from("<Q", buffer, start + 1)[0]:
            size = struct.unpack_from("<Q", buffer, start + 1)[0]
            kind, payload = bytes(buffer[start:start + 1]), bytes(buffer[start + 9:start + 9 + size])
            start += 9 + size
            if start * 2 >= len(buffer):  # what was taken goes, at most once per its size
                del buffer[:start]
                start = 0
            if kind == FALLBACK:
                text = payload.decode()
            elif kind == GROUP_ADD:
                groups.add(struct.unpack("<q", payload)[0])
            elif kind == GROUP_DROP:
                groups.discard(struct.unpack("<q", payload)[0])
    if os.getppid() != parent:
        return
    if take_token(token):
        with contextlib.suppress(OSError):
            write_all(1, text.encode())
            write_all(2, f"kinduct: {message} (a solver call did not return; killed)\n".encode())
    else:  # a report is being written: it gets until the last call
        time.sleep(max(0.0, last - time.monotonic()))
        if os.getppid() != parent:
            return
    for group in groups:
        kill_group(group)
    with contextlib.suppress(OSError):
        os.kill(parent, signal.SIGKILL)


def spawn_arguments(parent: int, messages: int, due: float, last: float, token: int,
                    message: str, text: str) -> list[str]:
    """The command line of a sentinel run as a script (:func:`main` reads it back)."""
    return [sys.executable, "-I", "-S", __file__, str(parent), str(messages), repr(due),
            repr(last), str(token), message, text]


def main(argv: list[str]) -> None:
    """The sentinel as a script: :func:`watch` with the arguments of :func:`spawn_arguments`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to report
    parent, messages, due, last, token = (int(argv[0]), int(argv[1]), float(argv[2]),
                                          float(argv[3]), int(argv[4]))
    die_with_parent(parent)
    try:
        watch(parent, messages, due, last, token, argv[5], argv[6])
    finally:
        os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
