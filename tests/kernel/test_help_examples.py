"""Every command's ``--help`` example runs as written: no usage, input or internal error.

Each runs in a scratch directory that sees the project's ``examples/`` and ``tests/`` and the
shared benchmarks at ``../shared`` (as from a checkout), with a file ``model.EXT`` for the
generic examples (a copy of a real model of that extension).  Times are made short: every
``--timeout`` becomes :data:`SHORT` seconds and ``bench`` runs one model (``--limit 1``)."""

from __future__ import annotations

import dataclasses
import os
import re
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


# ---- the README's commands ----

README = ROOT / "README.md"
#: A usage synopsis, not a command: a placeholder (``FILE``, ``SPEC.crasp``, ``A``), an
#: optional part (``[...]``), alternatives (``a|b``) or an ellipsis.
SYNOPSIS = re.compile(r"(^|[\s=/(])[A-Z][A-Z0-9_]*(\.[a-z0-9]+)?(?=$|[\s,)])|\[|\||\.\.\.")
#: What the README shows with ``# exit N`` after a command or its output.
STATED_EXIT = re.compile(r"#\s*exit\s+(\d+)")
#: Blocks with a command that runs for seconds: ``slow``.
LONG = ("kinduct iospec test", "kinduct testgen", "make demo", "kinduct check")


@dataclasses.dataclass
class Command:
    """A README command: its text, the exit code the README states (None: any of
    :data:`DONE`) and the output lines it shows."""

    text: str
    exit: int | None = None
    shown: list[str] = dataclasses.field(default_factory=list)


def readme_blocks() -> list[list[Command]]:
    """Each fenced block's commands, in order: the lines after ``$ `` (then the lines up to the
    next are their output), and the ``kinduct``/``make demo`` lines that are no synopsis
    (``make test`` is the whole suite: not run from a test)."""
    text = README.read_text()
    blocks = []
    for body in re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M):
        commands: list[Command] = []
        for line in body.splitlines():
            command = None
            if line.startswith("$ "):
                command = line[2:]
            elif line.startswith("kinduct ") and not SYNOPSIS.search(line.split("  #")[0]):
                command = line
            elif line.strip() == "make demo":
                command = line.strip()
            if command is not None:
                commands.append(Command(command))
            elif commands:
                commands[-1].shown.append(line.split("  #")[0].strip())
            stated = STATED_EXIT.search(line)
            if stated and commands:
                commands[-1].exit = int(stated.group(1))
        if commands:
            blocks.append(commands)
    return blocks


def _block_id(block: list[Command]) -> str:
    return block[0].text[:60]


READMES = [pytest.param(b, id=_block_id(b),
                        marks=[pytest.mark.slow] if any(c.text.startswith(LONG) for c in b) else [])
           for b in readme_blocks()]


def test_the_readme_has_commands_to_run():
    runs = [c.text for b in readme_blocks() for c in b]
    assert any(c.startswith("kinduct check") and "--certificates" in c for c in runs)
    assert any(c.startswith("kinduct simulate") for c in runs)
    assert any(c.startswith("z3 ") for c in runs)


@pytest.mark.parametrize("block", READMES)
def test_the_readme_commands_run(block, scratch):
    """The commands of one README block, in order, in the scratch directory: each exits as
    the README says (else with a verdict code), without a traceback."""
    for command in block:
        argv = shlex.split(command.text.split("  #")[0])
        target = None
        if ">" in argv:  # stdout into a file
            argv, target = argv[:argv.index(">")], argv[argv.index(">") + 1]
        if argv[0] == "kinduct":
            argv = [str(KINDUCT), *argv[1:]]
        elif argv[0] == "z3":  # the binary of the z3-solver wheel, beside kinduct's
            if not (KINDUCT.parent / "z3").exists():
                pytest.skip("no z3 binary beside kinduct")
            argv = [str(KINDUCT.parent / "z3"), *argv[1:]]
        elif argv[0] == "make":  # the installed venv as it is (-o: no pip install)
            argv = ["make", "-C", str(ROOT), "-o", ".venv/.installed", *argv[1:]]
        proc = subprocess.run(argv, cwd=scratch, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL,
                              env={**os.environ, "PYTHONPATH": str(ROOT.parent)})
        if target is not None:
            (scratch / target).write_text(proc.stdout)
        if proc.returncode == 4 and argv[0] == str(KINDUCT):
            pytest.skip(f"a tool it needs is missing: {proc.stderr.strip()}")
        expected = DONE if command.exit is None else (command.exit,)
        assert proc.returncode in expected, (command.text, proc.returncode, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr, command.text
        if argv[0].endswith("z3"):  # a solver's answer is shown as it is
            assert proc.stdout.split() == [w for line in command.shown for w in line.split()]
