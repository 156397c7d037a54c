"""Test a program against a specification (§6, §8.5): for every satisfiable path within the
bound and every input sequence generated for it, run the program, normalise its trace and check
that the generalized trace of the same inputs covers it; stop at the first failure.

A run fails with the first mismatch of :func:`~kinduct.frontends.iospec.matching.cover`
(``alignment`` or ``output``), or, when its trace is covered so far, because it did not finish
within the time limit, twice (``timeout``: a run that times out is repeated once, so that a
start stalled by a loaded machine is not taken for a loop), wrote too much (``output-limit``)
or ended with a non-zero exit status (``exit-status``: a specification's ``stop`` is a
controlled stop, not a crash).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Literal

import attrs

from kinduct.frontends.iospec import ast as A
from kinduct.frontends.iospec.evaluate import EvalError
from kinduct.frontends.iospec.inputs import DEFAULT_PER_PATH, DEFAULT_RANGE, inputs_for_path
from kinduct.frontends.iospec.matching import Mismatch, cover
from kinduct.frontends.iospec.paths import MAX_PATHS, Bound, Path, shortest_first
from kinduct.frontends.iospec.runner import RunResult, run_program
from kinduct.frontends.iospec.semantics import gtrace
from kinduct.frontends.iospec.traces import GTrace, normalise
from kinduct.kernel.errors import KinductError

FailureKind = Literal["alignment", "output", "timeout", "output-limit", "exit-status"]
DEFAULT_TIME_LIMIT = 2.0


@attrs.frozen
class TestOptions:
    bound: Bound = Bound()
    per_path: int = DEFAULT_PER_PATH
    seed: int = 0
    value_range: int = DEFAULT_RANGE
    time_limit: float = DEFAULT_TIME_LIMIT
    int_bits: int | None = None
    prune: bool = True


@attrs.frozen
class Failure:
    """The first failing test: the input sequence, the program's run, the generalized trace it
    should be covered by, and the mismatch."""

    kind: FailureKind
    message: str
    inputs: tuple[int, ...]
    run: RunResult
    expected: GTrace
    mismatch: Mismatch | None
    path: Path


@attrs.frozen
class Report:
    paths: int
    tests: int
    passed: int
    failure: Failure | None
    warnings: tuple[str, ...]
    seconds: float


def judge(run: RunResult, expected: GTrace,
          time_limit: float) -> tuple[FailureKind, str, Mismatch | None] | None:
    """Why a run fails against the generalized trace of its inputs, or ``None`` when it passes."""
    mismatch = cover(run.trace, expected)
    if run.status == "exited":
        if mismatch is not None:
            return mismatch.kind, mismatch.message, mismatch
        if run.returncode:
            return ("exit-status", f"the run matches, but the program ended with exit status "
                    f"{run.returncode} (a crash, not a controlled stop)", None)
        return None
    steps = len(normalise(run.trace).steps)
    went_wrong = mismatch is not None and mismatch.program_step < steps
    if run.status == "timeout":
        head = f"the program did not finish within {time_limit:g} s (its process group was killed)"
    else:
        head = "the program wrote more output than the runner keeps (1 MiB), and was killed"
    if went_wrong:
        assert mismatch is not None
        return mismatch.kind, f"{mismatch.message} (and then {head})", mismatch
    due = f"; the specification expected {mismatch.expected} next" if mismatch else ""
    return ("timeout" if run.status == "timeout" else "output-limit"), head + due, None


def run_tests(spec: A.Spec, command: Sequence[str], options: TestOptions,
              on_test: Callable[[int, int], None] | None = None) -> Report:
    """Run every test (paths by increasing number of unfoldings) until the first failure;
    ``on_test(done, passed)`` is called after each run."""
    start = time.monotonic()
    rng = random.Random(options.seed)
    warnings: list[str] = []
    tests = passed = 0
    paths: list[Path] = []
    for path in shortest_first(spec, options.bound, options.prune, options.int_bits):
        paths.append(path)
        for inputs in inputs_for_path(path, options.per_path, rng, options.value_range).sequences:
            evaluation = gtrace(spec, inputs, options.int_bits)
            if evaluation.trace is None:
                assert evaluation.error is not None
                if evaluation.error.term and evaluation.error.loc is not None:
                    raise EvalError(f"on the inputs {list(inputs)}: {evaluation.error.message}",
                                    evaluation.error.loc)
                raise KinductError(f"internal error: the generated inputs {list(inputs)} have no "
                                   f"run of the specification ({evaluation.error.message})")
            warnings.extend(w for w in evaluation.warnings if w not in warnings)
            run = run_program(command, inputs, options.time_limit)
            if run.status == "timeout":
                # once more before calling it a failure: on a loaded machine a start can stall
                run = run_program(command, inputs, options.time_limit)
            tests += 1
            verdict = judge(run, evaluation.trace, options.time_limit)
            if verdict is not None:
                kind, message, mismatch = verdict
                failure = Failure(kind, message, inputs, run, evaluation.trace, mismatch, path)
                return Report(len(paths), tests, passed, failure, tuple(warnings),
                              time.monotonic() - start)
            passed += 1
            if on_test is not None:
                on_test(tests, passed)
    if not paths:
        warnings.append(f"no satisfiable path within {options.bound.unfoldings} unfoldings: "
                        "nothing was tested (raise --unfoldings or --max-inputs)")
    elif len(paths) >= MAX_PATHS:
        warnings.append(f"testing stopped after {MAX_PATHS} paths (lower --unfoldings or set "
                        "--max-inputs)")
    return Report(len(paths), tests, passed, None, tuple(warnings), time.monotonic() - start)
