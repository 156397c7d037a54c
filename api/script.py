"""The ``kinduct`` console script: Ctrl-C while the solver stack is still loading ends the
run quietly (exit code 130), never with a ``KeyboardInterrupt`` traceback; ``kinduct
--version`` answers before anything else is imported."""

from __future__ import annotations

import gc
import os
import signal
import sys


def _interrupted_during_start_up(_signum, _frame) -> None:
    sys.stderr.write("kinduct: interrupted\n")
    os._exit(130)


def _version() -> int:
    """``kinduct --version`` without loading the command line (or anything else: the version
    is read as :mod:`kinduct.kernel.distributions` reads it, without ``importlib.metadata``)."""
    from kinduct.kernel.distributions import version

    sys.stdout.write(f"kinduct {version('kinduct') or '0+unknown'}\n")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--version"]:
        return _version()
    previous = signal.signal(signal.SIGINT, _interrupted_during_start_up)
    gc.disable()  # start-up makes little garbage: the command line enables it (kernel.cli.main)
    from kinduct.kernel.cli import main as cli_main  # plugins register; solvers load when a run needs them

    signal.signal(signal.SIGINT, previous)
    return cli_main()


if __name__ == "__main__":  # python -m kinduct.script: the console script with this interpreter
    raise SystemExit(main())
