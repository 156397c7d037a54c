"""Defects found by the differential fuzz run against Kind 2 (``benchmarks/fuzz_vs_kind2.py``,
issue 41), each as a minimal model, and the classes where Kind 2 v3.0.0 is shown wrong.

Every kinduct answer is compared with the one the primer's semantics gives by hand (written in
each test); where the real Kind 2 exists (the ``kind2`` fixture; CI requires it), its answers
are checked too: equal to kinduct's where Kind 2 is right, and equal to its documented wrong
answer where it is not (docs/design.md, "Where Kind 2 v3.0.0 is wrong"), so that a new class
of disagreement cannot hide behind an old one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import attrs
import pytest

import kinduct
from kinduct.kernel.fallback import PartialReport
from kinduct.kernel.runner import ProgressEvent
from tests.conftest import properties, run_cli


def kinduct_answers(tmp_path: Path, text: str, timeout: int = 20) -> dict[str, str]:
    path = tmp_path / "m.lus"
    path.write_text(text)
    proc = run_cli("check", path, "--json", "--timeout", str(timeout))
    assert "Traceback" not in proc.stderr, proc.stderr
    return {n: p["answer"]["value"] for n, p in properties(json.loads(proc.stdout)).items()}


def kind2_answers(binary: str, tmp_path: Path, text: str) -> dict[str, set[str]]:
    """Kind 2's answers by property (a set: Kind 2 can answer one property twice); its
    candidate invariants are left out."""
    path = tmp_path / "k.lus"
    path.write_text(text)
    proc = subprocess.run([binary, "-json", "--timeout", "20", str(path)], capture_output=True,
                          text=True, timeout=60)
    answers: dict[str, set[str]] = {}
    for o in json.loads(proc.stdout, strict=False):
        if o.get("objectType") == "property" and o.get("isCandidate") not in (True, "true"):
            answers.setdefault(o["name"], set()).add(o["answer"]["value"])
    return answers


# A `div` and a `mod` of the same operands: before, each had its own quotient and remainder
# and the law below was a non-linear fact the solvers did not find (unknown at 10 s; Kind 2
# proves both at once).  The second dividend is an out-of-range read, read three times: equal
# values, not equal terms.
EUCLID = """
node Top(x: int; b: bool; a: int^3; w: int) returns ();
var n: int;
let
  n = 0 -> pre n + (if b then 1 else 0);
  check "shared" n <> 0 => (x div n) * n + x mod n = x;
  check "reads" n <> 0 => (a[w] div n) * n + a[w] mod n = a[w];
tel
"""


def test_div_and_mod_of_the_same_operands_share_quotient_and_remainder(tmp_path):
    assert kinduct_answers(tmp_path, EUCLID, timeout=10) == {"shared": "valid", "reads": "valid"}


@pytest.mark.slow
def test_div_and_mod_as_kind2(kind2, tmp_path):
    assert kind2_answers(kind2, tmp_path, EUCLID) == {"shared": {"valid"}, "reads": {"valid"}}


# ---- where Kind 2 v3.0.0 is wrong (docs/design.md lists the classes) --------------------

# 1. Kind 2 folds a constant `div` by truncation: `(-7) div 3` is -2 to it, while its own
# symbolic division is Euclidean (`x = -7 => x div 3 = -3` is valid to it) and so is its
# folded `mod` ((-7) mod 3 = 2): the division law fails on constants.  By hand (SMT-LIB's
# Euclidean division, Kind 2's for streams): -7 = 3 * (-3) + 2, so all three hold.
DIV_FOLD = """
node Top(x: int) returns ();
let
  check "folded" (-7) div 3 = -3;
  check "symbolic" x = -7 => x div 3 = -3;
  check "law" 3 * ((-7) div 3) + (-7) mod 3 = -7;
