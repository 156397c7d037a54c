"""Every command's ``--help`` example runs as written: no usage, input or internal error.

Each runs in a scratch directory that sees the project's ``examples/`` and ``tests/`` and the
shared benchmarks at ``../shared`` (as from a checkout), with a file ``model.EXT`` for the
generic examples (a copy of a real model of that extension).  Times are made short: every
``--timeout`` becomes :data:`SHORT` seconds and ``bench`` runs one model (``--limit 1``)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

import pytest

from kinduct.kernel.cli import build_parser
from tests.conftest import EXAMPLES, KINDUCT, ROOT, SHARED
from tests.kernel.test_cli_help import LEAVES

SHORT = "3"
#: A real model for each extension a generic example names (``model.vmt``, ``model.lus``).
MODELS = {".vmt": EXAMPLES / "vmt" / "counter_bug.vmt", ".lus": EXAMPLES / "lucent" / "combine.lus"}
#: Examples that read what another example writes, and that example.
NEEDS = {"data.csv": "kinduct crasp sample tomita2 --n 200 --out data.csv"}
#: The exit codes of a run that worked: Kind 2's verdict codes (``monitor``: 0 held, 40
#: violated; frontends/lucent/monitor.py).
DONE = (0, 30, 40)
CODES: dict[str, tuple[int, ...]] = {}


def _example(text: str) -> list[str]:
    return shlex.split(text.split("example:", 1)[1].strip().splitlines()[0].split("  (")[0])


EXAMPLES_BY_COMMAND = {"kinduct": _example(build_parser().format_help()),
                       **{" ".join(w): _example(p.format_help()) for w, p in LEAVES}}


def _short(argv: list[str]) -> list[str]:
    out = list(argv)
    for i, arg in enumerate(out[:-1]):
        if arg == "--timeout":
            out[i + 1] = SHORT
    if argv[1:2] == ["bench"]:
        out += ["--limit", "1", "--jobs", "1"]
    return out


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    base = tmp_path_factory.mktemp("examples")
    work = base / "work"
    work.mkdir()
    (work / "examples").symlink_to(EXAMPLES)
    (work / "tests").symlink_to(ROOT / "tests")
    if SHARED.exists():
        (base / "shared").symlink_to(SHARED)
    for ext, model in MODELS.items():
        shutil.copy(model, work / f"model{ext}")
    return work


@pytest.mark.slow
@pytest.mark.parametrize("command", list(EXAMPLES_BY_COMMAND))
def test_the_help_example_runs(command, scratch):
    argv = _short(EXAMPLES_BY_COMMAND[command])
    for name, producer in NEEDS.items():
        if name in argv and not (scratch / name).exists():
            subprocess.run([str(KINDUCT), *shlex.split(producer)[1:]], cwd=scratch, timeout=120,
                           capture_output=True, check=True)
    if "../shared" in " ".join(argv) and not SHARED.exists():
        pytest.skip("no shared benchmarks")
    proc = subprocess.run([str(KINDUCT), *argv[1:]], cwd=scratch, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(ROOT.parent)})
    if proc.returncode == 4:
        pytest.skip(f"a tool it needs is missing: {proc.stderr.strip()}")
    assert proc.returncode in CODES.get(command, DONE), (argv, proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
