"""The ``kinduct`` console script: Ctrl-C while the solver stack is still loading ends the
run quietly (exit code 130), never with a ``KeyboardInterrupt`` traceback."""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_during_start_up(_signum, _frame) -> None:
    sys.stderr.write("kinduct: interrupted\n")
    os._exit(130)


def main() -> int:
    previous = signal.signal(signal.SIGINT, _interrupted_during_start_up)
    from kinduct.kernel.cli import main as cli_main  # the slow imports: pysmt, z3, cvc5, rich

    signal.signal(signal.SIGINT, previous)
    return cli_main()
