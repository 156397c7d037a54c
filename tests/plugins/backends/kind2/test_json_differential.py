"""kinduct's ``-json`` against the real Kind 2 v3.0.0's, model by model: the kinds of objects,
the field names of each kind, and, where both decide a property, its answer.  Both outputs
validate against :mod:`tests.kind2_schema`.

Every difference left is an addition of kinduct's (``scope``, ``solver``, ``reason``, ...) or
listed in :data:`MISSING` with its reason.  Skips only when there is no Kind 2 binary."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, properties, run_cli
from tests.kind2_schema import validate

LUCENT = EXAMPLES / "lucent"
TIMEOUT = "5"

#: Fields Kind 2 writes that kinduct does not, by object kind, and why.
MISSING = {
    # the property's expression as written: the kernel's Property has no source text (it names
    # an unnamed property by its expression, which is then in ``name``)
    "property": {"expr"},
}

#: The models: properties that are valid, falsified (counterexamples with subnodes, records,
#: enumerations), modes (contracts), and an unknown by timeout (``combine.lus`` under bmc).
MODELS = ["combine.lus", "modes.lus", "records.lus", "enum.lus", "counter.lus", "max.lus",
          "fibonacci.lus", "hold.lus"]
FAST = {"combine.lus", "counter.lus"}


def _kind2_objects(kind2: str, model: Path, *extra: str, timeout: str = TIMEOUT) -> list[dict]:
    proc = subprocess.run([kind2, "-json", "--timeout", timeout, *extra, str(model)],
                          capture_output=True, text=True, timeout=120)
    return json.loads(proc.stdout)


def _ours(model: Path, *extra: str, timeout: str = TIMEOUT) -> list[dict]:
    proc = run_cli("-json", "--timeout", timeout, *extra, model, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def _by_place(objects: list[dict]) -> dict[tuple[int, int, str], dict]:
    """Properties by position and source; a key two of them share is left out."""
    keys = [((p["line"], p["column"], p["source"]), p) for p in properties(objects).values()]
    counts = Counter(key for key, _ in keys)
    return {key: p for key, p in keys if counts[key] == 1}


def _fields(objects: list[dict]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for obj in objects:
        if obj["objectType"] == "log" and obj.get("level") == "info":
            continue  # Kind 2's version line
        out.setdefault(obj["objectType"], set()).update(obj)
    return out


def _block_fields(objects: list[dict]) -> set[str]:
    """The field names of counterexample blocks and streams, at every depth."""
    found: set[str] = set()

    def walk(blocks: list[dict]) -> None:
        for block in blocks:
            found.update(f"block.{k}" for k in block)
            for stream in block.get("streams", []):
                found.update(f"stream.{k}" for k in stream)
            walk(block.get("subnodes") or [])

    for prop in properties(objects).values():
        walk(prop.get("counterExample") or [])
    return found


@pytest.mark.parametrize("model", [pytest.param(m, marks=() if m in FAST else pytest.mark.slow)
                                   for m in MODELS])
def test_kinduct_writes_what_kind2_writes(kind2, model):
    path = LUCENT / model
    theirs, ours = _kind2_objects(kind2, path), _ours(path)
    validate(theirs)
    validate(ours)
    their_fields, our_fields = _fields(theirs), _fields(ours)
    assert set(their_fields) <= set(our_fields), (set(their_fields), set(our_fields))
    for kind, names in their_fields.items():
        lacking = names - our_fields[kind] - MISSING.get(kind, set())
        assert not lacking, f"{model}: {kind} objects lack {sorted(lacking)}"
    # properties by position (Kind 2 names an unnamed one InvProp[L12C3], kinduct by its text)
    mine, kind2s = _by_place(ours), _by_place(theirs)
    both = [place for place in mine if place in kind2s
            and mine[place]["answer"]["value"] != "unknown"
            and kind2s[place]["answer"]["value"] != "unknown"]
    for place in both:
        assert mine[place]["answer"]["value"] == kind2s[place]["answer"]["value"], (model, place)
    if model == "combine.lus":  # both decide both of its properties: the comparison is not empty
        assert len(both) == 2, (mine.keys(), kind2s.keys())
    if any(p.get("counterExample") for p in kind2s.values()) and \
            any(p.get("counterExample") for p in mine.values()):
        lacking = _block_fields(theirs) - _block_fields(ours)
        assert not lacking, (model, lacking)


def test_an_unknown_by_timeout_has_true_for_as_kind2s(kind2):
    """combine.lus under bmc alone: the valid property stays unknown in both, with a bound
    (both wait the whole time out: 2 s, not the others' 5)."""
    path = LUCENT / "combine.lus"
    theirs = properties(_kind2_objects(kind2, path, "--enable", "BMC", timeout="2"))
    ours = properties(_ours(path, "--enable", "BMC", timeout="2"))
    (their_unknown,) = [p for p in theirs.values() if p["answer"]["value"] == "unknown"]
    (our_unknown,) = [p for p in ours.values() if p["answer"]["value"] == "unknown"]
    assert their_unknown["trueFor"] > 0 and our_unknown["trueFor"] > 0
    assert set(their_unknown) - set(our_unknown) <= MISSING["property"]
