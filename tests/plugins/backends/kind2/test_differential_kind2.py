"""kinduct and Kind 2 never contradict each other (slow): on every model of Kind 2's own
regression suite (``kind2-tests``: ``success`` and ``falsifiable``) and on a fixed random sample
of FMCAD08, every property both tools decide gets the same answer.

A model that either tool rejects (kinduct's frontend or Kind 2's ``log`` errors) is skipped; a
property one tool leaves undecided within the timeout compares with nothing.  Kind 2's
counterexamples pass kinduct's replay, so a falsifiable answer from either side is a checked
execution and a contradiction is a wrong verdict somewhere; a Kind 2 counterexample that no
execution of kinduct's system follows is a disagreement about the semantics and fails too.

One disagreement is deliberate (docs/lucent.md, "Differences from Kind 2"): a called node's
guarantee is owed only while its assumptions have held (the primer's "if the assumptions always
hold, the guarantees always hold"), where Kind 2 v3.0.0 also reports it falsified after the
caller broke them.  It is accepted only where it can arise: a callee's guarantee whose
instance's assumption kinduct falsifies.

Where Kind 2 contradicts itself (it proves a property that its own counterexample to another
property violates: ``kind2_faults``), kinduct's falsifiable answer is accepted.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from kinduct.kernel.errors import InputError, KinductError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.loading import load_systems
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.verdict import Answer
from kinduct.plugins.backends.kind2 import Kind2Backend
from tests.conftest import BENCH
from tests.plugins.backends.kind2.kind2_faults import refuted_by_own_trace

pytestmark = pytest.mark.slow

KIND2_TESTS = BENCH / "lustre" / "kind2-tests"
FMCAD08 = BENCH / "lustre" / "fmcad08"
TIMEOUT = 20.0
SAMPLE = 40
HOLDS = {Answer.VALID: True, Answer.UNREACHABLE: True, Answer.FALSIFIABLE: False,
         Answer.REACHABLE: False}


def _models() -> list[Path]:
    models: list[Path] = []
    for folder in ("success", "falsifiable"):
        models.extend(sorted((KIND2_TESTS / folder).glob("*.lus")))
    manifest = FMCAD08 / "manifest.csv"
    if manifest.is_file():
        with manifest.open(newline="") as fh:
            names = sorted(row["file"] for row in csv.DictReader(fh))
        models.extend(FMCAD08 / n for n in random.Random(17).sample(names, min(SAMPLE, len(names))))
    return models


def _param(model: Path):
    """The models where kinduct was once wrong (minimal causes in tests/data/kind2/wrong) are
    plain cases now: each must agree with Kind 2."""
    return pytest.param(model, id=f"{model.parent.name}/{model.name}")


def _instance(name: str) -> str:
    """``top.callee[L4C9].guarantee[L3C3]`` -> ``top.callee[L4C9]``: the callee instance."""
    return name.rsplit(".", 1)[0] if "." in name else ""


def _instances_with_broken_assumption(system, verdicts) -> set[str]:
    sources = {p.name: p.source for p in system.properties}
    return {_instance(v.property) for v in verdicts
            if sources.get(v.property) == "Assumption" and v.answer is Answer.FALSIFIABLE}


def _owed_only_while_assumed(system, theirs, broken: set[str]) -> bool:
    """Kind 2 falsified a callee's guarantee of an instance whose assumption the caller breaks:
    the documented difference, not a contradiction."""
    source = next((p.source for p in system.properties if p.name == theirs.property), None)
    return source in ("Guarantee", "Ensure") and _instance(theirs.property) in broken \
        and theirs.answer in (Answer.FALSIFIABLE, Answer.ERROR)


@pytest.mark.parametrize("model", [_param(m) for m in _models()])
def test_no_contradiction(model: Path):
    if Kind2Backend().binary() is None:
        pytest.skip("no Kind 2 binary (run `make kind2`)")
    try:
        systems = load_systems(model, None, LoadOptions())  # as `kinduct check` does
    except KinductError as exc:
        pytest.skip(f"kinduct does not read it: {str(exc).splitlines()[0]}")
    for system in systems:
        if not system.properties:
            continue
        ours = run(system, RunOptions(timeout=TIMEOUT))
        try:
            theirs = run(system, RunOptions(solver="kind2", timeout=TIMEOUT))
        except InputError as exc:
            pytest.skip(f"Kind 2 rejects it: {str(exc).splitlines()[0]}")
        broken = _instances_with_broken_assumption(system, ours)
        for a, b in zip(ours, theirs, strict=True):
            if _owed_only_while_assumed(system, b, broken):
                continue
            # Kind 2 falsified it, but no execution of kinduct's system does what it says (when
            # kinduct's own counterexample does not replay either, the gap is kinduct's own,
            # between its translation and its simulator, not one with Kind 2)
            disagree = a.answer is not Answer.ERROR and b.answer is Answer.ERROR and any(
                m in (b.message or "") for m in ("does not replay", "no execution"))
            assert not disagree, f"{model.name} {system.name}.{b.property}: {b.message}"
            if a.answer is Answer.FALSIFIABLE and b.answer is Answer.VALID \
                    and refuted_by_own_trace(system, b.property, theirs):
                continue
            if a.answer in HOLDS and b.answer in HOLDS:
                assert HOLDS[a.answer] == HOLDS[b.answer], (
                    f"{model.name} {system.name}.{a.property}: kinduct {a.answer.value}, "
                    f"Kind 2 {b.answer.value}")
