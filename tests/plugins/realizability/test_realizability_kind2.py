"""``kinduct check --realizability`` against the real Kind 2 v3.0.0 (``--enable CONTRACTCK``):
on every model of ``tests/data/realizability`` and the two examples, the same analyses in the
same order and the same results wherever both answer (Kind 2's type and constant analyses,
which kinduct does not do, are left out).

They skip only where no Kind 2 exists at all; ``KINDUCT_REQUIRE_KIND2=1`` turns that skip into a
failure.  A few models run by default, the rest are ``slow``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kinduct.kernel.cli import main

DATA = Path(__file__).resolve().parents[2] / "data" / "realizability"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "lucent"
#: The default suite's models.  ``unrealizable`` (Kind 2 runs to its 20 s limit on it) is slow
#: only; its verdict is also checked by the default suite's own realizability tests.
QUICK = {"imported_bounds", "memory_conflict", "env_deadlock", "modes_conflict", "body_ignored"}
MODELS = sorted(DATA.glob("*.lus")) + [EXAMPLES / "realizable.lus", EXAMPLES / "unrealizable.lus"]


def results(objects: list[dict]) -> list[tuple[str, str, str, str | None]]:
    """(top, context, realizability, satisfiability) per node analysis, in order."""
    out = []
    current: list | None = None
    for o in objects:
        kind = o.get("objectType")
        if kind == "analysisStart" and o.get("context") in ("contract", "environment"):
            current = [o["top"], o["context"], None, None]
        elif kind == "realizabilityCheck" and current is not None:
            current[2] = o["result"]
        elif kind == "satisfiabilityCheck" and current is not None:
            current[3] = o["result"]
        elif kind == "analysisStop" and current is not None:
            out.append(tuple(current))
            current = None
    return out


@pytest.mark.parametrize("model", [pytest.param(m, id=m.stem, marks=() if m.stem in QUICK
                                                else pytest.mark.slow) for m in MODELS])
def test_same_answers_as_kind2(model: Path, kind2: str, capsys) -> None:
    proc = subprocess.run([kind2, "--enable", "CONTRACTCK", "-json", "--timeout", "20", str(model)],
                          capture_output=True, text=True, timeout=60)
    theirs = results(json.loads(proc.stdout))
    main(["check", "--realizability", str(model), "--json", "--timeout", "60"])
    ours = results(json.loads(capsys.readouterr().out))
    assert [a[:2] for a in ours][:len(theirs)] == [a[:2] for a in theirs]
    for (top, context, real, sat), (_, _, real2, sat2) in zip(ours, theirs, strict=False):
        if real2 in ("realizable", "unrealizable") and real != "unknown":
            assert real == real2, f"{top} ({context}): kinduct {real}, Kind 2 {real2}"
        if sat2 in ("satisfiable", "unsatisfiable") and sat not in (None, "unknown"):
            assert sat == sat2, f"{top} ({context}) satisfiability: kinduct {sat}, Kind 2 {sat2}"
    if proc.returncode in (0, 40):  # Kind 2 finished (30: its timeout; then kinduct may know more)
        decided = [a for a in ours if a[2] != "unknown"]
        assert len(decided) == len(ours), "kinduct unknown where Kind 2 answered"
