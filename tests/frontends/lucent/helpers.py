"""Shared helpers for the Lucent tests: load a model in-process and decide its properties."""

from __future__ import annotations

from pathlib import Path

import pytest

from kinduct.frontends.lucent.pipeline import load_checked, load_systems
from kinduct.frontends.lucent.sim.simulate import Simulator
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from tests.conftest import EXAMPLES, run_cli

LUCENT = EXAMPLES / "lucent"


def verdicts(path: Path, timeout: float = 60, **options) -> dict[str, object]:
    """Property name → verdict, over every analysis of the file."""
    out = {}
    for system in load_systems(path, LoadOptions(**options)):
        for v in run(system, RunOptions(timeout=timeout)):
            out[v.property] = v
    return out


def answers(path: Path, **options) -> dict[str, str]:
    return {k: v.answer.value for k, v in verdicts(path, **options).items()}


def simulate(path: Path, inputs: list[dict], main: str | None = None) -> list[dict]:
    checked = load_checked(path)
    if main is None:
        main = checked.top_nodes()[0]
    return Simulator(checked, main).run(inputs)


def write(tmp_path: Path, text: str, name: str = "m.lus") -> Path:
    """A model file ``name`` in ``tmp_path`` holding ``text``."""
    p = tmp_path / name
    p.write_text(text)
    return p


def refusal(path: Path, error: type[InputError] = InputError, analyse: bool = False) -> InputError:
    """The ``error`` that loading ``path`` raises (type-checked, or translated into systems
    when ``analyse``); the test fails if the model loads."""
    with pytest.raises(error) as e:
        if analyse:
            load_systems(path, LoadOptions())
        else:
            load_checked(path)
    return e.value


def place(error: InputError) -> tuple[int, int]:
    """An input error's (line, column)."""
    return error.location.line, error.location.column


def cli_refusal(path: Path) -> str:
    """What ``kinduct check path`` prints, which must be an input error (exit 3) without a
    traceback."""
    proc = run_cli("check", path)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stderr
