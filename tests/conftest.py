"""Shared fixtures: paths to the project, its examples and ../shared benchmarks, and a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"
BENCH = SHARED / "benchmarks"
KINDUCT = Path(sys.executable).parent / "kinduct"


def run_cli(*args: str, timeout: float = 120, input: str | None = None,
            env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the installed ``kinduct`` console script; text output."""
    return subprocess.run([str(KINDUCT), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, input=input, cwd=ROOT,
                          env={**os.environ, **(env or {})})


def run_here(*args: object) -> subprocess.CompletedProcess:
    """``kinduct ARGS`` run by :func:`kinduct.kernel.cli.main` in this process (no start-up
    of its own: for the paths that end before any engine runs, such as refusals of bad
    input); the result in the shape of a finished process."""
    import contextlib
    import io

    from kinduct.kernel.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return subprocess.CompletedProcess(["kinduct", *map(str, args)], code, out.getvalue(),
                                       err.getvalue())


def run_json(*args: str, timeout: float = 120) -> tuple[int, list[dict]]:
    proc = run_cli(*args, "--json", timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def properties(objects: list[dict]) -> dict[str, dict]:
    return {o["name"]: o for o in objects if o.get("objectType") == "property"}


@pytest.fixture(scope="module")
def kind2() -> str:
    """The real Kind 2 binary; a skip without one, a failure where CI requires it
    (``KINDUCT_REQUIRE_KIND2``, set by ``.ci/run`` after ``make kind2``)."""
    from kinduct.plugins.backends.kind2 import Kind2Backend

    binary = Kind2Backend().binary()
    if binary is None:
        if os.environ.get("KINDUCT_REQUIRE_KIND2"):
            pytest.fail("KINDUCT_REQUIRE_KIND2 is set but there is no Kind 2 (run `make kind2`)")
        pytest.skip("no Kind 2 binary (run `make kind2`)")
    return binary
