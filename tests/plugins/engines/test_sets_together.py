"""Issue 42: six set/map checks of one node are decided together (they were all `unknown`,
"incomplete quantifiers", where each alone was decided), also beside a falsifiable seventh
whose counterexample replays; compared with the real Kind 2.  No timing here:
benchmarks/sets_together.py prints the time beside Kind 2's."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.conftest import ROOT, properties, run_json

MODEL = ROOT / "tests" / "data" / "lucent" / "sets_maps_together.lus"
VALID = ["union", "inter", "diff", "update_read", "update_keeps", "restrict"]


def _kinduct(main: str) -> dict[str, dict]:
    _, objects = run_json("check", MODEL, "--main", main, "--timeout", "60", timeout=120)
    return properties(objects)


def _set(text: str) -> set[int]:
    """A printed set of integers, ``{1, 2}``, read independently of kinduct's printer."""
    assert re.fullmatch(r"\{[-0-9, ]*\}", text), text
    return {int(t) for t in text.strip("{}").split(",") if t.strip()}


def test_six_valid_checks_decided_together():
    got = _kinduct("SetsMaps")
    assert {n: got[n]["answer"]["value"] for n in VALID} == dict.fromkeys(VALID, "valid")


def test_a_falsifiable_sibling_does_not_hide_the_others():
    got = _kinduct("SetsMapsWrong")
    assert {n: got[n]["answer"]["value"] for n in VALID} == dict.fromkeys(VALID, "valid")
    wrong = got["wrong_union"]
    assert wrong["answer"]["value"] == "falsifiable", wrong
    # the kernel replayed the trace (else the answer is an internal error); read it again:
    # at its last step x is in neither set, so `x in s1 + s2` fails there
    streams = {s["name"]: s["instantValues"] for s in wrong["counterExample"][0]["streams"]}
    x = streams["x"][-1][1]
    assert x not in _set(streams["s1"][-1][1]) | _set(streams["s2"][-1][1])


def test_same_answers_as_kind2(kind2):
    for main in ("SetsMaps", "SetsMapsWrong"):
        proc = subprocess.run([kind2, "-json", "--timeout", "60", "--lus_main", main, str(MODEL)],
                              capture_output=True, text=True, timeout=120)
        theirs = {o["name"]: o["answer"]["value"] for o in json.loads(proc.stdout)
                  if o.get("objectType") == "property"}
        # Kind 2's unknown is its time running out (on a loaded machine it ran out on every
        # property once): kinduct is held to the answers Kind 2 gives
        decided = {n: a for n, a in theirs.items() if a != "unknown"}
        if not decided:
            pytest.skip(f"Kind 2 decided nothing for {main}: {proc.stdout[-300:]}")
        ours = {n: v["answer"]["value"] for n, v in _kinduct(main).items()}
        assert set(ours) == set(theirs), main
        assert {n: ours[n] for n in decided} == decided, main