tel
"""

# 2. A spurious subrange counterexample on an aliased local: `al = s` with `s` an input of the
# subrange type (an assumption), so `al` is within it at every step; Kind 2's counterexample
# (s = 1, al = 1, one step) does not violate the range; its IC3 says "Falsified property
# 'SubRange[L3C1]' (l=1) was proven 1-true too!".  The unused `s mod i` is needed.
ALIAS = """
type Small = subrange [0, 20] of int;
node Top(s: Small; i: int) returns ();
var r: int; al: Small;
let
  r = s mod i;
  al = s;
tel
"""

# 3. One mode reported both reachable and unreachable: `require true` holds at the first
# step, whatever the contract's guarantees; Kind 2's contract-check analysis assumes the
# (false) guarantee and calls the mode unreachable, its main analysis calls it reachable.
MODE = """
node H(p: int) returns (y: int);
con
  guarantee false;
  mode m1 ( require true; ensure true; );
noc
let
  y = 0;
tel
"""


def test_kind2_wrong_classes_kinduct(tmp_path):
    assert kinduct_answers(tmp_path, DIV_FOLD) == {"folded": "valid", "symbolic": "valid", "law": "valid"}
    assert kinduct_answers(tmp_path, ALIAS) == {"SubRange[L4C1]": "valid"}
    got = kinduct_answers(tmp_path, MODE)
    assert got["m1[L5C3]"] == "reachable" and got["guarantee[L4C3]"] == "falsifiable"


@pytest.mark.slow
def test_kind2_wrong_classes_as_documented(kind2, tmp_path):
    assert kind2_answers(kind2, tmp_path, DIV_FOLD) == {
        "folded": {"falsifiable"}, "symbolic": {"valid"}, "law": {"falsifiable"}}
    assert kind2_answers(kind2, tmp_path, ALIAS) == {"SubRange[L4C1]": {"falsifiable"}}
    assert kind2_answers(kind2, tmp_path, MODE)["m1[L5C3]"] == {"reachable", "unreachable"}


# ---- the watchdog's fallback report ------------------------------------------------------

# Eight instances of a node with a contract, and properties each falsified by its own input:
# a run that finds many counterexamples.  The fallback report (what the watchdog prints if it
# ends the run) was rendered again at each verdict, lifting every earlier counterexample again:
# quadratic, so such a run could still be rendering when the watchdog ended it, and printed
# every property unknown (the fuzz run's model 134: 13.8 s for an analysis of 5 s).
MANY = "\n".join([
    "node H(p: int; q: bool) returns (y: int);",
    "con guarantee q; mode m1 ( require q; ensure y > p; ); mode m2 ( require not q; ensure true; ); noc",
    "let y = 0 -> pre y + p; tel",
    "node Top(x: int; b: bool) returns ();",
    "var " + "; ".join(f"h{k}: int" for k in range(8)) + ";",
    "let",
    *[f"  h{k} = H(x + {k}, b);" for k in range(8)],
    *[f'  check "p{k}" x <> {k} or h{k % 8} > 100;' for k in range(24)],
    "tel",
])


def test_the_fallback_report_lifts_each_counterexample_once(tmp_path):
    path = tmp_path / "many.lus"
    path.write_text(MANY)
    report = kinduct.check(path, timeout=60)
    ((system, verdicts),) = report.analyses
    falsified = [v for v in verdicts if v.trace is not None]
    assert len(falsified) >= 24
    lifted: list[str] = []

    def counting(trace, prop):
        lifted.append(prop.name if prop is not None else "")
        return system.lift(trace, prop)

    partial = PartialReport([attrs.evolve(system, lift=counting)], [], True, 60.0, 1.2,
                            lambda text: None)
    for verdict in verdicts:
        partial(ProgressEvent("verdict", verdict=verdict))
    rendered = json.loads(partial.render())
    assert sorted(lifted) == sorted(v.property for v in falsified)
    assert {o["name"] for o in rendered if o.get("objectType") == "property"} == {
        v.property for v in verdicts}
